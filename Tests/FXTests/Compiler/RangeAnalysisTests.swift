import FX
import FXTestSupport
import Testing

/// The value-range and NaN analysis: transfer functions worked by hand, the
/// code it licenses, and soundness — every value the interpreter computes on
/// random graphs (random constants, NaN and ±∞ among them) lies within what
/// was proved.
@Suite struct RangeAnalysisTests {
  /// Facts of the nodes `build` returns, when every load is a unorm channel.
  func facts(_ build: (inout Program, NodeID) -> [NodeID]) -> [ValueFacts] {
    var p = Program()
    let x = p.add(.pixelX), y = p.add(.pixelY)
    let load = p.add(.load(buffer: 0, channel: 0), [x, y])
    let ids = [load] + build(&p, load)
    let all = RangeAnalysis.analyse(p) { _, _ in ValueFacts(0, 1) }
    return ids.map { all[Int($0.index)] }
  }

  @Test func arithmeticOnAUnormLoad() {
    let f = facts { p, c in
      let k = p.constant(Float(1.2)), tenth = p.constant(Float(-0.1))
      return [
        p.add(.add, [p.add(.mul, [c, k]), tenth]),  // 1.2·c − 0.1
        p.add(.div, [c, p.add(.sub, [c, c])]),  // c / (c − c): 0/0 possible
        p.add(.sqrt, [p.add(.sub, [c, p.constant(Float(0.5))])]),  // sqrt of [−0.5, 0.5]
      ]
    }
    #expect(f[0] == ValueFacts(0, 1))
    #expect(f[1].lo == Double(Float(-0.1)) && abs(f[1].hi - 1.1) < 1e-6, "\(f[1])")
    #expect(!f[1].mayBeNaN && f[1].isFinite)
    #expect(f[2].mayBeNaN, "0 / 0 is NaN")
    #expect(f[3].mayBeNaN && f[3].lo == 0, "sqrt of a negative")
  }

  @Test func aDivisorThatMayBeZeroMayBeMinusZero() throws {
    // Found by fxc fuzz --seed 11 (case 7649932981817229724, shrunk): the
    // divisor u·0 is −0 for u < 0, so (1 − 0)/(u·0 − 0) is −∞, and the clamp
    // max(·, 0) that follows must not be forwarded.
    let f = facts { p, c in [p.add(.div, [c, p.add(.mul, [p.add(.uniform(0)), p.constant(Float(0))])])] }
    #expect(f[1].lo == -.infinity)
    let u = Param.uniform("u", -7.65)
    let effect = Effect.distortion("s0") { _ in float2(smoothstep(0.0, Expr(u) * 0.0, 1.0)) }
    let image = try ImageBuffer(width: 1, height: 1, format: .rgba32f)
    #expect(Differential.check(effect(.input()), inputs: [image]) == nil)
  }

  @Test func powOfANaNConstantMayBeNaN() throws {
    // Found by fxc fuzz --seed 3031 (case 12200582086882544630, shrunk): a NaN
    // constant's facts are an empty interval (+∞ … −∞, or NaN), which passed
    // pow's "x ≥ 0 and finite" test, so pow(NaN, y) was proved never NaN and
    // smoothstep's clamp of NaN became a single instruction, giving NaN, not 0.
    let f = facts { p, c in [p.add(.pow, [p.constant(Float.nan), c])] }
    #expect(f[1].mayBeNaN)
    let effect = Effect.layer("s0") { position, _ in
      smoothstep(float4(1.0), pow(log(-6.83), float4(position, 0.0, 0.0)), float4(0.0))
    }
    let image = try ImageBuffer(width: 1, height: 1, format: .rgba32f)
    #expect(Differential.check(effect(.input()), inputs: [image]) == nil)
  }

  @Test func minAndMaxFollowSemanticsForNaN() {
    let f = facts { p, c in
      [
        p.add(.min, [p.constant(Float.nan), c]),  // NaN first → the other: c
        p.add(.max, [p.add(.div, [c, c]), p.constant(Float(0))]),  // max(maybe NaN, 0): never NaN
      ]
    }
    #expect(f[1] == ValueFacts(0, 1))
    #expect(!f[2].mayBeNaN && f[2].lo == 0)
  }

