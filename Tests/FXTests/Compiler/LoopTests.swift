import FX
import FXTestSupport
import Foundation
import Testing

/// Loops in the IR (DESIGN §2, issue 14): the fold's meaning, worked out by
/// hand, and every evaluation (lowered, inlined, materialised, JIT) against
/// the staged interpreter.
@Suite struct LoopTests {
  /// A 1 × 1 image per pixel value, for hand-checked sums.
  static func ramp(_ w: Int, _ h: Int) -> ImageBuffer {
    let img = try! ImageBuffer(width: w, height: h, format: .rgba32f)
    for y in 0..<h { for x in 0..<w { img[x, y] = SIMD4(Float(x), Float(y), Float(x * y), 1) } }
    return img
  }

  static func run(_ out: Image, _ input: ImageBuffer) throws -> ImageBuffer {
    let graph = try EffectGraph(output: out)
    return try Interpreter.runStaged(graph, inputs: [input], uniforms: graph.uniforms.map(\.value))
  }

  @Test func horizontalSumOfTapsMatchesHand() throws {
    // Σ_{i=-1}^{1} sample(p + (i, 0)) with clamp to edge on a ramp: at x = 0, 0 + 0 + 1.
    let out = Effect.layer("sum3") { p, layer in
      Expr.sum(from: -1, to: 2, limit: 1) { i in layer.sample(p + float2(float(i), 0)) }
    }(Image.input())
    let r = try Self.run(out, Self.ramp(5, 2))
    #expect(r[0, 0].x == 1)  // clamp: 0 + 0 + 1
    #expect(r[2, 1].x == 6)  // 1 + 2 + 3
    #expect(r[4, 1].x == 11)  // 3 + 4 + 4
    #expect(r[2, 1].w == 3)
    #expect(Differential.check(out, inputs: [Self.ramp(23, 7)], evaluations: Differential.Evaluation.interpreted + [.jit]) == nil)
  }

  @Test func aLoopInsideABodyThatDoesNotDependOnItIsFoldedOutside() throws {
    // The inner fold reads neither i nor the outer accumulator: it is lowered
    // in the stage's scope and captured (fxc fuzz, seed 14356916065876230785,
    // lowered its body into the wrong scope). Σ_{i<3} (1 + Σ_{j<4} 2) = 27.
    let out = Effect.color("capturedFold") { _, _ in
      let n = Expr.sum(from: 0, to: 3, limit: 8) { _ in 1 + Expr.sum(from: 0, to: 4, limit: 8) { _ in Expr(Float(2)) } }
      return float4(n, 0, 0, 1)
    }(Image.input())
    #expect(try Self.run(out, Self.ramp(2, 1))[0, 0].x == 27)
    #expect(Differential.check(out, inputs: [Self.ramp(3, 2)]) == nil)
  }

  @Test func aLoopOfTwoIterationsIsUnrolledWithTheSameValues() throws {
    // acc = acc·10 + i for i in 1..<3 from 7: 712; a logged rule, no fold left in the stage.
    let out = Effect.color("two") { _, _ in
      let r = Expr.fold(from: 1, to: 3, limit: 4, initial: [Expr(Float(7))]) { i, acc in [acc[0] * 10 + float(i)] }
      return float4(r[0], 0, 0, 1)
    }(Image.input())
    #expect(try Self.run(out, Self.ramp(2, 1))[0, 0].x == 712)
    let (kernel, log) = try Lower.run(EffectGraph(output: out))
    #expect(log.entries.contains { $0.summary.contains("iterations unrolled") })
    #expect(!kernel.loopNests.contains { $0.program.hasLoops })
    #expect(Differential.check(out, inputs: [Self.ramp(3, 2)]) == nil)
  }

