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

  static let derivativeSource = """
    [[ stitchable ]] half4 slopes(float2 position, half4 color) {
      float v = position.x * position.x;
      return half4(dfdx(v) / 64, dfdy(position.y * 3) / 8, fwidth(position.x + 2 * position.y) / 8, 1);
    }
    [[ stitchable ]] half4 edges(float2 position, half4 color) {
      return half4(abs(dfdx(color.rgb)), 1);
    }
    [[ stitchable ]] half4 looped(float2 position, half4 color, float n) {
      float s = 0;
      for (int i = 0; i < int(n); i++) { s += position.x; }
      return half4(dfdx(s), 0, 0, 1);
    }
    [[ stitchable ]] half4 inside(float2 position, half4 color) {
      float s = 0;
      float d = 0;
      for (int i = 0; i < 3; i++) { s += position.x; d += dfdx(s); }
      return half4(d, 0, 0, 1);
    }
    """

  /// C's typedef'd structs and enums, C++'s scoped enums.
  static let typeSource = """
    typedef struct { float gain; float2 offset; } Params;
    typedef struct Tagged { float a; } Tagged_t;
    enum Mode { Darken, Lighten = 3, Invert };
    enum class Channel : uint { Red, Green, Blue };
    typedef enum { Low = 1, High } Level;

    [[ stitchable ]] half4 typed(float2 position, half4 color) {
      Params p = Params{0.5, float2(1, 2)};
      Tagged_t t;
      t.a = 0.25;
      Tagged u = t;
      Mode m = Invert;
      Channel c = Channel::Blue;
      Level l = High;
      float picked = 0;
      switch (m) {
        case Darken: picked = 1; break;
        case Invert: picked = 7; break;
        default: picked = 9;
      }
      float v = p.gain * p.offset.y + u.a * float(m) + float(uint(c)) * 0.125 + float(l);
      return half4(v, float(Lighten) + float(Mode::Darken), picked, 1);
    }

    [[ stitchable ]] half4 unscoped(float2 position, half4 color) {
      return half4(float(Blue), 0, 0, 1);
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

  /// By hand: p.gain·p.offset.y + u.a·Invert + Blue·0.125 + High = 0.5·2 + 0.25·4 + 2·0.125 + 2 = 4.25;
  /// Lighten + Darken = 3; the switch takes `case Invert`.
  @Test func typedefStructsAndEnums() throws {
    let library = try ShaderLibrary(source: Self.typeSource, path: "types.metal")
    let shader = try library.function(named: "typed").bind([])
    #expect(try MetalSupport.pixel(shader.effect, color: Self.color) == SIMD4(4.25, 3, 7, 1))
    #expect(try MetalSupport.run(shader.effect, [randomImage(8, 3, seed: 2, format: .rgba32f)]).difference == 0)
    // A scoped enum's enumerators are named through it only.
    #expect(throws: MetalDiagnostic.self) { try library.function(named: "unscoped").bind([]) }
  }

  /// Coarse 2 × 2-quad derivatives by hand: in the quad whose top-left pixel
  /// centre is q = (2⌊i/2⌋ + ½, 2⌊j/2⌋ + ½), dfdx(x²) = (qx + 1)² − qx² =
  /// 2·qx + 1, dfdy(3y) = 3, fwidth(x + 2y) = 1 + 2; a colour's dfdx is its
  /// right quad neighbour's minus the quad's left one. JIT = interpreter.
  @Test func derivativesHaveTheQuadMeaning() throws {
    let library = try ShaderLibrary(source: Self.derivativeSource, path: "derivatives.metal")
    let input = randomImage(9, 5, seed: 21, format: .rgba32f)
    let (slopes, _, d1) = try MetalSupport.run(library.function(named: "slopes").bind([]).effect, [input])
    #expect(d1 == 0)
    for j in 0..<5 {
      for i in 0..<9 {
        let qx = Float(2 * (i / 2)) + 0.5
        #expect(slopes[i, j] == SIMD4((2 * qx + 1) / 64, 3.0 / 8, 3.0 / 8, 1), "(\(i), \(j))")
      }
    }
    let (edges, _, d2) = try MetalSupport.run(library.function(named: "edges").bind([]).effect, [input])
    #expect(d2 == 0)
    for j in 0..<5 {
      for i in 0..<8 {
        let left = input[2 * (i / 2), 2 * (j / 2)], right = input[2 * (i / 2) + 1, 2 * (j / 2)]
        let expected = (right - left).replacing(with: left - right, where: right .< left)
        #expect(abs(edges[i, j].x - expected.x) < 1e-6 && abs(edges[i, j].z - expected.z) < 1e-6, "(\(i), \(j))")
      }
    }
    // A loop's value: the loop runs again at the neighbour (s = n·x, so dfdx(s) = n), with a uniform count too.
    for n in [ShaderArgument.float(3), .float(Param.uniform("n", 3))] {
      let (looped, _, d3) = try MetalSupport.run(library.function(named: "looped").bind([n]).effect, [input])
      #expect(d3 == 0 && looped[3, 2].x == 3 && looped[4, 1].x == 3, "\(looped[3, 2])")
    }
    // Inside the loop, of a value the loop carries: refused, naming the construct.
    #expect(throws: MetalDiagnostic.self) { try library.function(named: "inside").bind([]) }
  }
}
