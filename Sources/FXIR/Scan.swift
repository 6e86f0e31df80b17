import Foundation

/// A stage defined by a recurrence along rows or columns (docs/design.md §4,
/// "Scans"): each output pixel from its predecessors in one direction, so its
/// cost does not grow with the filter's reach. It keeps the image's size.
///
/// Edges are clamped (§3's clamp to edge): the input is taken as extended
/// forever by its first and last pixel of each row (``Axis/x``) or column
/// (``Axis/y``), and a recurrence starts in the state that extension gives.
/// Every image is premultiplied RGBA32F here (DESIGN §1); the four channels
/// are filtered alike. The evaluation order (fp32 for the box, Double for
/// the Gaussian) is part of the definition (``RecursiveGaussian``,
/// ``Scan/Filter/box(radius:)``), so the
/// fast executor gives the interpreter's bits.
public struct Scan: Hashable, Sendable, CustomStringConvertible {
  /// Along rows (each row a sequence in x) or along columns.
  public enum Axis: String, Hashable, Sendable { case x, y }

  public enum Filter: Hashable, Sendable {
    /// The mean of the `2·radius + 1` pixels around each, by a running sum:
    /// `S(0) = Σ_{k=−r}^{r} x(k)` summed from `k = −r` up; then
    /// `S(n) = S(n−1) + (x(n+r) − x(n−r−1))` (one addition on the chain from
    /// step to step); the output is `S(n)·(1/(2r+1))`,
    /// the reciprocal rounded to fp32 (Pillow's `BoxBlur`, libvips' `box`,
    /// by the same running sum).
    case box(radius: Int)
    /// The Gaussian of standard deviation σ by Deriche's fourth-order
    /// recursive approximation (``RecursiveGaussian``).
    case gaussian(RecursiveGaussian)
  }

  public var filter: Filter
  public var axis: Axis

  public init(_ filter: Filter, axis: Axis) {
    self.filter = filter
    self.axis = axis
  }

  public var description: String {
    switch filter {
    case .box(let r): "scan \(axis.rawValue): box(radius: \(r)), running sum"
    case .gaussian(let g): "scan \(axis.rawValue): \(g)"
    }
  }
}

/// Deriche's recursive Gaussian of fourth order (R. Deriche, "Recursively
/// implementing the Gaussian and its derivatives", INRIA RR-1893, 1993;
/// constants as P. Getreuer, "A Survey of Gaussian Convolution Algorithms",
/// IPOL 2013, §3.1, tabulates them): the Gaussian of standard deviation σ is
/// approximated by
/// `h(t) = Re[(a₀ − i·a₁)·e^{(−b₀ + iω₀)|t|/σ} + (c₀ − i·c₁)·e^{(−b₁ + iω₁)|t|/σ}]`,
/// sampled at the integers and normalised to sum 1. Its causal half
/// (`n ≥ 0`) and anticausal half (`n ≥ 1`) are each a recurrence of order 4:
///
/// - causal, `n` rising: `f = ((n₀x(n) + n₁x(n−1)) + n₂x(n−2)) + n₃x(n−3)`,
///   `g = (d₄y(n−4) + d₃y(n−3)) + d₂y(n−2)`, `y⁺(n) = (f − g) − d₁y⁺(n−1)`;
/// - anticausal, `n` falling: the same with `m₁…m₄` on `x(n+1)…x(n+4)`
///   (`f = ((m₁x(n+1) + m₂x(n+2)) + m₃x(n+3)) + m₄x(n+4)`) and `y⁻(n+k)`;
/// - the output `y⁺(n) + y⁻(n)` rounded to fp32; everything before it in
///   Double (each product and sum rounded to Double, in this order). In fp32
///   the direct form fails from σ ≈ 5: its denominator's DC sum
///   `1 + Σd` is ~(1 − pole)⁴ (4e-6 at σ 40), and coefficient rounding alone
///   moved a flat image by 0.3 levels.
///
/// Before the first pixel the state is the one a constant input gives: the
/// clamped edge value `c` for `x` and `c·gain` for `y` (``causalGain``,
/// ``anticausalGain``). ``errorBound`` proves how far a pass may be from
/// the sampled Gaussian, and the planner takes this form only where the
/// blur's bound is below half an 8-bit level
/// (``RecursiveGaussian/preferred(sigma:)``).
public struct RecursiveGaussian: Hashable, Sendable, CustomStringConvertible {
  public let sigma: Float
  /// `n₀…n₃`, `m₁…m₄`, `d₁…d₄`.
  public let n: [Double], m: [Double], d: [Double]
  /// The steady state of each half for a constant input of 1.
  public let causalGain: Double, anticausalGain: Double
  /// A bound on the largest difference from the sampled Gaussian (normalised,
  /// infinite support) of one pass on any input in 0…1, rounding included.
  public let errorBound: Double
  /// `‖h‖₁`: how much a pass may amplify an error already made (a second
  /// pass moves the first one's error by at most this factor).
  public let gainBound: Double

