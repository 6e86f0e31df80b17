import FXDSL
import FXIR

// Blurs and sharpening beyond the Gaussian (SamplingEffects.swift) and the
// progressive blur (ProgressiveBlur.swift). Reads are clamped into the image.

/// `p + (i, j)` for whole-pixel offsets.
func offset(_ p: Expr, _ i: Int, _ j: Int) -> Expr { p + float2(Expr(Float(i)), Expr(Float(j))) }

/// Sharpen with the 4-neighbour Laplacian: `c + amount·(4c − (n + s) − (e + w))` on
/// every premultiplied channel, alpha then clamped to 0…1 and rgb to 0…alpha.
/// `amount` 0…10 (default 1; 0 = unchanged). Reads are clamped, so a flat image —
/// borders included — stays exactly flat (`(n + s) + (e + w)` is `4c` exactly there).
/// Formula: the classic 3 × 3 sharpen kernel `[0 −a 0; −a 1+4a −a; 0 −a 0]` (SwiftShaders' sharpen).
public func sharpen(amount: Expr = 1) -> Effect {
  Argument.layer(Argument.name("sharpen", [("amount", Argument.text(amount))]), [(amount, .clamp(0...10))]) {
    v, p, layer in
    let c = layer.sample(p)
    let around =
      (layer.sample(offset(p, 0, -1)) + layer.sample(offset(p, 0, 1)))
      + (layer.sample(offset(p, -1, 0)) + layer.sample(offset(p, 1, 0)))
    let out = c + v[0] * (4 * c - around)
    let alpha = saturate(out.a)
    return float4(clamp(out.rgb, 0, alpha), alpha)
  }
}

/// The largest radius ``boxBlur(radius:method:)`` takes as a uniform (a loop), in pixels.
public let boxBlurMaxRadius: Float = 200
/// The largest constant radius ``boxBlur(radius:method:)`` takes (running sums), in pixels.
public let boxBlurMaxConstantRadius: Float = 5000

/// Box blur: the mean of the `(2r + 1)²` pixels around each pixel (each
/// pass a sum times `1/(2r + 1)`), `r` =
/// `radius` rounded to the nearest integer (default 2; 0 or non-finite =
/// unchanged), edges clamped: a horizontal then a vertical pass.
///
/// `method`: `.exact` runs each pass as a loop over `−r…r` (DESIGN §2), so
/// the kernel does not grow with `r` but its cost does; `.recursive` runs
/// each as a running sum (a scan: ``Scan/Filter/box(radius:)``, a cost that
/// does not grow with `r`; its fp32 rounding moves a result by at most
/// 2ε·(n + 1) for a line of n pixels: 0.17 of an 8-bit level at 5,640 px);
/// `.auto` (the default) takes running sums from r = 16 on (measured:
/// Benchmarks/scan-results.md) for an 8-bit output, the loop below and for
/// deeper outputs. A constant radius may be
/// 0…5000 px; a uniform radius always takes the loop, one kernel for every
/// radius (clamped to 0…200; a non-finite radius leaves the image unchanged).
public func boxBlur(radius: Expr = 2, method: BlurMethod = .auto) -> Effect {
  let name = "boxBlur(radius: \(Argument.text(radius))\(method == .auto ? "" : ", method: \(method.rawValue)"))"
  if method == .recursive && radius.constantValue == nil {
    return invalidEffect(name, "method: recursive needs a constant radius")
  }
  guard
    let (_, r, limit) = blurRadius(
      radius, max: radius.constantValue == nil ? boxBlurMaxRadius : boxBlurMaxConstantRadius,
      radius: { ($0 + 0.5).rounded(.down) }, uniform: { floor($0 + 0.5) })
  else {
    return Effect(name) { $0 }
  }
  func pass(_ horizontal: Bool) -> Effect {
    Effect.layer(name + (horizontal ? " horizontal" : " vertical")) { p, layer in
      // times 1/(2r + 1), as the running sums do: a constant radius divides nothing per pixel
      Expr.sum(from: -r, to: r + 1, limit: limit) { i in layer.sample(p + (horizontal ? float2(float(i), 0) : float2(0, float(i)))) }
        * (1 / float(2 * r + 1))
    }
  }
  let h = pass(true), v = pass(false)
  if let c = radius.constantValue, c.isFinite, c > 0, method != .exact {
    let r = Int((Swift.min(c, boxBlurMaxConstantRadius) + 0.5).rounded(.down))
    if r >= 1 && (method == .recursive || r >= boxBlurCrossoverRadius) {
      let scans = { (i: Image) in i.scan(Scan(.box(radius: r), axis: .x)).scan(Scan(.box(radius: r), axis: .y)) }
      // auto: running sums where the output has 8 bits, the loop deeper (docs/design.md §4).
      return Effect(name) { method == .recursive ? scans($0) : Image.either(fast: scans($0), precise: v(h($0))) }
    }
  }
  return Effect(name) { v(h($0)) }
}

/// The radius from which ``boxBlur(radius:method:)``'s `.auto` takes running sums.
let boxBlurCrossoverRadius = 16

/// Number of taps of ``motionBlur(distance:angle:)``.
let motionBlurTaps = 16

/// Motion blur: the mean of 24 bilinear samples evenly spaced along a segment of
/// `distance` pixels (0…500, default 20, capped at the image diagonal) through
/// each pixel, at `angle` degrees (folded; default 0 = horizontal).
/// Formula: Core Image `CIMotionBlur`'s box profile: `Σₖ sample(p + (k/23 − 0.5)·distance·d)/24`.
public func motionBlur(distance: Expr = 20, angle: Expr = 0) -> Effect {
  let name = Argument.name("motionBlur", [("distance", Argument.text(distance)), ("angle", Argument.text(angle))])
  return Argument.layer(name, [(distance, .clamp(0...500)), (angle, .angle)]) { v, p, layer in
    let a = radians(v[1])
    let step = float2(cos(a), sin(a)) * min(v[0], length(Expr.size))
    let n = motionBlurTaps
    let taps = (0..<n).map { k in layer.sample(p + step * Expr(Float(k) / Float(n - 1) - 0.5)) }
    return balancedSum(taps) * Expr(1 / Float(n))
  }
}
