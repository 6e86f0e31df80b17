import FX
import Foundation
import Testing

/// The constructs of Fixtures/metal/coverage.metal, which public shaders use:
/// each function's pixel computed by hand, and every function JIT-compiled
/// against the interpreter; the two that do not compile are listed with their
/// diagnostics while the rest of the file loads.
struct MetalCoverageTests {
  static let library = Result { try MetalSupport.library("coverage.metal") }

  static let arguments: [String: [ShaderArgument]] = [
    "simdAliases": [], "defaults": [.float(0.5)], "templates": [], "outParameters": [], "moreMath": [], "sizes": [], "braces": [],
    "samplers": [.image(.input(1)), .size], "valueTemplates": [],
  ]

  /// The pixel at (1, 2) of a constant (0.2, 0.4, 0.6, 1) image, worked out by hand.
  static let expected: [String: SIMD4<Float>] = [
    "simdAliases": SIMD4(0.2, 0.3, 0.5, 1),  // position (1.5, 2.5) · 2 / 10
    "defaults": SIMD4(0.7, 0.9, 0.6, 0.5),  // 0.2·3 + 0.1, 0.4·2 + 0.1, 0.6·1 + 0
    "templates": SIMD4(0.5, 0.5, 1, 1),  // mod((1.5, 2.5), 1), mod(3, 2)
    "outParameters": SIMD4(0.75, 0.5, 0.75, 0.75),  // modf(2.75) = 0.75 + 2; modf(-1.25) = -0.25 + -1; modf(3.5) = 0.5 + 3
    "moreMath": SIMD4(1, 0.5, 0.8, 0.75),  // 1 − 1 + 1; 0.5 + 0.25 − 0.25; 0.3 + 0.5; 0.375·2
    "sizes": SIMD4(0.75, 0.5, 1, 0.5),  // 3 levels summing to 1.5; sizeof float3 = 16, Padded = 32, half2 = 4
    "braces": SIMD4(0.45, 0.4, 0.5, 1),  // Pair{1, 2}, {0.2, 0.4}, float2{0.25, 0.5}
    "valueTemplates": SIMD4(0.5, 0.3, 0.6, 0.75),  // 4 · 0.125; (0.1, 0.2) · 3; 1 · 3 / 4 + 0 taps
  ]

  @Test func theFileLoadsWithoutItsBrokenFunctions() throws {
    let library = try Self.library.get()
    #expect(Set(library.functions.map(\.name)) == Set(Self.arguments.keys))
    #expect(library.unavailable.map(\.name) == ["rotation", "reinterpreted"])
    let rotation = library.unavailable[0].diagnostic
    #expect(rotation.line == 100 && rotation.message == "a stitchable function's first parameter must be 'float2 position'")
    #expect(library.unavailable[1].diagnostic.message.hasPrefix("unsupported: as_type<half4> of half4; "))
    #expect(throws: MetalDiagnostic.self) { try library.function(named: "reinterpreted") }
    do {
      _ = try library.function(named: "rotation")
    } catch let d as MetalDiagnostic {
      #expect(d == rotation)
    }
  }

  @Test(arguments: expected.keys.sorted())
  func handComputed(_ name: String) throws {
    let shader = try Self.library.get().function(named: name).bind(Self.arguments[name]!)
    let p = try MetalSupport.pixel(shader.effect)
    let e = p - Self.expected[name]!
    #expect(Swift.max(-e.min(), e.max()) <= 1e-5, "\(name): \(p)")
  }

  @Test(arguments: arguments.keys.sorted())
  func jitMatchesInterpreter(_ name: String) throws {
    let shader = try Self.library.get().function(named: name).bind(Self.arguments[name]!)
    let count = name == "samplers" ? 2 : 1
    let sets = [(1, 1), (7, 3), (17, 9)].map { w, h in
      [randomImage(w, h, seed: UInt64(w * 5 + h), format: .rgba32f), randomImage(5, 4, seed: 3, format: .rgba32f)].prefix(count)
    }
    let d = try MetalSupport.maxJITDifference(shader.effect, sets.map(Array.init))
    #expect(d <= 1e-4, "\(name): max difference \(d)")
  }

  @Test func aStructSizeFollowsMetalsAlignment() throws {
    let source = """
      struct S { half h; float3 v; };
      constant uint n = sizeof(S) + sizeof(float2x3) + sizeof(bool);
      [[ stitchable ]] half4 f(float2 position, half4 color) { return half4(float(n) / 128); }
      """
    let f = try ShaderLibrary(source: source).function(named: "f").bind([])
    #expect(try MetalSupport.pixel(f.effect).x == Float(32 + 32 + 1) / 128)
  }
}
