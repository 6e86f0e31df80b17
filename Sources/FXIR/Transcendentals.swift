import Foundation

/// fxc's `exp`, `log`, `pow` and `atan2` (the meaning of `Op.exp`, `Op.log`,
/// `Op.pow` and `Op.atan2` everywhere: the interpreter, the constant folder
/// and the JIT compute these bits).
///
/// exp, log and atan2 work in double precision on the float operands and round
/// once at the end, so the result is the correctly rounded float or one of its
/// two neighbours: **at most 1 ulp** from the true value (TranscendentalTests
/// checks this against libm's double-precision functions on special values,
/// subnormals and random operands over the whole float range); pow works in
/// float, with the bound given below. Their series (pow's: each polynomial as
/// its even and odd halves, ``evenOddFloat(_:_:)``)
/// are evaluated by Horner's rule with fused multiply-adds and truncated where
/// their remainder is below 1e-9 relative, far below the float's 6e-8 ulp:
///
/// - `log`: `x = m·2ᵉ` with `m ∈ [√½, √2)`, `ln m = 2·atanh(s)`,
///   `s = (m − 1)/(m + 1)`, `|s| ≤ 0.172`, by its series
///   `2·(s + s³/3 + … + s¹³/13)` (Abramowitz & Stegun 4.1.28; remainder < 2e-12 of `ln m`).
/// - `exp`: `t = k·ln 2 + r`, `k = ⌊t/ln 2 + ½⌋`, `|r| ≤ 0.347`,
///   `eʳ = Σ rⁿ/n!` for n ≤ 9 (A&S 4.2.1; remainder < 1e-11), times `2ᵏ`
///   built from its exponent bits.
/// - `pow(x, y) = 2^(y·log₂x)` in **single precision** (the one exception to
///   the double-precision rule, for speed: every float op of 16 lanes, not two
///   halves of 8 doubles): `x = m·2ᵉ` with `m ∈ [√½, √2)` (from the bits, with
///   no compare), `f = m − 1` exactly, `log₂m = f·Q(f)` with `Q` the degree-9
///   minimax polynomial of `log₂(1 + f)/f` (relative error 4e-9); `t = y·(e +
///   log₂m)` is carried as a head and a tail (Fast2Sum and an fma), so only
///   `y·log₂m`'s rounding reaches it, never `y·e`'s; `t = k + r` with `k` the
///   nearest integer (by adding and subtracting 1.5·2²³), `|r| ≤ ½`, and `2ʳ`
///   the degree-6 minimax polynomial (relative error 2e-9), scaled by `2ᵏ` in
///   two exact halves so subnormal results round once. The coefficients are
///   `scripts/fit-pow.py`'s Remez fits rounded to float. Its error is **at most
///   `1.5·(1 + |y·log₂x|)` ulp** (TranscendentalTests checks it, and at most
///   8 ulp for the gammas of images, x in 1/255…1 and y in 0.1…10); more only
///   where `|y·log₂x|` is large. (Measured for comparison: Halide 21's default
///   `pow` is up to 1.4e-6 relative, ~20 ulp, on `(0, 1)^0.8`.) `pow(+0, y)` is
///   `+0`, `+∞` or 1 as y is >, < or = 0 (C11 F.10.4.4), and `pow(x, 1)` is x
///   exactly (as libm's; so the simplifier's `pow(x, 1) → x` holds).
/// - `atan2(y, x)`: `t = min/max` of `|x|, |y|` in `[0, 1]`; `t > tan(π/8)`
///   reduces by `atan t = π/4 + atan((t − 1)/(t + 1))`; then
///   `atan u = 2·atan(u/(1 + √(1 + u²)))` leaves `|v| ≤ 0.2` for the series
///   `v − v³/3 + … + v¹³/13` (A&S 4.4.42; remainder < 2e-11); quadrant and
///   sign from x and y.
///
/// Operands outside those domains — NaN, ±∞, a negative or −0 base of `pow`,
/// `atan2(±0, ±0)` — take C11 Annex F's special values (``powSpecial(_:_:)``,
/// ``atan2(_:_:)``; a negative base's power is `|x|ʸ` by the ordinary path,
/// signed — fxc's own, not the platform's libm), and `exp`
/// and `log` of them follow C11 Annex F (NaN → NaN, `exp(±∞)` = ∞ / 0,
/// `log(±0)` = −∞, `log(x < 0)` = NaN, `log(∞)` = ∞). The JIT's vector code
/// (OpEmitter+Transcendentals) performs the same operations (in double, and
/// in float for pow) in the same order — with AVX-512, pow's exact steps
/// (x split into m·2ᵉ, t rounded to an integer, the scale by 2ᵏ) are its
/// getmant/getexp, rndscale and scalef instructions, the same values — so that a last-bit difference can never be amplified by `fract`,
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
  /// `pow`'s `log₂(1 + f)/f` on `f ∈ [√½ − 1, √2 − 1]`, degree 9, highest power first.
  public static let log2Series: [Float] = [
    -0.10994955, 0.18617496, -0.19106275, 0.20460062, -0.2396174, 0.2885674, -0.36069664, 0.48089823,
    -0.72134733, 1.442695,
  ]
  /// `pow`'s `2ʳ` on `r ∈ [−½, ½]`, degree 6, highest power first.
  public static let exp2Series: [Float] = [
    0.00015345812, 0.0013399931, 0.009618489, 0.055503286, 0.24022646, 0.6931472, 1,
  ]
  /// `pow` clamps `y·log₂x` here: 2⁻¹⁵² rounds to 0 and 2¹²⁹ to +∞ whatever `r` adds.
  public static let exp2ArgumentRange: ClosedRange<Float> = -152...129
  /// `1.5·2²³`: adding and subtracting it rounds a float below 2²² to the nearest integer.
  public static let roundingBias: Float = 12_582_912
  /// The bits of `√½` (rounded to float), where `pow`'s mantissa range `[√½, √2)` starts.
  public static let sqrtHalfBits: Int32 = 0x3f35_04f3
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

  /// xʸ; the single-precision path for `+0 ≤ x < ∞` and finite y
  /// (``powIsOrdinary(_:_:)``); elsewhere C11's special values (F.10.4.4)
  /// and, for a finite negative base and an integer y, `|x|ʸ` by that path
  /// with the sign of y's parity (``powSpecial(_:_:)``).
  public static func pow(_ x: Float, _ y: Float) -> Float {
    guard powIsOrdinary(x, y) else { return powSpecial(x, y) }
    return powOrdinary(x, y)
  }

  /// ``pow(_:_:)`` on its ordinary domain: `+0 ≤ x < ∞`, y finite.
  static func powOrdinary(_ x: Float, _ y: Float) -> Float {
    if x == 0 { return y > 0 ? 0 : y < 0 ? .infinity : 1 }
    if y == 1 { return x }
    let (head, tail) = powExponent(x, y)
    return exp2Core(head, tail)
  }

  /// ``pow(_:_:)`` off its ordinary domain (x negative or −0, ±∞ or NaN, or
  /// y ±∞ or NaN), by C11 F.10.4.4: `pow(x, ±0) = 1` and `pow(+1, y) = 1`
  /// (NaN operands too); otherwise a NaN operand gives NaN; `pow(−1, ±∞) = 1`,
  /// `pow(x, ±∞)` is +∞ or +0 as |x| < 1 and y < 0 agree or not; a finite
  /// negative x with a finite non-integer y gives NaN; else `|x|ʸ` (for
  /// |x| = ∞: +∞ for y > 0, +0 for y < 0), negated for a negative x (−0
  /// included) and an odd integer y.
  public static func powSpecial(_ x: Float, _ y: Float) -> Float {
    if y == 0 || x == 1 { return 1 }
    if x.isNaN || y.isNaN { return .nan }
    let ax = Swift.abs(x)
    if y.isInfinite { return ax == 1 ? 1 : ((ax < 1) == (y < 0) ? .infinity : 0) }
    let integer = y.rounded(.towardZero) == y
    if x.sign == .minus, !integer, ax != 0, ax.isFinite { return .nan }
    let magnitude = ax.isInfinite ? (y > 0 ? Float.infinity : 0) : powOrdinary(ax, y)
    let odd = integer && (y * 0.5).rounded(.towardZero) != y * 0.5
    return x.sign == .minus && odd ? -magnitude : magnitude
  }

  /// The angle of (x, y) in radians, −π…π; where an operand is NaN or ±∞ or
  /// both are ±0 (``atan2IsOrdinary(_:_:)``), C11's special values (F.10.1.4):
  /// NaN for a NaN operand; for `y = ±0`, x = ±0: ±π where x is −0 or negative
  /// (the sign of y), ±0 otherwise; for `|y| = ∞`: ±3π/4 or ±π/4 as x is −∞ or
  /// +∞, ±π/2 for a finite x; for a finite y and `x = ±∞`: ±π for −∞, ±0 for
  /// +∞ — each the float nearest the angle.
  public static func atan2(_ y: Float, _ x: Float) -> Float {
    guard atan2IsOrdinary(y, x) else { return atan2Special(y, x) }
    let r = Float(atan2Core(Double(Swift.abs(y)), Double(Swift.abs(x)), xNegative: x < 0))
    return y.sign == .minus ? -r : r
  }

  /// ``atan2(_:_:)`` off its ordinary domain.
  static func atan2Special(_ y: Float, _ x: Float) -> Float {
    if x.isNaN || y.isNaN { return .nan }
    let xNegative = x.sign == .minus
    let r: Float
    if y.isInfinite {
      r = x.isInfinite ? (xNegative ? Float(3 * Double.pi / 4) : Float(Double.pi / 4)) : Float(Double.pi / 2)
    } else {  // y = ±0 and x = ±0, or y finite and x = ±∞
      r = xNegative ? Float(Double.pi) : 0
    }
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

  /// `y·log₂x` as `head + tail` for a float `0 < x < ∞` (subnormals included)
  /// and a finite y: the tail holds the rounding error of `y·(e + log₂m)` except
  /// that of `log₂m` itself.
  static func powExponent(_ x: Float, _ y: Float) -> (head: Float, tail: Float) {
    let tiny = x < Float.leastNormalMagnitude
    let bits = Int32(bitPattern: (tiny ? x * 16_777_216 : x).bitPattern) &- sqrtHalfBits
    let e = Float((bits >> 23) &- (tiny ? 24 : 0))
    let m = Float(bitPattern: UInt32(bitPattern: (bits & 0x7f_ffff) &+ sqrtHalfBits))  // [√½, √2)
    let f = m - 1
    let l = f * evenOddFloat(log2Halves, f)
    let sum = e + l
    let sumTail = l - (sum - e)
    let head = y * sum
    return (head, (-head).addingProduct(y, sum).addingProduct(y, sumTail))
  }

  /// `2^(head + tail)`: the head clamped to ``exp2ArgumentRange`` (the tail
  /// dropped when it was), split into an integer `k` and `|r| ≤ ½`.
  static func exp2Core(_ head: Float, _ tail: Float) -> Float {
    let range = exp2ArgumentRange
    let t = head < range.lowerBound ? range.lowerBound : (head > range.upperBound ? range.upperBound : head)
    let k = (t + roundingBias) - roundingBias
    let r = (t - k) + (t == head ? tail : 0)
    let p = evenOddFloat(exp2Halves, r)
    let ki = Int32(k), k1 = ki >> 1
    func scale(_ n: Int32) -> Float { Float(bitPattern: UInt32(bitPattern: n &+ 127) << 23) }
    return p * scale(k1) * scale(ki &- k1)
  }

  /// ``horner(_:_:)`` in float.
  static func hornerFloat(_ coefficients: [Float], _ x: Float) -> Float {
    coefficients.dropFirst().reduce(coefficients[0]) { p, c in c.addingProduct(p, x) }
  }

  /// A polynomial (coefficients highest power first) as `E(x²) + x·O(x²)`,
  /// its even and odd halves each by Horner's rule in `x²`: two chains of
  /// half the length, so the latency of one evaluation is about halved.
  static func evenOddFloat(_ halves: EvenOdd, _ x: Float) -> Float {
    let (even, odd) = halves
    let z = x * x
    return hornerFloat(even, z).addingProduct(x, hornerFloat(odd, z))
  }

  /// The coefficients of `E` and `O`, highest power first.
  public typealias EvenOdd = (even: [Float], odd: [Float])

  /// ``log2Series`` and ``exp2Series`` split for ``evenOddFloat(_:_:)`` once, not at every pow.
  public static let log2Halves = evenOddSplit(log2Series), exp2Halves = evenOddSplit(exp2Series)

  /// The halves of a polynomial (coefficients highest power first) for ``evenOddFloat(_:_:)``.
  public static func evenOddSplit(_ coefficients: [Float]) -> EvenOdd {
    let ascending = Array(coefficients.reversed())
    func half(_ start: Int) -> [Float] { Array(stride(from: start, to: ascending.count, by: 2).map { ascending[$0] }.reversed()) }
    return (half(0), half(1))
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
