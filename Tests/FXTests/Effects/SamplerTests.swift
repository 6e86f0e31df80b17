import FX
import Testing

// DESIGN §3 sampling, every filter × address mode, at points worked out by hand.
// The sample position is a constant, so the layer effect's output is that one
// sample at every pixel. Checked on the staged interpreter (the oracle) and on
// the lowered kernel under each schedule (where the sampling becomes IR).

/// The 4×3 test image: texel (i, j) = T(i, j) = (i + 1, j + 1, (i + 1)(j + 1), 1).
/// r names the column, g the row; b = r·g is not affine, so a wrong blend shows in b.
private let width = 4, height = 3

private func T(_ i: Int, _ j: Int) -> SIMD4<Float> { SIMD4(Float(i + 1), Float(j + 1), Float((i + 1) * (j + 1)), 1) }

private func testImage(_ texel: (Int, Int) -> SIMD4<Float> = T) -> ImageBuffer {
  let img = try! ImageBuffer(width: width, height: height, format: .rgba32f)
  for y in 0..<height { for x in 0..<width { img[x, y] = texel(x, y) } }
  return img
}

/// The images `layer.sample((px, py), sampler)` produces: staged, then kernels.
private func sampled(_ px: Float, _ py: Float, _ sampler: Sampler, _ image: ImageBuffer) throws -> [(String, ImageBuffer)] {
  let effect = Effect.layer("t") { _, layer in layer.sample(float2(Expr(px), Expr(py)), sampler) }
  let graph = try EffectGraph(output: effect(.input()))
  var result = [("staged", try Interpreter.runStaged(graph, inputs: [image]))]
  for (label, inline, materialise) in [("kernel", false, false), ("kernel/inline", true, false), ("kernel/materialise", false, true)] {
    var options = LoweringOptions()
    options.forceInline = inline
    options.forceMaterialise = materialise
    result.append((label, try Interpreter.run(Lower.run(graph, options: options).0, inputs: [image])))
  }
  return result
}

private func maxAbs(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
  var m: Float = 0
  for c in 0..<4 {
    let d = Swift.abs(a[c] - b[c])
    if !(d <= m) { m = d }
  }
  return m
}

/// Every pixel of every output is `want` (within 1e-6: the blends here are exact in binary).
private func expectSample(
  _ px: Float, _ py: Float, _ sampler: Sampler, _ want: SIMD4<Float>, image: ImageBuffer = testImage(),
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  for (label, out) in try sampled(px, py, sampler, image) {
    var worst: (Float, SIMD4<Float>) = (0, want)
    for y in 0..<out.height {
      for x in 0..<out.width where !(maxAbs(out[x, y], want) <= worst.0) { worst = (maxAbs(out[x, y], want), out[x, y]) }
    }
    #expect(
      worst.0 <= 1e-6, "\(sampler) \(label) at (\(px), \(py)): got \(worst.1), expected \(want)", sourceLocation: sourceLocation)
  }
}

private let modes: [Sampler.AddressMode] = [.clampToEdge, .transparent, .repeat, .mirror]

/// A point and the expected sample under clampToEdge, transparent, repeat, mirror.
private typealias Case = (x: Float, y: Float, clamp: SIMD4<Float>, transparent: SIMD4<Float>, repeat: SIMD4<Float>, mirror: SIMD4<Float>)

private func all(_ x: Float, _ y: Float, _ v: SIMD4<Float>) -> Case { (x, y, v, v, v, v) }

// Address resolution along an axis of n texels, by hand:
//   clampToEdge: min(max(i, 0), n − 1); transparent: outside → 0;
//   repeat: i mod n (Euclidean);  mirror: m = i mod 2n, m < n ? m : 2n − 1 − m.
// Width 4: repeat −1 → 3, −2 → 2, −4 → 0, 4 → 0, 6 → 2, 12 → 0;
//          mirror (period 8) −1 → 0, −2 → 1, −4 → 3, 4 → 3, 6 → 1, 12 → 3.
// Height 3: repeat −1 → 2, 3 → 0, 5 → 2, 8 → 2; mirror (period 6) −1 → 0, 3 → 2, 5 → 0, 8 → 2.

