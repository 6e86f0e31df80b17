import FX
import Testing

/// Effects a program adds to a registry are known to chains resolved
/// against it, with their parameters checked as the built-in ones are.
struct CatalogueRegistrationTests {
  /// `out = in · gain`, the gain a number parameter in 0…4.
  static let scale = EffectSpec(
    name: "registrationTestScale", kind: .color, summary: "Multiplies the color by a gain.",
    parameters: [.number("gain", 1, 0...4, "the factor")]
  ) { values in
    let gain = values.number(0)
    return Effect.color("registrationTestScale") { _, c in c * gain }
  }

  @Test func registeredEffectResolvesInAChain() throws {
    var registry = EffectRegistry.builtIn
    try registry.register(Self.scale)
    #expect(registry.spec(named: "registrationTestScale") != nil)
    #expect(EffectRegistry.builtIn.spec(named: "registrationTestScale") == nil && Catalogue.spec(named: "registrationTestScale") == nil)
    #expect(throws: ChainSyntaxError.self) { try ChainSyntax.parse("registrationTestScale").resolve() }
    let chain = try ChainSyntax.parse("registrationTestScale(gain: 0.5) | sepia(amount: 0)").resolve(registry: registry)
    let image = try ImageBuffer(width: 3, height: 1, format: .rgba32f)
    image[0, 0] = SIMD4(0.8, 0.4, 0.2, 1)
    let out = try Pipeline(chain.effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, backend: .interpreter, cache: nil)
      .run([image])
    // By hand: 0.5 · (0.8, 0.4, 0.2, 1); sepia at amount 0 leaves it.
    #expect(out[0, 0] == SIMD4(0.4, 0.2, 0.1, 0.5))
    // Its range is checked like a built-in parameter's.
    #expect(throws: ChainSyntaxError.self) { try ChainSyntax.parse("registrationTestScale(gain: 9)").resolve(registry: registry) }
    // A name can be registered once, and never a built-in's.
    #expect(throws: CatalogueError.self) { try registry.register(Self.scale) }
    var sepia = Self.scale
    sepia.name = "sepia"
    #expect(throws: CatalogueError.self) { try registry.register(sepia) }
    var bad = Self.scale
    bad.name = "two words"
    #expect(throws: CatalogueError.self) { try registry.register(bad) }
  }
}
