import FXDSL
import FXIR

// Layer effects that read neighbours: every read is clamped into the image
// (the layer's default sampler is bilinear + clampToEdge), so no dark border.

/// The 3 × 3 neighbourhood of `p`: `n[j + 1][i + 1] = f(layer.sample(p + (i, j)))`.
private func neighbourhood(_ layer: Layer, _ p: Expr, _ f: (Expr) -> Expr) -> [[Expr]] {
  (-1...1).map { j in (-1...1).map { i in f(layer.sample(p + float2(Expr(Float(i)), Expr(Float(j))))) } }
}

/// Sobel gradients `(gx, gy)` of a 3 × 3 neighbourhood (any lane count).
private func sobel(_ n: [[Expr]]) -> (Expr, Expr) {
  let gx = (n[0][2] + 2 * n[1][2] + n[2][2]) - (n[0][0] + 2 * n[1][0] + n[2][0])
  let gy = (n[2][0] + 2 * n[2][1] + n[2][2]) - (n[0][0] + 2 * n[0][1] + n[0][2])
  return (gx, gy)
}

/// Luma of a premultiplied color composited over white paper.
private func lumaOverWhite(_ c: Expr) -> Expr { luma(c.rgb) + (1 - c.a) }

/// Pencil sketch: dark lines where the luma (over white paper) changes, white
/// elsewhere; alpha kept. `intensity` 0…4 (default 1; 0 = blank paper).
/// Formula: after SwiftShaders' sketch: `1 − clamp01(intensity·|∇luma|)` with the
/// 3 × 3 Sobel gradient.
public func sketch(intensity: Expr = 1) -> Effect {
  Argument.layer(Argument.name("sketch", [("intensity", Argument.text(intensity))]), [(intensity, .clamp(0...4))]) {
    v, p, layer in
    let (gx, gy) = sobel(neighbourhood(layer, p, lumaOverWhite))
    let paper = 1 - saturate(v[0] * sqrt(gx * gx + gy * gy))
    let a = layer.sample(p).a
    return float4(paper * a, paper * a, paper * a, a)
  }
}

/// Emboss: gray relief lit from `angle` degrees (folded; default 135, the upper
/// left in y-down coordinates), `strength` 0…10 (default 2).
/// Formula: after SwiftShaders' emboss: `0.5 + strength·(luma(sample(p − d)) − luma(sample(p + d)))`,
/// `d = (cos angle, sin angle)` pixels, premultiplied luma; alpha kept.
public func emboss(strength: Expr = 2, angle: Expr = 135) -> Effect {
  let name = Argument.name("emboss", [("strength", Argument.text(strength)), ("angle", Argument.text(angle))])
  return Argument.layer(name, [(strength, .clamp(0...10)), (angle, .angle)]) { v, p, layer in
    let a = radians(v[1])
    let d = float2(cos(a), sin(a))
    let relief = saturate(0.5 + v[0] * (luma(layer.sample(p - d).rgb) - luma(layer.sample(p + d).rgb)))
    let alpha = layer.sample(p).a
    return float4(relief * alpha, relief * alpha, relief * alpha, alpha)
  }
}

/// Edge detection: the Sobel gradient magnitude of each premultiplied channel
/// times `strength` (0…10, default 1), bright edges on black, alpha kept.
public func edgeDetect(strength: Expr = 1) -> Effect {
  let name = Argument.name("edgeDetect", [("strength", Argument.text(strength))])
  return Argument.layer(name, [(strength, .clamp(0...10))]) { v, p, layer in
    let (gx, gy) = sobel(neighbourhood(layer, p) { $0.rgb })
    let a = layer.sample(p).a
    return float4(min(v[0] * sqrt(gx * gx + gy * gy), a), a)
  }
}

