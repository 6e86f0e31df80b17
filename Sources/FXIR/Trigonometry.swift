import Foundation

/// fxc's `sin` and `cos` (the meaning of `Op.sin`/`Op.cos` everywhere: the
/// interpreter, the constant folder and the JIT compute these bits).
///
/// For |x| ≤ 8192: Cephes `sinf`/`cosf` (S. Moshier, Cephes Math Library 2.2):
/// octant reduction `j = (⌊|x|·4/π⌋ + 1) & ~1` with π/4 split in three parts
/// (exact for |x| ≤ 8192), then a degree-7 odd or degree-8 even polynomial on
/// |r| ≤ π/4; at most 2e-7 from the true value (TranscendentalTests checks it).
/// NaN and ±∞ give NaN. Beyond ±8192 (finite), the platform's libm
/// `sinf`/`cosf` — the one place left where fxc's meaning is the host's.
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
    guard ax <= polynomialLimit else {
      guard x.isFinite else { return .nan }  // sin(±∞), cos(±∞), NaN: NaN (C11 F.10.1.6, F.10.1.5)
      return cosine ? Foundation.cos(x) : Foundation.sin(x)
    }
    var j = Int32(ax * fourOverPi)
    j = (j &+ 1) & ~1
    let y = Float(j)
    let r = ((ax - y * piOver4.0) - y * piOver4.1) - y * piOver4.2
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
}