  /// The smallest σ the form is built for (the planner's bound decides
  /// where it is used; below this the poles come too close to 0 to matter).
  public static let minimumSigma: Float = 0.5

  /// Deriche's constants (a₀, a₁, b₀, ω₀; c₀, c₁, b₁, ω₁).
  static let constants: (Double, Double, Double, Double, Double, Double, Double, Double) =
    (1.680, 3.735, 1.783, 0.6318, -0.6803, -0.2598, 1.723, 1.997)

  /// The filter for `sigma` (pixels, ≥ ``minimumSigma``).
  public init(sigma: Float) {
    precondition(sigma >= Self.minimumSigma && sigma.isFinite, "σ must be at least \(Self.minimumSigma)")
    self.sigma = sigma
    let s = Double(sigma)
    let (a0, a1, b0, w0, c0, c1, b1, w1) = Self.constants
    // Four poles z_k and residues α_k: h⁺(n) = Σ α_k z_k^n.
    let poles = [
      Complex.polar(exp(-b0 / s), w0 / s), Complex.polar(exp(-b0 / s), -w0 / s),
      Complex.polar(exp(-b1 / s), w1 / s), Complex.polar(exp(-b1 / s), -w1 / s),
    ]
    let residues = [Complex(a0 / 2, -a1 / 2), Complex(a0 / 2, a1 / 2), Complex(c0 / 2, -c1 / 2), Complex(c0 / 2, c1 / 2)]
    // Denominator Π(1 − z_k q) and numerator Σ α_k Π_{j≠k}(1 − z_j q), q = z⁻¹.
    var den = [Complex(1, 0)]
    for z in poles { den = Complex.multiply(den, [Complex(1, 0), Complex(0, 0) - z]) }
    var num = [Complex](repeating: Complex(0, 0), count: 4)
    for k in 0..<4 {
      var p = [Complex(1, 0)]
      for j in 0..<4 where j != k { p = Complex.multiply(p, [Complex(1, 0), Complex(0, 0) - poles[j]]) }
      for i in 0..<4 { num[i] = num[i] + residues[k] * p[i] }
    }
    let dd = (1...4).map { den[$0].re }
    let nn = num.map(\.re)
    var mm = (1...3).map { nn[$0] - dd[$0 - 1] * nn[0] }
    mm.append(-dd[3] * nn[0])
    let denominator = 1 + dd.reduce(0, +)
    let total = (nn.reduce(0, +) + mm.reduce(0, +)) / denominator
    n = nn.map { $0 / total }
    m = mm.map { $0 / total }
    d = dd
    causalGain = nn.reduce(0, +) / total / denominator
    anticausalGain = mm.reduce(0, +) / total / denominator
    (errorBound, gainBound) = Self.bound(sigma: s, n: n, m: m, d: d)
  }

  public var description: String { "gaussian(sigma: \(sigma)), recursive (Deriche, order 4)" }

