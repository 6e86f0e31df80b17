import FX
import Foundation
import Testing

// Every other catalogue effect against its docstring's formula, transcribed
// here in plain Swift on Floats (straight color where the formula says so),
// or against values worked out by hand; on the staged interpreter and the
// lowered kernel in every schedule. (The seeds are in EffectSeedTests.)

private func clamp01(_ v: SIMD3<Float>) -> SIMD3<Float> { v.clamped(lowerBound: .zero, upperBound: .one) }
private func luma709(_ s: SIMD3<Float>) -> Float { 0.2126 * s.x + 0.7152 * s.y + 0.0722 * s.z }

/// The expected output at (x, y) from a per-pixel function of straight color.
private func straightMap(_ img: ImageBuffer, _ f: @escaping (SIMD3<Float>) -> SIMD3<Float>) -> (Int, Int) -> SIMD4<Float> {
  { x, y in
    let p = img[x, y]
    return premultiplied(clamp01(f(straight(p))), p.w)
  }
}

/// Clamped texel read.
private func texel(_ img: ImageBuffer, _ x: Int, _ y: Int) -> SIMD4<Float> {
  img[Swift.min(Swift.max(x, 0), img.width - 1), Swift.min(Swift.max(y, 0), img.height - 1)]
}

private let image = irregularImage(13, 9)

@Suite struct EffectFormulaTests {
  // MARK: color adjustments

  @Test func hueRotation() throws {
    for degrees: Float in [0, 45, 120, 300] {
      let a = degrees * .pi / 180, k = Foundation.cos(a), s = Foundation.sin(a)
      try expectEffect(
        hueRotate(angle: Expr(degrees)), [image], tolerance: 2e-5,
        straightMap(image) { c in
          SIMD3(
            (0.213 + k * 0.787 - s * 0.213) * c.x + (0.715 - k * 0.715 - s * 0.715) * c.y + (0.072 - k * 0.072 + s * 0.928) * c.z,
            (0.213 - k * 0.213 + s * 0.143) * c.x + (0.715 + k * 0.285 + s * 0.140) * c.y + (0.072 - k * 0.072 - s * 0.283) * c.z,
            (0.213 - k * 0.213 - s * 0.787) * c.x + (0.715 - k * 0.715 + s * 0.715) * c.y + (0.072 + k * 0.928 + s * 0.072) * c.z)
        })
    }
    // By hand: 180° maps pure red (1, 0, 0) to (0.213 − 0.787, 0.213 + 0.213, 0.213 + 0.213) = (−0.574 → 0, 0.426, 0.426).
    let red = makeTestImage(1, 1) { _, _ in SIMD4(1, 0, 0, 1) }
    try expectEffect(hueRotate(angle: 180), [red]) { _, _ in SIMD4(0, 0.426, 0.426, 1) }
  }

  @Test func exposureGammaAndLevels() throws {
    for ev: Float in [-1.5, 0.5, 2] {
      try expectEffect(exposure(ev: Expr(ev)), [image], straightMap(image) { $0 * Foundation.pow(2, ev) })
    }
    for power: Float in [0.4, 1, 2.2] {
      try expectEffect(
        gamma(power: Expr(power)), [image],
        straightMap(image) { c in
          SIMD3(Foundation.pow(c.x, power), Foundation.pow(c.y, power), Foundation.pow(c.z, power))
        })
    }
    for levels: Float in [2, 4, 6.4] {
      let steps = (levels + 0.5).rounded(.down) - 1
      try expectEffect(
        posterize(levels: Expr(levels)), [image],
        straightMap(image) { c in
          (c * steps + 0.5).rounded(.down) / steps
        })
    }
    // By hand: 0.3 at 4 levels → floor(0.9 + 0.5)/3 = 1/3; 0.9 → floor(3.2)/3 = 1.
    let two = makeTestImage(1, 1) { _, _ in SIMD4(0.3, 0.9, 0.5, 1) }
    try expectEffect(posterize(levels: 4), [two]) { _, _ in SIMD4(1.0 / 3, 1, 2.0 / 3, 1) }  // 0.5 → floor(2)/3
  }

