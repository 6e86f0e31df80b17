import FXDSL
import FXIR

// Fills: color effects that paint a pattern computed from the position alone,
// mixed over the input by `opacity` (1 replaces it). Colors are straight RGBA
// constants; the pattern is premultiplied before mixing.

/// A fill: `mix(input, pattern(position), opacity)`, both premultiplied.
private func fill(_ name: String, _ args: [(Expr, Argument.Rule)], opacity: Expr, _ pattern: @escaping ([Expr], Expr) -> Expr)
  -> Effect
{
  Argument.color(name, args + [(opacity, .clamp(0...1))]) { values, p, c in
    mix(c, pattern(values, p), values[values.count - 1])
  }
}

/// A checkerboard of `first` and `second` (default light and mid gray) squares of
/// `size` pixels (1…1000, default 16), mixed over the input by `opacity` (0…1, default 1).
///
/// Formula: `((int(floor(x/size)) ^ int(floor(y/size))) & 1) == 0 ? first : second`,
/// signed integers, so the squares are whole on both sides of 0 (after SwiftShaders' checkerboard fill).
public func checkerboard(
  size: Expr = 16, first: Color = Color(rgb: 0xe6e6e6), second: Color = Color(rgb: 0x999999), opacity: Expr = 1
) -> Effect {
  let name =
    "checkerboard(size: \(Argument.text(size)), first: \(first), second: \(second), opacity: \(Argument.text(opacity)))"
  return fill(name, [(size, .clamp(1...1000))], opacity: opacity) { v, p in
    let cell = (int(floor(p.x / v[0])) ^ int(floor(p.y / v[0]))) & 1
    return select(cell == 0, first.premultiplied, second.premultiplied)
  }
}

/// A linear gradient from `from` to `to` (default black to white) along `angle`
/// degrees (folded into one turn; 0 = left to right, 90 = top to bottom, default 90),
/// spanning the image, mixed over the input by `opacity` (0…1, default 1).
///
/// Formula: `t = clamp01(dot(position − size/2, d)/extent + 0.5)` with
/// `d = (cos angle, sin angle)` and `extent = |d.x|·width + |d.y|·height`
/// (the image's length along `d`); `mix(from, to, t)` premultiplied (as CSS
/// `linear-gradient` interpolates).
public func linearGradient(from: Color = .black, to: Color = .white, angle: Expr = 90, opacity: Expr = 1) -> Effect {
  let name = "linearGradient(from: \(from), to: \(to), angle: \(Argument.text(angle)), opacity: \(Argument.text(opacity)))"
  return fill(name, [(angle, .angle)], opacity: opacity) { v, p in
    let radians = v[0] * Expr(Float.pi / 180)
    let d = float2(cos(radians), sin(radians))
    let extent = max(abs(d.x) * Expr.size.x + abs(d.y) * Expr.size.y, 1)
    let t = saturate(dot(p - Expr.size * 0.5, d) / extent + 0.5)
    return mix(from.premultiplied, to.premultiplied, t)
  }
}

/// Fractal value noise, gray and opaque: four octaves of ``valueNoise(_:period:seed:)``
/// (the dissolve hash), the first with cells of `scale` pixels (1…1000, default 32),
/// shifted by `seed` (0…1000, default 0) cells; mixed over the input by `opacity`
/// (0…1, default 1).
public func noise(scale: Expr = 32, seed: Expr = 0, opacity: Expr = 1) -> Effect {
  let name = Argument.name(
    "noise", [("scale", Argument.text(scale)), ("seed", Argument.text(seed)), ("opacity", Argument.text(opacity))])
  return fill(name, [(scale, .clamp(1...1000)), (seed, .clamp(0...1000))], opacity: opacity) { v, p in
    let n = fractalNoise(p / v[0] + v[1] * float2(1.37, 0.73), octaves: 4)
    return float4(n, n, n, 1)
  }
}
