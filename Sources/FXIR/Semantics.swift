import Foundation

/// The meaning of every pure ``Op``, one scalar at a time: the living definition
/// of the IR. The interpreter evaluates with these functions and the constant
/// folder folds with them, so the two can never disagree; the LLVM backend is
/// tested against them.
public enum Semantics {
  /// Metal's `fmin`: when one operand is NaN the other is returned.
  @inlinable public static func min(_ a: Float, _ b: Float) -> Float {
    a.isNaN ? b : (b.isNaN ? a : (b < a ? b : a))
  }
  /// Metal's `fmax`: when one operand is NaN the other is returned.
  @inlinable public static func max(_ a: Float, _ b: Float) -> Float {
    a.isNaN ? b : (b.isNaN ? a : (b > a ? b : a))
  }

  /// `x` rounded to the nearest IEEE 754 binary16 value (ties to even;
  /// ±∞ from ±65,520 on; binary16's subnormals, multiples of 2⁻²⁴, kept),
  /// back as a float; a NaN is returned unchanged. The conversion is Swift's
  /// `Float16(_:)` (IEEE 754-2019 §5.4.2's formatOf conversion).
  @inlinable public static func roundHalf(_ x: Float) -> Float {
    x.isNaN ? x : Float(Float16(x))
  }

  /// Saturating truncation toward zero; NaN → 0 (LLVM's `fptosi.sat`).
  @inlinable public static func toInt(_ x: Float) -> Int32 {
    if x.isNaN { return 0 }
    if x >= 2_147_483_648 { return .max }
    if x <= -2_147_483_648 { return .min }
    return Int32(x)
  }

  /// Euclidean remainder: in `0..<b` for `b > 0`; 0 when `b ≤ 0`.
  @inlinable public static func euclidMod(_ a: Int32, _ b: Int32) -> Int32 {
    guard b > 0 else { return 0 }
    let r = a % b
    return r < 0 ? r &+ b : r
  }

  /// C's `a / b` on int, truncated toward zero; 0 when `b == 0`;
  /// `Int32.min / -1` wraps to `Int32.min` (C leaves both undefined; Metal
  /// promises nothing, so fxc picks values that never trap).
  @inlinable public static func quotient(_ a: Int32, _ b: Int32) -> Int32 {
    b == 0 ? 0 : a.dividedReportingOverflow(by: b).partialValue
  }

  /// C's `a % b` on int (the sign of `a`), `a − (a / b)·b`; 0 when `b == 0` or `b == −1`.
  @inlinable public static func remainder(_ a: Int32, _ b: Int32) -> Int32 {
    b == 0 || b == -1 ? 0 : a % b
  }

  /// C's `a / b` on `uint` (the bits read as unsigned); 0 when `b == 0`.
  @inlinable public static func unsignedQuotient(_ a: Int32, _ b: Int32) -> Int32 {
    b == 0 ? 0 : Int32(bitPattern: UInt32(bitPattern: a) / UInt32(bitPattern: b))
  }

  /// C's `a % b` on `uint` (the bits read as unsigned); 0 when `b == 0`.
  @inlinable public static func unsignedRemainder(_ a: Int32, _ b: Int32) -> Int32 {
    b == 0 ? 0 : Int32(bitPattern: UInt32(bitPattern: a) % UInt32(bitPattern: b))
  }

  @inlinable public static func shiftAmount(_ b: Int32) -> Int32 { b & 31 }

  /// Evaluates a pure op on constant operands, by its ``OpSpec/meaning``.
  /// Returns nil for ops that are not pure (reads and built-ins) or operands
  /// of the wrong kinds.
  public static func evaluate(_ op: Op, _ a: [Scalar]) -> Scalar? {
    guard case .success = op.resultKind(a.map(\.kind)), let m = op.spec.meaning else { return nil }
    if case .constant(let s) = op { return s }
    if op == .select { return a[0].boolValue ? a[1] : a[2] }
    switch (a.count, a[0]) {
    case (1, .float(let bits)):
      let x = Float(bitPattern: bits)
      if let f = m.float1 { return .float(f(x)) }
      if let f = m.floatTest { return .bool(f(x)) }
      if let f = m.toInt { return .int(f(x)) }
    case (1, .int(let x)):
      if let f = m.int1 { return .int(f(x)) }
      if let f = m.toFloat { return .float(f(x)) }
    case (1, .bool(let x)):
      if let f = m.bool1 { return .bool(f(x)) }
    case (2, .float):
      let x = a[0].floatValue, y = a[1].floatValue
      if let f = m.float2 { return .float(f(x, y)) }
      if let f = m.floatCompare { return .bool(f(x, y)) }
    case (2, .int(let x)):
      if let f = m.int2 { return .int(f(x, a[1].intValue)) }
      if let f = m.intCompare { return .bool(f(x, a[1].intValue)) }
    case (2, .bool(let x)):
      if let f = m.bool2 { return .bool(f(x, a[1].boolValue)) }
    case (3, .float):
      if let f = m.float3 { return .float(f(a[0].floatValue, a[1].floatValue, a[2].floatValue)) }
    default: break
    }
    return nil
  }
}
