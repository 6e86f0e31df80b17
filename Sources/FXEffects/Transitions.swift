import FXDSL
import FXIR

// Transitions: effects of a `progress` uniform (0 = the input, 1 = the `to`
// image) from the input to a second image, the graph's input 1 by default —
// `fxc run --to B.png` supplies it, or a transparent image of the same size, so
// without `--to` a transition goes to transparency. Progress is clamped to 0…1;
// a non-finite progress leaves the input untouched.

/// The dissolve seed's edge width (EFFECTS.md).
let dissolveEdgeWidth: Float = 0.12

/// Dissolve transition (EFFECTS.md, exact): the input burns away through hashed
/// value noise with a glowing `edge`, revealing `to`.
///
/// `threshold = clamp01(progress)·(1 + 0.12) − 0.12`; `q = position/max(grain, 1)`;
/// `n = clamp01((0.7·noise(q) + 0.3·noise(3.1·q + 17) − 0.5)·1.7 + 0.5)`
/// (``dissolveNoise(_:)``); `kept = smoothstep(threshold, threshold + 0.015, n)`;
/// `heat = 1 − smoothstep(threshold, threshold + 0.12, n)`;
/// `ember = mix(edge.rgb, 1, 0.35·heat²)·color.a`; `rgb = mix(color.rgb, ember, heat)`;
/// output `(rgb, color.a)·kept + to·(1 − kept)` — exactly the seed's output where
/// `to` is transparent. Off (the input) when `progress ≤ 0`.
///
/// `progress` 0…1 (default 0.5), `grain` 1…1000 px (the noise cell size, default 44),
/// `edge` straight RGB (default orange; its alpha is not used).
public func dissolve(progress: Expr = 0.5, grain: Expr = 44, edge: Color = .orange, to: Image = .input(1)) -> Effect {
  let name = "dissolve(progress: \(Argument.text(progress)), grain: \(Argument.text(grain)), edge: \(edge))"
  return Argument.transition(name, [(progress, .clamp(0...1)), (grain, .clamp(1...1000))], to: to) { v, p, from, to in
    let color = from.sample(p)
    let threshold = v[0] * Expr(1 + dissolveEdgeWidth) - Expr(dissolveEdgeWidth)
    let n = dissolveNoise(p / max(v[1], 1))
    let kept = smoothstep(threshold, threshold + 0.015, n)
    let heat = 1 - smoothstep(threshold, threshold + Expr(dissolveEdgeWidth), n)
    let ember = mix(edge.rgb, float3(1), 0.35 * heat * heat) * color.a
    let burnt = float4(mix(color.rgb, ember, heat), color.a) * kept + to.sample(p) * (1 - kept)
    return select(v[0] <= 0, color, burnt)
  }
}

/// Cross-fade: `mix(input, to, progress)` on premultiplied color.
/// `progress` 0…1 (default 0.5).
public func fade(progress: Expr = 0.5, to: Image = .input(1)) -> Effect {
  Argument.transition("fade(progress: \(Argument.text(progress)))", [(progress, .clamp(0...1))], to: to) {
    v, p, from, to in
    mix(from.sample(p), to.sample(p), v[0])
  }
}

/// Wipe: `to` sweeps in from the starting edge of `direction` (default leading,
/// i.e. left) behind a soft edge `softness` pixels wide (0…1000, default 24; at
/// least half a pixel). Edge position `e = progress·(extent + softness)`;
/// `k = 1 − smoothstep(e − softness, e, t)` with `t` the distance from the starting
/// edge; output `mix(input, to, k)`. `progress` 0…1 (default 0.5).
public func wipe(
  progress: Expr = 0.5, direction: Direction = .leadingToTrailing, softness: Expr = 24, to: Image = .input(1)
) -> Effect {
  let name =
    "wipe(progress: \(Argument.text(progress)), direction: \(direction.rawValue), softness: \(Argument.text(softness)))"
  return Argument.transition(name, [(progress, .clamp(0...1)), (softness, .clamp(0...1000))], to: to) {
    v, p, from, to in
    let soft = max(v[1], 0.5)
    let edge = v[0] * (direction.extent + soft)
    let k = 1 - smoothstep(edge - soft, edge, direction.distance(p))
    return mix(from.sample(p), to.sample(p), k)
  }
}