  @Test func aWeightRecurrenceBecomesATableOfTheSameBits() throws {
    // Σ_{i=−3}^{3} w·sample(p + (i, 0)).x with w ← w·r, r ← r·q from (w, r) =
    // (1, ½) and q = ¼ (a Gaussian's recurrence, exact in binary): w runs
    // 1, 2⁻¹, 2⁻⁴, 2⁻⁹, 2⁻¹⁶, 2⁻²⁵, 2⁻³⁶. The weights depend on nothing per
    // pixel, so the loop reads them from one table and keeps only the sum.
    let out = Effect.layer("weighted") { p, layer in
      let r = Expr.fold(from: -3, to: 4, limit: 3, initial: [Expr(Float(0)), Expr(Float(1)), Expr(Float(0.5))]) { i, acc in
        [acc[0] + acc[1] * layer.sample(p + float2(float(i), 0)).x, acc[1] * acc[2], acc[2] * 0.25]
      }
      return float4(r[0], 0, 0, 1)
    }(Image.input())
    let weights: [Float] = [0, 1, 4, 9, 16, 25, 36].map { Float(sign: .plus, exponent: -$0, significand: 1) }
    // At x = 3 of a ramp the taps read columns 0…6, in order.
    var sum = Float(0)
    for (k, w) in weights.enumerated() { sum = sum + w * Float(k) }
    #expect(try Self.run(out, Self.ramp(9, 2))[3, 1].x == sum)
    let (kernel, log) = try Lower.run(EffectGraph(output: out))
    #expect(log.entries.contains { $0.summary.contains("loop constants tabulated") })
    var tables: [ConstantTable] = [], accumulators: [Int] = []
    for pass in kernel.loopNests {
      for n in pass.program.nodes {
        guard case .fold(let loop, _) = n.op else { continue }
        accumulators.append(loop.accumulators.count)
        for m in loop.body.nodes { if case .table(let t) = m.op { tables.append(t) } }
      }
    }
    #expect(accumulators == [1], "only the sum is left to the loop")
    #expect(tables == [ConstantTable(first: -3, values: weights.map { .float($0) })])
    #expect(Differential.check(out, inputs: [Self.ramp(23, 7)], evaluations: Differential.Evaluation.interpreted + [.jit]) == nil)
  }

  @Test func aConstantWeightTimesACapturedValueIsNotTabulated() throws {
    // w·s, s the pixel's own sample computed outside the loop and captured,
    // is not a constant: only w goes to a table (tabulating w·s evaluated a
    // capture that has no value at compile time).
    let out = Effect.layer("scaled") { p, layer in
      let s = layer.sample(p).y
      let r = Expr.fold(from: 0, to: 3, limit: 3, initial: [Expr(Float(0)), Expr(Float(1))]) { i, acc in
        [acc[0] + acc[1] * s * layer.sample(p + float2(float(i), 0)).x, acc[1] * 0.5]
      }
      return float4(r[0], 0, 0, 1)
    }(Image.input())
    // At (1, 2) of a ramp (x in .x, y in .y): 2·(1·1 + ½·2 + ¼·3) = 5.5.
    #expect(try Self.run(out, Self.ramp(6, 3))[1, 2].x == 5.5)
    let (_, log) = try Lower.run(EffectGraph(output: out))
    #expect(log.entries.contains { $0.summary.contains("loop constants tabulated") })
    #expect(Differential.check(out, inputs: [Self.ramp(23, 7)]) == nil)
  }

  @Test func anExitOfConstantsBecomesTheLoopsBound() throws {
    // The flag i ≥ 6 is set by iteration 6 and stops the loop before 7:
    // seven iterations, 7·x; constants decide it, so the kernel's loop has
    // no exit and ends at 7.
    let out = Effect.color("seven") { _, color in
      let r = Expr.fold(from: 0, to: 100, limit: 100, initial: [Expr(Float(0)), Expr(booleanLiteral: false)], exit: 1) { i, acc in
        [acc[0] + color.x, i >= 6]
      }
      return float4(r[0], 0, 0, 1)
    }(Image.input())
    #expect(try Self.run(out, Self.ramp(4, 1))[3, 0].x == 21)
    let (kernel, log) = try Lower.run(EffectGraph(output: out))
    #expect(log.entries.contains { $0.summary.contains("loop exits of constants made bounds") })
    var exits: [Int?] = [], ends: [Scalar?] = []
    for pass in kernel.loopNests {
      for n in pass.program.nodes {
        guard case .fold(let loop, _) = n.op else { continue }
        exits.append(loop.exit)
        ends.append(pass.program.constantValue(n.args[1]))
      }
    }
    #expect(exits == [nil] && ends == [.int(7)], "\(exits) \(ends)")
    #expect(Differential.check(out, inputs: [Self.ramp(23, 7)]) == nil)
  }

