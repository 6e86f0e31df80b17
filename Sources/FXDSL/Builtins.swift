import FXIR
import Foundation

// Operators and the shader built-ins, with Metal's names and meanings
// (Metal Shading Language Specification §6: common, geometric, math functions).
// Built-ins that are not primitive ops are written here in terms of primitives,
// so every later stage sees only the op set of ``Op``.

extension Expr {
  public static func + (a: Expr, b: Expr) -> Expr { lanewise(.add, [a, b], name: "operator +") }
  public static func - (a: Expr, b: Expr) -> Expr { lanewise(.sub, [a, b], name: "operator -") }
  public static func * (a: Expr, b: Expr) -> Expr { lanewise(.mul, [a, b], name: "operator *") }
  public static func / (a: Expr, b: Expr) -> Expr { lanewise(.div, [a, b], name: "operator /") }
  public static prefix func - (a: Expr) -> Expr { lanewise(.neg, [a], name: "unary -") }
  public static func += (a: inout Expr, b: Expr) { a = a + b }
  public static func -= (a: inout Expr, b: Expr) { a = a - b }
  public static func *= (a: inout Expr, b: Expr) { a = a * b }

  public static func < (a: Expr, b: Expr) -> Expr { lanewise(.lt, [a, b], name: "operator <") }
  public static func <= (a: Expr, b: Expr) -> Expr { lanewise(.le, [a, b], name: "operator <=") }
  public static func > (a: Expr, b: Expr) -> Expr { lanewise(.gt, [a, b], name: "operator >") }
  public static func >= (a: Expr, b: Expr) -> Expr { lanewise(.ge, [a, b], name: "operator >=") }
  public static func == (a: Expr, b: Expr) -> Expr { lanewise(.eq, [a, b], name: "operator ==") }
  public static func != (a: Expr, b: Expr) -> Expr { lanewise(.ne, [a, b], name: "operator !=") }

  /// Logical and (bool) — both sides are evaluated; there are no side effects.
  public static func && (a: Expr, b: Expr) -> Expr { lanewise(.and, [a, b], name: "operator &&") }
  public static func || (a: Expr, b: Expr) -> Expr { lanewise(.or, [a, b], name: "operator ||") }
  public static prefix func ! (a: Expr) -> Expr { lanewise(.not, [a], name: "operator !") }

  /// Bitwise operators on int (wrapping, 32-bit).
  public static func & (a: Expr, b: Expr) -> Expr { lanewise(.and, [a, b], name: "operator &") }
  public static func | (a: Expr, b: Expr) -> Expr { lanewise(.or, [a, b], name: "operator |") }
  public static func ^ (a: Expr, b: Expr) -> Expr { lanewise(.xor, [a, b], name: "operator ^") }
  public static prefix func ~ (a: Expr) -> Expr { lanewise(.not, [a], name: "operator ~") }
  /// Shift left; the amount is taken mod 32.
  public static func << (a: Expr, b: Expr) -> Expr { lanewise(.shl, [a, b], name: "operator <<") }
  /// Arithmetic shift right (Metal `>>` on `int`); the amount is taken mod 32.
  public static func >> (a: Expr, b: Expr) -> Expr { lanewise(.shr, [a, b], name: "operator >>") }
}

/// Logical shift right (Metal `>>` on `uint`); the amount is taken mod 32.
public func ushr(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  Expr.lanewise(.ushr, [a, b], name: "ushr", at: CodeLocation(file: file, line: line))
}

private func call(_ op: Op, _ args: [Expr], _ name: String, _ file: String, _ line: Int) -> Expr {
  Expr.lanewise(op, args, name: name, at: CodeLocation(file: file, line: line))
}

private func requireFloat(_ name: String, _ args: [Expr], _ file: String, _ line: Int) -> Expr? {
  if let e = args.lazy.compactMap(\.node.error).first { return Expr(.invalid(e), .float) }
  if let bad = args.first(where: { $0.type.scalar != .float }) {
    return .invalid("\(name) needs float operands, got \(bad.type)", CodeLocation(file: file, line: line))
  }
  return nil
}