/// Slide (push): `to` enters from the starting edge of `direction` (default
/// leading) pushing the input out, both moving by `progress·extent` pixels.
/// With `s = progress·extent`: where `t < s` the output is `to` sampled at
/// `p + u·(extent − s)`, elsewhere the input at `p − u·s` (`u` the direction's
/// unit vector). `progress` 0…1 (default 0.5).
public func slide(progress: Expr = 0.5, direction: Direction = .leadingToTrailing, to: Image = .input(1)) -> Effect {
  let name = "slide(progress: \(Argument.text(progress)), direction: \(direction.rawValue))"
  return Argument.transition(name, [(progress, .clamp(0...1))], to: to) { v, p, from, to in
    let u = float2(Expr(direction.vector.0), Expr(direction.vector.1))
    let shift = v[0] * direction.extent
    let entering = to.sample(p + u * (direction.extent - shift))
    return select(direction.distance(p) < shift, entering, from.sample(p - u * shift))
  }
}

/// Iris: `to` appears inside a circle growing from the center, with an edge
/// `softness` pixels wide (0…1000, default 8; at least half a pixel). Radius
/// `R = progress·(|size|/2 + softness)`; `k = 1 − smoothstep(R − softness, R, r)`;
/// output `mix(input, to, k)`. `progress` 0…1 (default 0.5).
public func iris(progress: Expr = 0.5, softness: Expr = 8, to: Image = .input(1)) -> Effect {
  let name = "iris(progress: \(Argument.text(progress)), softness: \(Argument.text(softness)))"
  return Argument.transition(name, [(progress, .clamp(0...1)), (softness, .clamp(0...1000))], to: to) {
    v, p, from, to in
    let soft = max(v[1], 0.5)
    let reach = v[0] * (length(Expr.size) * 0.5 + soft)
    let k = 1 - smoothstep(reach - soft, reach, length(p - Expr.size * 0.5))
    return mix(from.sample(p), to.sample(p), k)
  }
}

/// Pixelate-through: both images are pixelated with the block side
/// `s = 1 + (blockSize − 1)·(1 − |2·progress − 1|)` (1 at the ends, `blockSize` at
/// half way; blocks as in ``pixelate(amount:blockSize:)``), and cross-faded by
/// `smoothstep(0.4, 0.6, progress)`. `progress` 0…1 (default 0.5),
/// `blockSize` 1…1000 px (default 40).
public func pixelateTransition(progress: Expr = 0.5, blockSize: Expr = 40, to: Image = .input(1)) -> Effect {
  let name = "pixelateTransition(progress: \(Argument.text(progress)), blockSize: \(Argument.text(blockSize)))"
  return Argument.transition(name, [(progress, .clamp(0...1)), (blockSize, .clamp(1...1000))], to: to) {
    v, p, from, to in
    let s = 1 + (v[1] - 1) * (1 - abs(2 * v[0] - 1))
    let center = min((floor(p / s) + 0.5) * s, Expr.size - 0.5)
    let a = select(s <= 1, from.sample(p), from.sample(center))
    let b = select(s <= 1, to.sample(p), to.sample(center))
    return mix(a, b, smoothstep(0.4, 0.6, v[0]))
  }
}

/// Swirl-through: both images are swirled (as ``swirl(angle:radius:)``) by
/// `angle·(1 − |2·progress − 1|)` degrees — none at the ends, `angle` half way —
/// and cross-faded by `smoothstep(0.25, 0.75, progress)`. `progress` 0…1
/// (default 0.5), `angle` −1080…1080 (default 540), `radius` 0…2 half-sides (default 1.2).
public func swirlTransition(progress: Expr = 0.5, angle: Expr = 540, radius: Expr = 1.2, to: Image = .input(1))
  -> Effect
{
  let name =
    "swirlTransition(progress: \(Argument.text(progress)), angle: \(Argument.text(angle)), radius: \(Argument.text(radius)))"
  let args: [(Expr, Argument.Rule)] = [(progress, .clamp(0...1)), (angle, .clamp(-1080...1080)), (radius, .clamp(0...2))]
  return Argument.transition(name, args, to: to) { v, p, from, to in
    let q = swirled(p, angle: radians(v[1]) * (1 - abs(2 * v[0] - 1)), radius: v[2])
    return mix(from.sample(q), to.sample(q), smoothstep(0.25, 0.75, v[0]))
  }
}