  @Test func aPixelsExitStopsItsLoopAndKeepsItsValues() throws {
    // a ← 2a from 1 while a ≤ x + 1 (the flag computed after each doubling),
    // and n counts the doublings: at x = 5, a = 8 after 3; at x = 0, a = 2
    // after 1. Some pixels start stopped (y = 1): a = 1, n = 0.
    let out = Effect.color("doubling") { p, color in
      let r = Expr.fold(
        from: 0, to: 64, limit: 64, initial: [Expr(Float(1)), Expr(Float(0)), color.y >= 1], exit: 2
      ) { _, acc in
        let a = acc[0] * 2
        return [a, acc[1] + 1, a > color.x + 1]
      }
      return float4(r[0], r[1], 0, 1)
    }(Image.input())
    let r = try Self.run(out, Self.ramp(8, 2))
    #expect(r[5, 0].x == 8 && r[5, 0].y == 3)
    #expect(r[0, 0].x == 2 && r[0, 0].y == 1)
    #expect(r[5, 1].x == 1 && r[5, 1].y == 0)
    #expect(Differential.check(out, inputs: [Self.ramp(37, 5)]) == nil)
  }

  @Test func aTableReadsItsNearestEndOutsideItsIndices() {
    let t = ConstantTable(first: 2, values: [.float(1), .float(2), .float(3)])
    #expect([Int32.min, 1, 2, 3, 4, 5, Int32.max].map { t.value(at: $0) } == [1, 1, 1, 2, 3, 3, 3].map { Scalar.float(Float($0)) })
    #expect(Semantics.evaluate(.table(t), [.int(3)]) == .float(2))
  }

  @Test func limitBoundsTheIndexWhateverTheBounds() throws {
    // Bounds −100..<100 with limit 2: i runs −2…2; counting iterations gives 5.
    let out = Effect.color("count") { _, _ in
      let n = Expr.sum(from: -100, to: 100, limit: 2) { _ in Expr(Float(1)) }
      return float4(n, 0, 0, 1)
    }(Image.input())
    #expect(try Self.run(out, Self.ramp(2, 1))[1, 0].x == 5)
  }

  @Test func foldWithSeveralAccumulatorsIsInOrder() throws {
    // acc = (acc.0 * 10 + i, acc.1 + 1) over i in 1..<4 from (0, 0): (123, 3).
    let out = Effect.color("digits") { _, _ in
      let r = Expr.fold(from: 1, to: 4, limit: 10, initial: [Expr(Float(0)), Expr(Float(0))]) { i, acc in
        [acc[0] * 10 + float(i), acc[1] + 1]
      }
      return float4(r[0], r[1], 0, 1)
    }(Image.input())
    let r = try Self.run(out, Self.ramp(2, 1))
    #expect(r[0, 0].x == 123 && r[0, 0].y == 3)
  }

  @Test func perPixelBoundsAndNestedLoops() throws {
    // Σ_{j=0}^{x} Σ_{i=0}^{j} 1 = (x + 1)(x + 2)/2 at column x, per-pixel bounds.
    let out = Effect.color("triangle") { p, _ in
      let x = int(p.x)
      let n = Expr.sum(from: 0, to: x + 1, limit: 64) { j in Expr.sum(from: 0, to: j + 1, limit: 64) { _ in Expr(Float(1)) } }
      return float4(n, 0, 0, 1)
    }(Image.input())
    let r = try Self.run(out, Self.ramp(6, 1))
    for x in 0..<6 { #expect(r[x, 0].x == Float((x + 1) * (x + 2) / 2)) }
    #expect(Differential.check(out, inputs: [Self.ramp(9, 3)], evaluations: Differential.Evaluation.interpreted + [.jit]) == nil)
  }
}

/// The JIT's loops against the interpreter: dense and masked shifted taps,
/// vertical taps, per-pixel and uniform bounds, nested loops, every format;
/// at every x86-64 level the host runs (4, 8 and 16 lanes: the dense-copy
/// test and the masked edge loads depend on the width).
@Suite struct LoopJITTests {
  /// The staged interpreter, the lowered kernel at the host's width, and the JIT at every level.
  static func agrees(_ out: Image, _ inputs: [ImageBuffer], interpreted: [Differential.Evaluation] = Differential.Evaluation.interpreted)
    -> Bool
  {
    guard Differential.check(out, inputs: inputs, evaluations: interpreted + [.jit]) == nil else { return false }
    return Target.runnableLevels.allSatisfy { Differential.check(out, inputs: inputs, evaluations: [.jit], target: $0) == nil }
  }

  static func boxH(_ r: Int) -> Effect {
    Effect.layer("boxH") { p, layer in
      Expr.sum(from: Expr(Float(-r)), to: Expr(Float(r + 1)), limit: r) { i in layer.sample(p + float2(float(i), 0)) }
        * Expr(1 / Float(2 * r + 1))
    }
  }

  static func boxV(_ r: Int) -> Effect {
    Effect.layer("boxV") { p, layer in
      Expr.sum(from: Expr(Float(-r)), to: Expr(Float(r + 1)), limit: r) { j in layer.sample(p + float2(0, float(j))) }
        * Expr(1 / Float(2 * r + 1))
    }
  }

