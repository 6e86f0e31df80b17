import FX
import FXTestSupport
import Foundation
import Testing

/// Shaders in the idioms of public SwiftUI collections (Fixtures/metal/idioms.metal,
/// fxc's own code), in a file that also holds a vertex and a fragment function:
/// the stitchable ones load, and each runs JIT against the interpreter.
struct MetalIdiomTests {
  static let arguments: [String: [ShaderArgument]] = [
    "checkers": [.float(4), .color(Color(1, 0, 0))],
    "staticNoise": [.float(Param.uniform("time", 1))],
    "wobble": [.float(0.5), .size],
    "emboss": [.float(2)],
    "rainbow": [.float(0.25)],
    "spiral": [.size, .float(0.3), .color(Color(0, 0, 0)), .color(Color(1, 1, 1))],
    "bloom": [.float(3), .float(0.6)],
    "steps": [.float(4)],
  ]

  @Test func onlyStitchableFunctionsLoad() throws {
    let library = try MetalSupport.library("idioms.metal")
    #expect(Set(library.functions.map(\.name)) == Set(Self.arguments.keys))
  }

  @Test(arguments: arguments.keys.sorted())
  func jitMatchesInterpreter(_ name: String) throws {
    let shader = try MetalSupport.library("idioms.metal").function(named: name).bind(Self.arguments[name]!)
    let sets = [(9, 5), (33, 7)].map { w, h in [randomImage(w, h, seed: UInt64(w + h), format: .rgba32f)] }
    let d = try MetalSupport.maxJITDifference(shader.effect, sets)
    #expect(d <= 1e-4, "\(name): \(d)")
  }

  /// ShaderFuzz's cases for `wobble(float time, float2 size)`, which declares
  /// no defaults: 0, 1 and two random draws, each as constants and as
  /// uniforms, and once with the layer's size: 9; each binds and agrees.
  @Test func shaderFuzzDrawsEveryParameter() throws {
    let library = try MetalSupport.library("idioms.metal")
    let cases = ShaderFuzz.cases(library, seed: 5).filter { $0.function == "wobble" }
    #expect(cases.count == 9)
    #expect(cases.filter(\.uniform).count == 4 && cases.filter(\.size).count == 1)
    #expect(cases.contains { $0.values == [[0], [0, 0]] } && cases.contains { $0.values == [[1], [1, 1]] })
    let inputs = CatalogueFuzz.inputs(seed: 5)
    for c in cases { #expect(ShaderFuzz.check(c, library: library, inputs: inputs, evaluations: [.lowered, .jit]) == nil, "\(c)") }
  }

  /// `checkers` by hand: cells of 2 px; where the cell coordinates xor to odd, the new color (premultiplied) times alpha.
  @Test func checkersByHand() throws {
    let shader = try MetalSupport.library("idioms.metal").checkers(.float(2), .color(Color(1, 0, 0, 0.5)))
    #expect(try MetalSupport.pixel(shader.effect, x: 1, y: 1) == SIMD4(0, 0, 0, 0))
    #expect(try MetalSupport.pixel(shader.effect, x: 2, y: 1) == SIMD4(0.5, 0, 0, 0.5))
  }
}
