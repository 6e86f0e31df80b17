import FX
import Foundation
import Testing

// Values of every effect, worked out INDEPENDENTLY of the IR: by hand (the
// arithmetic is in the comments) or by a plain-Swift transcription of the
// formula in the effect's docstring / EFFECTS.md, on Floats. Every output is
// checked on the staged interpreter (the oracle, DESIGN §4) and on the lowered
// kernel under the three schedules (default, all inline, all materialised).

// MARK: - Helpers (file-private so that they cannot clash with other test files)

/// The images an effect produces: staged, then the lowered kernel in each schedule.
private func outputs(_ effect: Effect, _ input: ImageBuffer, uniforms: [Float] = []) throws -> [(String, ImageBuffer)] {
  try effectOutputs(effect, [input], uniforms: uniforms)
}

/// A `w × h` RGBA32F image with `pixel(x, y)` (premultiplied) at every pixel.
private func makeImage(_ w: Int, _ h: Int, _ pixel: (Int, Int) -> SIMD4<Float>) -> ImageBuffer { makeTestImage(w, h, pixel) }

/// An opaque image whose pixel (x, y) is `(x/w, y/h, 0, 1)`.
private func coordinateImage(_ w: Int, _ h: Int) -> ImageBuffer {
  makeImage(w, h) { x, y in SIMD4(Float(x) / Float(w), Float(y) / Float(h), 0, 1) }
}

/// A premultiplied image whose values are not short dyadic fractions (randomImage's
/// `Float.random` values are multiples of 2^−24, for which many roundings are exact):
/// straight channels from a golden-ratio sequence, alphas 1, 0.7, 0.35, 0.05 and 0.
private func awkwardImage(_ w: Int, _ h: Int) -> ImageBuffer {
  makeImage(w, h) { x, y in
    let k = Float(y * w + x)
    let a: Float = [1, 0.7, 0.35, 0.05, 0][(x + 2 * y) % 5]
    func channel(_ c: Float) -> Float {
      let v = (k + 1) * 0.618034 + c * 0.318310
      return v - v.rounded(.down)
    }
    return SIMD4(channel(0) * a, channel(1) * a, channel(2) * a, a)
  }
}

/// Straight color `rgb` with alpha `a`, premultiplied.
private func premul(_ rgb: SIMD3<Float>, _ a: Float) -> SIMD4<Float> { SIMD4(rgb * a, a) }

private func clamp01(_ v: SIMD3<Float>) -> SIMD3<Float> { v.clamped(lowerBound: .zero, upperBound: .one) }