  @Test(arguments: [PixelFormat.rgba8, .rgba16, .rgba32f])
  func horizontalAndVerticalTapsAgree(format: PixelFormat) {
    for (w, h, radii) in [(40, 9, [1, 4, 12]), (5, 3, [1, 20]), (1, 1, [3]), (67, 33, [1, 4])] {
      let input = randomImage(w, h, seed: UInt64(w * h), format: format)
      for r in radii {
        let out = (Self.boxH(r) | Self.boxV(r))(Image.input())
        #expect(Self.agrees(out, [input]), "r \(r) on \(w)×\(h) \(format)")
      }
    }
  }

  @Test func uniformBoundsOneKernelEveryRadius() throws {
    let radius = Param("radius", value: 3, uniform: true)
    let out = Effect.layer("boxU") { p, layer in
      let r = Expr(radius)
      return Expr.sum(from: -r, to: r + 1, limit: 30) { i in layer.sample(p + float2(float(i), 0)) } / (2 * r + 1)
    }(Image.input())
    let input = randomImage(50, 6, seed: 9, format: .rgba8)
    let graph = try EffectGraph(output: out)
    let compiled = try Pipeline(output: out).compile(inputFormats: [.rgba8], outputFormat: .rgba32f, options: LoweringOptions())
    #expect(compiled.backend == .jit)
    for value: Float in [0, 1, 7, 30, 45] {
      let expected = try Interpreter.runStaged(graph, inputs: [input], uniforms: [value])
      let got = try compiled.run([input], uniforms: [radius: value])
      #expect(ImageComparison.compare(expected: expected, actual: got) == nil, "radius \(value)")
    }
  }

  @Test func perPixelBoundsInTheJIT() {
    let out = Effect.layer("ragged") { p, layer in
      let n = int(p.x) & 7
      return Expr.sum(from: -n, to: n + 1, limit: 7) { i in layer.sample(p + float2(float(i), float(i))) }
        / float(2 * n + 1)
    }(Image.input())
    #expect(Self.agrees(out, [randomImage(37, 11, seed: 4)]))
  }

  /// A nested loop's vertical taps reach ±5 rows in a pass whose own tap
  /// reaches 1 row: the row table must reach 5 (every body reads the pass's tables).
  @Test func nestedVerticalTapsGetARowTableThatReachesThem() {
    let out = Effect.layer("nestedV") { p, layer in
      let inner = Expr.sum(from: 0, to: 3, limit: 3) { j in
        Expr.sum(from: -5, to: 6, limit: 5) { i in layer.sample(p + float2(0, float(i))) * (1 + float(j)) }
      }
      return layer.sample(p + float2(0, 1)) + inner / 66
    }(Image.input())
    #expect(Self.agrees(out, [randomImage(21, 40, seed: 8)], interpreted: [.lowered]))
  }

  @Test func nestedLoopsInTheJIT() {
    let out = Effect.layer("box2D") { p, layer in
      Expr.sum(from: -2, to: 3, limit: 2) { j in Expr.sum(from: -2, to: 3, limit: 2) { i in layer.sample(p + float2(float(i), float(j))) } }
        / 25
    }(Image.input())
    #expect(Self.agrees(out, [randomImage(29, 13, seed: 5)]))
  }

