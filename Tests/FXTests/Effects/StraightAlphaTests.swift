import FX
import Testing

/// DESIGN §1 (amended 2026-12-01): 8- and 16-bit buffers hold straight alpha,
/// kernels premultiply in fp32 after the load and un-premultiply in fp32
/// before the store, so a result stays within 1 level of the exact
/// computation at any alpha — where rounding premultiplied color to 8 bits
/// lost whole levels at low alpha.
@Suite struct StraightAlphaTests {
  /// Straight pixels with low alphas, where premultiplied storage loses most.
  static func translucent(format: PixelFormat) throws -> (ImageBuffer, [SIMD4<Double>]) {
    let alphas: [Double] = [1, 2, 3, 7, 17, 64, 128, 254, 255].map { $0 / 255 }
    let colors: [Double] = [0, 13, 77, 128, 200, 251, 255].map { $0 / 255 }
    let image = try ImageBuffer(width: alphas.count, height: colors.count, format: format)
    let max = format == .rgba16 ? 65535.0 : 255
    var straight: [SIMD4<Double>] = []
    for (y, c) in colors.enumerated() {
      for (x, a) in alphas.enumerated() {
        let v = SIMD4(c, 1 - c, (c + 0.3).truncatingRemainder(dividingBy: 1), a)
        let q = (v * max).rounded(.toNearestOrAwayFromZero)
        image[stored: x, y] = SIMD4<Float>(q / max)
        straight.append(q / max)
      }
    }
    return (image, straight)
  }

  /// Each stored output level against the exact straight result, in levels of the format.
  static func worstError(_ out: ImageBuffer, _ exact: [SIMD4<Double>]) -> Double {
    let max = out.format == .rgba16 ? 65535.0 : 255
    var worst = 0.0
    for (i, e) in exact.enumerated() {
      let got = SIMD4<Double>(out[stored: i % out.width, i / out.width]) * max
      for c in 0..<4 { worst = Swift.max(worst, abs(got[c] - e[c] * max)) }
    }
    return worst
  }

  @Test(arguments: [PixelFormat.rgba8, .rgba16])
  func contrastIsWithinALevelAtEveryAlpha(_ format: PixelFormat) throws {
    let (image, straight) = try Self.translucent(format: format)
    // contrast (DESIGN's seed formula on straight color): (s − 0.5)·k + 0.5, clamped to 0…1.
    let k = 1.5
    let exact = straight.map { s in
      SIMD4((0..<3).map { Swift.min(1, Swift.max(0, (s[$0] - 0.5) * k + 0.5)) } + [s.w])
    }
    let pipeline = try Pipeline(contrast(amount: Expr(Float(k))))
    for backend in [Backend.jit, .interpreter] {
      let compiled = try pipeline.compile(inputFormats: [format], outputFormat: format, backend: backend, cache: nil)
      let out = try compiled.run([image])
      #expect(Self.worstError(out, exact) <= 0.5 + 1e-3, "\(backend): a pure color effect rounds once")
    }
  }

  @Test func invertThenOpacityIsWithinALevel() throws {
    let (image, straight) = try Self.translucent(format: .rgba8)
    // invert on straight color: 1 − s; opacity multiplies alpha (premultiplied: every channel).
    let exact = straight.map { s in SIMD4(1 - s.x, 1 - s.y, 1 - s.z, s.w * 0.6) }
    let out = try Pipeline(invert() | opacity(amount: 0.6)).apply(to: image)
    // Alpha is rounded (0.6·a), and color is divided by that rounded alpha's true value: within a level.
    #expect(Self.worstError(out, exact) <= 1)
  }

  @Test func jitAndInterpreterAgreeBitForBitOnStraightBuffers() throws {
    let (image, _) = try Self.translucent(format: .rgba8)
    for chain in [sepia() | vignette(), gaussianBlur(sigma: 1.5) | contrast(amount: 1.3), unsharpMask(sigma: 1, amount: 0.8)] {
      let pipeline = try Pipeline(chain)
      let jit = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil).run([image])
      let staged = try Interpreter.runStaged(pipeline.graph, inputs: [image]).copy(as: .rgba8)
      #expect(maxDifference(jit, staged) == 0, "\(chain.name)")
    }
  }

  @Test func anOpaqueInputNeedsNeitherStep() throws {
    // sepia at 0.7: at 1 an 8-bit load's sepia folds its rgb·0 away (never −0), a float load's cannot.
    let pipeline = try Pipeline(sepia(amount: 0.7) | vignette())
    var opaque = LoweringOptions()
    opaque.opaqueInputs = [0]
    let straight = KernelLayout(inputs: [.rgba8], output: .rgba8).matching(opaque)
    let (withSteps, _) = try pipeline.lower(straight)
    let (without, _) = try pipeline.lower(opaque)
    // The steps are multiplies and divides (the 8-bit loads' value ranges remove clamps the float ones keep).
    func steps(_ k: Kernel) -> Int {
      k.loopNests.reduce(0) { n, pass in
        let live = pass.program.live()
        return n + pass.program.nodes.indices.filter { live[$0] && [.mul, .div].contains(pass.program.nodes[$0].op) }.count
      }
    }
    #expect(steps(withSteps) == steps(without))
    let (translucent, _) = try pipeline.lower(KernelLayout(inputs: [.rgba8], output: .rgba8).matching(LoweringOptions()))
    let (premultiplied, _) = try pipeline.lower(LoweringOptions())
    #expect(translucent.loopNests[0].program.liveCount > premultiplied.loopNests[0].program.liveCount, "3 multiplies, 3 divides")
  }

  @Test func aKernelLoweredForAnotherAlphaStorageIsRefused() throws {
    let (kernel, _) = try Pipeline(sepia()).lower(LoweringOptions())
    #expect(throws: LLVMError.self) { try CompiledKernel(kernel, layout: KernelLayout(inputs: [.rgba8], output: .rgba8)) }
    let (straight, _) = try Pipeline(sepia()).lower(KernelLayout(inputs: [.rgba8], output: .rgba8).matching(LoweringOptions()))
    let image = try ImageBuffer(width: 2, height: 2, format: .rgba32f)
    #expect(throws: RunError.self) { try Interpreter.run(straight, inputs: [image], format: .rgba8) }
  }
}
