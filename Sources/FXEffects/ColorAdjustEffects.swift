import FXDSL
import FXIR
import Foundation

// The everyday color adjustments. Linear ones (matrices without offset) apply to
// premultiplied rgb directly, which equals un-premultiplying, applying and
// re-multiplying; the others go through straight color (`onStraight`). Results
// are kept within 0…alpha, as the W3C filters clamp to 0…1 in straight color.

/// Rotates hue by `angle` degrees (any finite value, folded into one turn;
/// default 0 = unchanged).
///
/// Formula: the `hueRotate` matrix of W3C Filter Effects Module Level 1 §9.4
/// (`feColorMatrix type="hueRotate"`), on premultiplied rgb (it is linear),
/// clamped to 0…alpha.
public func hueRotate(angle: Expr = 0) -> Effect {
  Argument.color(Argument.name("hueRotate", [("angle", Argument.text(angle))]), [(angle, .angle)]) { args, _, c in
    let radians = args[0] * Expr(Float.pi / 180)
    let k = cos(radians), s = sin(radians)
    let r = float3(0.213 + k * 0.787 - s * 0.213, 0.715 - k * 0.715 - s * 0.715, 0.072 - k * 0.072 + s * 0.928)
    let g = float3(0.213 - k * 0.213 + s * 0.143, 0.715 + k * 0.285 + s * 0.140, 0.072 - k * 0.072 - s * 0.283)
    let b = float3(0.213 - k * 0.213 - s * 0.787, 0.715 - k * 0.715 + s * 0.715, 0.072 + k * 0.928 + s * 0.072)
    return float4(clamp(float3(dot(c.rgb, r), dot(c.rgb, g), dot(c.rgb, b)), 0, c.a), c.a)
  }
}

/// Exposure: multiplies color by `2^ev`, `ev` in stops, −10…10 (default 0 = unchanged).
///
/// Formula: Core Image `CIExposureAdjust` (`rgb·2^ev`), clamped to 0…alpha.
public func exposure(ev: Expr = 0) -> Effect {
  Argument.color(Argument.name("exposure", [("ev", Argument.text(ev))]), [(ev, -10...10)]) { args, _, c in
    float4(clamp(c.rgb * exp(args[0] * Expr(Float(M_LN2))), 0, c.a), c.a)
  }
}

/// Gamma: straight color raised to `power`, 0.1…10 (default 1 = unchanged;
/// less than 1 brightens).
///
/// Formula: Core Image `CIGammaAdjust` (`pow(rgb, power)`) on straight color, re-multiplied.
public func gamma(power: Expr = 1) -> Effect {
  Argument.color(Argument.name("gamma", [("power", Argument.text(power))]), [(power, 0.1...10)]) { args, _, c in
    onStraight(c) { s in pow(s, float3(args[0])) }
  }
}

/// A 3×4 color matrix on straight color: `r' = rr·r + rg·g + rb·b + rBias`, and
/// so on for g and b; alpha unchanged; results clamped to 0…1. Weights −4…4
/// (default: the identity), biases −1…1 (default 0).
///
/// Formula: Core Image `CIColorMatrix` restricted to rgb (the bias is
/// multiplied by alpha, which is the same as applying it to straight color).
public func colorMatrix(
  rr: Expr = 1, rg: Expr = 0, rb: Expr = 0, rBias: Expr = 0,
  gr: Expr = 0, gg: Expr = 1, gb: Expr = 0, gBias: Expr = 0,
  br: Expr = 0, bg: Expr = 0, bb: Expr = 1, bBias: Expr = 0
) -> Effect {
  let labels = ["rr", "rg", "rb", "rBias", "gr", "gg", "gb", "gBias", "br", "bg", "bb", "bBias"]
  let values = [rr, rg, rb, rBias, gr, gg, gb, gBias, br, bg, bb, bBias]
  let name = Argument.name("colorMatrix", zip(labels, values.map(Argument.text)).map { ($0, $1) })
  let rules = labels.map { label -> Argument.Rule in .clamp(label.hasSuffix("Bias") ? -1...1 : -4...4) }
  return Argument.color(name, Array(zip(values, rules))) { m, _, c in
    func row(_ i: Int) -> Expr { dot(c.rgb, float3(m[4 * i], m[4 * i + 1], m[4 * i + 2])) + m[4 * i + 3] * c.a }
    return float4(clamp(float3(row(0), row(1), row(2)), 0, c.a), c.a)
  }
}