  /// A stage's loop inlined into another stage's loop body (forced
  /// inlining), the inner loop capturing more values than the one around
  /// it: whether a loop's result varies along the row looks into nested
  /// bodies for the pixel's position only — asking about their captures
  /// with the outer loop's table crashed (fxc fuzz seed
  /// 1433841142305390477, as the generator made it on 2026-12-07, printed by
  /// `fxc fuzz --case … --print`; a hand-written graph did not keep that
  /// shape through simplification). The JIT compiles it with forceInline.
  @Test func aLoopInlinedIntoAnotherLoopsBody() {
    let in0 = ImageBuffer.pixels(
      6, 4, .rgba8,
      [
        (112, 129, 13, 236), (179, 114, 68, 242), (39, 6, 16, 44), (87, 103, 113, 113), (32, 11, 1, 35), (31, 34, 23, 42),
        (125, 13, 21, 125), (76, 151, 28, 160), (17, 87, 112, 177), (49, 175, 81, 205), (51, 13, 20, 65), (32, 110, 55, 111),
        (36, 36, 68, 140), (65, 154, 174, 218), (206, 82, 97, 207), (3, 0, 9, 16), (93, 84, 131, 197), (96, 37, 30, 221),
        (165, 50, 98, 183), (98, 133, 43, 138), (44, 86, 114, 124), (37, 17, 183, 238), (98, 124, 91, 216), (114, 159, 27, 213),
      ])  // 6×4
    let s0 = Image.combine("s0", [Image.input(0), Image.input(0)], sampler: Sampler(filter: .nearest, address: .transparent)) { position, layers in
      let v0: Expr = float2(5.11)
      return
        (min(
          pow((position.y / layers[0].sample(position)), layers[0].sample((position + v0)).wzy.zzzx),
          (position.grrr + step(v0.rrrr, layers[0].sample((position + float2(0.0, -2.0))).x))) * normalize(normalize(layers[0].sample(position))))
    }
    _ = Effect.layer("s1", sampler: Sampler(filter: .linear, address: .mirror)) { position, layer in
      return (layer.sample(position, Sampler(filter: .nearest, address: .clampToEdge)) - float(int(sin(position.y))).rr.rgrg)
    }(s0)
    let s2 = Image.combine("s2", [s0, s0, s0], sampler: Sampler(filter: .linear, address: .transparent)) { position, layers in
      let v0: Expr = float4(
        layers[1].sample(
          (position
            * layers[1].sample(
              (position
                + float2(
                  1.0,
                  Expr.fold(from: Expr.int(-1), to: Expr.int(2), limit: 1, initial: [float4(0.0)]) { i0, a0 in
                    [layers[0].sample((position + float2(float(i0), 0.0)))]
                  }[0].z)), Sampler(filter: .nearest, address: .mirror)
            ).rr), Sampler(filter: .nearest, address: .transparent)
        ).w, Expr.size.r, position)
      let v1: Expr = select((position < Expr.size), layers[1].sample(position).zx, v0.r)
      return
        (select(
          ((position.yyxx < v0) || (v1.g <= position.y)),
          smoothstep(float4(floatFromUnsigned(Expr.int(1))), dot(position.grg, position.ggg), fma(position.xxyx, position.xxyx, Expr.size.xxyy)),
          Expr.size.xyyy) / v1.grgg)
    }
    let s3 = Effect.layer("s3", sampler: Sampler(filter: .linear, address: .repeat)) { position, layer in
      let v0: Expr = select(
        (~(layer.sample((position * position.rr)).raa < float3(0.25))).z, float(~Expr.int(-10)), float2(layer.sample((position + float2(2.85))).w).y)
      return float4(v0)
    }(s2)
    let s4 = Image.combine("s4", [s3, Image.input(0)], sampler: Sampler(filter: .nearest, address: .mirror)) { position, layers in
      let v0: Expr = pow(
        (roundHalf(layers[1].sample((position + -6.06), Sampler(filter: .linear, address: .clampToEdge)).x) + (float2(-8.16) * 1.0)), 3.0)
      return sqrt(
        clamp(
          (Expr.fold(from: Expr.int(-1000), to: (int(position.x) & Expr.int(3)), limit: 0, initial: [position.xyyx]) { i0, a0 in
            [max(a0[0], layers[0].sample(sqrt(float2(float(i0))), Sampler(filter: .nearest, address: .repeat)))]
          }[0] + cos(v0.grgg)), position.yxyy, step(layers[1].sample((position + float2(0.0, 0.0))), position.yxyx)))
    }
    #expect(Differential.check(s4, inputs: [in0], jitSchedule: 1, outputFormat: .rgba8) == nil)
  }
}

/// The catalogue's loop blurs: weights against the Gaussian worked out in
/// double precision, the JIT against the interpreter for σ from 0.5 to 100
/// (kernels wider than the image included), one kernel for every σ.
@Suite struct LoopBlurTests {
  /// The blur of one white pixel in the middle of a black row one pixel
  /// high: the vertical pass reads that row at every tap (clamped), so the
  /// row holds the horizontal weights.
  static func impulseRow(_ effect: Effect, width: Int) throws -> [Float] {
    let input = try ImageBuffer(width: width, height: 1, format: .rgba32f)
    for x in 0..<width { input[x, 0] = SIMD4(0, 0, 0, 1) }
    input[width / 2, 0] = SIMD4(1, 1, 1, 1)
    let out = try Interpreter.runStaged(EffectGraph(output: effect(Image.input())), inputs: [input])
    return (0..<width).map { out[$0, 0].x }
  }

