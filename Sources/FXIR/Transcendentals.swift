import Foundation

/// fxc's `exp`, `log`, `pow` and `atan2` (the meaning of `Op.exp`, `Op.log`,
/// `Op.pow` and `Op.atan2` everywhere: the interpreter, the constant folder
/// and the JIT compute these bits).
///
/// Each works in double precision on the float operands and rounds once at
/// the end, so the result is the correctly rounded float or one of its two
/// neighbours: **at most 1 ulp** from the true value (TranscendentalTests
/// checks this against libm's double-precision functions on special values,
/// subnormals and random operands over the whole float range). The series
/// are evaluated by Horner's rule with fused multiply-adds and truncated where
/// their remainder is below 1e-9 relative — for `pow`, after `y·ln x` has
/// amplified it — far below the float's 6e-8 ulp:
///
/// - `log`: `x = m·2ᵉ` with `m ∈ [√½, √2)`, `ln m = 2·atanh(s)`,
///   `s = (m − 1)/(m + 1)`, `|s| ≤ 0.172`, by its series
///   `2·(s + s³/3 + … + s¹³/13)` (Abramowitz & Stegun 4.1.28; remainder < 2e-12 of `ln m`).
/// - `exp`: `t = k·ln 2 + r`, `k = ⌊t/ln 2 + ½⌋`, `|r| ≤ 0.347`,
///   `eʳ = Σ rⁿ/n!` for n ≤ 9 (A&S 4.2.1; remainder < 1e-11), times `2ᵏ`
///   built from its exponent bits.
/// - `pow(x, y) = exp(y·ln x)` with both in double, for `x ≥ +0` finite and
///   `y` finite (`pow(+0, y)` is `+0`, `+∞` or 1 as y is >, < or = 0, C11 F.10.4.4).
/// - `atan2(y, x)`: `t = min/max` of `|x|, |y|` in `[0, 1]`; `t > tan(π/8)`
///   reduces by `atan t = π/4 + atan((t − 1)/(t + 1))`; then
///   `atan u = 2·atan(u/(1 + √(1 + u²)))` leaves `|v| ≤ 0.2` for the series
///   `v − v³/3 + … + v¹³/13` (A&S 4.4.42; remainder < 2e-11); quadrant and
///   sign from x and y.
///
/// Operands outside those domains — NaN, ±∞, a negative or −0 base of `pow`,
/// `atan2(±0, ±0)` — take the platform's libm (`powf`, `atan2f`), and `exp`
/// and `log` of them follow C11 Annex F (NaN → NaN, `exp(±∞)` = ∞ / 0,
/// `log(±0)` = −∞, `log(x < 0)` = NaN, `log(∞)` = ∞). The JIT's vector code
/// (OpEmitter+Transcendentals) performs the same double operations in the
/// same order, so that a last-bit difference can never be amplified by `fract`,
/// `floor` or a sample position into a visible one. (A fused multiply-add is
/// one instruction on x86-64 with FMA3 and on aarch64; elsewhere LLVM calls
/// libm's `fma`, the same bits, more slowly.)
public enum Transcendentals {
  /// `exp` saturates its double argument here: e^±120 is far beyond the
  /// float range (e^88.8 overflows, e^−103.98 underflows to 0).
  public static let expArgumentLimit: Double = 120
  // The series' coefficients, highest power first (the order of Horner's rule).
  /// `2/(2k + 1)` for k = 6 down to 1: the atanh series of `log` after its `2s` term.
  public static let logSeries: [Double] = (1...6).reversed().map { (k: Int) -> Double in 2 / Double(2 * k + 1) }
  /// `1/n!` for n = 9 down to 0: the exponential series of `exp`.
  public static let expSeries: [Double] = (0...9).reversed().map { (n: Int) -> Double in
    var factorial = 1.0
    for k in stride(from: 2, through: n, by: 1) { factorial *= Double(k) }
    return 1 / factorial
  }
  /// `(−1)ᵏ/(2k + 1)` for k = 6 down to 1: the arctangent series of `atan2` after its `v` term.
  public static let atanSeries: [Double] = (1...6).reversed().map { (k: Int) -> Double in
    (k % 2 == 0 ? 1.0 : -1.0) / Double(2 * k + 1)
  }
  /// `tan(π/8)`, above which `atan2` reduces its argument by π/4.
  public static let tanPiOver8: Double = 0.41421356237309503
  /// The float `m` above which `log` halves its mantissa (about √2).
  public static let sqrt2: Float = 1.41421356
  public static let ln2: Double = 0.6931471805599453
  public static let log2e: Double = 1.4426950408889634

  // MARK: the four functions

