import FX
import Testing

// Every catalogue entry, JIT-compiled, against the staged interpreter (the
// oracle, DESIGN §4): with constant arguments (the defaults and the contact
// sheet's example) and with every number parameter made a uniform, on small
// images whose widths straddle the vector width. None may fall back to the
// interpreter.

/// The entry's effect as the sheet's example chain builds it.
private func example(_ spec: EffectSpec) throws -> Effect {
  try ChainSyntax.parse(spec.example).resolve().effect
}

/// One random input per graph input (input 1 of a transition is the "to" image).
private func inputs(for graph: EffectGraph, _ w: Int, _ h: Int, seed: UInt64) -> [ImageBuffer] {
  graph.inputs.indices.map { randomImage(w, h, seed: seed &+ UInt64($0) &* 977, format: .rgba32f) }
}

/// JIT output against the staged interpreter for `effect` (geometry stages
/// included), with `uniforms` values for its uniforms.
private func expectJITMatches(
  _ effect: Effect, _ label: String, uniforms: [Param: Float] = [:],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  let pipeline = try Pipeline(effect)
  let graph = pipeline.graph
  let compiled = try pipeline.compile(
    inputFormats: Array(repeating: .rgba32f, count: graph.inputs.count), outputFormat: .rgba32f)
  #expect(compiled.backend == .jit, "\(label): fell back to the interpreter", sourceLocation: sourceLocation)
  let w = Pipeline.hostVectorWidth
  for (width, height) in [(1, 1), (w + 3, 5), (23, 17), (67, 29)] {
    let images = inputs(for: graph, width, height, seed: UInt64(width * 31 + height))
    let reference = try Interpreter.runStaged(pipeline.pipelineGraph(for: .rgba32f), inputs: images, uniforms: uniforms)
    let out = try compiled.run(images, uniforms: uniforms)
    let d = maxDifference(reference, out)
    #expect(d <= 1e-4, "\(label) \(width)×\(height): max difference \(d)", sourceLocation: sourceLocation)
  }
}

/// The relaxed float mode (DESIGN §4) against the staged interpreter, on 8-bit
/// images (where unorm loads let the range analysis license fma, reciprocals
/// and reassociation): within 1 level, as DESIGN §4 allows.
private func expectRelaxedWithinALevel(
  _ effect: Effect, _ label: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  var pipeline = try Pipeline(effect)
  pipeline.floatMode = .relaxed
  let graph = pipeline.graph
  let compiled = try pipeline.compile(inputFormats: Array(repeating: .rgba8, count: graph.inputs.count), outputFormat: .rgba8, cache: nil)
  #expect(compiled.backend == .jit, "\(label): fell back to the interpreter", sourceLocation: sourceLocation)
  for (width, height) in [(Pipeline.hostVectorWidth + 3, 5), (41, 23)] {
    let images = graph.inputs.indices.map { randomImage(width, height, seed: UInt64(width + 7 * $0), format: .rgba8) }
    let reference = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: images).copy(as: .rgba8)
    let d = maxDifference(reference, try compiled.run(images))
    #expect(d <= 1.0 / 255 + 1e-6, "\(label) \(width)×\(height): max difference \(d * 255) levels", sourceLocation: sourceLocation)
  }
}

@Suite struct EffectCatalogueTests {
  @Test(arguments: Catalogue.names)
  func relaxedIsWithinALevelOfTheInterpreter(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    try expectRelaxedWithinALevel(spec.makeDefault(), "\(name) defaults")
    if spec.example != spec.name { try expectRelaxedWithinALevel(try example(spec), spec.example) }
  }

  @Test func relaxedCodeCarriesTheFlagsAndStrictCodeNone() throws {
    var pipeline = try Pipeline(sepia() | vignette() | gaussianBlur(sigma: 2))
    let strict = try pipeline.compile(cache: nil).dumpNative().ir
    pipeline.floatMode = .relaxed
    let relaxed = try pipeline.compile(cache: nil).dumpNative().ir
    #expect(!strict.contains("reassoc") && !strict.contains("contract"))
    #expect(relaxed.contains("contract"), "fma contraction licensed on the proved-finite arithmetic")
  }

  @Test func catalogueHasAtLeast45Effects() {
    #expect(Catalogue.effects.count >= 45)
    #expect(Set(Catalogue.names).count == Catalogue.effects.count)
    let transitions = Catalogue.effects.filter(\.isTransition).map(\.name)
    for name in ["dissolve", "fade", "wipe", "pixelateTransition", "swirlTransition"] {
      #expect(transitions.contains(name), "\(name) is a transition")
    }
  }

  @Test(arguments: Catalogue.names)
  func jitMatchesInterpreter(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    try expectJITMatches(spec.makeDefault(), "\(name) defaults")
    if spec.example != spec.name { try expectJITMatches(try example(spec), spec.example) }
    // Every number that may be a uniform made one, set away from its default.
    let uniformNames = Set(spec.parameters.filter(\.allowsUniform).map { "\(name).\($0.name)" })
    guard !uniformNames.isEmpty else { return }
    let chain = try ChainSyntax.parse(name).resolve(uniforms: uniformNames)
    var values: [Param: Float] = [:]
    for u in chain.uniforms {
      let r = u.parameter.range
      values[u.param] = u.param.value + (r.upperBound - u.param.value) * 0.3
    }
    try expectJITMatches(chain.effect, "\(name) with uniforms", uniforms: values)
  }

  @Test(arguments: Catalogue.effects.filter(\.isTransition).map(\.name))
  func transitionsReadTheSecondInput(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    let graph = try EffectGraph(output: spec.makeDefault()(.input()))
    #expect(graph.inputs.count == 2, "\(name) reads input 1 as its 'to' image")
    #expect(spec.parameters.first?.name == "progress" && spec.parameters.first?.allowsUniform == true)
  }
}