  @Test func aClampThatCannotActIsForwardedAndTheRestAreSingleInstructions() throws {
    var p = Program()
    let x = p.add(.pixelX), y = p.add(.pixelY)
    let c = p.add(.load(buffer: 0, channel: 0), [x, y])
    let zero = p.constant(Float(0)), one = p.constant(Float(1)), two = p.constant(Float(2))
    let kept = p.add(.max, [c, zero])  // c ≥ 0: forwarded to c
    let scaled = p.add(.mul, [kept, two])
    let clamped = p.add(.min, [scaled, one])  // may act: one minps
    p.outputs = [clamped, clamped, clamped, one]
    let proofs = RangeProofs(p, facts: RangeAnalysis.analyse(p) { _, _ in ValueFacts(0, 1) }, live: p.live())
    #expect(proofs.forwarded == [Int(kept.index): 0])
    #expect(proofs.singleInstruction == [Int(clamped.index)])
    #expect(proofs.quantise(clamped) == .inRange)
    #expect(proofs.quantise(scaled) == .clampOnly)
  }

  /// pow's test and special-case branch are dropped only where x is never NaN, in
  /// `[0, ∞)`, y finite, and −0 cannot matter (x > 0, or y one value that is
  /// not an odd integer).
  @Test func powIsProvedOrdinaryOnlyWhereMinusZeroCannotMatter() {
    let unit = ValueFacts(0, 1)
    #expect(RangeProofs.powIsOrdinary(unit, ValueFacts(0.8, 0.8)))
    #expect(RangeProofs.powIsOrdinary(unit, ValueFacts(2, 2)), "an even integer: pow(−0, 2) = pow(+0, 2)")
    #expect(!RangeProofs.powIsOrdinary(unit, ValueFacts(3, 3)), "an odd integer: pow(−0, 3) = −0")
    #expect(!RangeProofs.powIsOrdinary(unit, ValueFacts(-1, -1)), "pow(−0, −1) = −∞")
    #expect(!RangeProofs.powIsOrdinary(unit, ValueFacts(0.5, 4)), "an exponent that may be 3")
    #expect(RangeProofs.powIsOrdinary(ValueFacts(0.25, 1), ValueFacts(0.5, 4)), "x > 0: never −0")
    #expect(!RangeProofs.powIsOrdinary(ValueFacts(0, 1, nan: true), ValueFacts(0.8, 0.8)))
    #expect(!RangeProofs.powIsOrdinary(ValueFacts(-1, 1), ValueFacts(0.8, 0.8)))
    #expect(!RangeProofs.powIsOrdinary(ValueFacts(0, .infinity), ValueFacts(0.8, 0.8)))
    #expect(!RangeProofs.powIsOrdinary(ValueFacts(0.25, 1), ValueFacts(-.infinity, 4)))
  }

  /// The facts of `pow(x, constant)` hold fxc's pow (within 1.5·(1 + |y·log₂x|)
  /// ulp, not libm's 1): at the ends of many intervals, where the facts are
  /// tightest, with exponents large enough (|y·log₂x| up to 75) that its error
  /// reaches 4e-6 relative, beyond a margin for libm's error alone.
  @Test func powFactsHoldTranscendentalsPow() {
    var rng = SplitMix(seed: 31)
    var outside: [String] = []
    for e: Float in [-150, 100, -40, 0.8, 2.4, 1 / 2.4, -3] {
      for _ in 0..<1500 {
        let lo = Float.random(in: 0.72...0.99, using: &rng), hi = Swift.min(lo * 1.05, 0.999)
        var p = Program()
        let x = p.add(.load(buffer: 0, channel: 0), [p.add(.pixelX), p.add(.pixelY)])
        let r = p.add(.pow, [x, p.constant(e)])
        p.outputs = [r, r, r, r]
        let f = RangeAnalysis.analyse(p) { _, _ in ValueFacts(Double(lo), Double(hi)) }[Int(r.index)]
        for v in [lo, hi, Float.random(in: lo...hi, using: &rng)] {
          let y = Double(Transcendentals.pow(v, e))
          if !(f.lo <= y && y <= f.hi) { outside.append("pow(\(v), \(e)) = \(y) outside \(f)") }
        }
      }
    }
    #expect(outside.isEmpty, "\(outside.count) outside, e.g. \(outside.prefix(3))")
  }

