import FX
import FXTestSupport
import Testing

/// The separability pass splits what is provably separable, agrees with the
/// unsplit graph, and refuses everything else (each refusal would fail if it split).
struct SeparableSplitTests {
  /// Input 0 stored as 8- or 16-bit unorm: its values are proved to be in [0, 1].
  static var unorm: LoweringOptions {
    var o = LoweringOptions()
    o.straightAlphaInputs = [0]
    return o
  }

  func splitCount(_ effect: Effect) throws -> Int {
    let graph = try EffectGraph(output: effect(.input()))
    let (split, _) = SeparableSplit.run(graph, unormInputs: [0])
    return split.stages.count - graph.stages.count
  }

  @Test func gaussianTapsAreSplitAndAgree() throws {
    for sigma: Float in [0.6, 1, 2.5] {
      let effect = tapGaussian(sigma: sigma) | sepia()
      #expect(try splitCount(effect) == 1)
      let graph = try EffectGraph(output: effect(.input()))
      let input = randomImage(19, 13, seed: 4, format: .rgba16)
      let reference = try Interpreter.runStaged(graph, inputs: [input])
      var unsplit = Self.unorm
      unsplit.splitSeparable = false
      for options in [Self.unorm, unsplit] {
        let (kernel, _) = try Lower.run(graph, options: options)
        #expect(maxDifference(reference, try Interpreter.run(kernel, inputs: [input], format: .rgba32f)) <= 1e-4)
      }
      let (kernel, log) = try Lower.run(graph, options: Self.unorm)
      let r = Int((3 * sigma).rounded(.up)), n = 2 * r + 1
      // Horizontal, then vertical fused with sepia; from 6 taps on, the input
      // is first converted once to a planar copy (WrapInput).
      #expect(kernel.loopNests.map(\.name).filter { $0.hasSuffix("(horizontal)") }.count == 1)
      #expect(kernel.loopNests.count == (n > 5 ? 3 : 2))
      #expect(log.entries.contains { $0.ir.contains("split convolution \(n)×\(n) → \(n)+\(n) taps") })
    }
  }