  @Test func matrixEffects() throws {
    for amount: Float in [0.3, 1] {
      try expectEffect(invert(amount: Expr(amount)), [image], straightMap(image) { c in c + (1 - 2 * c) * amount })
      try expectEffect(
        grayscale(amount: Expr(amount)), [image],
        straightMap(image) { c in
          c + (SIMD3(repeating: luma709(c)) - c) * amount
        })
    }
    let m: [Float] = [0.5, 0.3, -0.2, 0.1, 0, 1.2, 0.1, -0.3, 0.9, -0.4, 0.6, 0.05]
    let effect = colorMatrix(
      rr: Expr(m[0]), rg: Expr(m[1]), rb: Expr(m[2]), rBias: Expr(m[3]), gr: Expr(m[4]), gg: Expr(m[5]),
      gb: Expr(m[6]), gBias: Expr(m[7]), br: Expr(m[8]), bg: Expr(m[9]), bb: Expr(m[10]), bBias: Expr(m[11]))
    try expectEffect(
      effect, [image],
      straightMap(image) { c in
        SIMD3(
          m[0] * c.x + m[1] * c.y + m[2] * c.z + m[3], m[4] * c.x + m[5] * c.y + m[6] * c.z + m[7],
          m[8] * c.x + m[9] * c.y + m[10] * c.z + m[11])
      })
    try expectEffect(opacity(amount: 0.3), [image]) { x, y in image[x, y] * 0.3 }
  }

  @Test func thresholdAndSolarize() throws {
    for level: Float in [0.2, 0.5, 0.8] {
      try expectEffect(
        threshold(level: Expr(level)), [image],
        straightMap(image) { c in
          SIMD3(repeating: luma709(c) >= level ? 1 : 0)
        })
      try expectEffect(
        solarize(threshold: Expr(level)), [image],
        straightMap(image) { c in
          SIMD3(c.x > level ? 1 - c.x : c.x, c.y > level ? 1 - c.y : c.y, c.z > level ? 1 - c.z : c.z)
        })
    }
  }

  @Test func srgbTransfer() throws {
    func decode(_ v: Float) -> Float { v <= 0.04045 ? v / 12.92 : Foundation.pow((v + 0.055) / 1.055, 2.4) }
    func encode(_ v: Float) -> Float { v <= 0.0031308 ? v * 12.92 : 1.055 * Foundation.pow(v, 1 / 2.4) - 0.055 }
    try expectEffect(srgbToLinear(), [image], straightMap(image) { SIMD3(decode($0.x), decode($0.y), decode($0.z)) })
    try expectEffect(linearToSrgb(), [image], straightMap(image) { SIMD3(encode($0.x), encode($0.y), encode($0.z)) })
    // By hand: sRGB 0.5 → ((0.555)/1.055)^2.4 = 0.214041; and back.
    let half = makeTestImage(1, 1) { _, _ in SIMD4(0.5, 0.5, 0.5, 1) }
    try expectEffect(srgbToLinear(), [half]) { _, _ in SIMD4(0.214041, 0.214041, 0.214041, 1) }
    try expectEffect(srgbToLinear() | linearToSrgb(), [image], tolerance: 2e-5) { x, y in image[x, y] }
  }

  @Test func scanlinesAndGrain() throws {
    try expectEffect(scanlines(spacing: 3, intensity: 0.6), [image]) { x, y in
      let phase = (Float(y) + 0.5) / 3
      let f = phase - phase.rounded(.down)
      return image[x, y] * (1 - 0.6 * (0.5 + 0.5 * Foundation.cos(f * 2 * .pi)))
    }
    try expectIdentity(grain(amount: 0), [image])
    // Grain moves straight color by at most amount/2 and leaves alpha alone.
    for (label, out) in try effectOutputs(grain(amount: 0.2, size: 2), [image]) {
      for y in 0..<9 {
        for x in 0..<13 where image[x, y].w > 0 {
          let d = straight(out[x, y]) - straight(image[x, y])
          #expect(out[x, y].w == image[x, y].w && Swift.abs(d.x) <= 0.1 + 1e-5, "\(label) (\(x), \(y))")
        }
      }
    }
  }

  // MARK: fills

