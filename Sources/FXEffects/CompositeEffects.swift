import FXDSL
import FXIR

/// How ``composite(_:x:y:gravity:opacity:mode:)`` mixes a source over a backdrop
/// (W3C Compositing and Blending Level 1, §5.2 and §9.1).
public enum BlendMode: String, Sendable, CaseIterable {
  case over, multiply, screen, overlay, darken, lighten, softLight, difference
}

/// The composite of premultiplied source `s` over backdrop `b` with `mode`:
/// `co = s·(1 − αb) + b·(1 − αs) + αs·αb·B(Cb, Cs)`, `αo = αs + αb − αs·αb`
/// (W3C Compositing §9.1's general formula; `over` is B = Cs). `B` is written
/// on premultiplied values where it is a product or a min/max, so no
/// division is needed; soft light divides by alpha (0 where alpha is 0).
func blend(_ s: Expr, _ b: Expr, _ mode: BlendMode) -> Expr {
  let alpha = s.a + b.a - s.a * b.a
  let sb = s.rgb * b.a, bs = b.rgb * s.a  // αb·cs and αs·cb: the straight colours scaled by αs·αb
  let mixed: Expr  // αs·αb·B(Cb, Cs)
  switch mode {
  case .over: return s + b * (1 - s.a)
  case .multiply: mixed = s.rgb * b.rgb
  case .screen: mixed = sb + bs - s.rgb * b.rgb
  case .darken: mixed = min(sb, bs)
  case .lighten: mixed = max(sb, bs)
  case .difference: mixed = abs(sb - bs)
  case .overlay:
    // hard-light with the operands swapped: multiply where 2·Cb ≤ 1, screen above.
    mixed = select(2 * b.rgb <= float3(b.a), 2 * s.rgb * b.rgb, s.a * b.a - 2 * (b.a - b.rgb) * (s.a - s.rgb))
  case .softLight:
    let cb = select(float3(b.a) > 0, b.rgb / b.a, float3(0)), cs = select(float3(s.a) > 0, s.rgb / s.a, float3(0))
    let d = select(cb <= float3(0.25), ((16 * cb - 12) * cb + 4) * cb, sqrt(cb))
    let soft = select(cs <= float3(0.5), cb - (1 - 2 * cs) * cb * (1 - cb), cb + (2 * cs - 1) * (d - cb))
    mixed = soft * (s.a * b.a)
  }
  return float4(s.rgb * (1 - b.a) + b.rgb * (1 - s.a) + mixed, alpha)
}

/// Places `overlay` (default the graph's input 1; the CLI reads a path) on
/// the image: its left edge at `x` and its top edge at `y` pixels where
/// given, else by `gravity` on that axis (default bottom right; centred
/// offsets rounded down),
/// scaled by `opacity` (0…1, default 1), mixed with `mode` (default over;
/// ``blend(_:_:_:)``). Pixels read exactly (nearest); outside the overlay
/// the image is unchanged. The result keeps the image's size. A non-finite
/// opacity leaves the image unchanged (DESIGN §5).
public func composite(
  _ overlay: Image = .input(1), x: Int? = nil, y: Int? = nil, gravity: Gravity = .bottomRight, opacity: Expr = 1,
  mode: BlendMode = .over
) -> Effect {
  let place = [x.map { "x: \($0)" }, y.map { "y: \($0)" }, x == nil || y == nil ? "gravity: \(gravity.rawValue)" : nil]
    .compactMap { $0 }.joined(separator: ", ")
  // The overlay's file where the chain named one: `composite("logo.png", gravity: …)`.
  let file = overlay.inputName.map { "\"\($0)\", " } ?? ""
  let name = "composite(\(file)\(place), opacity: \(Argument.text(opacity)), mode: \(mode.rawValue))"
  guard let (values, finite) = Argument.prepare([(opacity, .clamp(0...1))]) else { return Effect(name) { $0 } }
  return Effect(name) { input in
    Image.combine(name, [input, overlay], sampler: Sampler(filter: .nearest, address: .transparent)) { p, layers in
      let base = layers[0], top = layers[1]
      let room = base.size - top.size
      let name = gravity.rawValue.lowercased()
      let ox: Expr = x.map { Expr(Float($0)) } ?? (name.hasSuffix("left") ? 0 : name.hasSuffix("right") ? room.x : floor(room.x / 2))
      let oy: Expr = y.map { Expr(Float($0)) } ?? (name.hasPrefix("top") ? 0 : name.hasPrefix("bottom") ? room.y : floor(room.y / 2))
      let offset = float2(ox, oy)
      let b = base.sample(p, Sampler(filter: .nearest, address: .clampToEdge))
      let s = top.sample(p - offset) * values[0]
      return Argument.guarded(finite, blend(s, b, mode), else: b)
    }
  }
}

/// Convolves with a square `kernel` of `n × n` weights given row by row
/// (`n` odd: 1, 3, 5, …, up to 31), divided by `divisor` (0: the weights'
/// sum, or 1 where it is 0; a magnitude below 1e-6 acts as 1e-6), plus `offset` (0…1 units, added to straight
/// colour: libvips' `conv` offset / 255 for 8-bit images), on premultiplied
/// colour, alpha kept (as those tools convolve an RGB photo: an edge kernel,
/// whose weights sum to 0, must not make the image transparent), with edges
/// clamped — libvips `conv`, ImageMagick `-convolve`, Pillow's
/// `ImageFilter.Kernel` (which leaves a border of n/2 px unchanged instead). A separable kernel is split into two
/// passes by the optimiser (SeparableSplit), like any effect's taps.
/// Non-finite weights, divisor or offset leave the image unchanged (DESIGN §5);
/// a kernel that is not n × n with n odd, at most 31, is an error.
public func convolve(kernel: [Float], divisor: Float = 0, offset: Float = 0) -> Effect {
  let n = Int(Double(kernel.count).squareRoot().rounded())
  let name = "convolve(kernel: [\(kernel.map { Argument.text(Expr($0)) }.joined(separator: ", "))], divisor: \(divisor), offset: \(offset))"
  // A non-finite constant switches the effect off (DESIGN §5).
  guard kernel.allSatisfy(\.isFinite), divisor.isFinite, offset.isFinite else { return Effect(name) { $0 } }
  guard n * n == kernel.count, n % 2 == 1, n <= 31 else {
    return invalidGeometry(name, "the kernel must hold n × n weights, n odd and at most 31 (got \(kernel.count))")
  }
  let sum = kernel.reduce(0, +)
  let d = divisor != 0 ? divisor : sum != 0 ? sum : 1
  let scale = 1 / (d < 0 ? Swift.min(d, -1e-6) : Swift.max(d, 1e-6))
  let taps = Effect.layer(name, sampler: .nearest) { p, layer in
    var total: Expr? = nil
    for (k, w) in kernel.enumerated() where w != 0 {
      let tap = layer.sample(p + float2(Expr(Float(k % n - n / 2)), Expr(Float(k / n - n / 2)))) * Expr(w * scale)
      total = total.map { $0 + tap } ?? tap
    }
    return total ?? float4(0)
  }
  // The sum of whole taps is a stage of its own (SeparableSplit recognises it); the
  // input's alpha is put back after it, in a stage the schedule fuses.
  return Effect(name) { input in
    Image.combine(name + " alpha", [taps(input), input], sampler: .nearest) { p, layers in
      let alpha = layers[1].sample(p).a
      let rgb = layers[0].sample(p).rgb
      return float4(offset == 0 ? rgb : rgb + Expr(offset) * alpha, alpha)
    }
  }
}
