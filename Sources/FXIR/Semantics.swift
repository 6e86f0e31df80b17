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

  @inlinable public static func shiftAmount(_ b: Int32) -> Int32 { b & 31 }

  /// Evaluates a pure op on constant operands. Returns nil for ops that are not
  /// pure (reads and built-ins) or operands of the wrong kinds.
  public static func evaluate(_ op: Op, _ a: [Scalar]) -> Scalar? {
    func f(_ i: Int) -> Float { a[i].floatValue }
    func n(_ i: Int) -> Int32 { a[i].intValue }
    guard case .success(let kind) = op.resultKind(a.map(\.kind)) else { return nil }
    let isFloat = a.first?.kind == .float
    switch op {
    case .constant(let s): return s
    case .add: return isFloat ? .float(f(0) + f(1)) : .int(n(0) &+ n(1))
    case .sub: return isFloat ? .float(f(0) - f(1)) : .int(n(0) &- n(1))
    case .mul: return isFloat ? .float(f(0) * f(1)) : .int(n(0) &* n(1))
    case .neg: return isFloat ? .float(-f(0)) : .int(0 &- n(0))
    case .min: return isFloat ? .float(min(f(0), f(1))) : .int(Swift.min(n(0), n(1)))
    case .max: return isFloat ? .float(max(f(0), f(1))) : .int(Swift.max(n(0), n(1)))
    case .abs: return isFloat ? .float(Swift.abs(f(0))) : .int(n(0) == .min ? .min : Swift.abs(n(0)))
    case .div: return .float(f(0) / f(1))
    case .floor: return .float(Foundation.floor(f(0)))
    case .ceil: return .float(Foundation.ceil(f(0)))
    case .sqrt: return .float(f(0).squareRoot())
    case .sin: return .float(Trigonometry.sin(f(0)))
    case .cos: return .float(Trigonometry.cos(f(0)))
    case .exp: return .float(Transcendentals.exp(f(0)))
    case .log: return .float(Transcendentals.log(f(0)))
    case .pow: return .float(Transcendentals.pow(f(0), f(1)))
    case .atan2: return .float(Transcendentals.atan2(f(0), f(1)))
    case .lt: return .bool(isFloat ? f(0) < f(1) : n(0) < n(1))
    case .le: return .bool(isFloat ? f(0) <= f(1) : n(0) <= n(1))
    case .gt: return .bool(isFloat ? f(0) > f(1) : n(0) > n(1))
    case .ge: return .bool(isFloat ? f(0) >= f(1) : n(0) >= n(1))
    case .eq: return .bool(isFloat ? f(0) == f(1) : (a[0].kind == .bool ? a[0] == a[1] : n(0) == n(1)))
    case .ne: return .bool(isFloat ? f(0) != f(1) : (a[0].kind == .bool ? a[0] != a[1] : n(0) != n(1)))
    case .isNaN: return .bool(f(0).isNaN)
    case .and: return kind == .bool ? .bool(a[0].boolValue && a[1].boolValue) : .int(n(0) & n(1))
    case .or: return kind == .bool ? .bool(a[0].boolValue || a[1].boolValue) : .int(n(0) | n(1))
    case .xor: return kind == .bool ? .bool(a[0].boolValue != a[1].boolValue) : .int(n(0) ^ n(1))
    case .not: return kind == .bool ? .bool(!a[0].boolValue) : .int(~n(0))
    case .shl: return .int(n(0) << shiftAmount(n(1)))
    case .shr: return .int(n(0) >> shiftAmount(n(1)))
    case .ushr: return .int(Int32(bitPattern: UInt32(bitPattern: n(0)) >> UInt32(shiftAmount(n(1)))))
    case .mod: return .int(euclidMod(n(0), n(1)))
    case .toInt: return .int(toInt(f(0)))
    case .toFloat: return .float(Float(n(0)))
    case .toFloatUnsigned: return .float(Float(UInt32(bitPattern: n(0))))
    case .select: return a[0].boolValue ? a[1] : a[2]
    default: return nil
    }
  }
}
