import FX
import FXTestSupport
import Testing

/// The input wrapper (Halide's `Func::in()`): a planar copy of input 0 that the
/// schedule materialises when many taps read the input, and that never changes
/// a pixel.
struct WrapInputTests {
  /// A 1-D box of `taps` whole-pixel taps along x, read through `sampler`.
  func box(_ taps: Int, _ sampler: Sampler) -> Effect {
    Effect.layer("box\(taps)", sampler: sampler) { p, layer in
      var sum: Expr = float4(0)
      for i in 0..<taps { sum = sum + layer.sample(p + float2(Expr(Float(i - taps / 2)), Expr(Float(0)))) }
      return sum * Expr(1 / Float(taps))
    }
  }

  @Test(arguments: Sampler.AddressMode.allCases)
  func manyTapsReadAPlanarCopyAndAgree(_ mode: Sampler.AddressMode) throws {
    for filter in [Sampler.Filter.nearest, .linear] {
      let output = (box(7, Sampler(filter: filter, address: mode)) | sepia())(.input())
      let graph = try EffectGraph(output: output)
      let (kernel, log) = try Lower.run(graph)
      #expect(log.entries.contains { $0.pass == "wrap input" })
      #expect(kernel.loopNests.count == 2)
      #expect(kernel.loopNests[0].name.hasSuffix("(planar copy)"))
      for format in [PixelFormat.rgba8, .rgba16, .rgba32f] {
        let input = randomImage(37, 5, seed: 3, format: format)
        #expect(maxDifference(try Interpreter.runStaged(graph, inputs: [input]), try Interpreter.run(kernel, inputs: [input])) <= 1e-6)
        let d = Differential.check(output, inputs: [input], evaluations: [.jit])
        #expect(d == nil, "\(d.map(\.description) ?? "")")
      }
    }
  }

  /// Few reads per pixel (a color chain, a bilinear distortion, a 5-tap box)
  /// stay inlined: the copy would cost more than it saves.
  @Test func fewReadsKeepTheInputInline() throws {
    for effect in [sepia() | vignette(), wave(), box(5, Sampler(filter: .nearest, address: .clampToEdge))] {
      let (kernel, log) = try Lower.run(try EffectGraph(output: effect(.input())))
      #expect(!log.entries.contains { $0.pass == "wrap input" })
      #expect(kernel.loopNests.allSatisfy { !$0.name.hasSuffix("(planar copy)") })
    }
  }
}
