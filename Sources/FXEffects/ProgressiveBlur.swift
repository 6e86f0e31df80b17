import FXDSL
import FXIR

/// Which way an effect runs across the image: from which edge (progressive
/// blur, wipe, slide). "Leading" is the left edge (left-to-right layout).
public enum Direction: String, CaseIterable, Sendable {
  case topToBottom, bottomToTop, leadingToTrailing, trailingToLeading

  /// The unit vector of the direction (y down).
  var vector: (Float, Float) {
    switch self {
    case .topToBottom: (0, 1)
    case .bottomToTop: (0, -1)
    case .leadingToTrailing: (1, 0)
    case .trailingToLeading: (-1, 0)
    }
  }

  /// The image's extent along the direction, in pixels.
  var extent: Expr { vector.0 == 0 ? Expr.size.y : Expr.size.x }

  /// Distance in pixels of `p` from the starting edge, along the direction.
  func distance(_ p: Expr) -> Expr {
    switch self {
    case .topToBottom: p.y
    case .bottomToTop: Expr.size.y - p.y
    case .leadingToTrailing: p.x
    case .trailingToLeading: Expr.size.x - p.x
    }
  }
}

/// The shape of a falloff from 1 to 0 (progressive blur's strength).
public enum Curve: String, CaseIterable, Sendable {
  case linear, easeIn, easeOut, smoothStep

  /// The curve at `u` in 0…1 (0 → 0, 1 → 1): `u`, `u²`, `1 − (1 − u)²`, `u²(3 − 2u)`.
  func callAsFunction(_ u: Expr) -> Expr {
    switch self {
    case .linear: u
    case .easeIn: u * u
    case .easeOut: 1 - (1 - u) * (1 - u)
    case .smoothStep: u * u * (3 - 2 * u)
    }
  }
}

/// Largest radius ``progressiveBlur(radius:length:direction:start:curve:)`` accepts, in pixels.
public let progressiveBlurMaxRadius: Float = 64

/// Variance (px²) of pyramid level `k`: `(4^k − 1)/3` — level k adds a B3-spline
/// pass of variance `4^(k−1)` to level k − 1.
func pyramidVariance(_ k: Int) -> Float { (Float(1 << (2 * k)) - 1) / 3 }

/// One separable pass of an "à trous" (with holes) B3-spline pyramid level:
/// weights (1, 4, 6, 4, 1)/16 at offsets −2…2 times `step` pixels, along x or y,
/// reads clamped into the image.
private func atrousPass(_ image: Image, level: Int, horizontal: Bool) -> Image {
  let step = 1 << (level - 1)
  let name = "progressiveBlur level \(level) \(horizontal ? "x" : "y")"
  return Image.combine(name, [image]) { p, layers in
    let weights: [Float] = [1, 4, 6, 4, 1]
    let taps = (-2...2).map { k in
      Expr(weights[k + 2] / 16) * layers[0].sample(horizontal ? offset(p, k * step, 0) : offset(p, 0, k * step))
    }
    return balancedSum(taps)
  }
}

/// A blur whose strength changes continuously across the image, as in the seed
/// (EFFECTS.md): strength `w = 1` up to `start` pixels from the starting edge of
/// `direction`, then falling to 0 over `length` pixels shaped by `curve`
/// (`w = 1 − curve(clamp01((t − start)/length))`); the local blur has standard
/// deviation `radius·w` pixels.
///
/// - `radius` 0…64 px (default 16), `length` 0…10000 px (default 200),
///   `start` 0…10000 px (default 0); a nonpositive or non-finite `radius` or
///   `length` switches the effect off (a uniform one too, in the kernel).
/// - `direction` and `curve` are constants.
///
/// How: the published version scales a fixed 5 × 5 Gaussian grid by the local
/// radius, so large radii show repeated copies of every edge. fxc instead builds a
/// scale-space pyramid of the input once — level k is level k − 1 blurred by a
/// B3-spline (1, 4, 6, 4, 1)/16 whose taps are `2^(k−1)` pixels apart ("à
/// trous"), a horizontal and a vertical pass of 5 taps each, so level k has
/// variance `(4^k − 1)/3` (σ = 1, 2.2, 4.6, 9.2, 18.5, 36.9, 73.9 px) and is
/// smooth at every scale (no holes: each level's taps are no further apart than
/// the blur already applied) — and each pixel blends the two levels around its
/// target variance `(radius·w)²`, weighting them so that the blend's variance is
/// exactly the target (a mixture of two kernels has the weighted mean of their
/// variances). The final stage reads the levels with per-pixel weights, so it is
/// not a convolution with constant taps and the separable splitter leaves it
/// alone; only the pyramid's fixed passes are separable. Cost: 10 taps per level
/// (≤ 7 levels) plus one read per level, whatever the radius.
public func progressiveBlur(
  radius: Expr = 16, length: Expr = 200, direction: Direction = .topToBottom, start: Expr = 0,
  curve: Curve = .linear
) -> Effect {
  let name = Argument.name(
    "progressiveBlur",
    [
      ("radius", Argument.text(radius)), ("length", Argument.text(length)), ("direction", direction.rawValue),
      ("start", Argument.text(start)), ("curve", curve.rawValue),
    ])
  guard
    let (v, finite) = Argument.prepare([
      (radius, .clamp(0...progressiveBlurMaxRadius)), (length, .clamp(0...10000)), (start, .clamp(0...10000)),
    ])
  else { return Effect(name) { $0 } }
  if let r = v[0].constantValue, r <= 0 { return Effect(name) { $0 } }
  if let l = v[1].constantValue, l <= 0 { return Effect(name) { $0 } }
  // Enough levels for the largest radius this effect can take.
  let largest = v[0].constantValue ?? progressiveBlurMaxRadius
  var levels = 1
  while pyramidVariance(levels) < largest * largest { levels += 1 }

  return Effect(name) { input in
    var pyramid = [input]
    for k in 1...levels {
      pyramid.append(atrousPass(atrousPass(pyramid[k - 1], level: k, horizontal: true), level: k, horizontal: false))
    }
    return Image.combine(name, pyramid, sampler: .nearest) { p, layers in
      let t = direction.distance(p)
      let w = 1 - curve(saturate((t - v[2]) / v[1]))
      let sigma = v[0] * w
      let variance = min(sigma * sigma, Expr(pyramidVariance(levels)))
      // Hat functions over the levels' variances: the two around `variance` get
      // weights that sum to 1 and blend to exactly that variance.
      let weighted = (0...levels).map { k -> Expr in
        let rise = k == 0 ? Expr(1) : (variance - Expr(pyramidVariance(k - 1))) / Expr(pyramidVariance(k) - pyramidVariance(k - 1))
        let fall = k == levels ? Expr(1) : (Expr(pyramidVariance(k + 1)) - variance) / Expr(pyramidVariance(k + 1) - pyramidVariance(k))
        return saturate(min(rise, fall)) * layers[k].sample(p)
      }
      let blurred = balancedSum(weighted)
      let on = (v[0] > 0 && v[1] > 0)
      return select(on, Argument.guarded(finite, blurred, else: layers[0].sample(p)), layers[0].sample(p))
    }
  }
}