public func min(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.min, [a, b], "min", file, line)
}
public func max(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.max, [a, b], "max", file, line)
}
public func abs(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.abs, [a], "abs", file, line) }
public func floor(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.floor, [a], "floor", file, line)
}
public func ceil(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.ceil, [a], "ceil", file, line) }
/// Each lane rounded to the nearest IEEE 754 binary16 (`half`) value, as a
/// float: ties to even, ±∞ from ±65,520 on, a NaN unchanged
/// (``Semantics/roundHalf(_:)``; what an Apple GPU keeps of a `half` result).
public func roundHalf(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.roundHalf, [a], "roundHalf", file, line)
}
public func sqrt(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.sqrt, [a], "sqrt", file, line) }
public func sin(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.sin, [a], "sin", file, line) }
public func cos(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.cos, [a], "cos", file, line) }
/// eˣ, within 1 ulp (``Transcendentals``).
public func exp(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.exp, [a], "exp", file, line) }
/// Natural logarithm; −∞ at ±0, NaN below 0; within 1 ulp (``Transcendentals``).
public func log(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr { call(.log, [a], "log", file, line) }
/// aᵇ for a ≥ +0, within `1.5·(1 + |b·log₂a|)` ulp (``Transcendentals``); C's powf for a negative or −0 base.
public func pow(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.pow, [a, b], "pow", file, line)
}
/// `a·b + c` rounded once (IEEE 754 fusedMultiplyAdd, Metal's `fma`): float
/// operands of one lane count or scalars.
public func fma(_ a: Expr, _ b: Expr, _ c: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.fma, [a, b, c], "fma", file, line)
}
/// atan2(y, x), radians in −π…π, within 1 ulp (``Transcendentals``).
public func atan2(_ y: Expr, _ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.atan2, [y, x], "atan2", file, line)
}
/// True where `a` is NaN.
public func isnan(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.isNaN, [a], "isnan", file, line)
}
/// True where `a` is neither NaN nor ±∞.
public func isfinite(_ a: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  if let e = requireFloat("isfinite", [a], file, line) { return e }
  return abs(a, file: file, line: line) < Expr(Float.infinity)
}

/// `select(c, a, b)`: `a` where `c` is true, else `b` (the order of C's `c ? a : b`;
/// note Metal's own `select(b, a, c)` puts the condition last).
public func select(_ c: Expr, _ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.select, [c, a, b], "select", file, line)
}

/// `min(max(x, lo), hi)` (Metal `clamp`).
public func clamp(_ x: Expr, _ lo: Expr, _ hi: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  min(max(x, lo, file: file, line: line), hi, file: file, line: line)
}
/// `clamp(x, 0, 1)` (Metal `saturate`).
public func saturate(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  clamp(x, 0, 1, file: file, line: line)
}
/// `x + (y − x)·t` (Metal `mix`), the product and sum rounded once:
/// `fma(y − x, t, x)`, as Metal's compilers contract it. `t = 0` gives x.
public func mix(_ x: Expr, _ y: Expr, _ t: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  if let e = requireFloat("mix", [x, y, t], file, line) { return e }
  return fma(y - x, t, x, file: file, line: line)
}
/// 0 where `x < edge`, else 1 (Metal `step`).
public func step(_ edge: Expr, _ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  if let e = requireFloat("step", [edge, x], file, line) { return e }
  return select(x < edge, 0, 1, file: file, line: line)
}
/// Hermite `t²(3 − 2t)` with `t = clamp((x − e0)/(e1 − e0), 0, 1)` (Metal `smoothstep`).
public func smoothstep(_ e0: Expr, _ e1: Expr, _ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  if let e = requireFloat("smoothstep", [e0, e1, x], file, line) { return e }
  let t = saturate((x - e0) / (e1 - e0), file: file, line: line)
  return t * t * (3 - 2 * t)
}
/// `x − floor(x)`, capped below 1 (Metal `fract`: `fmin(x − floor(x), 0x1.fffffep-1)`).
public func fract(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  if let e = requireFloat("fract", [x], file, line) { return e }
  return min(x - floor(x), Expr(Float(0x1.fffffep-1)))
}
/// Sum of lane-wise products, a float, accumulated in lane order with fused
/// multiply-adds: `fma(a₂, b₂, fma(a₁, b₁, a₀·b₀))` for three lanes.
public func dot(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  if let e = requireFloat("dot", [a, b], file, line) { return e }
  guard a.type.lanes == b.type.lanes else {
    return .invalid("dot needs two vectors of one length, got (\(a.type), \(b.type))", CodeLocation(file: file, line: line))
  }
  return (1..<a.type.lanes).reduce(a.lane(0) * b.lane(0)) { fma(a.lane($1), b.lane($1), $0, file: file, line: line) }
}
/// Euclidean length `sqrt(dot(v, v))`.
public func length(_ v: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  sqrt(dot(v, v, file: file, line: line), file: file, line: line)
}
/// `length(a − b)`.
public func distance(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  length(a - b, file: file, line: line)
}
/// `v / length(v)`.
public func normalize(_ v: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  v / length(v, file: file, line: line)
}

