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

/// Gaussian blur of standard deviation `sigma` pixels (0…10, default 3; 0 or
/// non-finite = unchanged, and so is any σ below about 0.069 px, whose
/// off-centre weights are 0 in Float), written as plain 2-D taps: the sum over a
/// `(2r+1)²` square, `r = ceil(3σ)`, of `w(i)·w(j)·sample(position + (i, j))`
/// with the normalised 1-D Gaussian weights of ``gaussianWeights(sigma:)``,
/// edges clamped (no dark border). `sigma` must be a constant (it sets the tap count).
public func gaussianBlur(sigma: Expr = 3) -> Effect {
  let name = "gaussianBlur(sigma: \(Argument.text(sigma)))"
  guard let s = sigma.constantValue.flatMap({ $0.isFinite ? Swift.min($0, 10) : nil }), s > 0 else {
    return Effect(name) { $0 }
  }
  let w = gaussianWeights(sigma: s)
  let r = w.count / 2
  return Effect.layer(name) { p, layer in
    var taps: [Expr] = []
    for j in -r...r {
      for i in -r...r {
        taps.append(Expr(w[i + r] * w[j + r]) * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j)))))
      }
    }
    return balancedSum(taps)
  }
}

/// Unsharp mask: `c + amount·(c − gaussianBlur(sigma)(c))` on every
/// premultiplied channel (a two-input graph: the original and its blur).
/// `sigma` 0…10 px (default 2; a constant; 0 or non-finite = unchanged),
/// `amount` 0…10 (default 1). A flat image stays flat.
public func unsharpMask(sigma: Expr = 2, amount: Expr = 1) -> Effect {
  let name = "unsharpMask(sigma: \(Argument.text(sigma)), amount: \(Argument.text(amount)))"
  guard let k = Argument.checked(amount, 0...10), let s = sigma.constantValue, s.isFinite, s > 0 else {
    return Effect(name) { $0 }
  }
  let blur = gaussianBlur(sigma: sigma)
  return Effect(name) { input in
    Image.combine(name, [input, blur(input)], sampler: .nearest) { p, layers in
      let c = layers[0].sample(p), b = layers[1].sample(p)
      let gain = Argument.allFinite([amount]).map { select($0, k, 0) } ?? k
      return c + gain * (c - b)
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
