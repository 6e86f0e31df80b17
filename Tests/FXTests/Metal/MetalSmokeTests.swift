import FX
import Foundation
import Testing

/// Small programs with hand-computed results: each construct of the front end
/// gives the value Metal gives.
struct MetalSmokeTests {
  /// The color effect's value at pixel (1, 2) of a constant (0.2, 0.4, 0.6, 1) image.
  func value(_ body: String, params: String = "", _ arguments: [ShaderArgument] = []) throws -> SIMD4<Float> {
    let source = """
      #include <metal_stdlib>
      using namespace metal;
      [[ stitchable ]] half4 f(float2 position, half4 color\(params)) {
      \(body)
      }
      """
    let library = try ShaderLibrary(source: source, path: "f.metal")
    return try MetalSupport.pixel(try library.f.bind(arguments).effect)
  }

  @Test func returnsTheColor() throws {
    #expect(try value("return color;") == SIMD4(0.2, 0.4, 0.6, 1))
  }

  @Test func swizzlesAndConstructors() throws {
    #expect(try value("return half4(color.bgr, 0.5h);") == SIMD4(0.6, 0.4, 0.2, 0.5))
    #expect(try value("half4 c = color; c.rg = c.gr; c.a *= 0.5; return c;") == SIMD4(0.4, 0.2, 0.6, 0.5))
    #expect(try value("return half4(position, 0, 1);") == SIMD4(1.5, 2.5, 0, 1))
  }

  @Test func ifElseAndEarlyReturn() throws {
    #expect(try value("if (position.x > 1.0) { return half4(1); } return half4(0);") == SIMD4(1, 1, 1, 1))
    #expect(
      try value("float v = 0; if (position.y < 2.0) v = 1; else if (position.y < 3.0) v = 2; else v = 3; return half4(v);") == SIMD4(2, 2, 2, 2))
  }

  @Test func integerSemantics() throws {
    #expect(try value("int a = -7; return half4(a / 2, a % 2, 7 / 2, -7 >> 1);") == SIMD4(-3, -1, 3, -4))
    #expect(try value("uint u = 0xFFFFFFFFu; return half4(float(u >> 28), float(u / 0x10000000u), u > 1u ? 1 : 0, 0);") == SIMD4(15, 15, 1, 0))
  }

  @Test func loops() throws {
    #expect(try value("float s = 0; for (int i = 0; i < 4; i++) s += i; return half4(s);") == SIMD4(6, 6, 6, 6))
    #expect(try value("float s = 0; for (int i = 0; i < 10; i++) { if (i == 3) break; s += 1; } return half4(s);") == SIMD4(3, 3, 3, 3))
    #expect(
      try value("float s = 0; for (int i = 0; i < int(position.y); i++) { if (i == 0) continue; s += 10; } return half4(s);") == SIMD4(10, 10, 10, 10)
    )
    #expect(try value("float x = 100; while (x > 1) x *= 0.5; return half4(x);") == SIMD4(0.78125, 0.78125, 0.78125, 0.78125))
    #expect(try value("for (float t = 0.0; t < 1.0; t += 0.25) { if (t > 0.4) return half4(t); } return half4(0);") == SIMD4(0.5, 0.5, 0.5, 0.5))
  }

  @Test func uniformArgument() throws {
    let p = Param.uniform("amount", 0.5)
    #expect(try value("return color * amount;", params: ", float amount", [.float(p)]) == SIMD4(0.1, 0.2, 0.3, 0.5))
  }

  @Test func helpersStructsAndReferences() throws {
    let source = """
      struct P { float2 at; float k; };
      static float twice(float x) { return 2 * x; }
      static void bump(thread float &x, float by) { x += by; }
      static float first(P p) { return p.at.x * p.k; }
      [[ stitchable ]] half4 f(float2 position, half4 color) {
        float v = 1;
        bump(v, 2);
        P p = {float2(3, 4), 0.5};
        p.at.y = twice(p.at.y);
        return half4(v, first(p), p.at.y, twice(0.25));
      }
      """
    let library = try ShaderLibrary(source: source)
    #expect(try MetalSupport.pixel(try library.f().effect) == SIMD4(3, 1.5, 8, 0.5))
  }

  @Test func matricesArraysAndMacros() throws {
    #expect(
      try value("float2x2 m = float2x2(1, 2, 3, 4); float2 v = m * float2(1, 1); float2 w = float2(1, 0) * m; return half4(v, w);")
        == SIMD4(4, 6, 1, 3))
    #expect(
      try value("float a[3] = {10, 20, 30}; int i = int(position.y); a[i - 1] += 5; return half4(a[0], a[1], a[2], a[i]);") == SIMD4(10, 25, 30, 30))
    let macros = """
      #define SCALE(x, k) ((x) * (k))
      #ifdef SCALE
      #define ON 1
      #endif
      #if ON > 2
      #error not taken
      #endif
      """
    let source = macros + "\n[[ stitchable ]] half4 f(float2 position, half4 color) { return half4(SCALE(position.x, 2), ON, 0, 1); }"
    #expect(try MetalSupport.pixel(try ShaderLibrary(source: source).f().effect) == SIMD4(3, 1, 0, 1))
  }

  @Test func selectTernaryAndBuiltins() throws {
    #expect(try value("return select(half4(0), half4(1), bool4(true, false, true, false));") == SIMD4(1, 0, 1, 0))
    #expect(try value("return half4(position.x > 1 ? 1 : 2, sign(-3.0), fmod(-5.5, 2.0), round(-2.5));") == SIMD4(1, -1, -1.5, -3))
    #expect(try value("return half4(min3(3, 1, 2), max3(3.0, 1.0, 2.0), clamp(5, 0, 3), step(0.5, 0.7));") == SIMD4(1, 3, 3, 1))
  }

  @Test func arrayArguments() throws {
    let source = """
      [[ stitchable ]] half4 f(float2 position, half4 color, device const float *w, int n, device const half4 *c, int m) {
        float s = 0;
        for (int i = 0; i < n; i++) s += w[i];
        return half4(s, float(n), c[m - 1].r, c[0].a);
      }
      """
    let shader = try ShaderLibrary(source: source).f(.floatArray([1, 2, 4]), .colorArray([Color(1, 1, 1), Color(1, 0, 0, 0.5)]))
    #expect(try MetalSupport.pixel(shader.effect) == SIMD4(7, 3, 0.5, 1))
  }
}

