import FX
import Foundation
import Testing

/// The project's own Metal re-expressions of the seed shaders
/// (examples/shaders/seeds.metal) against the catalogue's IR versions: the
/// same pixels within 1e-4 on float output, interpreted and JIT-compiled.
struct MetalSeedTests {
  static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../examples/shaders/seeds.metal").standardizedFileURL

  func compare(_ metal: Effect, _ catalogue: Effect, _ inputs: [ImageBuffer]) throws {
    let a = try MetalSupport.run(metal, inputs)
    let b = try MetalSupport.run(catalogue, inputs)
    #expect(a.difference <= 1e-4, "Metal: JIT against the interpreter: \(a.difference)")
    let d = maxDifference(a.reference, b.reference)
    #expect(d <= 1e-4, "Metal against the catalogue: \(d)")
    #expect(maxDifference(a.jit, b.jit) <= 1e-4)
  }

  @Test(arguments: [(1, 7), (0.5, 12), (0, 9)] as [(Float, Float)])
  func pixelate(amount: Float, blockSize: Float) throws {
    let shaders = try ShaderLibrary(url: Self.seeds)
    let metal = try shaders.pixelateBlocks(.float(Expr(amount)), .float(Expr(blockSize)), .size)
    let input = randomImage(37, 23, seed: 3, format: .rgba32f)
    try compare(metal.effect, FX.pixelate(amount: Expr(amount), blockSize: Expr(blockSize)), [input])
  }

  @Test(arguments: [0.0, 0.3, 0.7, 1.0] as [Float])
  func dissolve(progress: Float) throws {
    let shaders = try ShaderLibrary(url: Self.seeds)
    let orange = Color(rgb: 0xff8000)
    let metal = try shaders.dissolveBurn(.float(Expr(progress)), .float(9), .color(orange), .image(.input(1)))
    let inputs = [randomImage(41, 29, seed: 4, format: .rgba32f), randomImage(41, 29, seed: 5, format: .rgba32f)]
    try compare(metal.effect, FX.dissolve(progress: Expr(progress), grain: 9, edge: orange), inputs)
  }

  @Test func domainWarpOverANoiseImage() throws {
    let shaders = try ShaderLibrary(url: Self.seeds)
    let metal = try shaders.domainWarpNoise(.size, .image(.input(1)), .float(60), .float(1.5))
    let inputs = [randomImage(40, 30, seed: 6, format: .rgba32f), randomImage(17, 13, seed: 7, format: .rgba32f)]
    try compare(metal.effect, FX.domainWarp(noise: .input(1), strength: 60, time: 1.5), inputs)
  }

  /// A uniform argument: one kernel, and every value gives the constant's pixels.
  @Test func uniformProgress() throws {
    let shaders = try ShaderLibrary(url: Self.seeds)
    let progress = Param.uniform("progress", 0.4)
    let orange = Color(rgb: 0xff8000)
    let metal = try shaders.dissolveBurn(.float(progress), .float(9), .color(orange), .image(.input(1)))
    let inputs = [randomImage(21, 9, seed: 4, format: .rgba32f), randomImage(21, 9, seed: 5, format: .rgba32f)]
    let pipeline = try Pipeline(metal.effect)
    let compiled = try pipeline.compile(inputFormats: [.rgba32f, .rgba32f], outputFormat: .rgba32f, cache: nil, target: MetalSupport.target)
    for value: Float in [0.1, 0.6] {
      let out = try compiled.run(inputs, uniforms: [progress: value])
      let constant = try MetalSupport.run(FX.dissolve(progress: Expr(value), grain: 9, edge: orange), inputs)
      #expect(maxDifference(out, constant.reference) <= 1e-4, "progress \(value)")
    }
  }
}
