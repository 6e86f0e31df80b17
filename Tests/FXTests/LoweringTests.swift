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