  @Test(arguments: Sampler.AddressMode.allCases)
  func everyAddressModeSplitsExactly(_ mode: Sampler.AddressMode) throws {
    let w: [Float] = [0.25, 0.5, 0.25]
    let box = Effect.layer("conv", sampler: Sampler(filter: .linear, address: mode)) { p, layer in
      var sum: Expr = float4(0)
      for j in -1...1 { for i in -1...1 { sum = sum + Expr(w[i + 1] * w[j + 1]) * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j)))) } }
      return sum
    }
    #expect(try splitCount(box) == 1)
    let graph = try EffectGraph(output: box(.input()))
    let input = randomImage(6, 5, seed: 8, format: .rgba16)
    let (kernel, log) = try Lower.run(graph, options: Self.unorm)
    #expect(log.entries.contains { $0.pass == "separable split" && $0.summary == "split 1 convolution" })
    let lowered = try Interpreter.run(kernel, inputs: [input], format: .rgba32f)
    #expect(maxDifference(try Interpreter.runStaged(graph, inputs: [input]), lowered) <= 1e-5)
  }

  /// A blur whose radius varies per pixel (weights depend on position): progressive blur.
  @Test func refusesVariableWeights() throws {
    let progressive = Effect.layer("progressive") { p, layer in
      let t = p.x / Expr.size.x
      var sum: Expr = float4(0)
      for j in -1...1 { for i in -1...1 { sum = sum + (t / 9) * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j)))) } }
      return sum
    }
    #expect(try splitCount(progressive) == 0)
  }

  @Test func refusesDataDependentOffsets() throws {
    let warped = Effect.layer("warped") { p, layer in
      var sum: Expr = float4(0)
      for j in -1...1 {
        for i in -1...1 {
          let offset = float2(Expr(Float(i)), Expr(Float(j))) * layer.sample(p).r
          sum = sum + Expr(Float(1) / 9) * layer.sample(p + offset)
        }
      }
      return sum
    }
    #expect(try splitCount(warped) == 0)
  }

  @Test func refusesRankTwo() throws {
    // Laplacian-like cross: rank 2.
    let weights: [[Float]] = [[0, 1, 0], [1, -4, 1], [0, 1, 0]]
    let cross = Effect.layer("cross") { p, layer in
      var sum: Expr = float4(0)
      for j in -1...1 {
        for i in -1...1 where weights[j + 1][i + 1] != 0 {
          sum = sum + Expr(weights[j + 1][i + 1]) * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j))))
        }
      }
      return sum
    }
    #expect(try splitCount(cross) == 0)
    let graph = try EffectGraph(output: cross(.input()))
    guard case .success(let conv) = SeparableSplit.analyse(graph.stages[0].program) else {
      Issue.record("the cross should be recognised as a convolution")
      return
    }
    guard case .failure(.rankAboveOne) = SeparableSplit.factor(conv) else {
      Issue.record("rank 2 must be refused as such")
      return
    }
  }

  @Test func refusesNonIntegerOffsetsUnderNearest() throws {
    let shifted = Effect.layer("halfPixel", sampler: .nearest) { p, layer in
      var sum: Expr = float4(0)
      for j in -1...1 { for i in -1...1 { sum = sum + Expr(Float(1) / 9) * layer.sample(p + float2(Expr(Float(i) + 0.5), Expr(Float(j)))) } }
      return sum
    }
    #expect(try splitCount(shifted) == 0)
  }

  @Test func refusesASourceOfAnotherSize() throws {
    let w: [Float] = [0.25, 0.5, 0.25]
    let other = Image.combine("blurOther", [Image.input(0), Image.input(1)]) { p, layers in
      var sum: Expr = float4(0)
      for j in -1...1 { for i in -1...1 { sum = sum + Expr(w[i + 1] * w[j + 1]) * layers[1].sample(p + float2(Expr(Float(i)), Expr(Float(j)))) } }
      return sum
    }
    let graph = try EffectGraph(output: other)
    let (split, notes) = SeparableSplit.run(graph)
    #expect(split.stages.count == graph.stages.count)
    #expect(notes.contains { $0.contains("sourceSizeDiffers") })
  }

  @Test func refusesChannelsWithDifferentWeights() throws {
    let tinted = Effect.layer("tinted") { p, layer in
      var sum: Expr = float4(0)
      for j in -1...1 { for i in -1...1 { sum = sum + float4(0.1, 0.1, 0.2, 0.1) * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j)))) } }
      return sum
    }
    #expect(try splitCount(tinted) == 0)
  }
}

/// A tap of weight 0 is still a tap: 0·NaN is NaN (DESIGN §4), so the split
/// must read it (fxc fuzz seed 5092928591409747055: a 2×2 loop of weights
/// i, unrolled, dropped its zero column and turned NaN into 0); and a split
/// must not read a pixel the stage never samples.
struct ZeroWeightTapTests {
  @Test func aZeroWeightTapCarriesNaNThroughTheSplit() throws {
    let in0 = ImageBuffer.pixels(2, 1, .rgba8, [(0, 0, 0, 0), (128, 64, 32, 255)])
    // NaN where a channel is below 0.5, and finite (so bounded: the split is proved) elsewhere.
    let s0 = Effect.color("s0") { _, color in sqrt(color - 0.5) }(Image.input(0))
    let s1 = Effect.layer("s1") { position, layer in
      var sum: Expr = float4(0)
      for j in 0...1 {
        for i in 0...1 {
          sum = sum + Expr(Float(i)) * layer.sample(position + float2(Expr(Float(i)), Expr(Float(j))))
        }
      }
      return sum
    }(s0)
    let graph = try EffectGraph(output: s1)
    let (kernel, log) = try Lower.run(graph, options: SeparableSplitTests.unorm)
    #expect(log.entries.contains { $0.pass == "separable split" && $0.summary == "split 1 convolution" })
    let lowered = try Interpreter.run(kernel, inputs: [in0], params: graph.uniforms, format: .rgba32f)
    let staged = try Interpreter.runStaged(graph, inputs: [in0])
    #expect(staged[0, 0].x.isNaN && lowered[0, 0].x.isNaN, "\(lowered[0, 0])")
    #expect(Differential.check(s1, inputs: [in0]) == nil)
  }

