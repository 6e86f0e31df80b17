import FX
import Foundation
import Testing

/// Constructs public shaders use that fxc once refused or ignored: default
/// arguments in the signature, truncating vector constructors, a variable
/// named like a template type. Each is worked out by hand.
struct MetalLanguageTests {
  static let source = """
    #include <metal_stdlib>
    using namespace metal;

    [[ stitchable ]] half4 windy(float2 position, half4 color, float strength = 0.25, half4 tint = half4(0.5, 0, 0, 0.5)) {
      return color * strength + tint;
    }

    [[ stitchable ]] half4 truncated(float2 position, half4 color) {
      half3 rgb = half3(color);            // the first three lanes
      float2 rg = float2(float4(rgb, 1));  // and two of those
      return half4(rg.y, rg.x, rgb.z, 1);
    }

    [[ stitchable ]] half4 named(float2 position, half4 color) {
      float matrix = 2;
      float vec = matrix * 3;
      matrix<float, 2, 2> m = matrix<float, 2, 2>(1.0);
      return half4(color.rgb * (vec - matrix) * m[1][1], 1);
    }
    """

  static let library = Result { try ShaderLibrary(source: source, path: "language.metal") }
  static let color = SIMD4<Float>(0.2, 0.4, 0.6, 1)

  @Test func defaultsFromTheSignature() throws {
    let function = try Self.library.get().function(named: "windy")
    #expect(function.parameters.map(\.defaultValue) == [[0.25], [0.5, 0, 0, 0.5]])
    // No arguments: both defaults. One: the tint's default.
    let both = try MetalSupport.pixel(function.bind([]).effect, color: Self.color)
    #expect(both == Self.color * 0.25 + SIMD4(0.5, 0, 0, 0.5))
    let one = try MetalSupport.pixel(function.bind([.float(1)]).effect, color: Self.color)
    #expect(one == Self.color + SIMD4(0.5, 0, 0, 0.5))
    // A chain that names nothing gets the signature's values too.
    let parameters = function.effectSpec.parameters
    #expect(parameters.first { $0.name == "strength" }?.defaultValue == 0.25)
  }

  @Test func truncatingConstructorsKeepTheFirstLanes() throws {
    let shader = try Self.library.get().function(named: "truncated").bind([])
    #expect(try MetalSupport.pixel(shader.effect, color: Self.color) == SIMD4(0.4, 0.2, 0.6, 1))
  }

  @Test func variablesNamedLikeTemplateTypes() throws {
    let shader = try Self.library.get().function(named: "named").bind([])
    // vec − matrix = 6 − 2 = 4; the identity's m[1][1] = 1.
    #expect(try MetalSupport.pixel(shader.effect, color: Self.color) == SIMD4(0.8, 1.6, 2.4, 1))
  }
}