  @Test func relaxedFlagsOnlyWhereEverythingIsProvedFiniteAndBounded() {
    var p = Program()
    let x = p.add(.pixelX), y = p.add(.pixelY)
    let c = p.add(.load(buffer: 0, channel: 0), [x, y])
    let scaled = p.add(.mul, [c, p.constant(Float(3))])
    let quotient = p.add(.div, [scaled, c])  // c may be 0
    let byWidth = p.add(.div, [scaled, p.add(.toFloat, [p.add(.width)])])
    let f = RangeAnalysis.analyse(p) { _, _ in ValueFacts(0, 1) }
    let proofs = RangeProofs(p, facts: f, live: p.live())
    #expect(proofs.mayRelax(.mul, Int(scaled.index), p[scaled].args))
    #expect(!proofs.mayRelax(.div, Int(quotient.index), p[quotient].args), "a divisor that may be 0")
    #expect(proofs.mayRelax(.div, Int(byWidth.index), p[byWidth].args), "x / width: a reciprocal is safe")
    let nanOperand = p.add(.add, [quotient, c])
    let g = RangeAnalysis.analyse(p) { _, _ in ValueFacts(0, 1) }
    #expect(!RangeProofs(p, facts: g, live: p.live()).mayRelax(.add, Int(nanOperand.index), p[nanOperand].args))
  }

  /// What reaches `x / |x|` where |x| may be 0 (a normalize), or the square
  /// root of a value that may be 0 or below, stays strict in relaxed code: a
  /// rounding there turns NaN into ±1, or 0 into NaN; nor does a factor of
  /// a value that may be infinite. A division by a value proved away from 0
  /// and the root of one proved positive do not.
  @Test func whatFeedsADiscontinuityStaysStrict() {
    var p = Program()
    let c = p.add(.load(buffer: 0, channel: 0), [p.add(.pixelX), p.add(.pixelY)])
    let half = p.constant(Float(0.5)), one = p.constant(Float(1))
    let centred = p.add(.sub, [c, half])  // −½…½
    let sign = p.add(.div, [centred, p.add(.abs, [centred])])
    let square = p.add(.mul, [c, c])  // 0…1
    let root = p.add(.sqrt, [square])
    let shifted = p.add(.add, [c, one])  // 1…2
    let ratio = p.add(.div, [p.add(.mul, [shifted, half]), shifted])
    let positiveRoot = p.add(.sqrt, [p.add(.mul, [shifted, shifted])])
    let tiny = p.add(.mul, [c, p.constant(Float.leastNonzeroMagnitude)])
    let timesInfinity = p.add(.mul, [tiny, p.add(.div, [one, c])])  // (0…1)·2⁻¹⁴⁹ · (1…∞)
    p.outputs = [sign, root, ratio, positiveRoot, timesInfinity]
    let f = RangeAnalysis.analyse(p) { _, _ in ValueFacts(0, 1) }
    let feeds = RangeProofs(p, facts: f, live: p.live()).feedsDiscontinuity
    #expect(feeds[Int(centred.index)], "the operand of x / |x|")
    #expect(feeds[Int(square.index)], "the operand of a root of 0…1")
    #expect(!feeds[Int(shifted.index)] && !feeds[Int(p[ratio].args[0].index)], "a divisor in 1…2, a root of 1…4")
    #expect(feeds[Int(tiny.index)], "0 · ∞ is NaN, a rounding away ∞")
    #expect(!feeds[Int(sign.index)] && !feeds[Int(root.index)], "the results themselves")
  }

  @Test func theDumpShowsWhatWasProved() throws {
    let compiled = try Pipeline(sepia() | vignette()).compile(
      options: {
        var o = LoweringOptions()
        o.opaqueInputs = [0]
        return o
      }(), cache: nil)
    let plan = "\(compiled.plan)"
    #expect(plan.contains("ranges: "), "\(plan)")
    #expect(plan.contains("a in 0…1: no clamp"), "opaque alpha is the constant 1")
  }