  @Test func aSplitReadsOnlyWhatTheStageSamples() throws {
    // Taps at the corners of a 3×3 square only: columns {−1, 1} × rows {−1, 1}, a rectangle of
    // sampled offsets; the centre column and row are never read, and must not be after the split.
    let corners = Effect.layer("corners") { p, layer in
      var sum: Expr = float4(0)
      for j in [-1, 1] { for i in [-1, 1] { sum = sum + 0.25 * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j)))) } }
      return sum
    }
    let graph = try EffectGraph(output: corners(.input()))
    guard case .success(let conv) = SeparableSplit.analyse(graph.stages[0].program) else {
      Issue.record("the corners are a convolution")
      return
    }
    #expect(conv.sampled == [true, false, true, false, false, false, true, false, true])
    guard case .success = SeparableSplit.factor(conv) else {
      Issue.record("a rectangle of sampled offsets splits")
      return
    }
    let image = ImageBuffer.pixels(3, 3, .rgba32f, (0..<9).map { $0 == 4 ? (.nan, .nan, .nan, .nan) : (1, 1, 1, 1) })
    #expect(Differential.check(corners(.input()), inputs: [image]) == nil)
  }

  /// A sum from 0 is never −0, so its split is not either: taps that are
  /// all −0 (a negative weight times a zero pixel) summed from +0 give +0,
  /// and `atan2(+0, −1)` is π where −0 would give −π (fxc fuzz seed
  /// 4548297256851871898: the split dropped the initial 0).
  @Test func aSplitOfASumFromZeroIsNeverNegativeZero() throws {
    let in0 = ImageBuffer.pixels(1, 1, .rgba16, [(0, 0, 0, 0)])
    let blur = Effect.layer("blur", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, layer in
      Expr.fold(from: Expr.int(-2), to: Expr.int(0), limit: 2, initial: [float4(0)]) { j, outer in
        let row = Expr.fold(from: Expr.int(-2), to: Expr.int(0), limit: 2, initial: [float4(0)]) { i, inner in
          [inner[0] + -1.29 * layer.sample(position + float2(float(i), float(j)))]
        }[0]
        return [outer[0] + row]
      }[0]
    }(Image.input(0))
    let angle = Effect.color("angle") { _, color in atan2(color, -1.0) }(blur)
    let graph = try EffectGraph(output: angle)
    let (kernel, log) = try Lower.run(graph, options: SeparableSplitTests.unorm)
    #expect(log.entries.contains { $0.pass == "separable split" && $0.summary == "split 1 convolution" })
    let lowered = try Interpreter.run(kernel, inputs: [in0], params: graph.uniforms, format: .rgba32f)
    #expect((0..<4).allSatisfy { lowered[0, 0][$0] > 3 }, "+π, not −π: \(lowered[0, 0])")
    #expect(Differential.check(angle, inputs: [in0]) == nil)
  }
}

