import FXDSL
import FXIR

// Hashed value noise, written with the IR's 32-bit integer ops (wrapping
// multiply, xor, logical shifts, masks): the dissolve seed's noise
// (EFFECTS.md), shared by dissolve, grain, the noise fill and domainWarp's
// generated texture.

/// The dissolve seed's hash of an integer cell, in 0…1 (EFFECTS.md, exact):
/// `m = (cx·0x9E3779B1) xor (cy·0x85EBCA77)`; `m ^= m >> 15`; `m *= 0x2C1B3C6D`;
/// `m ^= m >> 12`; `(m & 0xFFFF) / 65535`, in wrapping unsigned 32-bit
/// arithmetic (`cx`, `cy` are int expressions; signed values are reinterpreted
/// as unsigned, which two's-complement multiplication and xor do by themselves).
public func cellHash(_ cx: Expr, _ cy: Expr) -> Expr {
  var m = (cx * Expr.int(0x9E37_79B1)) ^ (cy * Expr.int(0x85EB_CA77))
  m = m ^ ushr(m, Expr.int(15))
  m = m * Expr.int(0x2C1B_3C6D)
  m = m ^ ushr(m, Expr.int(12))
  return float(m & Expr.int(0xFFFF)) / 65535
}

/// Value noise at `q` (float2) (EFFECTS.md, exact): `cell = floor(q)`,
/// `f = q − cell`, `b = f·f·(3 − 2f)`; the hash at the cell's four corners
/// blended bilinearly by `b`, x first, then y. Result in 0…1.
///
/// With `period` (in cells), corner cells wrap (`cell mod period`), so the
/// noise tiles with that period (used for repeat-sampled textures).
public func valueNoise(_ q: Expr, period: Float? = nil, seed: Int = 0) -> Expr {
  let cell = floor(q)
  let f = q - cell
  let b = f * f * (3 - 2 * f)
  func corner(_ dx: Float, _ dy: Float) -> Expr {
    var c = cell + float2(Expr(dx), Expr(dy))
    if let period { c = c - Expr(period) * floor(c / Expr(period)) }
    let ix = int(c.x), iy = int(c.y)
    return cellHash(seed == 0 ? ix : ix + Expr.int(seed), iy)
  }
  let bottom = mix(corner(0, 0), corner(1, 0), b.x)
  let top = mix(corner(0, 1), corner(1, 1), b.x)
  return mix(bottom, top, b.y)
}

/// The dissolve seed's two-octave noise at `q`:
/// `clamp01((0.7·noise(q) + 0.3·noise(3.1·q + 17) − 0.5)·1.7 + 0.5)` (EFFECTS.md, exact).
public func dissolveNoise(_ q: Expr) -> Expr {
  let n = 0.7 * valueNoise(q) + 0.3 * valueNoise(3.1 * q + 17)
  return saturate((n - 0.5) * 1.7 + 0.5)
}

/// Fractal value noise: `octaves` octaves of ``valueNoise(_:period:seed:)``,
/// each at twice the frequency and half the amplitude of the one before,
/// normalised to 0…1. With `period`, it tiles with that period (in cells of the first octave).
func fractalNoise(_ q: Expr, octaves: Int, period: Float? = nil, seed: Int = 0) -> Expr {
  var sum: Expr = 0
  var amplitude: Float = 1, total: Float = 0, scale: Float = 1
  for octave in 0..<octaves {
    let n = valueNoise(q * Expr(scale), period: period.map { $0 * scale }, seed: seed &+ octave &* 1013)
    sum = sum + Expr(amplitude) * n
    total += amplitude
    amplitude *= 0.5
    scale *= 2
  }
  return sum / Expr(total)
}
