import FX
import FXTestSupport
import Foundation
import Testing

/// Differential testing on random graphs — the short mode of `fxc fuzz`
/// (`fxc fuzz --graphs 10000` is the long one). Seeded, so every run checks the
/// same graphs: 320 through the interpreter on the lowered kernel (four
/// schedules: default, forceInline, forceMaterialise, unsimplified) and 48 of
/// them through the JIT, all against staged evaluation (DESIGN §4). The JIT
/// gets the smaller share because LLVM's compile (tens of milliseconds to a few
/// hundred per graph) dominates the cost; the interpreters run these
/// ≤ 17×7 images in a few milliseconds even in a debug build.
///
/// A disagreement is shrunk and reported as Swift source to paste into
/// FuzzRegressionTests.
struct DifferentialTests {
  static let seed: UInt64 = 0xF0CC_2026
  static let interpretedGraphs = 320
  static let jitGraphs = 48
  static let chunks = 8

  static func make(_ index: Int) -> FuzzCase { RandomGraph(seed: SplitMix64.derive(seed, index)).make() }

  func expectAgreement(_ index: Int, _ evaluations: [Differential.Evaluation]) {
    let c = Self.make(index)
    guard let d = Differential.check(c, evaluations: evaluations) else { return }
    // Shrinking recompiles for every JIT candidate: fewer attempts there.
    let (small, failure) = Differential.shrink(c, failing: d, maxAttempts: d.evaluation == .jit ? 60 : 400)
    Issue.record("graph \(index) (fxc fuzz --case \(c.seed)): \(d)\n\nshrunk:\n\(small)\n\n\(failure)")
  }

  @Test(arguments: 0..<chunks)
  func loweredKernelsAgreeWithStaged(chunk: Int) {
    for i in stride(from: chunk, to: Self.interpretedGraphs, by: Self.chunks) {
      expectAgreement(i, Differential.Evaluation.interpreted)
    }
  }

  @Test(arguments: 0..<(chunks / 2))
  func jitAgreesWithStaged(chunk: Int) {
    for i in stride(from: chunk, to: Self.jitGraphs, by: Self.chunks / 2) {
      expectAgreement(i, [.jit])
    }
  }

  /// The JIT at every x86-64 level this machine runs (SSE4 / AVX2 / AVX-512:
  /// 4, 8, 16 lanes), so an AVX-512 host also tests its narrower code paths.
  @Test(arguments: Target.runnableLevels.map(\.name))
  func jitAgreesWithStagedAtEveryLevel(level: String) throws {
    let target = try Target.named(level)
    for i in stride(from: 1, to: Self.jitGraphs, by: 4) {
      let c = Self.make(i)
      guard let d = Differential.check(c, evaluations: [.jit], target: target) else { continue }
      let (small, failure) = Differential.shrink(c, failing: d, maxAttempts: 60, target: target)
      Issue.record("\(level), graph \(i) (fxc fuzz --case \(c.seed)): \(d)\n\nshrunk:\n\(small)\n\n\(failure)")
    }
  }

  // MARK: the fuzzer itself

  /// SplitMix64's published reference stream (seed 1234567), so a seed names
  /// the same graph on every platform.
  @Test func splitMixMatchesReference() {
    var g = SplitMix64(seed: 1_234_567)
    let expected: [UInt64] = [
      6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
      4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
    ]
    #expect((0..<5).map { _ in g.next() } == expected)
    var b = SplitMix64(seed: 7)
    #expect((0..<1000).allSatisfy { _ in b.below(9) < 9 })
  }

  @Test func generationIsDeterministic() {
    for i in 0..<20 {
      #expect(Self.make(i).description == Self.make(i).description)
    }
    #expect(Self.make(0).description != Self.make(1).description)
  }

  /// Every generated graph type-checks and uses what it promises: all kinds,
  /// every filter and address mode, both inputs, dense and data-dependent taps.
  @Test func generatedGraphsCoverTheLanguage() throws {
    var text = ""
    var stages = 0, combines = 0, twoInputs = 0
    for i in 0..<200 {
      let c = Self.make(i)
      _ = try EffectGraph(output: c.image)
      text += c.description
      stages += c.stages.count
      combines += c.stages.filter { $0.kind == .combine }.count
      if c.stages.contains(where: { $0.sources.contains(.input(1)) }) { twoInputs += 1 }
    }
    for needle in [
      "Effect.color", "Effect.distortion", "Effect.layer", "Image.combine", "layers[1].sample", ".nearest", ".linear",
      ".clampToEdge", ".transparent", ".repeat", ".mirror", "position + float2(", "Expr.int(", " << ", " >> ", "ushr(",
      " & ", " | ", " ^ ", "~", " && ", " || ", "!", "select(", "smoothstep(", "mix(", "clamp(", "step(", "fract(",
      "floor(", "ceil(", "abs(", "sqrt(", "sin(", "cos(", "exp(", "log(", "pow(", "atan2(", "dot(", "length(",
      "normalize(", "int(", "float(", "isnan(", ".size", "Float.nan", "Float.infinity", "-0.0", "1e+30", "1e-30",
      "float4(", "float3(", "float2(", ".rgb", ".xy", "Param.uniform", ".rgba8", ".rgba16", ".rgba32f",
    ] {
      #expect(text.contains(needle), "no generated graph contains '\(needle)'")
    }
    #expect(stages > 200 * 2)
    #expect(combines > 20)
    #expect(twoInputs > 10)
  }