  @Test func fills() throws {
    let first = SIMD4<Float>(1, 0.5, 0, 1), second = SIMD4<Float>(0, 0.2, 0.4, 0.5)  // premultiplied
    let checker = checkerboard(size: 3, first: Color(1, 0.5, 0), second: Color(0, 0.4, 0.8, 0.5), opacity: 0.7)
    try expectEffect(checker, [image]) { x, y in
      let cell = ((x / 3) ^ (y / 3)) & 1
      return mixRef(image[x, y], cell == 0 ? first : second, 0.7)
    }
    let gradient = linearGradient(from: Color(0, 0, 1), to: Color(1, 1, 0), angle: 30, opacity: 1)
    try expectEffect(gradient, [image]) { x, y in
      let a = Float(30) * .pi / 180, dx = Foundation.cos(a), dy = Foundation.sin(a)
      let extent = Swift.abs(dx) * 13 + Swift.abs(dy) * 9
      let t = Swift.min(Swift.max(((Float(x) + 0.5 - 6.5) * dx + (Float(y) + 0.5 - 4.5) * dy) / extent + 0.5, 0), 1)
      return SIMD4(t, t, 1 - t, 1)
    }
    try expectIdentity(noise(opacity: 0), [image])
    for (label, out) in try effectOutputs(noise(scale: 4), [image]) {
      for y in 0..<9 {
        for x in 0..<13 {
          let v = out[x, y]
          // mix(c, fill, 1) = c + (fill − c)·1: the fill, to rounding.
          let gray = Swift.abs(v.x - v.y) < 1e-6 && Swift.abs(v.y - v.z) < 1e-6 && Swift.abs(v.w - 1) < 1e-6
          #expect(gray && v.x >= -1e-6 && v.x <= 1 + 1e-6, "\(label) (\(x), \(y)): \(v)")
        }
      }
    }
  }

  // MARK: distortions

  @Test func swirlRippleBulgeKaleidoscope() throws {
    let w: Float = 13, h: Float = 9, cx: Float = 6.5, cy: Float = 4.5
    func at(_ x: Int, _ y: Int) -> (Float, Float, Float, Float) {
      let dx = Float(x) + 0.5 - cx, dy = Float(y) + 0.5 - cy
      return (dx, dy, (dx * dx + dy * dy).squareRoot(), Swift.min(w, h) / 2)
    }
    try expectEffect(swirl(angle: 90, radius: 1.5), [image]) { x, y in
      let (dx, dy, r, half) = at(x, y)
      let t = Swift.min(Swift.max(1 - r / (1.5 * half), 0), 1)
      let theta = Float.pi / 2 * t * t
      let c = Foundation.cos(theta), s = Foundation.sin(theta)
      return bilinear(image, cx + dx * c - dy * s, cy + dx * s + dy * c)
    }
    try expectIdentity(swirl(angle: 0), [image])
    try expectEffect(ripple(amplitude: 2, wavelength: 5), [image]) { x, y in
      let (dx, dy, r, _) = at(x, y)
      let f = r / 5 - (r / 5).rounded(.down)
      let shift = 2 * Foundation.sin(f * 2 * .pi)
      return r > 0 ? bilinear(image, Float(x) + 0.5 + dx / r * shift, Float(y) + 0.5 + dy / r * shift) : image[x, y]
    }
    try expectEffect(bulge(strength: -0.7, radius: 1.2), [image]) { x, y in
      let (dx, dy, r, half) = at(x, y)
      let t = Swift.min(Swift.max(1 - r / (1.2 * half), 0), 1)
      let k = 1 + 0.7 * t * t * (3 - 2 * t)
      return bilinear(image, cx + dx * k, cy + dy * k)
    }
    try expectEffect(kaleidoscope(segments: 5, angle: 20), [image], tolerance: 2e-4) { x, y in
      let (dx, dy, r, _) = at(x, y)
      let turn = Float(20) * .pi / 180, wedge = 2 * Float.pi / 5
      let a = Foundation.atan2(dy, dx) - turn
      let m = a - wedge * (a / wedge).rounded(.down)
      let folded = Swift.min(m, wedge - m) + turn
      return bilinear(image, cx + r * Foundation.cos(folded), cy + r * Foundation.sin(folded))
    }
  }

  // MARK: neighbours

  @Test func sharpenBoxAndMotionBlur() throws {
    try expectEffect(sharpen(amount: 0.8), [image]) { x, y in
      let c = image[x, y]
      let around = (texel(image, x, y - 1) + texel(image, x, y + 1)) + (texel(image, x - 1, y) + texel(image, x + 1, y))
      let out = c + 0.8 * (4 * c - around)
      let a = Swift.min(Swift.max(out.w, 0), 1)
      return SIMD4(Swift.min(Swift.max(out.x, 0), a), Swift.min(Swift.max(out.y, 0), a), Swift.min(Swift.max(out.z, 0), a), a)
    }
    try expectEffect(boxBlur(radius: 2), [image]) { x, y in
      var sum = SIMD4<Float>.zero
      for j in -2...2 { for i in -2...2 { sum += texel(image, x + i, y + j) } }
      return sum / 25
    }
    try expectEffect(motionBlur(distance: 7, angle: 60), [image]) { x, y in
      let a = Float(60) * .pi / 180, sx = Foundation.cos(a) * 7, sy = Foundation.sin(a) * 7
      var sum = SIMD4<Float>.zero
      for k in 0..<16 {
        let t = Float(k) / 15 - 0.5
        sum += bilinear(image, Float(x) + 0.5 + sx * t, Float(y) + 0.5 + sy * t)
      }
      return sum / 16
    }
  }