  /// eˣ; NaN → NaN; +∞ above about 88.72, 0 below about −103.97 (through subnormals).
  public static func exp(_ x: Float) -> Float {
    if x.isNaN { return x }
    return Float(expCore(clampExpArgument(Double(x))))
  }

  /// ln x; ±0 → −∞, x < 0 → NaN, +∞ → +∞, NaN → NaN.
  public static func log(_ x: Float) -> Float {
    if x > 0 && x < .infinity { return Float(logCore(x)) }
    if x == 0 { return -.infinity }
    return x < 0 ? .nan : x  // NaN stays NaN, +∞ stays +∞
  }

  /// xʸ; the double path for `+0 ≤ x < ∞` and finite y (``powIsOrdinary(_:_:)``), libm's `powf` otherwise.
  public static func pow(_ x: Float, _ y: Float) -> Float {
    guard powIsOrdinary(x, y) else { return Foundation.pow(x, y) }
    if x == 0 { return y > 0 ? 0 : y < 0 ? .infinity : 1 }
    return Float(expCore(clampExpArgument(Double(y) * logCore(x))))
  }

  /// The angle of (x, y) in radians, −π…π; libm's `atan2f` where an operand
  /// is NaN or ±∞ or both are ±0 (``atan2IsOrdinary(_:_:)``).
  public static func atan2(_ y: Float, _ x: Float) -> Float {
    guard atan2IsOrdinary(y, x) else { return Foundation.atan2(y, x) }
    let r = Float(atan2Core(Double(Swift.abs(y)), Double(Swift.abs(x)), xNegative: x < 0))
    return y.sign == .minus ? -r : r
  }

  /// Whether `pow(x, y)` takes the double-precision path: `+0 ≤ x < +∞`
  /// (by its bits, so not −0), `y` finite.
  public static func powIsOrdinary(_ x: Float, _ y: Float) -> Bool {
    x.bitPattern < 0x7f80_0000 && y.isFinite
  }

  /// Whether `atan2(y, x)` takes the double-precision path: both finite, not both zero.
  public static func atan2IsOrdinary(_ y: Float, _ x: Float) -> Bool {
    x.isFinite && y.isFinite && (x != 0 || y != 0)
  }

  // MARK: double-precision cores (mirrored operation by operation in the JIT)

  /// `((c₀·x + c₁)·x + c₂)…`, each step one fused multiply-add.
  static func horner(_ coefficients: [Double], _ x: Double) -> Double {
    coefficients.dropFirst().reduce(coefficients[0]) { p, c in c.addingProduct(p, x) }
  }

  static func clampExpArgument(_ t: Double) -> Double {
    t < -expArgumentLimit ? -expArgumentLimit : (t > expArgumentLimit ? expArgumentLimit : t)
  }

  /// `eᵗ` for `|t| ≤ 120`.
  static func expCore(_ t: Double) -> Double {
    let k = (t * log2e + 0.5).rounded(.down)
    let r = t.addingProduct(-k, ln2)
    let p = horner(expSeries, r)
    let scale = Double(bitPattern: UInt64(UInt32(bitPattern: Int32(k) &+ 1023)) << 52)
    return p * scale
  }

  /// `ln x` for a float `0 < x < ∞` (subnormals included).
  static func logCore(_ x: Float) -> Double {
    // A subnormal is scaled by 2²⁴ (exactly) into the normal range first.
    let tiny = x < Float.leastNormalMagnitude
    let bits = Int32(bitPattern: (tiny ? x * 16_777_216 : x).bitPattern)
    var e = (bits >> 23) &- (tiny ? 127 + 24 : 127)
    var m = Float(bitPattern: UInt32(bitPattern: (bits & 0x7f_ffff) | 0x3f80_0000))  // [1, 2)
    if m > sqrt2 {
      m = m * 0.5
      e = e &+ 1
    }
    let md = Double(m)
    let s = (md - 1) / (md + 1)
    let z = s * s
    let q = horner(logSeries, z)
    return (s + s).addingProduct(s * z, q).addingProduct(Double(e), ln2)
  }

  /// `atan2(|y|, |x|)`, then `π − θ` when x is negative; `ay = |y|`, `ax = |x|`, not both 0.
  static func atan2Core(_ ay: Double, _ ax: Double, xNegative: Bool) -> Double {
    let swap = ay > ax
    let t = (swap ? ax : ay) / (swap ? ay : ax)
    let big = t > tanPiOver8
    let u = big ? (t - 1) / (t + 1) : t
    let v = u / (1 + (1 + u * u).squareRoot())
    let w = v * v
    let q = horner(atanSeries, w)
    var theta = (big ? Double.pi / 4 : 0) + 2 * v.addingProduct(v * w, q)
    if swap { theta = Double.pi / 2 - theta }
    if xNegative { theta = Double.pi - theta }
    return theta
  }
}
