import FXDSL
import FXIR

// Color effects that map tones or add a pattern: gradient map, ordered dither,
// scanlines, film grain. Each works on straight color and re-multiplies.

extension Color {
  /// gradientMap's default: deep indigo → brick red → pale gold.
  public static let sunset = [Color(rgb: 0x140a32), Color(rgb: 0xc83c3c), Color(rgb: 0xffe696)]
}

/// Gradient map: each pixel's Rec. 709 luma (of its straight color) picks a color
/// from a gradient, mixed with the original by `amount` (0…1, default 1).
///
/// - `colors`: the gradient's stops, evenly spaced from dark (luma 0) to light
///   (luma 1), straight RGBA (default ``Color/sunset``). An empty list returns the
///   input unchanged; one color mixes every pixel toward that color by `amount`
///   (EFFECTS.md, SwiftShaders discipline). With N ≥ 2 colors the gradient is
///   piecewise linear: `Σₖ colorₖ · max(0, 1 − |luma·(N − 1) − k|)`, a sum of hat
///   functions, so no stop is ever indexed out of range.
/// - The result's alpha is `alpha · mix(1, gradient alpha, amount)`.
public func gradientMap(colors: [Color] = Color.sunset, amount: Expr = 1) -> Effect {
  let name = "gradientMap(" + (colors.map(\.description) + ["amount: \(Argument.text(amount))"]).joined(separator: ", ") + ")"
  guard !colors.isEmpty else { return Effect(name) { $0 } }
  return Argument.color(name, [(amount, 0...1)]) { args, _, c in
    let s = straightColor(c)
    var target = colors[0].straight
    if colors.count > 1 {
      let t = saturate(luma(s)) * Expr(Float(colors.count - 1))
      let hats = colors.enumerated().map { k, color in color.straight * max(1 - abs(t - Expr(Float(k))), 0) }
      target = balancedSum(hats)
    }
    let alpha = c.a * mix(1, target.a, args[0])
    return float4(saturate(mix(s, target.rgb, args[0])) * alpha, alpha)
  }
}

/// The 4 × 4 Bayer threshold at `position` (float2, pixels), in (0, 1):
/// `(B[y & 3][x & 3] + 0.5)/16` with `x = int(floor(position.x / scale))` and
/// likewise `y`, where B is the classic ordered-dither matrix
/// `[[0 8 2 10] [12 4 14 6] [3 11 1 9] [15 7 13 5]]`.
///
/// The index is computed on **signed** integers with a bitwise AND, so the pattern
/// repeats with period 4 across x = 0 and y = 0 (EFFECTS.md); the matrix entry is
/// built from bits — with `a = x ^ y`: `(a & 1) << 3 | (y & 1) << 2 | (a & 2) | (y & 2) >> 1` —
/// so there is no table to index out of range.
public func bayerThreshold(_ position: Expr, scale: Expr = 1) -> Expr {
  let x = int(floor(position.x / scale)), y = int(floor(position.y / scale))
  let a = x ^ y
  let index = ((a & 1) << 3) | ((y & 1) << 2) | (a & 2) | ((y & 2) >> 1)
  return (float(index) + 0.5) / 16
}

/// Ordered dither of a premultiplied color at `position` to `levels` levels per
/// straight channel: `floor(c·(levels − 1) + bayer)/(levels − 1)`, re-multiplied.
public func orderedDither(_ color: Expr, at position: Expr, levels: Expr, scale: Expr = 1) -> Expr {
  let steps = floor(levels + 0.5) - 1
  let t = bayerThreshold(position, scale: scale)
  return onStraight(color) { s in floor(s * steps + t) / steps }
}

/// Ordered dither with a 4 × 4 Bayer matrix: each straight channel is quantised to
/// `levels` values (2…256, default 4), the rounding threshold varying over the
/// pattern, whose cells are `scale` pixels wide (1…64, default 1).
/// Formula: see ``orderedDither(_:at:levels:scale:)`` and ``bayerThreshold(_:scale:)``.
public func dither(levels: Expr = 4, scale: Expr = 1) -> Effect {
  let name = Argument.name("dither", [("levels", Argument.text(levels)), ("scale", Argument.text(scale))])
  return Argument.color(name, [(levels, 2...256), (scale, 1...64)]) { args, p, c in
    orderedDither(c, at: p, levels: args[0], scale: args[1])
  }
}

/// Horizontal scanlines: color times `1 − intensity·(0.5 + 0.5·cos(2π·y/spacing))`,
/// darkest on every `spacing`-th row. `spacing` 1…100 px (default 4),
/// `intensity` 0…1 (default 0.5; 0 = unchanged). After SwiftShaders' scanlines,
/// with a cosine profile so that the lines do not alias.
public func scanlines(spacing: Expr = 4, intensity: Expr = 0.5) -> Effect {
  let name = Argument.name("scanlines", [("spacing", Argument.text(spacing)), ("intensity", Argument.text(intensity))])
  return Argument.color(name, [(spacing, 1...100), (intensity, 0...1)]) { args, p, c in
    let phase = fract(p.y / args[0])
    return c * (1 - args[1] * (0.5 + 0.5 * cos(phase * Expr(2 * Float.pi))))
  }
}

/// Film grain: adds hashed value noise to straight color,
/// `c + amount·(noise(position/size + seed·(17.31, 9.17)) − 0.5)`, clamped to 0…1.
/// `amount` 0…1 (default 0.15), `size` 0.5…50 px (grain size, default 1.5),
/// `seed` 0…1000 (default 0; animate it for moving grain). Noise: ``valueNoise(_:period:seed:)``.
public func grain(amount: Expr = 0.15, size: Expr = 1.5, seed: Expr = 0) -> Effect {
  let name = Argument.name(
    "grain", [("amount", Argument.text(amount)), ("size", Argument.text(size)), ("seed", Argument.text(seed))])
  return Argument.color(name, [(amount, 0...1), (size, 0.5...50), (seed, 0...1000)]) { args, p, c in
    let n = valueNoise(p / args[1] + args[2] * float2(17.31, 9.17))
    return float4(clamp(c.rgb + args[0] * (n - 0.5) * c.a, 0, c.a), c.a)
  }
}
