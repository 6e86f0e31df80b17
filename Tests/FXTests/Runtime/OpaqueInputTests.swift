import FX
import Foundation
import Testing

/// Opaque inputs (`LoweringOptions.opaqueInputs`): an input's alpha read as the
/// constant 1 folds away every operation on alpha, and must not change a pixel
/// of an opaque image.
struct OpaqueInputTests {
  @Test(arguments: PixelFormat.allCases)
  func isOpaqueReadsEveryAlpha(_ format: PixelFormat) throws {
    let img = opaqueImage(13, 4, seed: 1, format: format)
    #expect(img.isOpaque)
    for (x, y) in [(0, 0), (12, 3), (5, 2)] {
      let copy = try img.copy()
      copy[x, y] = SIMD4(0.2, 0.2, 0.2, 0.5)
      #expect(!copy.isOpaque, "alpha 0.5 at (\(x), \(y))")
    }
    // Test images with transparent and half-transparent pixels are not.
    #expect(randomImage(9, 9, seed: 2, format: format).isOpaque == false)
  }

  static let chains: [(String, Effect)] = [
    ("gaussianBlur σ3 | contrast", gaussianBlur(sigma: 3) | contrast(amount: 1.2)),
    ("gaussianBlur σ6", gaussianBlur(sigma: 6)),
    ("unsharpMask", unsharpMask(sigma: 1.5, amount: 0.8)),
    ("color chain", sepia() | brightness(amount: 0.1) | saturation(amount: 1.2) | vignette()),
    ("wave | chromaticAberration", wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)),
    ("pixelate | vignette", pixelate(amount: 1, blockSize: 16) | vignette()),
    ("boxBlur | gamma", boxBlur(radius: 3) | gamma(power: 0.7)),
  ]

  /// The kernel compiled for an opaque input gives the same bits as the
  /// general kernel on an opaque image — JIT and interpreter, every format.
  @Test(arguments: chains.indices)
  func opaqueKernelsComputeTheSamePixels(_ index: Int) throws {
    let (name, effect) = Self.chains[index]
    let pipeline = try Pipeline(effect)
    var opaque = LoweringOptions()
    opaque.opaqueInputs = [0]
    for format in PixelFormat.allCases {
      let input = opaqueImage(41, 23, seed: 7, format: format)
      for backend in [Backend.jit, .interpreter] {
        let general = try pipeline.compile(inputFormats: [format], outputFormat: format, backend: backend, cache: nil)
        let folded = try pipeline.compile(inputFormats: [format], outputFormat: format, backend: backend, options: opaque, cache: nil)
        #expect(folded.backend == backend)
        let a = try general.run([input]), b = try folded.run([input])
        #expect(maxDifference(a, b) == 0, "\(name), \(format), \(backend)")
        #expect(memcmp(a.data, b.data, a.byteCount) == 0, "\(name), \(format), \(backend): not bit-identical")
      }
    }
  }

  /// A blur of an opaque input loads no alpha in any pass: the planar copy,
  /// horizontal and vertical passes all fold it (constant channels carries the
  /// copy's constant alpha into the passes that read it).
  @Test func blurOfAnOpaqueInputLoadsNoAlpha() throws {
    let graph = try EffectGraph(output: gaussianBlur(sigma: 3)(.input()))
    var options = LoweringOptions()
    let (general, _) = try Lower.run(graph, options: options)
    options.opaqueInputs = [0]
    let (kernel, log) = try Lower.run(graph, options: options)
    func alphaLoads(_ k: Kernel) -> Int {
      k.loopNests.reduce(0) { n, pass in
        var loads = 0
        pass.program.visitDeep { if case .load(_, 3) = $0.op { loads += 1 } }
        return n + loads
      }
    }
    #expect(kernel.loopNests.count == 3)
    #expect(alphaLoads(general) > 0)
    #expect(alphaLoads(kernel) == 0)
    #expect(log.entries.contains { $0.pass == "constant channels" })
    // Nor does any pass store the alpha plane of its intermediate: nothing reads it.
    for buffer in kernel.inputCount..<kernel.outputBuffer {
      #expect(KernelEmitter.unreadChannels(kernel, buffer) == [3], "b\(buffer)")
      #expect(KernelEmitter.unreadChannels(general, buffer).isEmpty, "b\(buffer)")
    }
    #expect(kernel.loopNests.reduce(0) { $0 + $1.program.liveCount } < general.loopNests.reduce(0) { $0 + $1.program.liveCount })
  }

  /// A wave's alpha is 1 only once the ranges prove its bilinear weights sum
  /// to 1; the aberration then samples that constant bilinearly too, which
  /// takes the ranges again: range simplify and constant channels alternate
  /// until the output's alpha is the constant 1 and the store divides by
  /// nothing (it divided three channels by a computed alpha).
  @Test func aDistortionOfADistortionOfAnOpaqueInputFoldsItsAlpha() throws {
    let graph = try EffectGraph(output: (wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6))(.input()))
    var options = LoweringOptions()
    options.opaqueInputs = [0]
    options.straightAlphaOutput = true
    let (kernel, log) = try Lower.run(graph, options: options)
    let last = try #require(kernel.loopNests.last).program
    #expect(last.constantValue(last.outputs[3]) == .float(1))
    var divisions = 0
    last.visitDeep { if $0.op == .div { divisions += 1 } }
    #expect(divisions == 2, "only the shift's two divisions by the half-diagonal")
    #expect(log.entries.filter { $0.pass == "range simplify" }.count == 2)
  }

  /// `apply(to:)` compiles an opaque image's kernel with its alpha folded, and
  /// gives the pixels of the general kernel.
  @Test func applyFoldsTheAlphaOfAnOpaqueImage() throws {
    let pipeline = try Pipeline(gaussianBlur(sigma: 2) | sepia())
    let input = opaqueImage(20, 11, seed: 3, format: .rgba8)
    let general = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil).run([input])
    let applied = try pipeline.apply(to: input)
    #expect(memcmp(general.data, applied.data, general.byteCount) == 0)
  }
}