  @Test(arguments: [Float(0.5), 1.5, 3, 10, 30, 100])
  func impulseResponseIsTheGaussian(sigma: Float) throws {
    let r = Int((3 * sigma).rounded(.up))
    let width = 2 * r + 11
    let row = try Self.impulseRow(gaussianBlur(sigma: Expr(sigma), method: .exact), width: width)
    // g(i) / Σ g, g(i) = exp(−i²/(2σ²)), in double precision.
    let g = (-r...r).map { Foundation.exp(-Double($0 * $0) / (2 * Double(sigma) * Double(sigma))) }
    let total = g.reduce(0, +)
    for (k, i) in (-r...r).enumerated() {
      #expect(abs(Double(row[width / 2 + i]) - g[k] / total) <= 2e-6, "σ \(sigma), tap \(i)")
    }
    // Nothing beyond the radius.
    #expect(row[width / 2 + r + 1] == 0 && row[width / 2 - r - 1] == 0)
  }

  @Test(arguments: [Float(0.5), 3, 30, 100])
  func jitAgreesWithTheInterpreter(sigma: Float) {
    // 23 × 9: from σ 3 on the kernel (2·ceil(3σ) + 1 taps) is wider than the image.
    let input = randomImage(23, 9, seed: UInt64(sigma * 10), format: .rgba8)
    let out = gaussianBlur(sigma: Expr(sigma), method: .exact)(Image.input())
    let evaluations: [Differential.Evaluation] = sigma < 10 ? Differential.Evaluation.interpreted + [.jit] : [.lowered, .loweredMaterialise, .jit]
    #expect(Differential.check(out, inputs: [input], evaluations: evaluations) == nil)
    for target in Target.runnableLevels {
      #expect(Differential.check(out, inputs: [input], evaluations: [.jit], target: target) == nil, "\(target.name)")
    }
  }

  /// With 16 lanes and AVX-512, a horizontal blur whose taps reach at most
  /// 16 columns takes them from the vectors at x − 16, x and x + 16 (two
  /// shuffled) where those lie in the row, and loads each tap elsewhere: the
  /// same bits as the interpreter either way, on rows whose width puts
  /// vectors on both sides of that test. σ 5.5 (17 columns) keeps its loads.
  @Test(arguments: [(Float(1.5), 5), (3, 9), (5, 15), (5.5, 17)])
  func tapWindowGivesTheInterpretersBits(sigma: Float, reach: Int) throws {
    guard let avx512 = Target.runnableLevels.first(where: { $0.name == "x86-64-v4" }) else { return }
    #expect(gaussianWeights(sigma: sigma).count == 2 * reach + 1)
    let out = gaussianBlur(sigma: Expr(sigma), method: .exact)(Image.input())
    let compiled = try Pipeline(output: out).compile(inputFormats: [.rgba8], outputFormat: .rgba32f, cache: nil, target: avx512)
    #expect(try compiled.dumpNative().ir.contains("fold.window") == (reach <= 16), "σ \(sigma)")
    for width in [47, 48, 49, 64, 81, 131] {
      let input = randomImage(width, 5, seed: UInt64(width) &* 7 &+ UInt64(reach), format: .rgba8)
      let d = Differential.check(out, inputs: [input], evaluations: [.jit], target: avx512)
      #expect(d == nil, "σ \(sigma), \(width) wide: \(d.map(\.description) ?? "")")
    }
  }