  @Test func edgeSketchEmboss() throws {
    func sobel(_ f: (SIMD4<Float>) -> SIMD3<Float>, _ x: Int, _ y: Int) -> (SIMD3<Float>, SIMD3<Float>) {
      func n(_ i: Int, _ j: Int) -> SIMD3<Float> { f(texel(image, x + i, y + j)) }
      let gx = (n(1, -1) + 2 * n(1, 0) + n(1, 1)) - (n(-1, -1) + 2 * n(-1, 0) + n(-1, 1))
      let gy = (n(-1, 1) + 2 * n(0, 1) + n(1, 1)) - (n(-1, -1) + 2 * n(0, -1) + n(1, -1))
      return (gx, gy)
    }
    try expectEffect(edgeDetect(strength: 0.7), [image], tolerance: 2e-4) { x, y in
      let (gx, gy) = sobel({ SIMD3($0.x, $0.y, $0.z) }, x, y)
      let g = (gx * gx + gy * gy).squareRoot() * 0.7
      let a = image[x, y].w
      return SIMD4(Swift.min(g.x, a), Swift.min(g.y, a), Swift.min(g.z, a), a)
    }
    try expectEffect(sketch(intensity: 1.5), [image], tolerance: 2e-4) { x, y in
      let (gx, gy) = sobel({ SIMD3(repeating: 0.2126 * $0.x + 0.7152 * $0.y + 0.0722 * $0.z + (1 - $0.w)) }, x, y)
      let paper = 1 - Swift.min(Swift.max(1.5 * (gx.x * gx.x + gy.x * gy.x).squareRoot(), 0), 1)
      let a = image[x, y].w
      return SIMD4(paper * a, paper * a, paper * a, a)
    }
    try expectEffect(emboss(strength: 3, angle: 90), [image], tolerance: 2e-4) { x, y in
      // angle 90°: d = (cos, sin) = (≈0, 1): one row up minus one row down.
      func l(_ p: SIMD4<Float>) -> Float { 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z }
      let dx = Foundation.cos(Float.pi / 2)
      let up = bilinear(image, Float(x) + 0.5 - dx, Float(y) - 0.5), down = bilinear(image, Float(x) + 0.5 + dx, Float(y) + 1.5)
      let v = Swift.min(Swift.max(0.5 + 3 * (l(up) - l(down)), 0), 1)
      let a = image[x, y].w
      return SIMD4(v * a, v * a, v * a, a)
    }
  }