/// Inverts color by `amount`, 0…1 (default 1; 0 = unchanged).
///
/// Formula: W3C Filter Effects §9.4 `invert()`: `mix(c, 1 − c, amount)` in
/// straight color, i.e. `mix(c, alpha − c, amount)` premultiplied.
public func invert(amount: Expr = 1) -> Effect {
  Argument.color(Argument.name("invert", [("amount", Argument.text(amount))]), [(amount, 0...1)]) { args, _, c in
    float4(mix(c.rgb, c.a - c.rgb, args[0]), c.a)
  }
}

/// Grayscale by `amount`, 0…1 (default 1; 0 = unchanged).
///
/// Formula: W3C Filter Effects §9.4 `grayscale()` matrix: `mix(c, luma709(c), amount)`
/// with weights (0.2126, 0.7152, 0.0722).
public func grayscale(amount: Expr = 1) -> Effect {
  Argument.color(Argument.name("grayscale", [("amount", Argument.text(amount))]), [(amount, 0...1)]) { args, _, c in
    float4(mix(c.rgb, float3(luma(c.rgb)), args[0]), c.a)
  }
}

/// Black and white by luma: white where the straight color's Rec. 709 luma is
/// at least `level` (0…1, default 0.5), else black; alpha unchanged.
///
/// Formula: SwiftShaders' threshold (`step(level, luma)`), compared as
/// `luma(c) ≥ level·alpha` on premultiplied color (no division).
public func threshold(level: Expr = 0.5) -> Effect {
  Argument.color(Argument.name("threshold", [("level", Argument.text(level))]), [(level, 0...1)]) { args, _, c in
    let v = select(luma(c.rgb) >= args[0] * c.a, c.a, 0)
    return float4(v, v, v, c.a)
  }
}

/// Posterize: each straight channel rounded to one of `levels` evenly spaced
/// values, 2…256 (default 6).
///
/// Formula: `floor(c·(levels − 1) + 0.5)/(levels − 1)` on straight color
/// (SwiftShaders' posterize; `levels` is rounded to an integer).
public func posterize(levels: Expr = 6) -> Effect {
  Argument.color(Argument.name("posterize", [("levels", Argument.text(levels))]), [(levels, 2...256)]) { args, _, c in
    let steps = floor(args[0] + 0.5) - 1
    return onStraight(c) { s in floor(s * steps + 0.5) / steps }
  }
}

/// Solarize: straight channels above `threshold` (0…1, default 0.5) are inverted.
///
/// Formula: the Sabattier effect as in classic image editors: `c > t ? 1 − c : c`
/// per straight channel, i.e. `c > t·alpha ? alpha − c : c` premultiplied.
public func solarize(threshold: Expr = 0.5) -> Effect {
  let name = Argument.name("solarize", [("threshold", Argument.text(threshold))])
  return Argument.color(name, [(threshold, 0...1)]) { args, _, c in
    float4(select(c.rgb > args[0] * c.a, c.a - c.rgb, c.rgb), c.a)
  }
}

/// Opacity: every premultiplied channel times `amount`, 0…1 (default 1 = unchanged),
/// like SwiftUI's `opacity(_:)`.
public func opacity(amount: Expr = 1) -> Effect {
  Argument.color(Argument.name("opacity", [("amount", Argument.text(amount))]), [(amount, 0...1)]) { args, _, c in
    c * args[0]
  }
}

/// sRGB-encoded color to linear light, on straight color (IEC 61966-2-1):
/// `c ≤ 0.04045 ? c/12.92 : ((c + 0.055)/1.055)^2.4`. No parameters.
public func srgbToLinear() -> Effect {
  Effect.color("srgbToLinear") { _, c in
    onStraight(c) { s in select(s <= 0.04045, s / 12.92, pow((s + 0.055) / 1.055, float3(2.4))) }
  }
}

/// Linear light to sRGB encoding, on straight color (IEC 61966-2-1):
/// `c ≤ 0.0031308 ? 12.92·c : 1.055·c^(1/2.4) − 0.055`. No parameters.
public func linearToSrgb() -> Effect {
  Effect.color("linearToSrgb") { _, c in
    onStraight(c) { s in select(s <= 0.0031308, s * 12.92, 1.055 * pow(s, float3(Expr(Float(1 / 2.4)))) - 0.055) }
  }
}