  @Test func aFoldIsFollowedIterationByIteration() {
    // acc ← acc + w(i)·c over i in 0..<3 from ¼, w a table (1, 2, 4), c a
    // unorm load: ¼ + (0…1)·1 + (0…1)·2 + (0…1)·4 = ¼ … 7¼, never NaN. With a
    // bound that varies per pixel, or more iterations than are followed: anything.
    var body = Program()
    let w = body.add(.table(ConstantTable(first: 0, values: [.float(1), .float(2), .float(4)])), [body.add(.loopIndex)])
    let c = body.add(.load(buffer: 0, channel: 0), [body.add(.pixelX), body.add(.pixelY)])
    body.outputs = [body.add(.add, [body.add(.loopAccumulator(0, .float)), body.add(.mul, [w, c])])]
    let loop = Loop(body: body, accumulators: [.float], captures: [], limit: 1 << 12)
    let f = facts { p, _ in
      let quarter = p.constant(Float(0.25)), zero = p.constant(Int32(0))
      return [
        p.add(.fold(loop, result: 0), [zero, p.constant(Int32(3)), quarter]),
        p.add(.fold(loop, result: 0), [zero, p.add(.pixelX), quarter]),
        p.add(.fold(loop, result: 0), [zero, p.constant(Int32(RangeAnalysis.maxFollowedIterations + 1)), quarter]),
      ]
    }
    #expect(f[1] == ValueFacts(0.25, 7.25))
    #expect(f[2] == .unknown && f[3] == .unknown)
    // The same loop inside another: followed while the iterations multiplied
    // stay within the budget (2 × 3), not when they exceed it (the analysis of
    // nested loops would grow as their product).
    func nested(_ outer: Int) -> ValueFacts {
      var outerBody = Program()
      let zero = outerBody.constant(Int32(0)), quarter = outerBody.constant(Float(0.25))
      let inner = outerBody.add(.fold(loop, result: 0), [zero, outerBody.constant(Int32(3)), quarter])
      outerBody.outputs = [outerBody.add(.add, [outerBody.add(.loopAccumulator(0, .float)), inner])]
      let outerLoop = Loop(body: outerBody, accumulators: [.float], captures: [], limit: 1 << 12)
      return facts { p, _ in
        [p.add(.fold(outerLoop, result: 0), [p.constant(Int32(0)), p.constant(Int32(outer)), p.constant(Float(0))])]
      }[1]
    }
    #expect(nested(2) == ValueFacts(0.5, 14.5))
    #expect(nested(RangeAnalysis.maxFollowedIterations / 3 + 1) == .unknown)
  }

  @Test(arguments: 0..<120)
  func everyComputedValueIsWithinItsFacts(seed: Int) throws {
    let fuzz = RandomGraph(seed: UInt64(seed) &* 0x9E37_79B9).make()
    let pipeline = try Pipeline(output: fuzz.image)
    let inputs = fuzz.buffers
    let layout = KernelLayout(inputs: inputs.map(\.format), output: .rgba8)
    let (kernel, _) = try pipeline.lower(layout.matching(LoweringOptions()))
    let plan = layout.plan(kernel, target: try Target.named("x86-64-v2"))
    var violations: [String] = []
    _ = try Interpreter.run(kernel, inputs: inputs, params: pipeline.graph.uniforms, format: .rgba8) { pass, node, values in
      let f = plan.loopNests[pass].proofs.facts[node]
      for v in values where v.isNaN ? !f.mayBeNaN : !(f.lo <= Double(v) && Double(v) <= f.hi) {
        if violations.count < 5 { violations.append("pass \(pass) %\(node) = \(v) outside \(f)") }
      }
    }
    #expect(violations.isEmpty, "\(fuzz)\n\(violations.joined(separator: "\n"))")
  }
}

/// Rewrites licensed by the ranges: the same bits, fewer nodes.
@Suite struct RangeSimplifyTests {
  func loads(_ kernel: Kernel) -> Int {
    kernel.loopNests.reduce(0) { total, pass in
      let live = pass.program.live()
      return total
        + pass.program.nodes.indices.filter { i in
          if case .load = pass.program.nodes[i].op { return live[i] } else { return false }
        }.count
    }
  }

  @Test func aWaveSamplesTwoRowsNotFourTexels() throws {
    // wave keeps x at the pixel centre: (float(x) + 0.5) − 0.5 is float(x)
    // exactly, so the horizontal fraction is 0 and the bilinear sample is a
    // vertical lerp of 2 texels per channel.
    var options = LoweringOptions()
    options.opaqueInputs = [0]
    let layout = KernelLayout(inputs: [.rgba8], output: .rgba8)
    let (kernel, log) = try Pipeline(wave(amplitude: 10, wavelength: 60)).lower(layout.matching(options))
    #expect(loads(kernel) == 6, "r, g, b at two rows")
    let entry = try #require(log.entries.first { $0.pass == "range simplify" })
    #expect(entry.summary.contains("(float(i) + 0.5) − 0.5 → float(i) (i an index)"), "\(entry.summary)")
    var plain = layout.matching(options)
    plain.simplify = false
    #expect(loads(try Pipeline(wave(amplitude: 10, wavelength: 60)).lower(plain).0) == 12)
  }