  @Test func halftoneDots() throws {
    // White paper: no ink anywhere. Black: at each cell's center the dot is full ink.
    let white = makeTestImage(16, 16) { _, _ in SIMD4(1, 1, 1, 1) }
    try expectEffect(halftone(dotSize: 8, angle: 0), [white]) { _, _ in SIMD4(1, 1, 1, 1) }
    let black = makeTestImage(16, 16) { _, _ in SIMD4(0, 0, 0, 1) }
    for (label, out) in try effectOutputs(halftone(dotSize: 8, angle: 0), [black]) {
      // Radius 8·√0.5 = 5.657 covers every pixel center of the cell (farthest 4.95 away).
      for (x, y) in [(3, 3), (4, 4), (0, 0), (7, 7), (12, 3)] { #expect(out[x, y] == SIMD4(0, 0, 0, 1), "\(label) (\(x), \(y))") }
    }
    // Mid gray at alpha 0.5 (straight luma 0.5 over white → darkness 0.25): radius 8·√0.125 = 2.83;
    // center pixel (3, 3) is 0.707 from the cell center (4, 4): full ink; corner (0, 0) 4.95 away: paper.
    let gray = makeTestImage(16, 16) { _, _ in SIMD4(0.25, 0.25, 0.25, 0.5) }
    for (label, out) in try effectOutputs(halftone(dotSize: 8, angle: 0), [gray]) {
      #expect(out[3, 3] == SIMD4(0, 0, 0, 0.5) && out[0, 0] == SIMD4(0.5, 0.5, 0.5, 0.5), "\(label)")
    }
  }

  @Test func crtAndChromaticAberration() throws {
    try expectEffect(crt(curvature: 0.3, intensity: 0.6), [image], tolerance: 2e-4) { x, y in
      let u = (Float(x) + 0.5) / 13 * 2 - 1, v = (Float(y) + 0.5) / 9 * 2 - 1
      let k = 1 + 0.3 * (u * u + v * v) * 0.25
      let cu = u * k, cv = v * k
      guard Swift.abs(cu) <= 1 && Swift.abs(cv) <= 1 else { return SIMD4(0, 0, 0, 1) }
      let qx = (cu * 0.5 + 0.5) * 13, qy = (cv * 0.5 + 0.5) * 9
      let c = bilinear(image, qx, qy)
      let f = qy / 3 - (qy / 3).rounded(.down)
      let scan = 1 - 0.6 * (0.5 - 0.5 * Foundation.cos(f * 2 * .pi))
      let column = x % 3
      let dim = 1 - 0.4 * Float(0.6)
      let mask = SIMD3<Float>(column == 0 ? 1 : dim, column == 1 ? 1 : dim, column == 2 ? 1 : dim)
      let corner = 1 - 0.25 * 0.6 * (cu * cu + cv * cv)
      let rgb = SIMD3(c.x, c.y, c.z) * mask * (scan * corner)
      return SIMD4(rgb, c.w)
    }
    try expectEffect(chromaticAberration(amount: 4), [image]) { x, y in
      let px = Float(x) + 0.5, py = Float(y) + 0.5
      let diagonal = Float(13 * 13 + 9 * 9).squareRoot()
      let sx = (px - 6.5) / (diagonal / 2) * 4, sy = (py - 4.5) / (diagonal / 2) * 4
      let r = bilinear(image, px + sx, py + sy), g = image[x, y], b = bilinear(image, px - sx, py - sy)
      return SIMD4(r.x, g.y, b.z, Swift.max(Swift.max(r.w, g.w), b.w))
    }
  }

  // MARK: transitions

  @Test func transitions() throws {
    let from = image, to = irregularImage(13, 9, seed: 2)
    try expectEffect(fade(progress: 0.3), [from, to]) { x, y in mixRef(from[x, y], to[x, y], 0.3) }
    try expectEffect(wipe(progress: 0.4, direction: .topToBottom, softness: 3), [from, to]) { x, y in
      let edge = 0.4 * (9 + 3 as Float)
      let k = 1 - smoothstepRef(edge - 3, edge, Float(y) + 0.5)
      return mixRef(from[x, y], to[x, y], k)
    }
    try expectEffect(slide(progress: 0.25, direction: .trailingToLeading), [from, to]) { x, y in
      // u = (−1, 0); t = 13 − p.x; shift = 3.25.
      let px = Float(x) + 0.5, py = Float(y) + 0.5, shift: Float = 3.25
      return 13 - px < shift ? bilinear(to, px - (13 - shift), py) : bilinear(from, px + shift, py)
    }
    try expectEffect(iris(progress: 0.5, softness: 2), [from, to]) { x, y in
      let reach = 0.5 * (Float(13 * 13 + 9 * 9).squareRoot() / 2 + 2)
      let dx = Float(x) + 0.5 - 6.5, dy = Float(y) + 0.5 - 4.5
      return mixRef(from[x, y], to[x, y], 1 - smoothstepRef(reach - 2, reach, (dx * dx + dy * dy).squareRoot()))
    }
    try expectEffect(pixelateTransition(progress: 0.45, blockSize: 4), [from, to]) { x, y in
      let s: Float = 1 + 3 * (1 - Swift.abs(0.9 - 1))
      let cx = Swift.min((((Float(x) + 0.5) / s).rounded(.down) + 0.5) * s, 12.5)
      let cy = Swift.min((((Float(y) + 0.5) / s).rounded(.down) + 0.5) * s, 8.5)
      return mixRef(bilinear(from, cx, cy), bilinear(to, cx, cy), smoothstepRef(0.4, 0.6, 0.45))
    }
    // Both ends of every transition: the input, then the `to` image.
    for spec in Catalogue.effects where spec.isTransition {
      var start = spec.parameters.map { Expr($0.defaultValue) }
      start[0] = 0
      try expectIdentity(spec.make(start), [from, to], spec.name)
      var end = start
      end[0] = 1
      try expectEffect(spec.make(end), [from, to]) { x, y in to[x, y] }
    }
  }
}