  @Test func oneKernelServesEverySigma() throws {
    let sigma = Param.uniform("sigma", 1)
    let out = gaussianBlur(sigma: Expr(sigma), method: .exact)(Image.input())
    let graph = try EffectGraph(output: out)
    let compiled = try Pipeline(output: out).compile(inputFormats: [.rgba8], outputFormat: .rgba32f, options: LoweringOptions())
    #expect(compiled.backend == .jit)
    let input = randomImage(31, 12, seed: 21, format: .rgba8)
    for value: Float in [0, 0.7, 1, 4.5, 40, 200] {
      let expected = try Interpreter.runStaged(graph, inputs: [input], uniforms: [value])
      let got = try compiled.run([input], uniforms: [sigma: value])
      #expect(ImageComparison.compare(expected: expected, actual: got) == nil, "σ \(value)")
      if value == 0 { #expect(maxDifference(got, input) == 0, "σ 0 is the identity") }
    }
  }

  @Test func swiftUIBlurIsTheGaussianOfThatSigma() throws {
    let input = randomImage(17, 11, seed: 3, format: .rgba32f)
    let a = try Interpreter.runStaged(EffectGraph(output: blur(radius: 4)(Image.input())), inputs: [input])
    let b = try Interpreter.runStaged(EffectGraph(output: gaussianBlur(sigma: 4)(Image.input())), inputs: [input])
    #expect(maxDifference(a, b) == 0)
  }

  @Test func boxBlurIsTheMeanOfItsSquare() throws {
    // On a ramp r = x, a box of radius 2 away from the edges keeps x; at x = 0
    // the clamped row reads 0, 0, 0, 1, 2: mean 0.6.
    let input = try ImageBuffer(width: 9, height: 5, format: .rgba32f)
    for y in 0..<5 { for x in 0..<9 { input[x, y] = SIMD4(Float(x), 0, 0, 1) } }
    let out = try Interpreter.runStaged(EffectGraph(output: boxBlur(radius: 2)(Image.input())), inputs: [input])
    #expect(abs(out[4, 2].x - 4) < 1e-5)
    #expect(abs(out[0, 2].x - 0.6) < 1e-5)
    #expect(Differential.check(boxBlur(radius: 7)(Image.input()), inputs: [randomImage(13, 6, seed: 2)]) == nil)
  }
}

/// Separable splitting of 2-D loops (issue 14, item 2; opt-in,
/// ``LoweringOptions/splitLoops``): a Gaussian written as one 2-D loop with a
/// uniform σ splits into two 1-D loops and agrees with the staged (unsplit)
/// graph; what is not provably separable is refused.
@Suite struct LoopSplitTests {
  static var splitting: LoweringOptions {
    var o = LoweringOptions()
    o.splitLoops = true
    return o
  }

  /// How many stages the separable split added, and its notes (the pass as lowering runs it).
  static func splitCount(_ out: Image, options: LoweringOptions = splitting) throws -> (Int, [String]) {
    let (_, log) = try Lower.run(EffectGraph(output: out), options: options)
    let entry = try #require(log.entries.first { $0.pass == "separable split" })
    let count = Int(entry.summary.split(separator: " ")[1]) ?? -1
    return (count, entry.ir.split(separator: "\n").map(String.init))
  }

  /// The split kernel, interpreted and JIT-compiled, against the staged graph.
  static func splitAgrees(_ out: Image, _ input: ImageBuffer, uniforms: [Param: Float] = [:]) throws {
    let graph = try EffectGraph(output: out)
    let values = graph.uniforms.map { uniforms[$0] ?? $0.value }
    let staged = try Interpreter.runStaged(graph, inputs: [input], uniforms: values)
    let (kernel, _) = try Lower.run(graph, options: splitting)
    let lowered = try Interpreter.run(kernel, inputs: [input], uniforms: values, params: graph.uniforms, format: .rgba32f)
    #expect(ImageComparison.compare(expected: staged, actual: lowered) == nil)
    let compiled = try Pipeline(output: out).compile(inputFormats: [input.format], outputFormat: .rgba32f, options: splitting)
    #expect(compiled.backend == .jit)
    #expect(ImageComparison.compare(expected: staged, actual: try compiled.run([input], uniforms: uniforms)) == nil)
  }

  /// `Σ_j Σ_i w(i)·w(j)·sample(p + (i, j))`, `w(k) = exp(−k²/(2σ²))`, normalised by hand.
  static func gaussian2D(_ sigma: Expr, radius: Int) -> Effect {
    Effect.layer("gauss2D") { p, layer in
      let r = Expr.int(radius)
      func w(_ k: Expr) -> Expr { exp(-float(k * k) / (2 * sigma * sigma)) }
      let total = Expr.sum(from: -r, to: r + 1, limit: radius) { k in w(k) }
      let sum = Expr.sum(from: -r, to: r + 1, limit: radius) { j in
        Expr.sum(from: -r, to: r + 1, limit: radius) { i in w(i) * w(j) * layer.sample(p + float2(float(i), float(j))) }
      }
      return sum / (total * total)
    }
  }

  @Test func aSeparable2DLoopSplitsAndAgrees() throws {
    let sigma = Param.uniform("sigma", 1.5)
    let out = Self.gaussian2D(Expr(sigma), radius: 5)(Image.input())
    let (count, notes) = try Self.splitCount(out)
    #expect(count == 1, "\(notes)")
    #expect(notes.contains { $0.contains("split 2-D loop") })
    #expect(try Self.splitCount(out, options: LoweringOptions()).0 == 0, "off by default")
    for format in [PixelFormat.rgba8, .rgba32f] {
      for s: Float in [0.5, 1.5, 4] { try Self.splitAgrees(out, randomImage(19, 13, seed: 6, format: format), uniforms: [sigma: s]) }
    }
    // And against the catalogue's blur of that σ (its weights by the recurrence): within rounding.
    let input = randomImage(19, 13, seed: 7, format: .rgba32f)
    let a = try Interpreter.runStaged(EffectGraph(output: out), inputs: [input], uniforms: [1.5])
    let b = try Interpreter.runStaged(EffectGraph(output: gaussianBlur(sigma: 1.5)(Image.input())), inputs: [input])
    #expect(maxDifference(a, b) < 1e-5)
  }