/// Halftone: black dots on white on a grid of `dotSize` pixels (2…100, default 8)
/// turned by `angle` degrees (folded; default 45). Each cell's dot has an area
/// proportional to the darkness of the color at the cell's center.
/// Formula: after SwiftShaders' halftone: grid position `q = R(−angle)·p`, cell
/// center `c = (floor(q/size) + 0.5)·size`, color sampled at `R(angle)·c`;
/// dot radius `size·√(darkness/2)` (a dot of darkness 1 covers its cell), edge
/// antialiased over one pixel; alpha kept.
public func halftone(dotSize: Expr = 8, angle: Expr = 45) -> Effect {
  let name = Argument.name("halftone", [("dotSize", Argument.text(dotSize)), ("angle", Argument.text(angle))])
  return Argument.layer(name, [(dotSize, .clamp(2...100)), (angle, .angle)]) { v, p, layer in
    let a = radians(v[1])
    let c = cos(a), s = sin(a)
    let q = rotate(p, c, -s)
    let center = (floor(q / v[0]) + 0.5) * v[0]
    let darkness = saturate(1 - lumaOverWhite(layer.sample(rotate(center, c, s))))
    let r = v[0] * sqrt(darkness * 0.5)
    let ink = 1 - smoothstep(r - 0.5, r + 0.5, length(q - center))
    let alpha = layer.sample(p).a
    return float4(float3((1 - ink) * alpha), alpha)
  }
}

/// CRT monitor: barrel-curved screen (`curvature` 0…1, default 0.25), scanlines and
/// an RGB phosphor mask (`intensity` 0…1, default 0.5), darkened corners, black
/// outside the curved screen.
/// Formula: after SwiftShaders' CRT: `uv = 2p/size − 1`, `uv' = uv·(1 + curvature·|uv|²/4)`;
/// sample at `(uv'/2 + 0.5)·size`; times `1 − intensity·(0.5 − 0.5·cos(2π·y'/3))`
/// (scanlines every 3 px), the mask `1 − 0.4·intensity` on the two channels other
/// than `floor(x) mod 3`, and `1 − 0.25·intensity·|uv'|²`.
public func crt(curvature: Expr = 0.25, intensity: Expr = 0.5) -> Effect {
  let name = Argument.name("crt", [("curvature", Argument.text(curvature)), ("intensity", Argument.text(intensity))])
  return Argument.layer(name, [(curvature, .clamp(0...1)), (intensity, .clamp(0...1))]) { v, p, layer in
    let uv = p / Expr.size * 2 - 1
    let curved = uv * (1 + v[0] * dot(uv, uv) * 0.25)
    let q = (curved * 0.5 + 0.5) * Expr.size
    let color = layer.sample(q)
    let scan = 1 - v[1] * (0.5 - 0.5 * cos(fract(q.y / 3) * Expr(2 * Float.pi)))
    let column = p.x - 3 * floor(p.x / 3)
    let dim = 1 - 0.4 * v[1]
    let mask = float3(select(column < 1, 1, dim), select(column >= 1 && column < 2, 1, dim), select(column >= 2, 1, dim))
    let corner = 1 - 0.25 * v[1] * dot(curved, curved)
    let inside = abs(curved.x) <= 1 && abs(curved.y) <= 1
    return select(inside, float4(color.rgb * mask * (scan * corner), color.a), float4(0, 0, 0, 1))
  }
}

/// Chromatic aberration: red sampled `amount` pixels outward, blue inward, green in
/// place, the shift growing from 0 at the center to `amount` at the corners.
/// `amount` 0…100 px (default 6), capped at the image diagonal.
/// Formula: after SwiftShaders' chromatic aberration: `d = (p − size/2)/(|size|/2)`,
/// `r = sample(p + amount·d).r`, `g = sample(p).g`, `b = sample(p − amount·d).b`,
/// alpha the largest of the three samples' (so rgb ≤ alpha). Each component
/// of the shift is clamped to ±`amount`: it is within that already (|d| < 1
/// on each axis), so the clamp changes only fp32 rounding at the corners, and
/// it proves the reach, so what the effect reads stays a line buffer
/// (`RunPlan`) rather than a whole image.
public func chromaticAberration(amount: Expr = 6) -> Effect {
  let name = Argument.name("chromaticAberration", [("amount", Argument.text(amount))])
  return Argument.layer(name, [(amount, .clamp(0...100))]) { v, p, layer in
    let diagonal = length(Expr.size)
    let m = min(v[0], diagonal)
    let shift = clamp((p - Expr.size * 0.5) / (diagonal * 0.5) * m, -m, m)
    let r = layer.sample(p + shift), g = layer.sample(p), b = layer.sample(p - shift)
    return float4(r.r, g.g, b.b, max(max(r.a, g.a), b.a))
  }
}