/// A split is proved before it is made: the two passes sum in another order
/// than the stage, which is close in floats only while nothing overflows.
struct SplitProofTests {
  /// fxc fuzz seed 3006862463388251103, shrunk: weights `j·3.4e38` for row
  /// j of a 2×2 grid, of a stage that is 1. The stage sums `3.4e38 + 3.4e38`
  /// = +∞; a split's row sums are +∞ too, and row 0's weight 0 made
  /// `0·∞ = NaN`.
  @Test func rowSumsThatMayOverflowAreNotSplit() throws {
    let in0 = ImageBuffer.pixels(1, 1, .rgba16, [(0, 0, 0, 0)])
    let one = Effect.layer("one") { _, _ in float4(1) }(Image.input(0))
    let huge = Effect.layer("huge") { position, layer in
      var sum: Expr = float4(0)
      for j in 0...1 {
        for i in 0...1 { sum = sum + Expr(Float(j) * 3.4028235e38) * layer.sample(position + float2(Expr(Float(i)), Expr(Float(j)))) }
      }
      return sum
    }(one)
    let graph = try EffectGraph(output: huge)
    let (kernel, log) = try Lower.run(graph, options: SeparableSplitTests.unorm)
    let entry = try #require(log.entries.first { $0.pass == "separable split" })
    #expect(entry.summary == "split 0 convolutions")
    #expect(entry.ir.contains("mayOverflow"), "\(entry.ir)")
    let lowered = try Interpreter.run(kernel, inputs: [in0], params: graph.uniforms, format: .rgba32f)
    #expect(lowered[0, 0].x == .infinity, "\(lowered[0, 0])")
    #expect(Differential.check(huge, inputs: [in0]) == nil)
  }

  /// The same Gaussian splits on an 8- or 16-bit input (values in [0, 1])
  /// and not on an rgba32f one, whose values may be anything.
  @Test func aSplitNeedsBoundedValues() throws {
    let graph = try EffectGraph(output: tapGaussian(sigma: 1)(.input()))
    #expect(SeparableSplit.run(graph, unormInputs: [0]).0.stages.count == graph.stages.count + 1)
    let (unsplit, notes) = SeparableSplit.run(graph)
    #expect(unsplit.stages.count == graph.stages.count)
    #expect(notes.contains { $0.contains("unboundedSource") }, "\(notes)")
  }

  /// The proof's two bounds, worked out by hand for a 3×3 box of ones
  /// summed from 0 (`h = v = (1, 1, 1)`, Σ|w| = 9, 10 terms with the +0):
  /// partial sums reach at most `b · 2·3·3 = 18b`, and the error bound is
  /// `b·ε·((10 + 2)·9 + (3 + 3 + 4)·9) = 198·ε·b` (ε = 2⁻²⁴).
  @Test func theBoundsAreWhatTheDocstringSays() throws {
    let box = Effect.layer("box") { p, layer in
      var sum: Expr = float4(0)
      for j in -1...1 { for i in -1...1 { sum = sum + layer.sample(p + float2(Expr(Float(i)), Expr(Float(j)))) } }
      return sum
    }
    let graph = try EffectGraph(output: box(.input()))
    guard case .success(let conv) = SeparableSplit.analyse(graph.stages[0].program),
      case .success(let (h, v)) = SeparableSplit.factor(conv)
    else {
      Issue.record("a box of ones is a separable convolution")
      return
    }
    #expect(conv.terms == 10 && conv.termMagnitude == 9)
    #expect(SeparableSplit.prove(conv, h, v, sourceBound: 1) == nil)
    #expect(SeparableSplit.prove(conv, h, v, sourceBound: .infinity) == .unboundedSource)
    // 18b reaches half of Float's largest when b = 3.4e38 / 36.
    let b = Double(Float.greatestFiniteMagnitude) / 36
    #expect(SeparableSplit.prove(conv, h, v, sourceBound: b * 1.0001) == .mayOverflow(18 * (b * 1.0001)))
    guard case .errorBound = SeparableSplit.prove(conv, h, v, sourceBound: b * 0.9999) else {
      Issue.record("below the overflow bound, only the error bound refuses")
      return
    }
    // 198·ε·b ≤ 1e-4 while b ≤ 1e-4 · 2²⁴ / 198 ≈ 8.5.
    let limit = 1e-4 * 0x1p24 / 198
    #expect(SeparableSplit.prove(conv, h, v, sourceBound: limit * 0.999) == nil)
    #expect(SeparableSplit.prove(conv, h, v, sourceBound: limit * 1.001) == .errorBound(limit * 1.001 * 198 * 0x1p-24))
  }
}