private func maxAbs(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float { largestDifference(a, b) }

private func expectPixel(
  _ got: SIMD4<Float>, _ want: SIMD4<Float>, tolerance: Float = 1e-4, _ what: @autoclosure () -> String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  let d = maxAbs(got, want)
  #expect(d <= tolerance, "\(what()): got \(got), expected \(want) (max abs error \(d))", sourceLocation: sourceLocation)
}

/// Every pixel of every output equals `expected(x, y)`.
private func expectImage(
  _ effect: Effect, _ input: ImageBuffer, uniforms: [Float] = [], tolerance: Float = 1e-4,
  sourceLocation: Testing.SourceLocation = #_sourceLocation, _ expected: (Int, Int) -> SIMD4<Float>
) throws {
  try expectEffect(effect, [input], uniforms: uniforms, tolerance: tolerance, sourceLocation: sourceLocation, expected)
}

/// The output is bit-for-bit the input.
private func expectUnchanged(
  _ effect: Effect, _ input: ImageBuffer, uniforms: [Float] = [], _ note: String = "",
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  for (label, out) in try outputs(effect, input, uniforms: uniforms) {
    var first: (Int, Int)? = nil
    for y in 0..<input.height {
      for x in 0..<input.width where first == nil && out[x, y] != input[x, y] { first = (x, y) }
    }
    if let (x, y) = first {
      Issue.record(
        "\(effect.name) \(note) \(label) is not the identity: pixel (\(x), \(y)) \(input[x, y]) became \(out[x, y])",
        sourceLocation: sourceLocation)
    }
  }
}

/// DESIGN §3, bilinear + clampToEdge, transcribed for finite positions: blend
/// the four pixel centers around `p − 0.5`, indices clamped into the image.
private func bilinearClamp(_ img: ImageBuffer, _ px: Float, _ py: Float) -> SIMD4<Float> {
  let fx = px - 0.5, fy = py - 0.5
  let x0 = fx.rounded(.down), y0 = fy.rounded(.down)
  let tx = fx - x0, ty = fy - y0
  func texel(_ i: Int, _ j: Int) -> SIMD4<Float> {
    img[Swift.min(Swift.max(i, 0), img.width - 1), Swift.min(Swift.max(j, 0), img.height - 1)]
  }
  let i = Int(x0), j = Int(y0)
  var sum = SIMD4<Float>.zero
  // Zero weights skipped: a zero weight never reads its texel.
  for (di, wx) in [(0, 1 - tx), (1, tx)] where wx != 0 {
    for (dj, wy) in [(0, 1 - ty), (1, ty)] where wy != 0 { sum += wx * wy * texel(i + di, j + dj) }
  }
  return sum
}

/// The normalised 1-D Gaussian, `r = ceil(3σ)`, computed here in Double.
private func gaussian(sigma: Double) -> [Double] {
  let r = Int((3 * sigma).rounded(.up))
  let w = (-r...r).map { Foundation.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
  let s = w.reduce(0, +)
  return w.map { $0 / s }
}

/// A fixed straight color used throughout: (0.2, 0.4, 0.6).
private let base = SIMD3<Float>(0.2, 0.4, 0.6)

/// A 3×1 image: `base` opaque, `base` at alpha 0.5, and `extra` (opaque unless given).
private func swatch(_ extra: SIMD4<Float> = SIMD4(1, 1, 1, 1)) -> ImageBuffer {
  makeImage(3, 1) { x, _ in [premul(base, 1), premul(base, 0.5), extra][x] }
}

// MARK: - Tests

@Suite struct EffectValueTests {
  // MARK: sepia

  @Test func sepiaKnownColors() throws {
    // W3C sepia matrix on straight (0.2, 0.4, 0.6):
    //   R = 0.393·0.2 + 0.769·0.4 + 0.189·0.6 = 0.0786 + 0.3076 + 0.1134 = 0.4996
    //   G = 0.349·0.2 + 0.686·0.4 + 0.168·0.6 = 0.0698 + 0.2744 + 0.1008 = 0.4450
    //   B = 0.272·0.2 + 0.534·0.4 + 0.131·0.6 = 0.0544 + 0.2136 + 0.0786 = 0.3466
    // White: R = 0.393+0.769+0.189 = 1.351 → 1, G = 0.349+0.686+0.168 = 1.203 → 1,
    //        B = 0.272+0.534+0.131 = 0.937.
    let full = SIMD3<Float>(0.4996, 0.4450, 0.3466)
    try expectImage(sepia(amount: 1), swatch()) { x, _ in
      [
        premul(full, 1),
        premul(full, 0.5),  // (0.2498, 0.2225, 0.1733, 0.5): premultiplied straight result
        SIMD4(1, 1, 0.937, 1),
      ][x]
    }
    // amount 0.5 = mix(c, toned, 0.5):
    //   (0.2 + 0.4996)/2 = 0.3498, (0.4 + 0.4450)/2 = 0.4225, (0.6 + 0.3466)/2 = 0.4733
    //   white: (1 + 1.351)/2 = 1.1755 → 1, (1 + 1.203)/2 = 1.1015 → 1, (1 + 0.937)/2 = 0.9685
    let half = SIMD3<Float>(0.3498, 0.4225, 0.4733)
    try expectImage(sepia(amount: 0.5), swatch()) { x, _ in
      [premul(half, 1), premul(half, 0.5), SIMD4(1, 1, 0.9685, 1)][x]
    }
    // White at alpha 0.5 (premultiplied (0.5, 0.5, 0.5, 0.5)) clamps to alpha, not to 1:
    // straight (1, 1, 0.937) → premultiplied (0.5, 0.5, 0.4685, 0.5).
    try expectImage(sepia(amount: 1), swatch(SIMD4(0.5, 0.5, 0.5, 0.5))) { x, _ in
      [premul(full, 1), premul(full, 0.5), SIMD4(0.5, 0.5, 0.4685, 0.5)][x]
    }
  }

  @Test func sepiaPreservesAlphaAndMatchesTranscription() throws {
    let img = randomImage(9, 7, seed: 11, format: .rgba32f)
    for amount: Float in [0.25, 0.5, 1] {
      try expectImage(sepia(amount: Expr(amount)), img) { x, y in
        let p = img[x, y]
        guard p.w > 0 else { return .zero }
        let c = SIMD3(p.x, p.y, p.z) / p.w
        let toned = SIMD3<Float>(
          0.393 * c.x + 0.769 * c.y + 0.189 * c.z,
          0.349 * c.x + 0.686 * c.y + 0.168 * c.z,
          0.272 * c.x + 0.534 * c.y + 0.131 * c.z)
        return premul(clamp01(c + (toned - c) * amount), p.w)  // alpha p.w unchanged
      }
    }
  }

  @Test func sepiaZeroIsIdentity() throws {
    // The documented neutral value leaves every pixel bit-for-bit unchanged.
    try expectUnchanged(sepia(amount: 0), randomImage(32, 32, seed: 12, format: .rgba32f))
    try expectUnchanged(sepia(amount: 0), awkwardImage(32, 32))
  }

  // MARK: brightness

  @Test func brightnessKnownColors() throws {
    // +0.2 in straight color: (0.2, 0.4, 0.6) → (0.4, 0.6, 0.8); white → 1 (clamped).
    try expectImage(brightness(amount: 0.2), swatch()) { x, _ in
      [
        premul(SIMD3(0.4, 0.6, 0.8), 1),
        premul(SIMD3(0.4, 0.6, 0.8), 0.5),  // (0.2, 0.3, 0.4, 0.5)
        SIMD4(1, 1, 1, 1),
      ][x]
    }
    // −0.3: (0.2 − 0.3 → 0, 0.1, 0.3); white → (0.7, 0.7, 0.7).
    try expectImage(brightness(amount: -0.3), swatch()) { x, _ in
      [
        premul(SIMD3(0, 0.1, 0.3), 1),
        premul(SIMD3(0, 0.1, 0.3), 0.5),  // (0, 0.05, 0.15, 0.5)
        SIMD4(0.7, 0.7, 0.7, 1),
      ][x]
    }
    // +0.5 on a transparent pixel stays (0, 0, 0, 0): there is no color to brighten.
    try expectImage(brightness(amount: 0.5), swatch(.zero)) { x, _ in
      [premul(SIMD3(0.7, 0.9, 1), 1), premul(SIMD3(0.7, 0.9, 1), 0.5), .zero][x]
    }
  }

  @Test func brightnessZeroIsIdentity() throws {
    // The documented neutral value leaves every pixel bit-for-bit unchanged.
    try expectUnchanged(brightness(amount: 0), randomImage(32, 32, seed: 13, format: .rgba32f))
    try expectUnchanged(brightness(amount: 0), awkwardImage(32, 32))
  }

  // MARK: contrast

  @Test func contrastKnownColors() throws {
    // (c − 0.5)·1.5 + 0.5: 0.2 → −0.45 + 0.5 = 0.05, 0.4 → −0.15 + 0.5 = 0.35,
    // 0.6 → 0.15 + 0.5 = 0.65; white → 1.25 → 1.
    try expectImage(contrast(amount: 1.5), swatch()) { x, _ in
      [premul(SIMD3(0.05, 0.35, 0.65), 1), premul(SIMD3(0.05, 0.35, 0.65), 0.5), SIMD4(1, 1, 1, 1)][x]
    }
    // amount 3 on straight (0.1, 0.5, 0.9) at alpha 0.5 (premultiplied (0.05, 0.25, 0.45, 0.5)):
    // (−0.4·3 + 0.5 = −0.7 → 0, 0.5, 0.4·3 + 0.5 = 1.7 → 1) → premultiplied (0, 0.25, 0.5, 0.5).
    try expectImage(contrast(amount: 3), swatch(SIMD4(0.05, 0.25, 0.45, 0.5))) { x, _ in
      [
        premul(SIMD3(0, 0.2, 0.8), 1),  // (−0.3·3+0.5 → 0, −0.1·3+0.5 = 0.2, 0.1·3+0.5 = 0.8)
        premul(SIMD3(0, 0.2, 0.8), 0.5),
        SIMD4(0, 0.25, 0.5, 0.5),
      ][x]
    }
    // amount 0: everything mid-gray in straight color → premultiplied (0.5a, 0.5a, 0.5a, a).
    try expectImage(contrast(amount: 0), swatch()) { x, _ in
      [SIMD4(0.5, 0.5, 0.5, 1), SIMD4(0.25, 0.25, 0.25, 0.5), SIMD4(0.5, 0.5, 0.5, 1)][x]
    }
  }

  @Test func contrastOneIsIdentity() throws {
    // The documented neutral value leaves every pixel bit-for-bit unchanged.
    try expectUnchanged(contrast(amount: 1), randomImage(32, 32, seed: 14, format: .rgba32f))
    try expectUnchanged(contrast(amount: 1), awkwardImage(32, 32))
  }

  // MARK: saturation

  @Test func saturationKnownColors() throws {
    // luma(0.2, 0.4, 0.6) = 0.213·0.2 + 0.715·0.4 + 0.072·0.6 = 0.0426 + 0.286 + 0.0432 = 0.3718
    // amount 0.5: 0.3718 + (c − 0.3718)·0.5 = (0.2859, 0.3859, 0.4859)
    try expectImage(saturation(amount: 0.5), swatch()) { x, _ in
      [premul(SIMD3(0.2859, 0.3859, 0.4859), 1), premul(SIMD3(0.2859, 0.3859, 0.4859), 0.5), SIMD4(1, 1, 1, 1)][x]
    }
    // amount 0: gray 0.3718 → premultiplied (0.1859, …, 0.5) at alpha 0.5.
    try expectImage(saturation(amount: 0), swatch()) { x, _ in
      [premul(SIMD3(repeating: 0.3718), 1), premul(SIMD3(repeating: 0.3718), 0.5), SIMD4(1, 1, 1, 1)][x]
    }
    // amount 2: 2c − luma = (0.4 − 0.3718, 0.8 − 0.3718, 1.2 − 0.3718) = (0.0282, 0.4282, 0.8282)
    // amount 4 on straight (0.1, 0.5, 0.9) at alpha 0.5: luma = 0.0213 + 0.3575 + 0.0648 = 0.4436,
    //   4c − 3·luma = (0.4 − 1.3308 → 0, 2 − 1.3308 = 0.6692, 3.6 − 1.3308 = 2.2692 → 1)
    //   → premultiplied (0, 0.3346, 0.5, 0.5).
    try expectImage(saturation(amount: 2), swatch()) { x, _ in
      [premul(SIMD3(0.0282, 0.4282, 0.8282), 1), premul(SIMD3(0.0282, 0.4282, 0.8282), 0.5), SIMD4(1, 1, 1, 1)][x]
    }
    try expectImage(saturation(amount: 4), swatch(SIMD4(0.05, 0.25, 0.45, 0.5))) { x, _ in
      // (0.2, 0.4, 0.6) at 4: 0.8 − 1.1154 → 0, 1.6 − 1.1154 = 0.4846, 2.4 − 1.1154 = 1.2846 → 1
      [premul(SIMD3(0, 0.4846, 1), 1), premul(SIMD3(0, 0.4846, 1), 0.5), SIMD4(0, 0.3346, 0.5, 0.5)][x]
    }
  }

  @Test func saturationOneIsIdentity() throws {
    // The documented neutral value leaves every pixel bit-for-bit unchanged.
    try expectUnchanged(saturation(amount: 1), randomImage(32, 32, seed: 15, format: .rgba32f))
    try expectUnchanged(saturation(amount: 1), awkwardImage(32, 32))
  }

  @Test func colorEffectsMatchTranscriptionOnRandomImages() throws {
    let img = randomImage(9, 7, seed: 16, format: .rgba32f)
    func straight(_ x: Int, _ y: Int) -> (SIMD3<Float>, Float) {
      let p = img[x, y]
      return p.w > 0 ? (SIMD3(p.x, p.y, p.z) / p.w, p.w) : (.zero, 0)
    }
    for amount: Float in [-0.7, -0.1, 0.3, 0.9] {
      try expectImage(brightness(amount: Expr(amount)), img) { x, y in
        let (c, a) = straight(x, y)
        return premul(clamp01(c + amount), a)
      }
    }
    for amount: Float in [0.2, 0.8, 2.5] {
      try expectImage(contrast(amount: Expr(amount)), img) { x, y in
        let (c, a) = straight(x, y)
        return premul(clamp01((c - 0.5) * amount + 0.5), a)
      }
    }
    for amount: Float in [0.2, 0.8, 2.5] {
      try expectImage(saturation(amount: Expr(amount)), img) { x, y in
        let (c, a) = straight(x, y)
        let luma = 0.213 * c.x + 0.715 * c.y + 0.072 * c.z
        return premul(clamp01(luma + (c - luma) * amount), a)
      }
    }
  }

  @Test func colorEffectsWithNonFiniteUniformAreIdentity() throws {
    // Argument discipline: a non-finite uniform switches the effect off in the kernel.
    let img = randomImage(5, 4, seed: 17, format: .rgba32f)
    for value in [Float.nan, .infinity, -.infinity] {
      for make in [
        { sepia(amount: $0) }, { brightness(amount: $0) }, { contrast(amount: $0) },
        { saturation(amount: $0) }, { vignette(intensity: $0) },
      ] as [(Expr) -> Effect] {
        let p = Param.uniform("amount", 0.5)
        try expectUnchanged(make(Expr(p)), img, uniforms: [value], "uniform \(value)")
      }
    }
    // A finite uniform is applied: brightness 0.2 on (0.2, 0.4, 0.6) → (0.4, 0.6, 0.8).
    let p = Param.uniform("amount", 0)
    try expectImage(brightness(amount: Expr(p)), swatch(), uniforms: [0.2]) { x, _ in
      [premul(SIMD3(0.4, 0.6, 0.8), 1), premul(SIMD3(0.4, 0.6, 0.8), 0.5), SIMD4(1, 1, 1, 1)][x]
    }
  }

  // MARK: vignette

  @Test func vignetteValues() throws {
    // 9×7, gray 0.8 opaque except the corner (0, 0), which is (0.2, 0.4, 0.6) at alpha 0.5.
    let img = makeImage(9, 7) { x, y in x == 0 && y == 0 ? premul(base, 0.5) : SIMD4(0.8, 0.8, 0.8, 1) }
    // Center pixel (4, 3): p = (4.5, 3.5), p/size = (0.5, 0.5), d = 0 → k = 1 → unchanged.
    // Corner pixel (0, 0): p/size − 0.5 = (0.5/9 − 0.5, 0.5/7 − 0.5) = (−0.444444, −0.428571);
    //   length² = 0.197531 + 0.183673 = 0.381204, length = 0.617417, d = ·√2 = 0.873157.
    //   intensity 1, radius 0.75 → smoothstep(0.5, 1.0, d): t = 0.373157/0.5 = 0.746314,
    //   t²(3 − 2t) = 0.556985·1.507372 = 0.839584 → k = 0.160416.
    //   rgb·k on the premultiplied (0.1, 0.2, 0.3): (0.0160416, 0.0320832, 0.0481248), alpha 0.5.
    // Pixel (8, 0): p/size − 0.5 = (8.5/9 − 0.5, −0.428571) = (0.444444, −0.428571): the same d.
    // Pixel (4, 0): (0, −0.428571) → d = 0.606092, t = 0.212183, t²(3 − 2t) = 0.045022·2.575634
    //   = 0.115960 → k = 0.884040 → 0.8·k = 0.707232.
    let outs = try outputs(vignette(intensity: 1, radius: 0.75), img)
    for (label, out) in outs {
      expectPixel(out[4, 3], SIMD4(0.8, 0.8, 0.8, 1), "\(label) center")
      #expect(out[4, 3] == img[4, 3], "\(label): the center of an odd image is exactly unchanged")
      expectPixel(out[0, 0], SIMD4(0.0160416, 0.0320832, 0.0481248, 0.5), "\(label) corner")
      expectPixel(out[8, 0], SIMD4(0.128333, 0.128333, 0.128333, 1), "\(label) (8, 0)")  // 0.8·0.160416
      expectPixel(out[4, 0], SIMD4(0.707232, 0.707232, 0.707232, 1), "\(label) (4, 0)")
    }
    // intensity 0.5, radius 0.5 → smoothstep(0.25, 0.75, 0.873157) = 1 → k = 1 − 0.5 = 0.5 at the corner.
    for (label, out) in try outputs(vignette(intensity: 0.5, radius: 0.5), img) {
      expectPixel(out[0, 0], SIMD4(0.05, 0.1, 0.15, 0.5), "\(label) corner at intensity 0.5")
      #expect(out[4, 3] == img[4, 3])
    }
  }

  @Test func vignetteMatchesTranscription() throws {
    let img = randomImage(10, 6, seed: 18, format: .rgba32f)
    for (intensity, radius): (Float, Float) in [(1, 0.75), (0.6, 0.3), (0.3, 1.2)] {
      try expectImage(vignette(intensity: Expr(intensity), radius: Expr(radius)), img) { x, y in
        let u = (Float(x) + 0.5) / 10 - 0.5, v = (Float(y) + 0.5) / 6 - 0.5
        let d = (u * u + v * v).squareRoot() * Float(2).squareRoot()
        let t = Swift.min(Swift.max((d - (radius - 0.25)) / 0.5, 0), 1)
        let k = 1 - intensity * t * t * (3 - 2 * t)
        let p = img[x, y]
        return SIMD4(p.x * k, p.y * k, p.z * k, p.w)
      }
    }
  }

  @Test func vignetteIntensityZeroIsIdentity() throws {
    try expectUnchanged(vignette(intensity: 0), randomImage(9, 7, seed: 19, format: .rgba32f))
    try expectUnchanged(vignette(intensity: 0, radius: 0), randomImage(8, 8, seed: 20, format: .rgba32f))
    try expectUnchanged(vignette(intensity: 0), awkwardImage(17, 9))
  }

  // MARK: wave

  @Test func waveSamplesTheDisplacedPosition() throws {
    // 8×10 image, pixel (x, y) = (x/8, y/10, 0, 1). Bilinear + clampToEdge of this ramp at p
    // is exactly (clamp(p.x − 0.5, 0, 7)/8, clamp(p.y − 0.5, 0, 9)/10, 0, 1).
    // amplitude 3, wavelength 8: column i shifts by 3·sin(2π(i + 0.5)/8) = 3·sin((2i + 1)π/8):
    //   i = 0: 3·sin(π/8)   = 3·0.3826834 = 1.1480503
    //   i = 1: 3·sin(3π/8)  = 3·0.9238795 = 2.7716386
    //   i = 5: 3·sin(11π/8) = −2.7716386
    //   i = 7: 3·sin(15π/8) = −1.1480503
    // Output (i, j) samples (i + 0.5, j + 0.5 + shift) → g = clamp(j + shift, 0, 9)/10.
    let img = coordinateImage(8, 10)
    let cases: [(Int, Int, Float)] = [
      (0, 4, 0.51480503),  // (4 + 1.1480503)/10
      (1, 2, 0.47716386),  // (2 + 2.7716386)/10
      (1, 8, 0.9),  // 8 + 2.77 = 10.77 → clamped to 9: bottom edge
      (5, 1, 0),  // 1 − 2.77 → clamped to 0: top edge
      (5, 6, 0.32283614),  // (6 − 2.7716386)/10
      (7, 0, 0),  // −1.148 → 0
      (7, 5, 0.38519497),  // (5 − 1.1480503)/10
    ]
    for (label, out) in try outputs(wave(amplitude: 3, wavelength: 8), img) {
      for (i, j, g) in cases {
        expectPixel(out[i, j], SIMD4(Float(i) / 8, g, 0, 1), "\(label) wave at (\(i), \(j))")
      }
    }
    // Every pixel against the transcription, on a random image (bilinear blends real colors).
    let random = randomImage(11, 9, seed: 21, format: .rgba32f)
    for (a, l): (Float, Float) in [(3, 8), (2.5, 5.5), (0.3, 13)] {
      try expectImage(wave(amplitude: Expr(a), wavelength: Expr(l)), random) { x, y in
        let px = Float(x) + 0.5
        return bilinearClamp(random, px, Float(y) + 0.5 + a * Foundation.sin(px * 2 * Float.pi / l))
      }
    }
  }

  @Test func waveOffIsIdentity() throws {
    let img = randomImage(7, 5, seed: 22, format: .rgba32f)
    try expectUnchanged(wave(amplitude: 0, wavelength: 9), img)
    try expectUnchanged(wave(amplitude: 0, wavelength: 9), awkwardImage(7, 5))
    try expectUnchanged(wave(amplitude: Expr(Float.nan)), img)
    try expectUnchanged(wave(amplitude: 3, wavelength: Expr(Float.infinity)), img)
  }

  @Test func waveNonFiniteUniformIsIdentity() throws {
    // Argument discipline (FXEffects/Arguments.swift, DESIGN §5): a non-finite uniform
    // turns the effect off in the kernel.
    let img = randomImage(7, 5, seed: 29, format: .rgba32f)
    let amplitude = Param.uniform("amplitude", 3), wavelength = Param.uniform("wavelength", 8)
    let effect = wave(amplitude: Expr(amplitude), wavelength: Expr(wavelength))
    for bad in [Float.nan, .infinity, -.infinity] {
      try expectUnchanged(effect, img, uniforms: [bad, 8], "amplitude \(bad)")
      try expectUnchanged(effect, img, uniforms: [3, bad], "wavelength \(bad)")
    }
    // Finite uniforms behave like the constants: column 0 of the 8×10 ramp at (0, 4) → g = 0.51480503.
    for (label, out) in try outputs(effect, coordinateImage(8, 10), uniforms: [3, 8]) {
      expectPixel(out[0, 4], SIMD4(0, 0.51480503, 0, 1), "\(label) uniform wave at (0, 4)")
    }
  }

  // MARK: pixelate

  @Test func pixelateBlockSize4() throws {
    // 10×10, pixel (x, y) = (x/10, y/10, 0, 1); s = 1 + (4 − 1)·1 = 4.
    // Along each axis, p = i + 0.5, c = (floor(p/4) + 0.5)·4, clamped to 10 − 0.5 = 9.5:
    //   i = 0…3 → c = 2   → bilinear at 2: halfway between texels 1 and 2 → (1 + 2)/2/10 = 0.15
    //   i = 4…7 → c = 6   → (5 + 6)/2/10 = 0.55
    //   i = 8…9 → c = 10  → min(10, 9.5) = 9.5 → texel 9 exactly → 0.9 (edge block, not cut)
    let img = coordinateImage(10, 10)
    let value: [Float] = [0.15, 0.15, 0.15, 0.15, 0.55, 0.55, 0.55, 0.55, 0.9, 0.9]
    try expectImage(pixelate(amount: 1, blockSize: 4), img) { x, y in SIMD4(value[x], value[y], 0, 1) }
  }

  @Test func pixelateHalfAmount() throws {
    // amount 0.5, blockSize 5: s = 1 + (5 − 1)·0.5 = 3.
    //   i = 0…2 → c = 1.5 → texel 1 → 0.1;  i = 3…5 → c = 4.5 → texel 4 → 0.4
    //   i = 6…8 → c = 7.5 → texel 7 → 0.7;  i = 9 → c = 10.5 → min(10.5, 9.5) = 9.5 → texel 9 → 0.9
    let img = coordinateImage(10, 10)
    let value: [Float] = [0.1, 0.1, 0.1, 0.4, 0.4, 0.4, 0.7, 0.7, 0.7, 0.9]
    try expectImage(pixelate(amount: 0.5, blockSize: 5), img) { x, y in SIMD4(value[x], value[y], 0, 1) }
  }

  @Test func pixelateMatchesTranscription() throws {
    // EFFECTS.md verbatim on a random image, non-square, with a non-integer block side.
    let img = randomImage(13, 9, seed: 23, format: .rgba32f)
    for (amount, blockSize): (Float, Float) in [(1, 4), (0.5, 5), (0.3, 8), (1, 22), (0.75, 2)] {
      let s = 1 + (Swift.max(blockSize, 1) - 1) * Swift.min(Swift.max(amount, 0), 1)
      try expectImage(pixelate(amount: Expr(amount), blockSize: Expr(blockSize)), img) { x, y in
        let cx = ((Float(x) + 0.5) / s).rounded(.down) + 0.5, cy = ((Float(y) + 0.5) / s).rounded(.down) + 0.5
        return bilinearClamp(img, Swift.min(cx * s, 13 - 0.5), Swift.min(cy * s, 9 - 0.5))
      }
    }
  }

  @Test func pixelateOffIsUntouched() throws {
    let img = randomImage(10, 10, seed: 24, format: .rgba32f)
    try expectUnchanged(pixelate(amount: 0, blockSize: 4), img)
    try expectUnchanged(pixelate(amount: Expr(Float.nan), blockSize: 4), img)
    try expectUnchanged(pixelate(amount: Expr(Float.infinity), blockSize: 4), img)
    try expectUnchanged(pixelate(amount: 1, blockSize: 1), img)
    try expectUnchanged(pixelate(amount: 0, blockSize: 4), awkwardImage(10, 10))
  }

  @Test func pixelateNonFiniteUniformAmountIsUntouched() throws {
    // EFFECTS.md: "s = 1 if amount is not finite" — also when amount is a uniform.
    let img = randomImage(10, 10, seed: 25, format: .rgba32f)
    let amount = Param.uniform("amount", 1)
    let effect = pixelate(amount: Expr(amount), blockSize: 4)
    for value in [Float.nan, 0, .infinity, -.infinity] {
      try expectUnchanged(effect, img, uniforms: [value], "uniform amount \(value)")
    }
    // …and a finite uniform is the same as the constant.
    let constant = try outputs(pixelate(amount: 1, blockSize: 4), img)[0].1
    for (label, out) in try outputs(effect, img, uniforms: [1]) {
      #expect(maxDifference(out, constant) <= 1e-6, "\(label): uniform amount 1 differs from constant 1")
    }
  }

  // MARK: gaussianBlur

  @Test func gaussianImpulseResponse() throws {
    // σ = 1, r = ceil(3) = 3; w(i) ∝ exp(−i²/2): 1, 0.606531, 0.135335, 0.011109;
    // sum = 1 + 2·(0.606531 + 0.135335 + 0.011109) = 2.505950 →
    // w = (0.399050, 0.242036, 0.054005, 0.004433) for |i| = 0…3.
    let w = gaussian(sigma: 1)
    #expect(w.count == 7)
    #expect(Swift.abs(w[3] - 0.399050) < 1e-6 && Swift.abs(w[4] - 0.242036) < 1e-6)
    let img = makeImage(15, 15) { x, y in x == 7 && y == 7 ? SIMD4(1, 1, 1, 1) : .zero }
    for (label, out) in try outputs(gaussianBlur(sigma: 1), img) {
      var total = SIMD4<Double>.zero
      var worst: Float = 0
      for y in 0..<15 {
        for x in 0..<15 {
          let i = x - 7, j = y - 7
          let v = Swift.abs(i) <= 3 && Swift.abs(j) <= 3 ? Float(w[i + 3] * w[j + 3]) : 0
          worst = Swift.max(worst, maxAbs(out[x, y], SIMD4(repeating: v)))
          total += SIMD4<Double>(out[x, y])
        }
      }
      #expect(worst <= 1e-4, "\(label): impulse response off by \(worst)")
      // The response at the impulse itself: w(0)² = 0.399050² = 0.159241.
      expectPixel(out[7, 7], SIMD4(repeating: 0.159241), "\(label) center")
      // At (8, 9): w(1)·w(2) = 0.242036·0.054005 = 0.013071.
      expectPixel(out[8, 9], SIMD4(repeating: 0.013071), "\(label) (1, 2)")
      #expect(Swift.abs(total.x - 1) <= 1e-4 && Swift.abs(total.w - 1) <= 1e-4, "\(label): impulse response sums to \(total)")
    }
  }

  @Test func gaussianImpulseAtCornerClampsToEdge() throws {
    // An impulse at (0, 0) in a 9×9 black image. Clamp to edge: every tap with offset ≤ 0
    // in x (and y) reads texel 0, so out(0, 0) = (Σ_{a ≤ 0} w(a))²
    //   = (0.399050 + 0.242036 + 0.054005 + 0.004433)² = 0.699525² = 0.489335.
    // out(1, 0): x taps reaching 0 are offsets a ≤ −1 → Σ = 0.242036 + 0.054005 + 0.004433
    //   = 0.300475; times 0.699525 → 0.210190.
    // out(2, 0): offsets a ≤ −2 → 0.054005 + 0.004433 = 0.058438; times 0.699525 → 0.040879.
    // out(4, 0): no offset reaches 0 (r = 3) → 0.
    let w = gaussian(sigma: 1)
    let img = makeImage(9, 9) { x, y in x == 0 && y == 0 ? SIMD4(1, 1, 1, 1) : .zero }
    let left = Float(w[0] + w[1] + w[2] + w[3]), left1 = Float(w[0] + w[1] + w[2])
    #expect(Swift.abs(left - 0.699525) < 1e-5)
    for (label, out) in try outputs(gaussianBlur(sigma: 1), img) {
      expectPixel(out[0, 0], SIMD4(repeating: left * left), "\(label) (0, 0)")
      expectPixel(out[1, 0], SIMD4(repeating: left1 * left), "\(label) (1, 0)")
      expectPixel(out[2, 0], SIMD4(repeating: 0.040879), "\(label) (2, 0)")
      expectPixel(out[4, 0], .zero, "\(label) (4, 0)")
    }
  }

  @Test func gaussianFlatStaysFlat() throws {
    let color = SIMD4<Float>(0.3, 0.15, 0.45, 0.6)
    let img = makeImage(11, 6) { _, _ in color }
    for sigma: Float in [0.5, 1, 2.3] {
      try expectImage(gaussianBlur(sigma: Expr(sigma)), img) { _, _ in color }
    }
  }

  @Test func gaussianMatchesTranscription() throws {
    // Σ w(i)·w(j)·sample(p + (i, j)), clamp to edge, on a random image.
    let img = randomImage(12, 8, seed: 26, format: .rgba32f)
    for sigma in [0.6, 1.5] {
      let w = gaussian(sigma: sigma), r = w.count / 2
      try expectImage(gaussianBlur(sigma: Expr(Float(sigma))), img) { x, y in
        var s = SIMD4<Double>.zero
        for j in -r...r {
          for i in -r...r {
            let t = img[Swift.min(Swift.max(x + i, 0), 11), Swift.min(Swift.max(y + j, 0), 7)]
            s += w[i + r] * w[j + r] * SIMD4<Double>(t)
          }
        }
        return SIMD4<Float>(s)
      }
    }
  }

  @Test func gaussianOffIsIdentity() throws {
    let img = randomImage(6, 5, seed: 27, format: .rgba32f)
    try expectUnchanged(gaussianBlur(sigma: 0), img)
    try expectUnchanged(gaussianBlur(sigma: Expr(Float.nan)), img)
  }

  /// A σ so small that 2σ² underflows (σ ≲ 2.6e-23) used to make every
  /// weight NaN and the image transparent; any σ below ≈ 0.069 px has
  /// off-centre weights of exactly 0, so the blur (and an unsharp mask built
  /// on it) is the identity.
  @Test func tinySigmaIsIdentity() throws {
    let img = randomImage(6, 5, seed: 28, format: .rgba32f)
    for sigma: Float in [1e-30, 1e-23, .leastNonzeroMagnitude, 1e-8, 0.05] {
      let w = gaussianWeights(sigma: sigma)
      #expect(w.allSatisfy(\.isFinite) && w.contains(1) && w.reduce(0, +) == 1, "σ \(sigma): \(w)")
      try expectUnchanged(gaussianBlur(sigma: Expr(sigma)), img, "σ \(sigma)")
      try expectUnchanged(unsharpMask(sigma: Expr(sigma), amount: 2), img, "unsharp σ \(sigma)")
    }
  }

  // MARK: unsharpMask

  @Test func unsharpFlatStaysFlat() throws {
    let color = SIMD4<Float>(0.3, 0.15, 0.45, 0.6)
    let img = makeImage(11, 6) { _, _ in color }
    try expectImage(unsharpMask(sigma: 1, amount: 1.5), img) { _, _ in color }
    try expectImage(unsharpMask(sigma: 2.5, amount: 10), img) { _, _ in color }
  }

  @Test func unsharpStepEdgeOvershoot() throws {
    // 12×5, opaque gray 0.2 for x < 6, 0.8 for x ≥ 6. σ = 1 (w as above; Σ_{a ≥ 1} w = 0.300475).
    //   blur(5) = 0.2 + 0.6·Σ_{a ≥ 1} w(a) = 0.2 + 0.6·0.300475 = 0.380285
    //   out(5) = 0.2 + 1·(0.2 − 0.380285) = 0.019715      (undershoot by 0.180285 on the dark side)
    //   blur(6) = 0.8 − 0.6·0.300475 = 0.619715
    //   out(6) = 0.8 + 1·(0.8 − 0.619715) = 0.980285      (overshoot by 0.180285 on the light side)
    //   amount 2: out(6) = 0.8 + 2·0.180285 = 1.160570, clamped to alpha 1; out(5) = −0.160570, clamped to 0
    //   x = 2: the nearest light pixel is 4 away > r = 3 → blur = 0.2, out = 0.2.
    let w = gaussian(sigma: 1)
    let tail = Float(w[4] + w[5] + w[6])
    #expect(Swift.abs(tail - 0.300475) < 1e-5)
    let img = makeImage(12, 5) { x, _ in x < 6 ? SIMD4(0.2, 0.2, 0.2, 1) : SIMD4(0.8, 0.8, 0.8, 1) }
    func gray(_ v: Float) -> SIMD4<Float> { SIMD4(v, v, v, 1) }
    for (label, out) in try outputs(unsharpMask(sigma: 1, amount: 1), img) {
      for y in 0..<5 {
        expectPixel(out[5, y], gray(0.2 - 0.6 * tail), "\(label) dark side (5, \(y))")  // 0.019715
        expectPixel(out[6, y], gray(0.8 + 0.6 * tail), "\(label) light side (6, \(y))")  // 0.980285
        expectPixel(out[2, y], gray(0.2), "\(label) far dark (2, \(y))")
        expectPixel(out[11, y], gray(0.8), "\(label) far light, at the border (11, \(y))")
      }
      #expect(out[5, 0].x < 0.2 && out[6, 0].x > 0.8, "\(label): overshoot has the wrong sign")
      expectPixel(out[5, 0], gray(0.019715), "\(label) hand value")
    }
    for (label, out) in try outputs(unsharpMask(sigma: 1, amount: 2), img) {
      expectPixel(out[6, 2], gray(1), "\(label) amount 2 overshoot is clamped to alpha")
      expectPixel(out[5, 2], gray(0), "\(label) amount 2 undershoot is clamped to 0")
      // x = 4: the light side is reached by offsets a ≥ 2: Σ = 0.054005 + 0.004433 = 0.058438;
      //   blur = 0.2 + 0.6·0.058438 = 0.235063; out = 0.2 + 2·(0.2 − 0.235063) = 0.129874.
      expectPixel(out[4, 2], gray(0.2 - 2 * 0.6 * Float(w[5] + w[6])), "\(label) (4, 2)")
      expectPixel(out[4, 2], gray(0.129874), "\(label) (4, 2) hand value")
    }
  }

  @Test func unsharpNonFiniteUniformAmountIsIdentity() throws {
    // Argument discipline: a non-finite uniform turns the effect off in the kernel.
    let img = randomImage(7, 6, seed: 30, format: .rgba32f)
    let amount = Param.uniform("amount", 1)
    let effect = unsharpMask(sigma: 1, amount: Expr(amount))
    for bad in [Float.nan, .infinity, -.infinity] {
      try expectUnchanged(effect, img, uniforms: [bad], "uniform amount \(bad)")
    }
    // A finite uniform is applied: the step edge's light side at amount 1 → 0.980285.
    let step = makeImage(12, 5) { x, _ in x < 6 ? SIMD4(0.2, 0.2, 0.2, 1) : SIMD4(0.8, 0.8, 0.8, 1) }
    for (label, out) in try outputs(effect, step, uniforms: [1]) {
      expectPixel(out[6, 2], SIMD4(0.980285, 0.980285, 0.980285, 1), "\(label) uniform amount 1")
    }
  }

  /// Issue 16: on an image with transparency the gain used to apply to alpha
  /// too, unclamped, so colour could exceed alpha (invalid premultiplied data).
  @Test func unsharpKeepsPremultipliedDataValid() throws {
    // A translucent step: alpha 0.4 with colour 0.05 for x < 6, alpha 0.9 with colour 0.85 for x ≥ 6.
    let img = makeImage(12, 5) { x, _ in x < 6 ? SIMD4(0.05, 0.05, 0.05, 0.4) : SIMD4(0.85, 0.85, 0.85, 0.9) }
    for (label, out) in try outputs(unsharpMask(sigma: 1, amount: 10), img) {
      for y in 0..<5 {
        for x in 0..<12 {
          let p = out[x, y], a = img[x, y].w
          #expect(p.w == a, "\(label) (\(x), \(y)): alpha \(p.w) changed from \(a)")
          #expect(p.x >= 0 && p.x <= p.w && p.y <= p.w && p.z <= p.w, "\(label) (\(x), \(y)): \(p) is not premultiplied")
        }
      }
      // The light side next to the edge is sharpened up to its alpha; the dark side down to 0.
      expectPixel(out[6, 2], SIMD4(0.9, 0.9, 0.9, 0.9), "\(label) light side clamped to alpha")
      expectPixel(out[5, 2], SIMD4(0, 0, 0, 0.4), "\(label) dark side clamped to 0")
    }
  }

  @Test func unsharpZeroAmountIsIdentity() throws {
    // c + 0·(c − blur) = c + 0 = c exactly for finite c.
    try expectUnchanged(unsharpMask(sigma: 1, amount: 0), randomImage(7, 6, seed: 28, format: .rgba32f))
    try expectUnchanged(unsharpMask(sigma: 1, amount: 0), awkwardImage(9, 8))
  }
}
