import FXDSL
import FXIR
import Foundation

/// A vertical sine wave: each column shifts up and down by
/// `amplitude·sin(2π·x / wavelength)` pixels. `amplitude` 0…1000 px (default 10),
/// `wavelength` 1…10000 px (default 60). Distortion effect, bilinear,
/// clamp-to-edge (after SwiftShaders' wave).
public func wave(amplitude: Expr = 10, wavelength: Expr = 60) -> Effect {
  let name = "wave(amplitude: \(Argument.text(amplitude)), wavelength: \(Argument.text(wavelength)))"
  guard let a = Argument.checked(amplitude, 0...1000), let l = Argument.checked(wavelength, 1...10000) else {
    return Effect(name) { $0 }
  }
  let finite = Argument.allFinite([amplitude, wavelength])
  return Effect.distortion(name) { p in
    let shift = a * sin(p.x * Expr(2 * Float.pi) / l)
    let q = float2(p.x, p.y + shift)
    return finite.map { select($0, q, p) } ?? q
  }
}

/// Pixelation, the "spoiler" effect of the seeds (EFFECTS.md, exact):
/// block side `s = 1 + (max(blockSize, 1) − 1)·clamp01(amount)` (`s = 1` when
/// `amount` is not finite); for `s ≤ 1` the input is untouched; otherwise each
/// pixel takes the sample at its block's center kept inside the image,
/// `sample(min((floor(p / s) + 0.5)·s, size − 0.5))`.
/// `amount` 0…1 (default 1), `blockSize` in pixels, 1…1000 (default 22).
public func pixelate(amount: Expr = 1, blockSize: Expr = 22) -> Effect {
  let name = "pixelate(amount: \(Argument.text(amount)), blockSize: \(Argument.text(blockSize)))"
  guard let t = Argument.checked(amount, 0...1), let b = Argument.checked(blockSize, 1...1000) else {
    return Effect(name) { $0 }
  }
  let finite = Argument.allFinite([amount, blockSize])
  return Effect.layer(name) { p, layer in
    let side = 1 + (max(b, 1) - 1) * saturate(t)
    let s = finite.map { select($0, side, 1) } ?? side
    let center = (floor(p / s) + 0.5) * s
    let blocked = layer.sample(min(center, Expr.size - 0.5))
    return select(s <= 1, layer.sample(p), blocked)
  }
}

/// The Gaussian weights of a blur of standard deviation `sigma` (pixels): taps
/// at integer offsets −r…r with `r = ceil(3σ)`, `w(i) ∝ exp(−i²/(2σ²))`,
/// normalised to sum 1.
public func gaussianWeights(sigma: Float) -> [Float] {
  // Below about 2.6e-23 px, 2σ² underflows to 0 and exp(−i²/2σ²) would be
  // NaN at the centre (0/0), turning the image transparent: such a σ is the
  // identity, the Gaussian's limit (its off-centre weights are 0 in Float
  // from σ ≈ 0.069 px down).
  guard sigma.isFinite, 2 * sigma * sigma > 0 else { return [1] }
  let r = Int((3 * sigma).rounded(.up))
  let w = (-r...r).map { Foundation.exp(-Float($0 * $0) / (2 * sigma * sigma)) }
  let sum = w.reduce(0, +)
  return w.map { $0 / sum }
}

/// The largest standard deviation ``gaussianBlur(sigma:)`` takes, in pixels.
public let gaussianMaxSigma: Float = 200

