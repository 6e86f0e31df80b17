import FX
import Foundation
import Testing

/// Helpers for the Metal front end's tests: fixtures, the pinned target, and
/// running an effect through the interpreter and the JIT.
enum MetalSupport {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/metal")

  /// AVX2 where the host has it, else x86-64-v2: no test depends on the host's vector width.
  static let target = Target.x86Level(1).cannotRun(on: .host) == nil ? Target.x86Level(1) : Target.x86Level(0)

  static func library(_ file: String) throws -> ShaderLibrary {
    try ShaderLibrary(url: fixtures.appendingPathComponent(file))
  }

  /// The largest difference between the interpreter and one JIT-compiled kernel over several input sets.
  static func maxJITDifference(_ effect: Effect, _ inputSets: [[ImageBuffer]]) throws -> Float {
    let pipeline = try Pipeline(effect)
    let compiled = try pipeline.compile(
      inputFormats: inputSets[0].map(\.format), outputFormat: .rgba32f, cache: nil, target: target)
    return try inputSets.map { inputs in
      maxDifference(try Interpreter.runStaged(pipeline.graph, inputs: inputs), try compiled.run(inputs))
    }.max() ?? 0
  }

  /// The interpreter's and the JIT's output of `effect` over `inputs`, and their largest difference.
  static func run(_ effect: Effect, _ inputs: [ImageBuffer]) throws -> (reference: ImageBuffer, jit: ImageBuffer, difference: Float) {
    let pipeline = try Pipeline(effect)
    let reference = try Interpreter.runStaged(pipeline.graph, inputs: inputs)
    let compiled = try pipeline.compile(
      inputFormats: inputs.map(\.format), outputFormat: .rgba32f, cache: nil, target: target)
    let out = try compiled.run(inputs)
    return (reference, out, maxDifference(reference, out))
  }

  /// The pixel at (x, y) of `effect` applied to a constant-color 4×4 image, through the interpreter.
  static func pixel(_ effect: Effect, color: SIMD4<Float> = SIMD4(0.2, 0.4, 0.6, 1), x: Int = 1, y: Int = 2) throws
    -> SIMD4<Float>
  {
    let input = try ImageBuffer(width: 4, height: 4, format: .rgba32f)
    for j in 0..<4 { for i in 0..<4 { input[i, j] = color } }
    let pipeline = try Pipeline(effect)
    return try Interpreter.runStaged(pipeline.graph, inputs: [input])[x, y]
  }
}
