import FX
import FXTestSupport
import Testing

/// Loads at data-dependent rows whose offset from the pixel is bounded
/// (``PixelOffsetBounds``) keep line buffers, and what the value ranges prove
/// about a bilinear sample of an opaque image (its alpha is exactly 1) reaches
/// the passes that read it. Bounds are worked by hand; every kernel is checked
/// against the staged interpreter at several thread counts.
@Suite struct BoundedReachTests {
  static let target = Target.x86Level(1).cannotRun(on: .host) == nil ? Target.x86Level(1) : Target.x86Level(0)

  /// `build(p, pixel)` returns a coordinate; the bounds of it minus the pixel row.
  func bounds(_ build: (inout Program, NodeID) -> NodeID) -> ClosedRange<Double>? {
    var p = Program()
    let y = p.add(.pixelY)
    let c = build(&p, y)
    p.outputs = [c]
    let facts = RangeAnalysis.analyse(p) { _, _ in ValueFacts(0, 1) }
    return PixelOffsetBounds.of(c, .y, in: p, facts: facts)
  }

  @Test func boundsWorkedByHand() throws {
    // min(max(int(floor(float(y) + 0.5 + 3·(u − 0.5) − 0.5)) + 1, 0), height − 1)
    // with u a unorm load in 0…1: before the floor the offset is −1.5…1.5,
    // widened by the rounding of the three float sums (2²⁰·2⁻²³ = 0.125
    // each) to −1.875…1.875; floor −2…1; + 1: −1…2; the clamp to the image
    // keeps it.
    let r = try #require(
      bounds { p, y in
        let load = p.add(.load(buffer: 0, channel: 0), [p.add(.pixelX), y])
        let shift = p.add(.mul, [p.add(.sub, [load, p.constant(Float(0.5))]), p.constant(Float(3))])
        let q = p.add(.add, [p.add(.add, [p.add(.toFloat, [y]), p.constant(Float(0.5))]), shift])
        let i = p.add(.toInt, [p.add(.floor, [p.add(.sub, [q, p.constant(Float(0.5))])])])
        let last = p.add(.sub, [p.add(.height), p.constant(Int32(1))])
        return p.add(.min, [p.add(.max, [p.add(.add, [i, p.constant(Int32(1))]), p.constant(Int32(0))]), last])
      })
    #expect(r == -1...2)
    // A product with the pixel, a term that may be NaN, an unbounded term: no bound.
    #expect(bounds { p, y in p.add(.mul, [y, p.constant(Int32(2))]) } == nil)
    #expect(bounds { p, y in p.add(.add, [p.add(.toFloat, [y]), p.add(.uniform(0))]) } == nil, "a uniform is any finite float")
    #expect(
      bounds { p, y in
        let nan = p.add(.div, [p.constant(Float(0)), p.add(.load(buffer: 0, channel: 0), [y, y])])
        return p.add(.add, [p.add(.toFloat, [y]), nan])
      } == nil, "0 / c may be NaN")
    #expect(bounds { p, y in p.add(.add, [p.add(.toFloat, [y]), p.add(.load(buffer: 1, channel: 0), [y, y])]) } != nil)
  }

  func plan(_ chain: Effect) throws -> KernelPlan {
    var options = LoweringOptions()
    options.opaqueInputs = [0]
    return try Pipeline(chain).compile(options: options, cache: nil, target: Self.target).plan
  }

  @Test func aClampedAberrationAfterAWaveKeepsLineBuffers() throws {
    // |shift| ≤ 6 on each axis: rows y − 7 … y + 7 of the wave's output
    // (floor of −6…6, then the bilinear's second row).
    let aberration = try plan(wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6))
    #expect(aberration.run.lookahead == [7, 0])
    // And columns x − 7 … x + 7: column tiles, the wave computing 7 columns of halo.
    #expect(aberration.run.columnLookahead == [7, 0])
    // A wave of amplitude 10 reading a blur: its rows y − 11 … y + 11.
    let wave = try plan(gaussianBlur(sigma: 2) | wave(amplitude: 10, wavelength: 30))
    #expect(wave.run.lookahead?.last == 0 && wave.run.lookahead?.dropLast().last == 11, "\(String(describing: wave.run.lookahead))")
    // A kaleidoscope's offset is not bounded by intervals: whole images.
    #expect(try plan(gaussianBlur(sigma: 2) | kaleidoscope()).run.lookahead == nil)
  }

  @Test func smallRingsAreGatheredWithThirtyTwoBitOffsets() throws {
    // wave | chromaticAberration: a ring of 32 rows, under 2 GiB at 2²⁰
    // columns (32 · 16 · 2²⁰ bytes); the horizontal pass of a σ 30 blur
    // keeps 256 rows for the vertical one, 4 GiB at that width: 64-bit
    // offsets (its planar copy and the blur read by the wave: small rings).
    var options = LoweringOptions()
    options.opaqueInputs = [0]
    let small = try Pipeline(wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)).compile(
      options: options, cache: nil, target: Self.target)
    #expect(KernelEmitter.compactRings(small.kernel, small.plan) == [1])
    let large = try Pipeline(gaussianBlur(sigma: 30, method: .exact) | wave(amplitude: 10, wavelength: 30)).compile(
      options: options, cache: nil, target: Self.target)
    #expect(large.plan.run.lookahead != nil)
    #expect(large.plan.ringRows(of: 2) == 256)
    #expect(KernelEmitter.compactRings(large.kernel, large.plan) == [1, 3])
  }

  @Test(arguments: [
    "wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)",
    "gaussianBlur(sigma: 2) | wave(amplitude: 10, wavelength: 30)",
    "wave(amplitude: 3, wavelength: 9) | chromaticAberration(amount: 100)",
    "gaussianBlur(sigma: 30, method: exact) | wave(amplitude: 10, wavelength: 30)",
  ])
  func lineBuffersMatchTheInterpreter(chain: String) throws {
    let pipeline = try Pipeline(try ChainSyntax.parse(chain).resolve().effect)
    for format in [PixelFormat.rgba8, .rgba32f] {
      // Tall enough for the rings (32 rows) to wrap several times.
      let image = try irregularImage(53, 131, seed: 3).copy(as: format)
      let staged = try Interpreter.runStaged(pipeline.graph, inputs: [image])
      let compiled = try pipeline.compile(inputFormats: [format], outputFormat: .rgba32f, cache: nil, target: Self.target)
      #expect(compiled.plan.run.lookahead != nil, "\(chain)")
      // A wave reading its 8-bit input at rows y ± reach, in column order,
      // prefetches the row a strip ahead; a float input's rows are interleaved
      // floats, gathered channel by channel with no prefetch. A blur's planar
      // copy reads its input densely in row order and prefetches a few rows on.
      let waveOfInput = chain.hasPrefix("wave") && format == .rgba8
      #expect(compiled.plan.loopNests[0].order == .columns || !waveOfInput)
      let prefetches = waveOfInput || chain.hasPrefix("gaussianBlur")
      #expect(try compiled.dumpNative().ir.contains("llvm.prefetch") == prefetches, "\(chain), \(format)")
      for threads in [1, 2, 3] {
        #expect(maxDifference(try compiled.run([image], threads: threads), staged) == 0, "\(chain), \(format), \(threads) threads")
      }
    }
  }

  @Test func theOpaqueAlphaOfABilinearSampleIsOne() throws {
    // The wave's alpha is (1 − t)·1 + 1·t of an opaque input: 1 exactly (the
    // range simplify rule), so the aberration loads no alpha: r and b at 4
    // texels each, g at 1.
    var options = LoweringOptions()
    options.opaqueInputs = [0]
    let layout = KernelLayout(inputs: [.rgba8], output: .rgba8)
    let (kernel, log) = try Pipeline(wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)).lower(layout.matching(options))
    let loads = kernel.loopNests[1].program.nodes.filter { if case .load = $0.op { true } else { false } }
    #expect(loads.count == 9)
    #expect(!loads.contains { if case .load(_, 3) = $0.op { true } else { false } })
    let summaries = log.entries.filter { $0.pass == "range simplify" }.map(\.summary).joined()
    #expect(summaries.contains("(1 − t) + t → 1 (t in 0…1)") && summaries.contains("isNaN(x) → false"), "\(summaries)")
  }

  @Test func theComplementSumIsOneForEveryWeight() {
    // The rule's claim, on a sweep of weights in 0…1 (the exhaustive check over
    // all 2³⁰ floats in 0…1 was run once by hand; these include the halves,
    // the smallest normals and subnormals and the floats next to 1 and ½).
    var ts: [Float] = [
      0, -0.0, 1, 0.5, Float.leastNonzeroMagnitude, Float.leastNormalMagnitude, Float(1).nextDown, Float(0.5).nextDown, Float(0.5).nextUp,
    ]
    var t: Float = 1e-30
    while t < 1 {
      ts.append(t)
      t = t * 1.0001 + 1e-9
    }
    for t in ts { #expect((1 - t) + t == 1 && t + (1 - t) == 1, "t = \(t)") }
    // The rule needs t in 0…1: 2·c of a unorm c may be 2, and (1 − t) + t then rounds.
    var p = Program()
    let c = p.add(.load(buffer: 0, channel: 0), [p.add(.pixelX), p.add(.pixelY)])
    let wide = p.add(.mul, [c, p.constant(Float(3e7))])
    let sum = p.add(.add, [p.add(.sub, [p.constant(Float(1)), wide]), wide])
    p.outputs = [sum, sum, sum, sum]
    let k = Kernel(inputCount: 1, intermediates: [], loopNests: [.init(name: "t", program: p, output: 1)], uniformCount: 0, scheduleNotes: [])
    let (out, counts) = RangeSimplify.run(k)
    #expect(counts["(1 − t) + t → 1 (t in 0…1)"] == nil)
    #expect(out.loopNests[0].program.constantValue(out.loopNests[0].program.outputs[0]) == nil)
    #expect((1 - Float(3e7)) + Float(3e7) != 1, "why: 1 − 3·10⁷ rounds")
  }
}
