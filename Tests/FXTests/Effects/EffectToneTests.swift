import FX
import Foundation
import Testing

// dither (the 4 × 4 Bayer pattern, the same on both sides of 0) and
// gradientMap (0, 1 and N colors), against transcriptions.

/// The classic 4 × 4 Bayer matrix, row y, column x.
private let bayer: [[Float]] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]

/// The Bayer threshold at integer cell (x, y), indexed as EFFECTS.md says: signed, `& 3`.
private func bayerRef(_ x: Int, _ y: Int) -> Float { (bayer[y & 3][x & 3] + 0.5) / 16 }

@Suite struct EffectToneTests {
  @Test func bayerPatternIsTheSameOnBothSidesOfZero() throws {
    // A color effect evaluating the pattern at position − (64, 37): columns 0…63
    // and rows 0…36 see negative coordinates. The pattern must continue with
    // period 4 straight across x = 0 and y = 0 (truncation toward zero or a
    // signed `%` would mirror it there).
    let shifted = Effect.color("bayer at negative positions") { p, _ in
      let t = bayerThreshold(p - float2(64, 37))
      return float4(t, t, t, 1)
    }
    let img = makeTestImage(128, 74) { _, _ in .zero }
    let outs = try effectOutputs(shifted, [img], jit: true)
    for (label, out) in outs {
      var mismatches = 0
      for y in 0..<74 {
        for x in 0..<128 {
          if out[x, y].x != bayerRef(x - 64, y - 37) { mismatches += 1 }
          if x + 4 < 128, out[x, y] != out[x + 4, y] { mismatches += 1 }
          if y + 4 < 74, out[x, y] != out[x, y + 4] { mismatches += 1 }
        }
      }
      #expect(mismatches == 0, "\(label): \(mismatches) pixels break the pattern")
      // Spot values: (−1, −1) → B[3][3] = 5; (−4, 0) → B[0][0] = 0; (−3, −2) → B[2][1] = 11.
      #expect(out[63, 36].x == 5.5 / 16 && out[60, 37].x == 0.5 / 16 && out[61, 35].x == 11.5 / 16, "\(label)")
    }
    // The same through a distortion that moves the dithered image: the dither
    // stage's positions are its own (0…), and the shifted copy matches exactly.
    let img2 = makeTestImage(24, 8) { x, _ in SIMD4(repeating: Float(x % 3) * 0.3 + 0.05) }
    let dithered = try effectOutputs(dither(levels: 2), [img2])[0].1
    let moved = dither(levels: 2) | Effect.distortion("shift") { p in p - float2(8, 4) }
    try expectEffect(moved, [img2]) { x, y in dithered[Swift.max(x - 8, 0), Swift.max(y - 4, 0)] }
  }

  @Test func ditherMatchesTranscription() throws {
    let img = irregularImage(19, 13)
    for (levels, scale): (Float, Float) in [(2, 1), (4, 1), (3, 2), (8, 3.5)] {
      try expectEffect(dither(levels: Expr(levels), scale: Expr(scale)), [img], jit: levels == 4) { x, y in
        let p = img[x, y]
        guard p.w > 0 else { return .zero }
        let steps = (levels + 0.5).rounded(.down) - 1
        let t = bayerRef(Int((Float(x) + 0.5) / scale), Int((Float(y) + 0.5) / scale))
        let s = straight(p)
        let q = ((s * steps + t).rounded(.down) / steps).clamped(lowerBound: .zero, upperBound: .one)
        return premultiplied(q, p.w)
      }
    }
    // A flat 0.4 gray at 2 levels: white where (B + 0.5)/16 ≥ 0.6, i.e. B ≥ 10 — 6 cells of 16.
    let gray = makeTestImage(8, 8) { _, _ in SIMD4(0.4, 0.4, 0.4, 1) }
    let out = try effectOutputs(dither(levels: 2), [gray])[0].1
    var white = 0
    for y in 0..<4 { for x in 0..<4 where out[x, y].x == 1 { white += 1 } }
    #expect(white == 6)
  }

  @Test func gradientMapWithNoColorsReturnsTheInput() throws {
    let img = irregularImage(9, 7)
    let effect = gradientMap(colors: [], amount: 1)
    try expectIdentity(effect, [img])
    #expect(try EffectGraph(output: effect(.input())).stages.isEmpty)
  }

  @Test func gradientMapWithOneColorMixesTowardIt() throws {
    let img = irregularImage(9, 7)
    let tint = Color(0.9, 0.3, 0.1)
    for amount: Float in [0, 0.25, 1] {
      try expectEffect(gradientMap(colors: [tint], amount: Expr(amount)), [img]) { x, y in
        let p = img[x, y]
        let s = straight(p)
        return premultiplied(s + (SIMD3(0.9, 0.3, 0.1) - s) * amount, p.w)
      }
    }
    // A translucent color scales alpha by mix(1, its alpha, amount).
    let glass = Color(0, 0, 1, 0.5)
    try expectEffect(gradientMap(colors: [glass], amount: 0.5), [img]) { x, y in
      let p = img[x, y]
      let s = straight(p)
      return premultiplied(s + (SIMD3(0, 0, 1) - s) * 0.5, p.w * 0.75)
    }
  }

  @Test func gradientMapWithNColors() throws {
    let img = irregularImage(17, 11)
    let palettes: [[SIMD3<Float>]] = [
      [SIMD3(0, 0, 0), SIMD3(1, 1, 1)],
      [SIMD3(0.1, 0.05, 0.2), SIMD3(0.8, 0.2, 0.2), SIMD3(1, 0.9, 0.6)],
      (0..<5).map { k in SIMD3(Float(k) / 4, 1 - Float(k) / 4, Float(k % 2)) },
      (0..<17).map { k in SIMD3(Float(k % 3) / 2, Float(k % 5) / 4, Float(k) / 16) },
    ]
    for palette in palettes {
      let colors = palette.map { Color($0.x, $0.y, $0.z) }
      for amount: Float in [1, 0.6] {
        try expectEffect(gradientMap(colors: colors, amount: Expr(amount)), [img]) { x, y in
          let p = img[x, y]
          let s = straight(p)
          let luma = Swift.min(Swift.max(0.2126 * s.x + 0.7152 * s.y + 0.0722 * s.z, 0), 1)
          // Piecewise linear between evenly spaced stops.
          let position = luma * Float(palette.count - 1)
          let k = Swift.min(Int(position), palette.count - 2)
          let t = position - Float(k)
          let mapped = palette[k] + (palette[k + 1] - palette[k]) * t
          return premultiplied(s + (mapped - s) * amount, p.w)
        }
      }
    }
    // Exact stops: luma 0 → the first color, luma 1 → the last.
    let ends = makeTestImage(2, 1) { x, _ in x == 0 ? SIMD4(0, 0, 0, 1) : SIMD4(1, 1, 1, 1) }
    let colors = [Color(0.2, 0.4, 0.6), Color(1, 0, 0), Color(0.9, 0.8, 0.7)]
    try expectEffect(gradientMap(colors: colors), [ends]) { x, _ in
      x == 0 ? SIMD4(0.2, 0.4, 0.6, 1) : SIMD4(0.9, 0.8, 0.7, 1)
    }
  }
}
