import FX
import Foundation
import Testing

/// Loops that may be cut off at their iteration limit warn, and the cut is
/// what the documentation says: the iterations past the limit do not run.
struct MetalWarningTests {
  static let source = """
    #include <metal_stdlib>
    using namespace metal;
    // Counts to `target` one at a time: a general loop, cut at 1,024 iterations.
    [[ stitchable ]] half4 countTo(float2 position, half4 color, float target) {
      int n = 0;
      while (float(n) < target) { n++; }
      return half4(float(n) / 4096.0, color.g, color.b, color.a);
    }
    // A counted loop over an argument: exact for a constant, at most 65,536 iterations for a uniform.
    [[ stitchable ]] half4 sumTo(float2 position, half4 color, float count) {
      float s = 0.0;
      for (int i = 0; i < int(count); i++) { s += 1.0; }
      return half4(s / 131072.0, color.g, color.b, color.a);
    }

    """

  @Test func theLibraryWarnsOfLoopsWithoutACountedForm() throws {
    let library = try ShaderLibrary(source: Self.source, path: "loops.metal")
    #expect(
      library.warnings.map(\.description) == [
        """
        loops.metal:6:3: warning: this 'while' loop runs at most 1,024 iterations: it has no constant trip count \
        and is not a counted loop (for (int i = a; i < n; i++)); later iterations are cut off
          while (float(n) < target) { n++; }
          ^
        """
      ])
  }

  @Test func aCountedLoopWarnsOnlyForANonConstantBound() throws {
    let library = try ShaderLibrary(source: Self.source, path: "loops.metal")
    #expect(try library.sumTo(.float(10)).warnings.isEmpty)
    let uniform = try library.sumTo(.float(Param.uniform("count", 10))).warnings
    #expect(uniform.map { "\($0.line):\($0.column) \($0.severity)" } == ["12:3 warning"])
    #expect(uniform.first?.message.hasPrefix("this 'for' loop runs at most 65,536 iterations: its bound is not a constant") == true)
  }

  /// A bound computed from constants (`min(int(n), 8)`, `sizeof(a) / sizeof(a[0])`) is a constant
  /// trip count: exact, no warning; from a uniform it is not.
  @Test func aBoundFoldedFromConstantsIsExact() throws {
    let source = """
      constant float weights[] = { 0.25, 0.5, 0.125 };
      [[ stitchable ]] half4 f(float2 position, half4 color, float n) {
        float s = 0.0;
        for (int i = 0; i < min(int(n), 8); i++) { s += 0.0625; }
        int count = sizeof(weights) / sizeof(weights[0]);
        for (int k = 0; k < count; k++) { s += weights[k]; }
        return half4(s, color.g, color.b, 1.0);
      }
      """
    let library = try ShaderLibrary(source: source, path: "folded.metal")
    #expect(library.warnings.isEmpty, "\(library.warnings)")
    let shader = try library.f(.float(Expr(Float(20))))
    #expect(shader.warnings.isEmpty)
    #expect(abs(try MetalSupport.pixel(shader.effect).x - (0.5 + 0.875)) <= 1e-6)
    #expect(try library.f(.float(Param.uniform("n", 20))).warnings.map(\.line) == [4])
  }

  /// `while` past 1,024 stops at 1,024, in the interpreter and the JIT alike.
  @Test func theCutOffIsTheDocumentedLimit() throws {
    let library = try ShaderLibrary(source: Self.source, path: "loops.metal")
    for (target, expected) in [(Float(700), Float(700)), (3000, 1024)] {
      let effect = try library.countTo(.float(Expr(target))).effect
      let input = try ImageBuffer(width: 9, height: 3, format: .rgba32f)
      let (reference, jit, difference) = try MetalSupport.run(effect, [input])
      #expect(difference <= 1e-6)
      #expect(abs(reference[4, 1].x - expected / 4096) <= 1e-6, "\(target)")
      #expect(abs(jit[8, 2].x - expected / 4096) <= 1e-6, "\(target)")
    }
  }
}
