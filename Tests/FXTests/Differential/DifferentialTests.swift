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
    var stages = 0, combines = 0, twoInputs = 0, cuts = 0
    for i in 0..<200 {
      let c = Self.make(i)
      if try PipelineGraph(output: c.image).hasCuts { cuts += 1 }
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
      ".geometry(.resize(", ".geometry(.crop(", ".geometry(.orient(", ".geometry(.extend(", ".geometry(.affine(",
      ".scan(Scan(.box(", ".scan(Scan(.gaussian(", "axis: .x", "axis: .y", ".reduce(",
    ] {
      #expect(text.contains(needle), "no generated graph contains '\(needle)'")
    }
    #expect(stages > 200 * 2)
    #expect(combines > 20)
    #expect(twoInputs > 10)
    #expect(cuts > 20, "graphs with a geometry stage or a scan: \(cuts)")
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
    _ = try PipelineGraph(output: small.image)
  }
}

/// A generated case pasted verbatim from its `description`: the printed source
/// is Swift over the public API (loops included), and builds the very graph
/// the generator built.
struct PrintedCaseTests {
  @Test func printedSourceRebuildsTheSameGraph() throws {
    // fxc fuzz case, seed 5464479522114573448
    let in0 = ImageBuffer.pixels(
      4, 3, .rgba32f,
      [
        (0.052490693, 0.08192054, 0.12445944, 0.1412999), (0.2892026, 0.14027351, 0.21210264, 0.36612958),
        (0.22705427, 0.62817526, 0.3285959, 0.6828503), (0.38308665, 0.4838895, 0.19447663, 0.5),
        (0.27440703, 0.9629845, 0.82040566, 1.0), (0.35310477, 0.4551884, 0.41273624, 1.0), (0.59682417, 0.19994283, 0.9020919, 1.0),
        (0.9155969, 0.22992635, 0.9641986, 1.0),
        (0.015725426, 0.2891392, 0.65428513, 0.9970442), (0.044140454, 0.081692226, 0.019818917, 0.14936227), (0.5448848, 0.14358312, 0.6458915, 1.0),
        (0.4765705, 0.20665997, 0.7171421, 1.0),
      ])  // 4×3
    let in1 = ImageBuffer.pixels(
      4, 3, .rgba8,
      [
        (195, 179, 153, 212), (45, 187, 21, 232), (32, 78, 4, 88), (221, 6, 126, 224),
        (20, 13, 15, 27), (21, 33, 104, 112), (65, 43, 87, 100), (75, 75, 4, 106),
        (49, 1, 3, 84), (34, 2, 8, 45), (4, 6, 11, 62), (27, 72, 46, 76),
      ])  // 4×3
    let u0 = Param("u0", value: 1.0)
    let u1 = Param("u1", value: -7.8)
    let s0 = Effect.color("s0") { position, color in
      let v0: Expr = Expr.fold(from: Expr.int(-1), to: int(Expr(u1)), limit: 0, initial: [position.gggr]) { i0, a0 in [(a0[0] + float4(Expr(u1)))] }[
        0]
      return select(
        !select((position.grgr == Expr(u1).xxxx), isnan(position.grgr), (position.xxyx >= v0)),
        (smoothstep(position.r, position.rgr, v0.wwx) - Expr(-0.0)).yxxy, color)
    }(Image.input(1))
    let s1 = Effect.color("s1") { position, color in
      let v0: Expr = color.yz
      return float4(floor(float((int(v0.x) & (Expr.int(18) << int(position.x))))))
    }(s0)
    let s2 = Effect.distortion("s2", sampler: Sampler(filter: .nearest, address: .mirror)) { position in
      return
        (position
        * select(
          (select((float2(0.0) < position), position, position) > ceil(3.0)), normalize(clamp(float2(0.0), position.g, position.x)),
          fma(
            float(int(-4.0)).rr, atan2(-8.7, -1.0),
            Expr.fold(from: (int(position.y) & Expr.int(3)), to: (int(position.x) & Expr.int(3)), limit: 1, initial: [float2(1.0)]) { i0, a0 in
              [max(a0[0], float(i0).xx)]
            }[0])))
    }(s1)
    let s3 = Effect.color("s3") { position, color in
      return (color + float4(-1.0))
    }(s2)
    let s4 = Effect.layer("s4", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, layer in
      return (layer.sample((position + float2(0.001, 0.5)), Sampler(filter: .linear, address: .mirror)) * exp(float4(Expr(u1))))
    }(s3)
    let output = s4

    let generated = RandomGraph(seed: 5_464_479_522_114_573_448).make()
    let pasted = try EffectGraph(output: output)
    let built = try EffectGraph(output: generated.image)
    #expect(pasted.description == built.description)
    let a = try Interpreter.runStaged(pasted, inputs: [in0, in1])
    let b = try Interpreter.runStaged(built, inputs: generated.buffers)
    #expect(memcmp(a.data, b.data, a.byteCount) == 0)
    #expect(Differential.check(output, inputs: [in0, in1]) == nil)
  }
}
