import FX
import Testing

/// Every schedule of every effect agrees with the staged interpreter (DESIGN §4: ≤ 1e-4).
struct LoweringTests {
  static let effects: [(String, Effect)] = [
    ("sepia", sepia()), ("brightness", brightness(amount: 0.2)), ("contrast", contrast(amount: 1.5)),
    ("saturation", saturation(amount: 0.3)), ("vignette", vignette()), ("wave", wave(amplitude: 3, wavelength: 7)),
    ("pixelate", pixelate(amount: 0.5, blockSize: 5)), ("gaussianBlur", gaussianBlur(sigma: 1)),
    ("unsharpMask", unsharpMask(sigma: 1, amount: 1.5)),
    ("chain", wave(amplitude: 2, wavelength: 9) | sepia() | pixelate(amount: 1, blockSize: 3) | vignette()),
    ("blur of blur", gaussianBlur(sigma: 0.7) | gaussianBlur(sigma: 0.7)),
  ]

  @Test(arguments: effects.map(\.0))
  func kernelMatchesStaged(_ name: String) throws {
    let effect = Self.effects.first { $0.0 == name }!.1
    let graph = try EffectGraph(output: effect(.input()))
    for (w, h) in [(1, 1), (1, 5), (7, 3), (13, 11)] {
      let input = randomImage(w, h, seed: UInt64(w * 31 + h))
      let reference = try Interpreter.runStaged(graph, inputs: [input])
      for mode in 0..<3 {
        var options = LoweringOptions()
        options.forceInline = mode == 1
        options.forceMaterialise = mode == 2
        let (kernel, _) = try Lower.run(graph, options: options)
        let out = try Interpreter.run(kernel, inputs: [input])
        let d = maxDifference(reference, out)
        #expect(d <= 1e-4, "\(name) \(w)×\(h) mode \(mode): max difference \(d)")
      }
    }
  }
}

/// Issue 16: a chain of thousands of effects overflowed the stack (graph
/// lowering recursed into every stage it sampled; inlining recurses once per
/// fused stage). Graph lowering is now iterative across stages and the passes
/// run on a large stack: 3,000 brightness(0.0001) effects lower, fuse into
/// passes of at most ``Schedule/maxFusedNodes`` of code (several, not one:
/// LLVM's time grows as a pass's size squared), and add 0.3 (by hand:
/// 3000 × 0.0001, each clamped to alpha).
struct LongChainTests {
  @Test func threeThousandEffectsLowerAndRun() throws {
    let chain = try ChainSyntax.parse(Array(repeating: "brightness(0.0001)", count: 3000).joined(separator: " | ")).resolve()
    let graph = try EffectGraph(output: chain.effect(.input(0)))
    #expect(graph.stages.count == 3000)
    let (kernel, log) = try Lower.run(graph)
    #expect(kernel.loopNests.count > 1 && kernel.loopNests.count < 100, "\(kernel.loopNests.count) passes")
    #expect(log.entries.contains { $0.pass == "lower to kernel" })
    let image = try ImageBuffer(width: 3, height: 1, format: .rgba32f)
    image[0, 0] = SIMD4(0.1, 0.5, 0.9, 1)
    image[1, 0] = SIMD4(0.05, 0.1, 0.2, 0.5)
    image[2, 0] = SIMD4(0, 0, 0, 0)
    let out = try Interpreter.run(kernel, inputs: [image], uniforms: [], params: graph.uniforms, format: .rgba32f)
    let expected: [SIMD4<Float>] = [SIMD4(0.4, 0.8, 1, 1), SIMD4(0.2, 0.25, 0.35, 0.5), SIMD4(0, 0, 0, 0)]
    for x in 0..<3 {
      for c in 0..<4 { #expect(Swift.abs(out[x, 0][c] - expected[x][c]) < 1e-3, "pixel \(x) channel \(c): \(out[x, 0])") }
    }
  }
}