/// Linear: blend of the four texels around (x − 0.5, y − 0.5): x0 = floor(x − 0.5), tx = x − 0.5 − x0.
private let linearCases: [Case] = [
  // (1.5, 1.5): a pixel center, tx = ty = 0 → T(1, 1) = (2, 2, 4, 1).
  all(1.5, 1.5, SIMD4(2, 2, 4, 1)),
  // (2.0, 1.0): fx = 1.5, fy = 0.5 → the mean of T(1,0), T(2,0), T(1,1), T(2,1)
  //   = ((2,1,2,1) + (3,1,3,1) + (2,2,4,1) + (3,2,6,1))/4 = (2.5, 1.5, 3.75, 1).
  all(2.0, 1.0, SIMD4(2.5, 1.5, 3.75, 1)),
  // (2.25, 1.75): x0 = 1, tx = 0.75; y0 = 1, ty = 0.25 → r = 2.75, g = 2.25,
  //   b = 0.1875·4 + 0.5625·6 + 0.0625·6 + 0.1875·9 = 0.75 + 3.375 + 0.375 + 1.6875 = 6.1875.
  all(2.25, 1.75, SIMD4(2.75, 2.25, 6.1875, 1)),
  // (0.25, 1.5): texels x = −1 (weight 0.25) and 0 (0.75), row 1 only.
  //   clamp: T(0,1) twice = (1, 2, 2, 1); transparent: 0.75·T(0,1) = (0.75, 1.5, 1.5, 0.75);
  //   repeat: 0.25·T(3,1) + 0.75·T(0,1) = 0.25·(4,2,8,1) + 0.75·(1,2,2,1) = (1.75, 2, 3.5, 1);
  //   mirror: −1 → 0: T(0,1).
  (0.25, 1.5, SIMD4(1, 2, 2, 1), SIMD4(0.75, 1.5, 1.5, 0.75), SIMD4(1.75, 2, 3.5, 1), SIMD4(1, 2, 2, 1)),
  // (−1.0, 1.5): texels −2, −1 (0.5 each), row 1. clamp T(0,1); transparent 0;
  //   repeat (T(2,1) + T(3,1))/2 = ((3,2,6,1) + (4,2,8,1))/2 = (3.5, 2, 7, 1);
  //   mirror (T(1,1) + T(0,1))/2 = ((2,2,4,1) + (1,2,2,1))/2 = (1.5, 2, 3, 1).
  (-1.0, 1.5, SIMD4(1, 2, 2, 1), .zero, SIMD4(3.5, 2, 7, 1), SIMD4(1.5, 2, 3, 1)),
  // (4.25, 0.5): texels 3 (0.25) and 4 (0.75), row 0. clamp T(3,0) = (4,1,4,1);
  //   transparent 0.25·T(3,0) = (1, 0.25, 1, 0.25); repeat 0.25·T(3,0) + 0.75·T(0,0) = (1.75, 1, 1.75, 1);
  //   mirror 4 → 3: T(3,0).
  (4.25, 0.5, SIMD4(4, 1, 4, 1), SIMD4(1, 0.25, 1, 0.25), SIMD4(1.75, 1, 1.75, 1), SIMD4(4, 1, 4, 1)),
  // (6.5, 0.5): texel 6 only. clamp T(3,0); transparent 0; repeat T(2,0) = (3,1,3,1); mirror T(1,0) = (2,1,2,1).
  (6.5, 0.5, SIMD4(4, 1, 4, 1), .zero, SIMD4(3, 1, 3, 1), SIMD4(2, 1, 2, 1)),
  // (−3.5, 0.5): texel −4 only. clamp T(0,0); transparent 0; repeat T(0,0); mirror T(3,0).
  (-3.5, 0.5, SIMD4(1, 1, 1, 1), .zero, SIMD4(1, 1, 1, 1), SIMD4(4, 1, 4, 1)),
  // (1.5, −0.5): row −1 only. clamp T(1,0) = (2,1,2,1); transparent 0; repeat T(1,2) = (2,3,6,1); mirror T(1,0).
  (1.5, -0.5, SIMD4(2, 1, 2, 1), .zero, SIMD4(2, 3, 6, 1), SIMD4(2, 1, 2, 1)),
  // (1.5, 3.5): row 3. clamp T(1,2); transparent 0; repeat T(1,0); mirror T(1,2).
  (1.5, 3.5, SIMD4(2, 3, 6, 1), .zero, SIMD4(2, 1, 2, 1), SIMD4(2, 3, 6, 1)),
  // (1.5, 5.5): row 5. clamp T(1,2); transparent 0; repeat T(1,2); mirror T(1,0).
  (1.5, 5.5, SIMD4(2, 3, 6, 1), .zero, SIMD4(2, 3, 6, 1), SIMD4(2, 1, 2, 1)),
  // (1.5, 2.75): rows 2 (0.75) and 3 (0.25). clamp T(1,2); transparent 0.75·T(1,2) = (1.5, 2.25, 4.5, 0.75);
  //   repeat 0.75·T(1,2) + 0.25·T(1,0) = (2, 2.5, 5, 1); mirror 3 → 2: T(1,2).
  (1.5, 2.75, SIMD4(2, 3, 6, 1), SIMD4(1.5, 2.25, 4.5, 0.75), SIMD4(2, 2.5, 5, 1), SIMD4(2, 3, 6, 1)),
  // (−0.5, −0.5): texel (−1, −1) only. clamp T(0,0); transparent 0; repeat T(3,2) = (4,3,12,1); mirror T(0,0).
  (-0.5, -0.5, SIMD4(1, 1, 1, 1), .zero, SIMD4(4, 3, 12, 1), SIMD4(1, 1, 1, 1)),
  // (0, 0): the corner; texels (−1|0, −1|0), 0.25 each. clamp T(0,0); transparent 0.25·T(0,0);
  //   repeat (T(3,2) + T(0,2) + T(3,0) + T(0,0))/4 = ((4,3,12,1) + (1,3,3,1) + (4,1,4,1) + (1,1,1,1))/4
  //   = (2.5, 2, 5, 1); mirror T(0,0).
  (0, 0, SIMD4(1, 1, 1, 1), SIMD4(0.25, 0.25, 0.25, 0.25), SIMD4(2.5, 2, 5, 1), SIMD4(1, 1, 1, 1)),
  // (4, 3): the opposite corner; texels (3|4, 2|3), 0.25 each. clamp T(3,2) = (4,3,12,1);
  //   transparent 0.25·T(3,2) = (1, 0.75, 3, 0.25); repeat (T(3,2) + T(0,2) + T(3,0) + T(0,0))/4 = (2.5, 2, 5, 1);
  //   mirror (4 → 3, 3 → 2): T(3,2).
  (4, 3, SIMD4(4, 3, 12, 1), SIMD4(1, 0.75, 3, 0.25), SIMD4(2.5, 2, 5, 1), SIMD4(4, 3, 12, 1)),
]