/// Gaussian blur of standard deviation `sigma` pixels (0…200, default 3; 0
/// or non-finite = unchanged, and so is any σ below about 0.069 px, whose
/// off-centre weights are 0 in Float). A constant σ is folded into the kernel;
/// a uniform σ gives one kernel for every σ in 0…200 (clamped to it; a
/// non-finite σ leaves the image unchanged).
///
/// The definition (staged): a horizontal then a vertical pass, each
/// `Σ_{i=−r}^{r} g(i)·sample(position ± i) · (1 / Σ g(i))`, `r = ceil(3σ)`, edges
/// clamped (no dark border), with `g(i) = exp(−i²/(2σ²))` computed from the
/// centre out by the incremental Gaussian recurrence (Turkowski, "Incremental
/// Computation of the Gaussian", GPU Gems 3, ch. 40): `g(0) = 1`,
/// `g(i + 1) = g(i)·ρ(i)`, `ρ(0) = exp(−1/(2σ²))`, `ρ(i + 1) = ρ(i)·exp(−1/σ²)`.
/// In fp32 its normalised weights are within 1.5e-6 of the exact Gaussian's
/// up to σ 200 (9e-8 at σ 10). Each pass is one loop (DESIGN §2), so the
/// kernel's size and compile time do not grow with σ — but its cost does.
///
/// `method` (docs/design.md §4, "Scans"): `.exact` is the loop above;
/// `.recursive` is Deriche's fourth-order recursive Gaussian
/// (``RecursiveGaussian``: two scans a pass, a cost that does not grow with
/// σ; for σ ≥ 0.5 and a constant σ); `.auto` (the default) takes the
/// recursive form where the loop would be slower (more than 55 taps a pass:
/// σ > 9) and its proved bound from the sampled Gaussian is below half an
/// 8-bit level (0.14 level from σ 2 on, 0.21 at σ 1: closer to the Gaussian than
/// the loop, whose cut at 3σ drops 0.27 % of its weight), for an 8-bit
/// output; the loop otherwise — for 16-bit and float outputs, and in an
/// `EffectGraph` (``Image/either(fast:precise:)``). A uniform σ always takes
/// the loop.
public func gaussianBlur(sigma: Expr = 3, method: BlurMethod = .auto) -> Effect {
  let name = "gaussianBlur(sigma: \(Argument.text(sigma))\(method == .auto ? "" : ", method: \(method.rawValue)"))"
  guard let (s, radius, limit) = blurRadius(sigma, max: gaussianMaxSigma, radius: { 3 * $0 }, uniform: { ceil(3 * $0) }) else {
    return Effect(name) { $0 }
  }
  if let c = s.constantValue, gaussianWeights(sigma: c).count == 1 { return Effect(name) { $0 } }
  if method == .recursive, s.constantValue.map({ $0 < RecursiveGaussian.minimumSigma }) ?? true {
    return invalidEffect(name, "method: recursive needs a constant σ of at least \(RecursiveGaussian.minimumSigma) px")
  }
  let h = gaussianPass(name + " horizontal", s, radius, limit, horizontal: true)
  let v = gaussianPass(name + " vertical", s, radius, limit, horizontal: false)
  if let c = s.constantValue, method != .exact {
    if let g = method == .recursive ? RecursiveGaussian(sigma: c) : RecursiveGaussian.preferred(sigma: c) {
      let scans = { (i: Image) in i.scan(Scan(.gaussian(g), axis: .x)).scan(Scan(.gaussian(g), axis: .y)) }
      // auto: the scans where the output has 8 bits (their bound is half a level of those), the loop deeper.
      return Effect(name) { method == .recursive ? scans($0) : Image.either(fast: scans($0), precise: v(h($0))) }
    }
  }
  return Effect(name) { v(h($0)) }
}

/// SwiftUI's `.blur(radius:)` (and Core Image's `CIGaussianBlur`, whose
/// `inputRadius` is the Gaussian's standard deviation): ``gaussianBlur(sigma:)``
/// with σ = `radius` pixels, 0…200, edges clamped (SwiftUI's `opaque: true`).
/// The seed "Compose advanced graphics effects with SwiftUI" softens cover art with `.blur(radius: 30)`.
public func blur(radius: Expr = 10) -> Effect {
  let inner = gaussianBlur(sigma: radius)
  return Effect("blur(radius: \(Argument.text(radius)))") { inner($0) }
}

