import FXDSL
import FXIR

/// Where ``domainWarp(noise:strength:time:)`` reads its noise texture from.
public enum NoiseSource: String, CaseIterable, Sendable {
  /// A tileable fractal value noise generated in the graph (red and green independent).
  case generated
  /// The graph's second input (`fxc run --to noise.png`), any size, tiled.
  case image
}

/// The noise texture domainWarp generates: three octaves of
/// ``valueNoise(_:period:seed:)`` over a 4 × 4 grid of cells spanning the image,
/// wrapping at its edges so that it tiles (red and green use different seeds); opaque.
public func generatedNoiseTexture() -> Image {
  Image.combine("domainWarp noise", []) { p, _ in
    let uv = p / Expr.size * 4
    return float4(fractalNoise(uv, octaves: 3, period: 4), fractalNoise(uv, octaves: 3, period: 4, seed: 7777), 0, 1)
  }
}

/// How far the noise texture drifts per second, in texture widths: `time·drift`.
let domainWarpDrift = (Float(0.05), Float(0.03))

/// Domain warp (EFFECTS.md, after "compose advanced graphics effects"): the input
/// resampled at positions pushed around by a noise texture warped through itself.
///
/// `uv = position/size`; the noise is read with normalized coordinates, repeat,
/// bilinear: `n1 = noise(uv + time·drift)`, `n2 = noise(uv + n1.rg)`;
/// `offset = (n2.rg − 0.5)·strength`, capped at the image diagonal; output
/// `sample(position + offset)` (bilinear, clamp to edge).
///
/// - `noise`: the texture (any size); `nil` generates one (``generatedNoiseTexture()``).
///   Use `Image.input(1)` to warp through a second image: the graph then has two inputs.
/// - `strength` 0…2000 px (default 200; 0 = unchanged).
/// - `time` in seconds (default 0), wrapped every 3,600 s; the texture drifts by
///   (0.05, 0.03) texture sizes per second.
public func domainWarp(noise: Image? = nil, strength: Expr = 200, time: Expr = 0) -> Effect {
  let source = noise == nil ? NoiseSource.generated : .image
  let name = Argument.name(
    "domainWarp", [("strength", Argument.text(strength)), ("time", Argument.text(time)), ("noise", source.rawValue)])
  guard let (v, finite) = Argument.prepare([(strength, .clamp(0...2000)), (time, .time)]) else {
    return Effect(name) { $0 }
  }
  return Effect(name) { input in
    let texture = noise ?? generatedNoiseTexture()
    return Image.combine(name, [input, texture]) { p, layers in
      let tiled = Sampler(filter: .linear, address: .repeat)
      let noiseSize = layers[1].size
      let uv = p / Expr.size
      let drift = float2(Expr(domainWarpDrift.0), Expr(domainWarpDrift.1))
      let n1 = layers[1].sample((uv + v[1] * drift) * noiseSize, tiled)
      let n2 = layers[1].sample((uv + n1.xy) * noiseSize, tiled)
      let diagonal = length(Expr.size)
      let shift = clamp((n2.xy - 0.5) * v[0], -diagonal, diagonal)
      return Argument.guarded(finite, layers[0].sample(p + shift), else: layers[0].sample(p))
    }
  }
}