/// Nearest: the texel floor(p).
private let nearestCases: [Case] = [
  all(1.5, 1.5, SIMD4(2, 2, 4, 1)),  // (1, 1)
  all(2.0, 1.0, SIMD4(3, 2, 6, 1)),  // an exact edge between texels belongs to the right/lower one: (2, 1)
  all(2.99, 2.99, SIMD4(3, 3, 9, 1)),  // (2, 2)
  all(0, 0, SIMD4(1, 1, 1, 1)),  // (0, 0)
  all(3.999, 0.2, SIMD4(4, 1, 4, 1)),  // (3, 0)
  // (−0.25, 1.5) → (−1, 1): clamp T(0,1); 0; repeat T(3,1) = (4,2,8,1); mirror T(0,1).
  (-0.25, 1.5, SIMD4(1, 2, 2, 1), .zero, SIMD4(4, 2, 8, 1), SIMD4(1, 2, 2, 1)),
  // (4.0, 0.5) → (4, 0): clamp T(3,0); 0; repeat T(0,0); mirror T(3,0).
  (4.0, 0.5, SIMD4(4, 1, 4, 1), .zero, SIMD4(1, 1, 1, 1), SIMD4(4, 1, 4, 1)),
  // (6.5, 0.5) → 6: T(3,0); 0; T(2,0); T(1,0).
  (6.5, 0.5, SIMD4(4, 1, 4, 1), .zero, SIMD4(3, 1, 3, 1), SIMD4(2, 1, 2, 1)),
  // (−3.5, 0.5) → −4: T(0,0); 0; T(0,0); T(3,0).
  (-3.5, 0.5, SIMD4(1, 1, 1, 1), .zero, SIMD4(1, 1, 1, 1), SIMD4(4, 1, 4, 1)),
  // (1.5, −0.5) → (1, −1): T(1,0); 0; T(1,2); T(1,0).
  (1.5, -0.5, SIMD4(2, 1, 2, 1), .zero, SIMD4(2, 3, 6, 1), SIMD4(2, 1, 2, 1)),
  // (1.5, 3.0) → row 3: T(1,2); 0; T(1,0); T(1,2).
  (1.5, 3.0, SIMD4(2, 3, 6, 1), .zero, SIMD4(2, 1, 2, 1), SIMD4(2, 3, 6, 1)),
  // (1.5, 5.5) → row 5: T(1,2); 0; T(1,2); T(1,0).
  (1.5, 5.5, SIMD4(2, 3, 6, 1), .zero, SIMD4(2, 3, 6, 1), SIMD4(2, 1, 2, 1)),
  // (−0.5, −0.5) → (−1, −1): T(0,0); 0; T(3,2); T(0,0).
  (-0.5, -0.5, SIMD4(1, 1, 1, 1), .zero, SIMD4(4, 3, 12, 1), SIMD4(1, 1, 1, 1)),
  // (12.5, 8.5) → (12, 8): clamp T(3,2); 0; repeat (0, 2) → T(0,2) = (1,3,3,1); mirror (3, 2) → T(3,2).
  (12.5, 8.5, SIMD4(4, 3, 12, 1), .zero, SIMD4(1, 3, 3, 1), SIMD4(4, 3, 12, 1)),
]

