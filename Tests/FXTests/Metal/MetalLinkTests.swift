import FX
import Foundation
import Testing

/// What public shader collections needed that fxc refused (issue 35's trial
/// of 15 collections, 337 stitchable functions): functions declared in a
/// shared header and defined in another `.metal` file (Xcode links a target's
/// files into one library), default arguments given on a prototype, `auto`
/// variables, a type alias as a texture's element type, and a loop counter
/// passed by value to a helper (a counted loop, not a warning). Each value
/// is worked out by hand.
struct MetalLinkTests {
  /// A scratch directory holding `files`.
  static func directory(_ files: [String: String]) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fxc-link-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
    return dir
  }

  static let header = """
    float twice(float x);
    float ring(float r, float width = 0.25);
    """

  static let helpers = """
    #include "helpers.h"
    constant float scale = 2;
    float twice(float x) { return x * scale; }
    float ring(float r, float width) { return r + width; }
    [[ stitchable ]] half4 helperEffect(float2 position, half4 color) { return half4(0, 0, 0, 1); }
    """

  static let effect = """
    #include "helpers.h"
    [[ stitchable ]] half4 linked(float2 position, half4 color) {
      return half4(twice(0.125), ring(0.25), 0, 1);
    }
    """

  /// `linked` calls `twice` and `ring`, declared in the header and defined in
  /// helpers.metal with a constant of that file: 0.125·2 = 0.25, and ring's
  /// default width from the prototype, 0.25 + 0.25 = 0.5. Alone, effect.metal
  /// names what is missing.
  @Test func aFunctionDefinedInAnotherFileIsLinked() throws {
    let dir = try Self.directory(["helpers.h": Self.header, "helpers.metal": Self.helpers, "effect.metal": Self.effect])
    defer { try? FileManager.default.removeItem(at: dir) }
    let library = try ShaderLibrary(urls: [dir.appendingPathComponent("effect.metal"), dir.appendingPathComponent("helpers.metal")])
    #expect(library.functions.map(\.name).sorted() == ["helperEffect", "linked"])
    let pixel = try MetalSupport.pixel(try library.function(named: "linked").bind([]).effect)
    #expect(pixel == SIMD4(0.25, 0.5, 0, 1), "\(pixel)")
    let alone = try ShaderLibrary(url: dir.appendingPathComponent("effect.metal"))
    #expect(alone.functions.isEmpty)
    #expect(alone.unavailable.first.map { "\($0.diagnostic)".contains("'twice' is declared but not defined") } == true)
    // Two files defining one stitchable function is an error, as Xcode's linker makes it.
    let twice = try Self.directory([
      "a.metal": Self.effect.replacingOccurrences(
        of: "#include \"helpers.h\"", with: "float twice(float x) { return x; } float ring(float r, float w = 0) { return r; }"),
      "b.metal": Self.effect,
    ])
    defer { try? FileManager.default.removeItem(at: twice) }
    #expect(throws: MetalDiagnostic.self) {
      try ShaderLibrary(urls: [twice.appendingPathComponent("a.metal"), twice.appendingPathComponent("b.metal")])
    }
  }

  static let constructs = """
    using f16 = half;
    float ring(float2 uv, float r, float smooth = 0.5);
    float ring(float2 uv, float r, float smooth) { return r + smooth; }
    float h(float p) { return p * 0.5; }

    [[ stitchable ]] half4 deduced(float2 position, half4 color, texture2d<f16> tex) {
      const auto a = float2(1, 2) * 0.25;
      auto n = 3;
      float c = 0;
      for (int i = 0; i < 4; i++) { c += h(i); }
      return half4(a.x, a.y + float(n), ring(a, 0.25) + c, 1);
    }
    """

  /// `auto a` is a float2 (0.25, 0.5) and `auto n` an int (3); ring takes its
  /// default 0.5 from the prototype (0.25 + 0.5), plus Σ h(i) for i < 4 = 3.
  /// The loop passes its counter to a helper by value: a counted loop, no warning.
  @Test func autoDefaultsFromAPrototypeAndATextureAlias() throws {
    let library = try ShaderLibrary(source: Self.constructs, path: "constructs.metal")
    #expect(library.warnings.isEmpty, "\(library.warnings)")
    let shader = try library.function(named: "deduced").bind([.image(.input(1))])
    #expect(shader.warnings.isEmpty)
    let input = randomImage(4, 4, seed: 1, format: .rgba32f)
    let (out, _, difference) = try MetalSupport.run(shader.effect, [input])  // the texture is never read
    #expect(difference == 0)
    #expect(out[1, 1] == SIMD4(0.25, 3.5, 3.75, 1), "\(out[1, 1])")
  }
}