/// A blur parameter checked for a loop: the value clamped to `0…max` (NaN →
/// 0 for a uniform), the loop's radius (`radius(value)` rounded up, an int
/// expression; `uniform(value)` for a uniform) and its limit (the radius for a constant, `radius(max)` for a
/// uniform); nil when a constant switches the blur off (0, negative, not finite).
func blurRadius(_ value: Expr, max: Float, radius: (Float) -> Float, uniform: (Expr) -> Expr) -> (Expr, Expr, Int)? {
  if let c = value.constantValue {
    guard c.isFinite, c > 0 else { return nil }
    let v = Swift.min(c, max), r = Int(radius(v).rounded(.up))
    return r > 0 ? (Expr(v), Expr.int(r), r) : nil
  }
  // DESIGN §5: a non-finite uniform switches the blur off (radius 0).
  let v = select(isfinite(value), clamp(value, 0, Expr(max)), 0)
  let r = FXDSL.int(uniform(v))
  return (v, r, Int(radius(max).rounded(.up)))
}

/// One pass of the Gaussian: the centre tap, then pairs `±i` from the centre
/// out with the recurrence's weights (accumulators: sum, weight total, g, ρ).
func gaussianPass(_ name: String, _ s: Expr, _ r: Expr, _ limit: Int, horizontal: Bool) -> Effect {
  Effect.layer(name) { p, layer in
    let ratio = exp(-1 / (2 * s * s))
    let step = ratio * ratio
    func tap(_ d: Expr) -> Expr { horizontal ? float2(d, 0) : float2(0, d) }
    let folded = Expr.fold(from: 1, to: r + 1, limit: limit, initial: [layer.sample(p), 1, 1, ratio]) { i, acc in
      let g = acc[2] * acc[3]
      let pair = layer.sample(p - tap(float(i))) + layer.sample(p + tap(float(i)))
      return [fma(g, pair, acc[0]), acc[1] + 2 * g, g, acc[3] * step]
    }
    // One reciprocal, then a multiply: a constant σ folds the reciprocal, so a pass
    // divides nothing per pixel (a division costs 5–10 multiplies' time).
    return folded[0] * (1 / folded[1])
  }
}

/// Unsharp mask: the premultiplied colour `c.rgb + amount·(c.rgb − b.rgb)`,
/// `b = gaussianBlur(sigma)(c)`, clamped to `0…c.a`, with the alpha of `c`
/// unchanged (a two-input graph: the original and its blur). The clamp keeps
/// the result valid premultiplied data (colour never above alpha) on images
/// with transparency; on opaque ones it is the clamp to 0…1 that every
/// integer store applies anyway. `sigma` 0…200 px (default 2; constant or
/// uniform; 0 or non-finite = unchanged), `amount` 0…10 (default 1). A flat
/// image stays flat. (The classic darkroom technique; as in ImageMagick's
/// `-unsharp` and Core Image's CIUnsharpMask, less their thresholds.)
public func unsharpMask(sigma: Expr = 2, amount: Expr = 1) -> Effect {
  let name = "unsharpMask(sigma: \(Argument.text(sigma)), amount: \(Argument.text(amount)))"
  guard let k = Argument.checked(amount, 0...10), sigma.constantValue.map({ $0.isFinite && $0 > 0 }) ?? true else {
    return Effect(name) { $0 }
  }
  let blur = gaussianBlur(sigma: sigma, method: .exact)  // it reads the image before the blur too: no cut (a scan) between them
  return Effect(name) { input in
    Image.combine(name, [input, blur(input)], sampler: .nearest) { p, layers in
      let c = layers[0].sample(p), b = layers[1].sample(p)
      let gain = Argument.allFinite([amount]).map { select($0, k, 0) } ?? k
      let sharpened = clamp(fma(gain, c.rgb - b.rgb, c.rgb), Expr(Float(0)), c.a)
      return float4(sharpened, c.a)
    }
  }
}

/// `terms[0] + terms[1] + …` as a balanced tree, so a sum of thousands of taps
/// stays shallow (the front end lowers expressions recursively).
func balancedSum(_ terms: [Expr]) -> Expr {
  if terms.count == 1 { return terms[0] }
  let mid = terms.count / 2
  return balancedSum(Array(terms[..<mid])) + balancedSum(Array(terms[mid...]))
}