@Suite struct SamplerTests {
  @Test(arguments: Sampler.Filter.allCases, modes)
  func handWorkedPoints(_ filter: Sampler.Filter, _ mode: Sampler.AddressMode) throws {
    let sampler = Sampler(filter: filter, address: mode)
    for c in filter == .linear ? linearCases : nearestCases {
      let want: SIMD4<Float>
      switch mode {
      case .clampToEdge: want = c.clamp
      case .transparent: want = c.transparent
      case .repeat: want = c.repeat
      case .mirror: want = c.mirror
      }
      try expectSample(c.x, c.y, sampler, want)
    }
  }

  @Test(arguments: Sampler.Filter.allCases, modes)
  func nanCoordinatesAreTransparent(_ filter: Sampler.Filter, _ mode: Sampler.AddressMode) throws {
    let sampler = Sampler(filter: filter, address: mode)
    for (x, y) in [(Float.nan, 1.5), (1.5, .nan), (.nan, .nan), (.nan, .infinity), (-.infinity, .nan)] as [(Float, Float)] {
      try expectSample(x, y, sampler, .zero)
    }
  }

  @Test(arguments: Sampler.Filter.allCases, modes)
  func hugeCoordinatesAreDefined(_ filter: Sampler.Filter, _ mode: Sampler.AddressMode) throws {
    let sampler = Sampler(filter: filter, address: mode)
    // Under clampToEdge a huge coordinate reads the edge texel; transparent reads 0.
    //   x → +big, y = 1.5: T(3,1) = (4,2,8,1);  x → −big: T(0,1) = (1,2,2,1)
    //   y → +big, x = 1.5: T(1,2) = (2,3,6,1);  y → −big: T(1,0) = (2,1,2,1)
    //   (+big, +big): T(3,2) = (4,3,12,1);      (−big, +big): T(0,2) = (1,3,3,1)
    let big: [Float] = [.infinity, 1e30, 3e9, Float.greatestFiniteMagnitude]
    for b in big {
      let cases: [(Float, Float, SIMD4<Float>)] = [
        (b, 1.5, SIMD4(4, 2, 8, 1)), (-b, 1.5, SIMD4(1, 2, 2, 1)),
        (1.5, b, SIMD4(2, 3, 6, 1)), (1.5, -b, SIMD4(2, 1, 2, 1)),
        (b, b, SIMD4(4, 3, 12, 1)), (-b, b, SIMD4(1, 3, 3, 1)),
      ]
      for (x, y, edge) in cases {
        switch mode {
        case .clampToEdge: try expectSample(x, y, sampler, edge)
        case .transparent: try expectSample(x, y, sampler, .zero)
        case .repeat, .mirror:
          // Some defined value: finite, a convex blend of texels (inside the image's range), opaque.
          for (label, out) in try sampled(x, y, sampler, testImage()) {
            let v = out[0, 0]
            let ok = v.x >= 1 && v.x <= 4 && v.y >= 1 && v.y <= 3 && v.z >= 1 && v.z <= 12 && Swift.abs(v.w - 1) <= 1e-6
            #expect(ok, "\(sampler) \(label) at (\(x), \(y)): \(v) is not a blend of texels")
            for py in 0..<out.height { for px in 0..<out.width { #expect(out[px, py] == v, "\(label): not uniform") } }
          }
        }
      }
    }
  }

  @Test(arguments: Sampler.Filter.allCases, modes)
  func zeroWeightNeverReadsItsTexel(_ filter: Sampler.Filter, _ mode: Sampler.AddressMode) throws {
    // Column 2 and row 2 hold +∞ (then NaN, then −∞); the samples below give them weight 0.
    let sampler = Sampler(filter: filter, address: mode)
    for poison in [Float.infinity, .nan, -.infinity] {
      let image = testImage { i, j in i == 2 || j == 2 ? SIMD4(repeating: poison) : T(i, j) }
      // The center of (1, 1): T(1, 1) exactly; its right and lower neighbours are poison.
      try expectSample(1.5, 1.5, sampler, SIMD4(2, 2, 4, 1), image: image)
      // The center of (0, 0): neighbours (1, 0), (0, 1), (1, 1) are finite anyway.
      try expectSample(0.5, 0.5, sampler, SIMD4(1, 1, 1, 1), image: image)
      if filter == .linear {
        // (1.5, 1.25): tx = 0, ty = 0.75 → 0.25·T(1,0) + 0.75·T(1,1) = 0.25·(2,1,2,1) + 0.75·(2,2,4,1)
        //   = (2, 1.75, 3.5, 1); column 2 has weight 0.
        try expectSample(1.5, 1.25, sampler, SIMD4(2, 1.75, 3.5, 1), image: image)
        // (1.25, 1.5): ty = 0, tx = 0.75 → 0.25·T(0,1) + 0.75·T(1,1) = (1.75, 2, 3.5, 1); row 2 has weight 0.
        try expectSample(1.25, 1.5, sampler, SIMD4(1.75, 2, 3.5, 1), image: image)
      } else {
        // Nearest just below the poisoned column and row still reads (1, 1).
        try expectSample(1.999, 1.999, sampler, SIMD4(2, 2, 4, 1), image: image)
      }
    }
  }

  @Test func defaultSamplerIsLinearClampToEdge() throws {
    // layer.sample(p) without a sampler: linear, clampToEdge (DESIGN §3).
    let effect = Effect.layer("t") { _, layer in layer.sample(float2(Expr(Float(0.25)), Expr(Float(1.5)))) }
    let out = try Interpreter.runStaged(EffectGraph(output: effect(.input())), inputs: [testImage()])
    #expect(maxAbs(out[0, 0], SIMD4(1, 2, 2, 1)) <= 1e-6)  // see linearCases (0.25, 1.5)
    let effect2 = Effect.layer("t") { _, layer in layer.sample(float2(Expr(Float(2.0)), Expr(Float(1.0)))) }
    let out2 = try Interpreter.runStaged(EffectGraph(output: effect2(.input())), inputs: [testImage()])
    #expect(maxAbs(out2[0, 0], SIMD4(2.5, 1.5, 3.75, 1)) <= 1e-6)
  }

  @Test func samplePerPixelPositionReadsShiftedImage() throws {
    // A non-constant position: sample(position + (1, 0)) under each mode reads the texel to the right;
    // at the last column that is texel 4: clamp → T(3, j), transparent → 0, repeat → T(0, j), mirror → T(3, j).
    for mode in modes {
      for filter in Sampler.Filter.allCases {
        let sampler = Sampler(filter: filter, address: mode)
        let effect = Effect.layer("t") { p, layer in layer.sample(p + float2(1, 0), sampler) }
        let graph = try EffectGraph(output: effect(.input()))
        let image = testImage()
        var outs = [("staged", try Interpreter.runStaged(graph, inputs: [image]))]
        outs.append(("kernel", try Interpreter.run(Lower.run(graph).0, inputs: [image])))
        for (label, out) in outs {
          for j in 0..<height {
            for i in 0..<width {
              let want: SIMD4<Float>
              if i + 1 < width {
                want = T(i + 1, j)
              } else {
                switch mode {
                case .clampToEdge, .mirror: want = T(3, j)
                case .transparent: want = .zero
                case .repeat: want = T(0, j)
                }
              }
              #expect(maxAbs(out[i, j], want) <= 1e-6, "\(sampler) \(label) at (\(i), \(j)): \(out[i, j]) ≠ \(want)")
            }
          }
        }
      }
    }
  }
}
