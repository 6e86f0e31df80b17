import FXDSL
import FXIR

// Color effects: each works on premultiplied color. The matrix effects are
// linear without offset, so they apply to premultiplied rgb directly; effects
// with an offset (brightness, contrast) scale it by alpha, which is the same as
// un-premultiplying, applying, and re-multiplying.

/// Sepia tone, `amount` 0…1 (default 1; 0 = unchanged).
///
/// Formula: the sepia color matrix of W3C Filter Effects Module Level 1 §9.4
/// (`sepia()`; rows (0.393, 0.769, 0.189), (0.349, 0.686, 0.168),
/// (0.272, 0.534, 0.131)), interpolated with the identity by `amount`; results
/// clamped to 0…alpha as the spec clamps to 0…1 in straight color.
public func sepia(amount: Expr = 1) -> Effect {
  Argument.color("sepia(amount: \(Argument.text(amount)))", [(amount, 0...1)]) { args, _, c in
    let rgb = c.rgb
    let toned = float3(
      dot(rgb, float3(0.393, 0.769, 0.189)),
      dot(rgb, float3(0.349, 0.686, 0.168)),
      dot(rgb, float3(0.272, 0.534, 0.131)))
    // rgb·(1 − amount) + toned·amount: exactly rgb at amount 0 and toned at 1.
    let t = float3(args[0])
    return float4(clamp(fma(toned, t, rgb * (1 - t)), 0, c.a), c.a)
  }
}

/// Adds `amount` (−1…1, default 0) to every color channel in straight color:
/// SwiftUI's `brightness(_:)` and Core Image's `CIColorControls.inputBrightness`.
public func brightness(amount: Expr = 0) -> Effect {
  Argument.color("brightness(amount: \(Argument.text(amount)))", [(amount, -1...1)]) { args, _, c in
    float4(clamp(c.rgb + args[0] * c.a, 0, c.a), c.a)
  }
}

/// Scales color around mid-gray by `amount` (0…4, default 1 = unchanged):
/// `(c − 0.5)·amount + 0.5` in straight color, SwiftUI's `contrast(_:)`.
public func contrast(amount: Expr = 1) -> Effect {
  Argument.color("contrast(amount: \(Argument.text(amount)))", [(amount, 0...4)]) { args, _, c in
    // c·k + mid·(1 − k): exactly c at k = 1 (the form (c − mid)·k + mid is not).
    let mid = 0.5 * c.a
    return float4(clamp(fma(c.rgb, float3(args[0]), float3(mid * (1 - args[0]))), 0, c.a), c.a)
  }
}

/// Rec. 709 luma weights as W3C Filter Effects §9.4 rounds them.
let lumaWeights = float3(0.213, 0.715, 0.072)

/// Saturation, `amount` 0…4 (default 1 = unchanged, 0 = gray):
/// W3C Filter Effects Module Level 1 §9.4 `saturate` matrix, i.e.
/// `mix(luma, c, amount)` with luma weights (0.213, 0.715, 0.072).
public func saturation(amount: Expr = 1) -> Effect {
  Argument.color("saturation(amount: \(Argument.text(amount)))", [(amount, 0...4)]) { args, _, c in
    let luma = dot(c.rgb, lumaWeights)
    // mix toward luma by 1 − amount: exactly c at amount 1.
    return float4(clamp(mix(c.rgb, float3(luma), 1 - args[0]), 0, c.a), c.a)
  }
}

/// Darkens toward the corners. `intensity` 0…1 (default 1) is the darkening at
/// the corners; `radius` 0…1.5 (default 0.75) where the falloff is centred, as
/// a fraction of the half-diagonal.
///
/// Formula (after SwiftShaders' vignette: a smoothstep falloff of the distance
/// from the center): `d = length(position/size − 0.5)·√2` (0 at the center, 1
/// at a corner); `rgb·(1 − intensity·smoothstep(radius − 0.25, radius + 0.25, d))`.
public func vignette(intensity: Expr = 1, radius: Expr = 0.75) -> Effect {
  let name = "vignette(intensity: \(Argument.text(intensity)), radius: \(Argument.text(radius)))"
  return Argument.color(name, [(intensity, 0...1), (radius, 0...1.5)]) { args, p, c in
    let d = length(p / Expr.size - 0.5) * 1.41421356
    let k = 1 - args[0] * smoothstep(args[1] - 0.25, args[1] + 0.25, d)
    return float4(c.rgb * k, c.a)
  }
}