  /// NaN agrees with NaN only; ±∞ only with itself; otherwise 1e-4 relative above 1, absolute below.
  @Test func comparisonIsNaNAwareAndRelative() {
    let agree = ImageComparison.agree
    #expect(agree(.nan, .nan))
    #expect(!agree(.nan, 0) && !agree(0, .nan))
    #expect(agree(.infinity, .infinity) && agree(-.infinity, -.infinity))
    #expect(!agree(.infinity, -.infinity) && !agree(.infinity, .greatestFiniteMagnitude))
    #expect(agree(0, -0.0))
    #expect(agree(0.5, 0.5 + 0.9e-4) && !agree(0.5, 0.5 + 1.1e-4))
    #expect(agree(1e30, 1e30 * (1 + 0.9e-4)) && !agree(1e30, 1e30 * (1 + 1.1e-4)))
    #expect(agree(.greatestFiniteMagnitude, .greatestFiniteMagnitude.nextDown))
    #expect(agree(1e-30, -1e-30))
  }

  /// The shrinker on a planted "bug" (any graph with a `sin` fails): it must cut
  /// the graph down to one stage and a tiny image.
  @Test func shrinkerFindsASmallReproducer() throws {
    let index = try #require((0..<500).first { Self.make($0).graphSource.contains("sin(") && Self.make($0).stages.count >= 3 })
    let c = Self.make(index)
    let small = Differential.shrink(c) { $0.graphSource.contains("sin(") }
    #expect(small.graphSource.contains("sin("))
    #expect(small.stages.count == 1)
    #expect(small.stages[0].locals.count <= 1)  // `sin` may stay in an unused local
    #expect(small.inputs.allSatisfy { $0.width * $0.height == 1 })
    #expect(small.graphSource.count < 300, "\(small)")
    _ = try EffectGraph(output: small.image)
  }
}

/// A generated case pasted verbatim from its `description`: the printed source
/// is Swift over the public API, and builds the very graph the generator built.
struct PrintedCaseTests {
  @Test func printedSourceRebuildsTheSameGraph() throws {
    // fxc fuzz case, seed 1024746856035114907
    let in0 = ImageBuffer.pixels(
      2, 3, .rgba32f,
      [
        (0.0, 0.0, 0.0, 0.0), (0.43623853, 0.17803657, 0.19221419, 1.0),
        (0.7925347, 0.07640064, 0.64926916, 1.0), (0.0, 0.0, 0.0, 0.0),
        (0.34610188, 0.2594841, 0.06479439, 0.5), (0.40310717, 0.15686643, 0.56991136, 1.0),
      ])  // 2×3
    let in1 = ImageBuffer.pixels(
      2, 3, .rgba8,
      [
        (99, 55, 29, 137), (44, 35, 12, 74),
        (20, 11, 40, 44), (13, 13, 3, 21),
        (54, 4, 119, 139), (32, 163, 66, 241),
      ])  // 2×3
    let u0 = Param.uniform("u0", -4.13)
    let u1 = Param("u1", value: 9.89)
    let s0 = Effect.distortion("s0", sampler: Sampler(filter: .nearest, address: .repeat)) { position in
      let v0: Expr = float2(-1.5)
      return (position + (select((position.g == position.x), 1.0, Expr(u1)).xx - (v0.g + v0.g)))
    }(Image.input(0))
    let s1 = Effect.distortion("s1", sampler: Sampler(filter: .linear, address: .mirror)) { position in
      let v0: Expr = float3(position.g, float2(Expr(u0)))
      return (position * cos(sin((v0.r * position.y))))
    }(s0)
    let s2 = Image.combine("s2", [Image.input(1), Image.input(1), Image.input(0)], sampler: Sampler(filter: .nearest, address: .clampToEdge)) {
      position, layers in
      let v0: Expr = float2(-3.0)
      let v1: Expr = position.yyx
      return float4(
        (float((Expr.int(-8) * Expr.int(2147483647)))
          + (clamp(v0.g, v1.b, 2.0) + max(layers[0].sample((position + float2(0.0, 0.0)), Sampler(filter: .nearest, address: .repeat)).g, position.r))),
        sin(ceil(mix(v0, Expr(u0).xx, v0.r))), layers[1].sample(position).r)
    }
    let s3 = Image.combine("s3", [s2, s1], sampler: Sampler(filter: .nearest, address: .repeat)) { position, layers in
      return
        (layers[1].sample((position + position), Sampler(filter: .linear, address: .repeat))
        + min(
          (min(float3(Expr(Float.leastNonzeroMagnitude)).rbgg, position.rrg.yyxy) * ((position.g + Expr(u0).rrrr) + position.g)),
          (normalize(position.yxxy) + float4(float(select((Expr(-0.0) <= layers[1].size.x), int(Expr(u0)), Expr.int(85)))))))
    }
    let s4 = Effect.layer("s4", sampler: Sampler(filter: .nearest, address: .mirror)) { position, layer in
      let v0: Expr = pow((layer.sample(position) - position.xxxx), select((float4(Expr(-0.0)) >= position.r), position.grgg, float4(6.87)))
      return smoothstep(
        v0.zyz.xz.gggr, sqrt(v0.x), float(select((layer.size.r < v0.y), (Expr.int(33) & int(position.r)), (Expr.int(2147483647) - Expr.int(80)))).rrrr
      )
    }(s3)
    let output = s4

    let generated = RandomGraph(seed: 1_024_746_856_035_114_907).make()
    let pasted = try EffectGraph(output: output)
    let built = try EffectGraph(output: generated.image)
    #expect(pasted.description == built.description)
    let a = try Interpreter.runStaged(pasted, inputs: [in0, in1])
    let b = try Interpreter.runStaged(built, inputs: generated.buffers)
    #expect(memcmp(a.data, b.data, a.byteCount) == 0)
    #expect(Differential.check(output, inputs: [in0, in1]) == nil)
  }
}