/// Positional arguments in a chain fill one Metal parameter each, as
/// SwiftUI's `ShaderLibrary` binds them: a `float2` takes `auto` by position
/// and its lanes by name; a `float3` only by its lanes (found by a new user:
/// `ripple(auto, 1, 6, 8)` put 1 and 6 in the size's lanes and 8 in `time`).
@Suite struct MetalPositionalArgumentTests {
  static let source = """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] float2 ripple(float2 position, float2 size, float time, float amplitude, float frequency) {
      return position + float2(0, amplitude * sin(time + frequency * position.x / size.x));
    }
    [[ stitchable ]] half4 tint(float2 position, half4 color, float3 gain, float mix) {
      return half4(color.rgb * half3(gain) * half(mix), color.a);
    }
    """

  func call(_ chain: String) throws -> ResolvedChain.Call {
    let registry = try EffectRegistry.builtIn.adding(try ShaderLibrary(source: Self.source))
    return try ChainSyntax.parse(chain).resolve(registry: registry).calls[0]
  }

  func value(_ call: ResolvedChain.Call, _ name: String) -> Float? {
    call.spec.parameters.firstIndex { $0.name == name }.map { call.params[$0].value }
  }

  @Test func eachPositionFillsOneMetalParameter() throws {
    let ripple = try call("ripple(auto, 1, 6, 8)")
    #expect(value(ripple, "time") == 1 && value(ripple, "amplitude") == 6 && value(ripple, "frequency") == 8)
    guard case .choice("auto") = ripple.arguments[0] else {
      Issue.record("size is \(ripple.arguments[0])")
      return
    }
    // The same by name, lanes included.
    let named = try call("ripple(size_x: 640, size_y: 427, time: 1, amplitude: 6, frequency: 8)")
    #expect(value(named, "size_x") == 640 && value(named, "frequency") == 8)
    // tint's color is the pixel's (a color effect): its parameters are gain (float3) and mix.
    let tint = try call("tint(gain_x: 1, gain_y: 0.5, gain_z: 0.25, mix: 0.8)")
    #expect(value(tint, "gain_y") == 0.5 && value(tint, "mix") == Float(0.8))
  }

  @Test func whatAPositionCannotSayIsAnError() throws {
    #expect(throws: ChainSyntaxError.self) { try call("ripple(auto, 1, 6, 8, 9)") }  // too many
    #expect(throws: ChainSyntaxError.self) { try call("ripple(640, 1, 6, 8)") }  // a float2 by position is auto
    do {
      _ = try call("tint(1, 0.8)")
      Issue.record("a float3 by position was accepted")
    } catch {
      #expect("\(error)".contains("cannot be given by position: name its lanes"), "\(error)")
    }
  }
}