  @Test func refusesWhatIsNotSeparable() throws {
    func refused(_ body: @escaping (Expr, Layer, Expr, Expr) -> Expr, from lo: @escaping (Expr) -> Expr = { _ in Expr.int(-2) })
      throws -> [String]
    {
      let out = Effect.layer("conv2D") { p, layer in
        Expr.sum(from: lo(p), to: Expr.int(3), limit: 2) { j in
          Expr.sum(from: Expr.int(-2), to: Expr.int(3), limit: 2) { i in body(p, layer, i, j) }
        }
      }(Image.input())
      let (count, notes) = try Self.splitCount(out)
      #expect(count == 0, "\(notes)")
      try Self.splitAgrees(out, randomImage(9, 7, seed: 3))
      return notes
    }
    // Rank 2: the weight is a function of i + j.
    let rank = try refused { p, layer, i, j in exp(-float((i + j) * (i + j))) * layer.sample(p + float2(float(i), float(j))) }
    #expect(rank.contains { $0.contains("both indices") })
    // A weight that varies per pixel (a progressive blur).
    let variable = try refused { p, layer, i, j in (p.x / 9) * layer.sample(p + float2(float(i), float(j))) }
    #expect(variable.contains { $0.contains("not split") })
    // A bound that varies per pixel.
    let bound = try refused({ p, layer, i, j in layer.sample(p + float2(float(i), float(j))) }, from: { p in -(int(p.x) & 1) })
    #expect(bound.contains { $0.contains("not split") })
    // Taps not at (i, j): a shear.
    let shear = try refused { p, layer, i, j in layer.sample(p + float2(float(i + j), float(j))) }
    #expect(shear.contains { $0.contains("not split") })
  }

  /// fxc fuzz, seed 2028 (case 5653327313639638004): taps of about 1.45e7
  /// whose weighted sum is 8 — the split's reassociation gives 0, so it is
  /// off by default, and by default the graph agrees.
  @Test func aCancellingSumOfLargeTapsIsNotSplitByDefault() throws {
    let input = try ImageBuffer(width: 9, height: 2, format: .rgba32f)
    input[8, 1] = SIMD4(0, -1, 0, 0)
    let s0 = Effect.color("s0") { _, color in
      float4(Expr(-0.0), max(distance(color.yzy + float3(-3.0), float3(8388607.5)), float3(0.0)))
    }(Image.input())
    let u0 = Param("u0", value: 4.71)
    let s1 = Effect.layer("s1") { p, layer in
      Expr.sum(from: -1, to: 1, limit: 3) { j in
        Expr.sum(from: -1, to: 1, limit: 3) { i in (Expr(u0) * (float(j) + 0.5)) * layer.sample(p + float2(float(i), float(j))) }
      }
    }(s0)
    #expect(Differential.check(s1, inputs: [input]) == nil)
    #expect(try Self.splitCount(s1, options: LoweringOptions()).0 == 0)
    #expect(try Self.splitCount(s1).0 == 1)
  }
}

/// A Gaussian of σ < 0.667 has one or two taps a side, a loop of ≤ 2
/// iterations that simplification unrolls; the copied taps sit at
/// `position ± float(k)` until a second sweep folds them to `position ± k.0`,
/// which are dense taps. Without that sweep they were gathered (issue 39:
/// σ 0.35 ran 3.6–6× slower than σ 1). No load of any pass may be a gather,
/// and the JIT still gives the interpreter's bits.
struct TinySigmaTests {
  @Test(arguments: [Float(0.35), 0.5, 0.66, 1])
  func tapsOfATinyGaussianAreDense(sigma: Float) throws {
    let image = randomImage(37, 9, seed: 4, format: .rgba8)
    try expectInterpreterBitsAtEveryLevel(gaussianBlur(sigma: Expr(sigma), method: .exact), image) { compiled, target in
      let gathers = compiled.plan.loopNests.flatMap {
        $0.loads.values.filter { $0.strategy == .gather || $0.strategy == .gatherOrDense }
      }
      #expect(gathers.count == 0, "σ \(sigma), \(target.name)")
    }
  }
}
