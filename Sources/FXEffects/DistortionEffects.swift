import FXDSL
import FXIR

// Distortions around the image's center: each returns where to sample the input
// (bilinear, clamp to edge). Radii are fractions of half the shorter side.

/// `v` rotated by the angle whose cosine and sine are `c` and `s`.
func rotate(_ v: Expr, _ c: Expr, _ s: Expr) -> Expr { float2(v.x * c - v.y * s, v.x * s + v.y * c) }

/// Degrees to radians.
func radians(_ degrees: Expr) -> Expr { degrees * Expr(Float.pi / 180) }

/// The swirl's sample position: `position` rotated about the center by
/// `angle·t²` radians, `t = clamp01(1 − r/R)`, `R = radius·min(width, height)/2`.
func swirled(_ p: Expr, angle: Expr, radius: Expr) -> Expr {
  let center = Expr.size * 0.5
  let d = p - center
  let reach = max(radius * 0.5 * min(Expr.size.x, Expr.size.y), 1e-3)
  let t = saturate(1 - length(d) / reach)
  let theta = angle * t * t
  return center + rotate(d, cos(theta), sin(theta))
}

/// Swirl: rotates the image about its center, by `angle` degrees at the center
/// (−1080…1080, default 180) falling to 0 at `radius` (0…2 half-sides, default 0.8).
/// Formula: after SwiftShaders' swirl (GPUImage `GPUImageSwirlFilter`): rotation
/// `angle·t²` with `t = clamp01(1 − r/R)`.
public func swirl(angle: Expr = 180, radius: Expr = 0.8) -> Effect {
  let name = Argument.name("swirl", [("angle", Argument.text(angle)), ("radius", Argument.text(radius))])
  return Argument.distortion(name, [(angle, .clamp(-1080...1080)), (radius, .clamp(0...2))]) { v, p in
    swirled(p, angle: radians(v[0]), radius: v[1])
  }
}

/// Ripple: concentric waves from the center; each pixel samples
/// `amplitude·sin(2π·fract(r/wavelength))` pixels further out along its radius.
/// `amplitude` 0…200 px (default 8), `wavelength` 2…1000 px (default 40).
/// After SwiftShaders' ripple (without time; see `wave` for a directional wave).
public func ripple(amplitude: Expr = 8, wavelength: Expr = 40) -> Effect {
  let name = Argument.name("ripple", [("amplitude", Argument.text(amplitude)), ("wavelength", Argument.text(wavelength))])
  return Argument.distortion(name, [(amplitude, .clamp(0...200)), (wavelength, .clamp(2...1000))]) { v, p in
    let d = p - Expr.size * 0.5
    let r = length(d)
    let direction = select(r > 0, d / r, float2(0))
    return p + direction * (v[0] * sin(fract(r / v[1]) * Expr(2 * Float.pi)))
  }
}

/// Bulge (positive `strength`) or pinch (negative): magnifies or shrinks the
/// middle. `strength` −1…1 (default 0.5), `radius` 0…2 half-sides (default 0.8).
/// Formula: `center + d·(1 − strength·smoothstep(0, 1, 1 − r/R))`, the shape of
/// Core Image's `CIBumpDistortion`.
public func bulge(strength: Expr = 0.5, radius: Expr = 0.8) -> Effect {
  let name = Argument.name("bulge", [("strength", Argument.text(strength)), ("radius", Argument.text(radius))])
  return Argument.distortion(name, [(strength, .clamp(-1...1)), (radius, .clamp(0...2))]) { v, p in
    let center = Expr.size * 0.5
    let d = p - center
    let reach = max(v[1] * 0.5 * min(Expr.size.x, Expr.size.y), 1e-3)
    let t = saturate(1 - length(d) / reach)
    return center + d * (1 - v[0] * t * t * (3 - 2 * t))
  }
}

/// Kaleidoscope: folds the angle about the center into one mirrored wedge of
/// `360/segments` degrees. `segments` 2…32 (rounded, default 6), `angle` the
/// wedge's orientation in degrees (folded into one turn, default 0).
/// Formula: `a = atan2(d) − angle`, `m = a mod w`, `m = min(m, w − m)`,
/// sample `center + r·(cos(m + angle), sin(m + angle))` (after SwiftShaders' kaleidoscope).
public func kaleidoscope(segments: Expr = 6, angle: Expr = 0) -> Effect {
  let name = Argument.name("kaleidoscope", [("segments", Argument.text(segments)), ("angle", Argument.text(angle))])
  return Argument.distortion(name, [(segments, .clamp(2...32)), (angle, .angle)]) { v, p in
    let center = Expr.size * 0.5
    let d = p - center
    let turn = radians(v[1])
    let wedge = Expr(2 * Float.pi) / floor(v[0] + 0.5)
    let a = atan2(d.y, d.x) - turn
    let m = a - wedge * floor(a / wedge)
    let folded = min(m, wedge - m) + turn
    return center + length(d) * float2(cos(folded), sin(folded))
  }
}
