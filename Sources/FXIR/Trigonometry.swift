/// fxc's `sin` and `cos` (the meaning of `Op.sin`/`Op.cos` everywhere: the
/// interpreter, the constant folder and the JIT compute these bits).
///
/// For |x| ≤ 8192: Cephes `sinf`/`cosf` (S. Moshier, Cephes Math Library 2.2):
/// octant reduction `j = (⌊|x|·4/π⌋ + 1) & ~1` with π/4 split in three parts
/// (exact for |x| ≤ 8192), then a degree-7 odd or degree-8 even polynomial on
/// |r| ≤ π/4; at most 2e-7 from the true value (TranscendentalTests checks it).
/// Beyond ±8192 (finite), the same polynomials after Payne and Hanek's exact
/// reduction (``reduceLarge(_:)``); NaN and ±∞ give NaN. No libm.
///
/// One definition, evaluated in the same order with the same float roundings
/// as the JIT's vector code (OpEmitter.sineOrCosine), so that a 1-ulp
/// difference can never be amplified by `fract`, `floor` or a sample position
/// into a visible one.
public enum Trigonometry {
  /// Largest |x| that takes the polynomial path.
  public static let polynomialLimit: Float = 8192

  public static func sin(_ x: Float) -> Float { sineOrCosine(x, cosine: false) }
  public static func cos(_ x: Float) -> Float { sineOrCosine(x, cosine: true) }

  /// 4/π: `|x|·4/π` is the octant of x.
  public static let fourOverPi: Float = 1.27323954473516
  /// π/4 in three parts (Cody–Waite): `y·part` is exact for the octants of
  /// |x| ≤ 8192, so `r = |x| − y·π/4` loses nothing.
  public static let piOver4: (Float, Float, Float) = (0.78515625, 2.4187564849853515625e-4, 3.77489497744594108e-8)
  /// Cephes `cosf`'s polynomial, highest term first: `cos r ≈ 1 − z/2 + z²·P(z)`, z = r².
  public static let cosCoefficients: (Float, Float, Float) = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
  /// Cephes `sinf`'s polynomial, highest term first: `sin r ≈ r + r·z·Q(z)`, z = r².
  public static let sinCoefficients: (Float, Float, Float) = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)

  static func sineOrCosine(_ x: Float, cosine: Bool) -> Float {
    let ax = Swift.abs(x)
    var j: Int32, r: Float
    if ax <= polynomialLimit {
      j = Int32(ax * fourOverPi)
      j = (j &+ 1) & ~1
      let y = Float(j)
      r = ((ax - y * piOver4.0) - y * piOver4.1) - y * piOver4.2
    } else if ax.isFinite {
      (j, r) = reduceLarge(ax)
    } else {
      return .nan  // sin(±∞), cos(±∞), NaN: NaN (C11 F.10.1.6, F.10.1.5)
    }
    let z = r * r
    let (c0, c1, c2) = cosCoefficients, (s0, s1, s2) = sinCoefficients
    let cosPoly = ((((c0 * z + c1) * z + c2) * z) * z - Float(0.5) * z) + 1
    let sinPoly = (((s0 * z + s1) * z + s2) * z) * r + r
    let q = cosine ? j &+ 2 : j
    var negate = q & 4 != 0
    if !cosine { negate = negate != (x.sign == .minus) }
    let v = q & 2 != 0 ? cosPoly : sinPoly
    return negate ? -v : v
  }

  /// 4/π in 24-bit chunks: `4/π = Σₖ fourOverPiChunks[k]·2⁻²⁴ᵏ` (to 2⁻²¹⁶).
  public static let fourOverPiChunks: [Double] = [
    1, 4_584_198, 14_457_992, 2_774_008, 5_156_771, 15_362_491, 8_500_933, 2_830_968, 8_855_683, 16_556_743,
  ]

  /// The octant and remainder of a finite `ax > 8192`, as the polynomial
  /// path's (`j` even, `r = ax − j·π/4` in [−π/4, π/4]), by Payne and Hanek's
  /// reduction in double precision: `ax = m·2ᵉ` (m an integer below 2²⁴),
  /// `ax·4/π = Σ m·dₖ·2^(e − 24k)` over the chunks of 4/π, each product exact;
  /// the terms that are multiples of 8 (one turn) are skipped, the next four
  /// summed — the first two exactly modulo 8, the others by TwoSum — so that
  /// the fraction is exact to about 2⁻¹⁰⁰ (a float lies at least ~2⁻³⁰ from a
  /// multiple of π/4); `r` is the fraction times π/4 in double, rounded once.
  /// The JIT performs the same operations (OpEmitter+Trigonometry).
  static func reduceLarge(_ ax: Float) -> (j: Int32, r: Float) {
    let bits = ax.bitPattern
    let m = Double(bits & 0x7f_ffff | 0x80_0000)
    let e = Int(bits >> 23) - 150
    let first = Swift.max(0, (e + 21) / 24)  // the first chunk whose terms are not whole turns
    let scale = e - 24 * first  // −21…2
    func term(_ i: Int) -> Double { (m * fourOverPiChunks[first + i]) * powerOfTwo(scale - 24 * i) }
    func turns(_ t: Double) -> Double { t - 8 * (t * 0.125).rounded(.down) }  // t mod 8, exact
    let a = turns(turns(term(0)) + turns(term(1)))
    let whole = a.rounded(.down)
    let (low, lowError) = twoSum(term(2), term(3))
    let (s, error) = twoSum(a - whole, low)
    var k = s.rounded(.down)
    var fraction = (s - k) + (error + lowError)
    if fraction < 0 { (fraction, k) = (fraction + 1, k - 1) }
    if fraction >= 1 { (fraction, k) = (fraction - 1, k + 1) }
    let n = Int32(whole + k) & 7
    let odd = n & 1 == 1
    let r = Float((odd ? fraction - 1 : fraction) * (Double.pi / 4))
    return (odd ? n &+ 1 : n, r)
  }

  /// 2ⁿ for −1022 ≤ n ≤ 1023, from its exponent bits.
  static func powerOfTwo(_ n: Int) -> Double { Double(bitPattern: UInt64(n + 1023) << 52) }

  /// `a + b` and its rounding error (Knuth's TwoSum): `s + e = a + b` exactly.
  static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
    let s = a + b
    let bb = s - a
    return (s, (a - (s - bb)) + (b - bb))
  }
}