  @Test func theHalfRoundTripNeedsASmallInteger() {
    var p = Program()
    let half = p.constant(Float(0.5))
    let big = p.add(.toFloat, [p.add(.toInt, [p.add(.uniform(0))])])  // any int32: not exact
    let small = p.add(.toFloat, [p.add(.pixelX)])
    let a = p.add(.sub, [p.add(.add, [big, half]), half])
    let b = p.add(.sub, [p.add(.add, [small, half]), half])
    p.outputs = [a, b, b, b]
    let k = Kernel(inputCount: 1, intermediates: [], loopNests: [.init(name: "t", program: p, output: 1)], uniformCount: 1, scheduleNotes: [])
    let (out, counts) = RangeSimplify.run(k)
    let q = out.loopNests[0].program
    #expect(counts["(float(i) + 0.5) − 0.5 → float(i) (i an index)"] == 1)
    #expect(q[q.outputs[0]].op == .sub, "float(int(u)) may be 2³¹: (t + 0.5) − 0.5 rounds")
    #expect(q[q.outputs[1]].op == .toFloat)
  }

  /// `fma(x, 0, y) → y` needs `y` never −0: `x·0 + (−0)` is +0 when `x ≥ 0`.
  /// Built by hand: y = −load (−0 where the load is 0) keeps its fma, y = the
  /// load itself (an 8-bit load is never −0) folds, as does `load·0 + load`;
  /// x = 1/load (∞ at 0) keeps it.
  @Test func timesZeroPlusNeedsAFiniteProductAndNoNegativeZero() {
    var p = Program()
    let (x, y) = (p.add(.pixelX), p.add(.pixelY))
    let load = p.add(.load(buffer: 0, channel: 0), [x, y])
    let zero = p.constant(Float(0)), one = p.constant(Float(1))
    let negated = p.add(.neg, [load])
    let keptForNegativeZero = p.add(.fma, [load, zero, negated])
    let folded = p.add(.fma, [zero, load, load])
    let keptForInfinity = p.add(.fma, [p.add(.div, [one, load]), zero, load])
    let sumFolded = p.add(.add, [p.add(.mul, [load, zero]), load])
    p.outputs = [keptForNegativeZero, folded, keptForInfinity, sumFolded]
    var k = Kernel(inputCount: 1, intermediates: [], loopNests: [.init(name: "t", program: p, output: 1)], uniformCount: 0, scheduleNotes: [])
    k.straightAlphaInputs = [0]
    let (out, counts) = RangeSimplify.run(k)
    let q = out.loopNests[0].program
    #expect(counts["y + x·0 → y (x finite, y never −0)"] == 2)
    #expect(q[q.outputs[0]].op == .fma, "−load may be −0")
    #expect(q[q.outputs[1]].op == .load(buffer: 0, channel: 0))
    #expect(q[q.outputs[2]].op == .fma, "1/load may be ∞")
    #expect(q[q.outputs[3]].op == .load(buffer: 0, channel: 0))
  }

  /// sepia(amount: 1) is its toned colour: no multiply-and-add of the identity
  /// (toned·1 + rgb·0 folds), and the JIT still gives the interpreter's bits.
  @Test func sepiaAtFullAmountIsItsTonedColour() throws {
    var options = LoweringOptions()
    options.opaqueInputs = [0]
    let layout = KernelLayout(inputs: [.rgba8], output: .rgba8)
    let (kernel, log) = try Pipeline(saturation(amount: 1.2) | sepia()).lower(layout.matching(options))
    let entry = try #require(log.entries.first { $0.pass == "range simplify" })
    #expect(entry.summary.contains("y + x·0 → y (x finite, y never −0): 3"), "\(entry.summary)")
    let p = kernel.loopNests[0].program
    let live = p.live()
    #expect(p.nodes.indices.filter { live[$0] && p.nodes[$0].op == .sub }.count == 3, "only saturation's luma − c")
    for format in [PixelFormat.rgba8, .rgba32f] {
      try expectInterpreterBitsAtEveryLevel(saturation(amount: 1.2) | sepia(), randomImage(29, 5, seed: 9, format: format)) { _, _ in }
    }
  }

  @Test func aWaveStillMatchesTheInterpreterBitForBit() throws {
    for format in [PixelFormat.rgba8, .rgba16, .rgba32f] {
      let image = randomImage(37, 11, seed: 5, format: format)
      let pipeline = try Pipeline(wave(amplitude: 3.7, wavelength: 9) | chromaticAberration(amount: 2))
      let jit = try pipeline.compile(inputFormats: [format], outputFormat: .rgba32f, cache: nil).run([image])
      let staged = try Interpreter.runStaged(pipeline.graph, inputs: [image])
      #expect(maxDifference(jit, staged) <= 1e-6, "\(format)")
    }
  }
}