  /// ‖h − g‖₁ for the impulse response `h` and the sampled, normalised
  /// Gaussian `g` (so a pass moves an input in 0…1 by at most half of it,
  /// both summing to 1 within the last term), plus a bound on the rounding:
  /// each step's error (≤ 8 Double ε times the sum of the terms' magnitudes)
  /// carried on by the feedback's impulse response `r` (`‖r‖₁`), for each
  /// half, and the final rounding to fp32.
  static func bound(sigma s: Double, n nd: [Double], m md: [Double], d dd: [Double]) -> (error: Double, gain: Double) {
    let reach = Int((40 * s).rounded(.up)) + 64
    // Impulse responses of the two halves, and of the feedback alone.
    var causal = [Double](repeating: 0, count: reach + 1), feedback = causal, anti = causal
    for t in 0...reach {
      var y = t < 4 ? nd[t] : 0, r = t == 0 ? 1.0 : 0, a = t >= 1 && t <= 4 ? md[t - 1] : 0
      for k in 1...4 where t - k >= 0 {
        y -= dd[k - 1] * causal[t - k]
        r -= dd[k - 1] * feedback[t - k]
        a -= dd[k - 1] * anti[t - k]
      }
      (causal[t], feedback[t], anti[t]) = (y, r, a)
    }
    // h(0) = causal(0); h(±t) = causal(t) and anti(t) for t ≥ 1 (anti(0) = 0).
    let g0 = (-reach...reach).map { exp(-Double($0 * $0) / (2 * s * s)) }
    let gSum = g0.reduce(0, +)
    var l1 = 0.0, hNorm = 0.0, hSum = 0.0
    for t in -reach...reach {
      let h = t >= 0 ? causal[t] : anti[-t]
      l1 += abs(h - g0[t + reach] / gSum)
      hNorm += abs(h)
      hSum += h
    }
    let eps = Double.ulpOfOne / 2
    let magnitude = nd.map(abs).reduce(0, +) + dd.map(abs).reduce(0, +) * hNorm
    let rounding = 2 * 8 * eps * magnitude * feedback.map(abs).reduce(0, +) + Double(Float.ulpOfOne) / 2
    // max over x in 0…1 of |Σ (h − g)·x| = (‖h − g‖₁ + |Σh − 1|) / 2.
    return ((l1 + abs(hSum - 1)) / 2 + rounding, hNorm)
  }
}

/// Just enough complex arithmetic for the poles.
struct Complex {
  var re: Double, im: Double
  init(_ re: Double, _ im: Double) { (self.re, self.im) = (re, im) }
  static func polar(_ r: Double, _ theta: Double) -> Complex { Complex(r * cos(theta), r * sin(theta)) }
  static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
  static func - (a: Complex, b: Complex) -> Complex { Complex(a.re - b.re, a.im - b.im) }
  static func * (a: Complex, b: Complex) -> Complex { Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
  /// The product of two polynomials given by their coefficients, lowest first.
  static func multiply(_ p: [Complex], _ q: [Complex]) -> [Complex] {
    var out = [Complex](repeating: Complex(0, 0), count: p.count + q.count - 1)
    for (i, a) in p.enumerated() { for (j, b) in q.enumerated() { out[i + j] = out[i + j] + a * b } }
    return out
  }
}

extension RecursiveGaussian {
  /// A bound on the blur's largest difference, on any input in 0…1, from the
  /// two passes of the sampled Gaussian: the second pass carries the
  /// first's error (at most ``gainBound`` times) and adds its own.
  public var twoPassBound: Double { errorBound * gainBound + errorBound }

  /// The loop's taps a pass (2⌈3σ⌉ + 1) above which the recursive form is
  /// the cheaper (measured: Benchmarks/scan-results.md).
  public static let crossoverTaps = 55

  /// The form the planner picks for a Gaussian of `sigma` asked for with
  /// ``BlurMethod/auto``: the recursive one when the loop would take more
  /// than ``crossoverTaps`` taps a pass and its ``twoPassBound`` is below
  /// half an 8-bit level; nil for the loop.
  public static func preferred(sigma: Float) -> RecursiveGaussian? {
    guard sigma.isFinite, sigma >= minimumSigma, 2 * Int((3 * sigma).rounded(.up)) + 1 > crossoverTaps else { return nil }
    let g = RecursiveGaussian(sigma: sigma)
    return g.twoPassBound < 0.5 / 255 ? g : nil
  }
}

/// How a blur is computed.
public enum BlurMethod: String, Hashable, Sendable, CaseIterable {
  /// The recursive or running-sum form where the planner proves it within
  /// half an 8-bit level and it is the cheaper; the loop otherwise.
  case auto
  /// The loop over every tap (a Gaussian: 2⌈3σ⌉ + 1 taps a pass).
  case exact
  /// The recursive form (a Gaussian: ``RecursiveGaussian``) or running sums
  /// (a box), whatever the radius.
  case recursive
}