/// int → float.
public func float(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  x.type.scalar == .float ? x : call(.toFloat, [x], "float", file, line)
}
/// int as unsigned 32-bit → float (Metal `float(uint)`).
public func floatFromUnsigned(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.toFloatUnsigned, [x], "floatFromUnsigned", file, line)
}
/// A float's 32 bits as an int (Metal `as_type<int>(x)`).
public func floatBits(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.floatBits, [x], "floatBits", file, line)
}
/// An int's 32 bits as a float (Metal `as_type<float>(i)`).
public func bitsFloat(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.bitsFloat, [x], "bitsFloat", file, line)
}
/// float → int, truncating toward zero; saturates at Int32's bounds, NaN → 0.
public func int(_ x: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  x.type.scalar == .int ? x : call(.toInt, [x], "int", file, line)
}

/// Builds a vector from scalars and vectors whose lanes add up to `lanes`.
private func vector(_ lanes: Int, _ parts: [Expr], _ file: String, _ line: Int) -> Expr {
  let name = "float\(lanes)"
  if let e = requireFloat(name, parts, file, line) { return e }
  if parts.count == 1, parts[0].type.lanes == 1 {
    return Expr(.vector(Array(repeating: parts[0].node, count: lanes)), ValueType(.float, lanes))
  }
  let total = parts.reduce(0) { $0 + $1.type.lanes }
  guard total == lanes else {
    let sig = parts.map(\.type.description).joined(separator: ", ")
    return .invalid("\(name)(\(sig)) has \(total) lanes, needs \(lanes)", CodeLocation(file: file, line: line))
  }
  return Expr(.vector(parts.map(\.node)), ValueType(.float, lanes))
}
public func float2(_ parts: Expr..., file: String = #fileID, line: Int = #line) -> Expr { vector(2, parts, file, line) }
public func float3(_ parts: Expr..., file: String = #fileID, line: Int = #line) -> Expr { vector(3, parts, file, line) }
public func float4(_ parts: Expr..., file: String = #fileID, line: Int = #line) -> Expr { vector(4, parts, file, line) }

/// C's `a / b` on int: truncated toward zero; 0 when `b == 0`; `Int32.min / -1` wraps (``Semantics/quotient(_:_:)``).
public func quotient(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.quot, [a, b], "quotient", file, line)
}
/// C's `a % b` on int (the sign of `a`); 0 when `b` is 0 or −1 (``Semantics/remainder(_:_:)``).
public func remainder(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.rem, [a, b], "remainder", file, line)
}
/// C's `a / b` on `uint` (the int's bits read as unsigned); 0 when `b == 0`.
public func unsignedQuotient(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.uquot, [a, b], "unsignedQuotient", file, line)
}
/// C's `a % b` on `uint` (the int's bits read as unsigned); 0 when `b == 0`.
public func unsignedRemainder(_ a: Expr, _ b: Expr, file: String = #fileID, line: Int = #line) -> Expr {
  call(.urem, [a, b], "unsignedRemainder", file, line)
}
