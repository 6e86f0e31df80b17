import FX
import Foundation
import Testing

/// Side effects in every expression position of a loop header, against C++'s
/// sequencing: a condition is evaluated once per check, a step once per
/// iteration. Each shader counts what its loop did into a colour; the counts
/// are worked out by hand (as C++ runs the loop), and the JIT must give the
/// interpreter's bits.
struct MetalSequencingTests {
  static let source = """
    #include <metal_stdlib>
    using namespace metal;

    // j++ < 30 checks j = 0…30: 30 iterations, j = 31 after the last check.
    [[ stitchable ]] half4 postIncrementCondition(float2 position, half4 color) {
      float n = 0;
      for (float j = 0; j++ < 30;) { n += 1; }
      return half4(n / 64, 0, 0, 1);
    }

    // The same in a while loop over an int declared before it: i ends at 11.
    [[ stitchable ]] half4 whileCondition(float2 position, half4 color) {
      int i = 0;
      float n = 0;
      while (i++ < 10) { n += 1; }
      return half4(n / 64, float(i) / 64, 0, 1);
    }

    // ++k < 5 in a do loop: the body runs for k = 0…4 (5 times), k ends at 5.
    [[ stitchable ]] half4 doCondition(float2 position, half4 color) {
      int k = 0;
      float n = 0;
      do { n += 1; } while (++k < 5);
      return half4(n / 64, float(k) / 64, 0, 1);
    }

    // A step with two side effects and a body that changes the counter.
    [[ stitchable ]] half4 stepAndBody(float2 position, half4 color) {
      float n = 0;
      float m = 0;
      for (float x = 0; x < 12; x += 1) { x += 2; n += 1; m = x; }
      return half4(n / 64, m / 64, 0, 1);
    }

    // A condition with a side effect behind a short-circuit: t++ runs only while s < 3.
    [[ stitchable ]] half4 shortCircuitCondition(float2 position, half4 color) {
      int s = 0;
      int t = 0;
      for (int i = 0; i < 8 && (s < 3 || t++ > 100); i++) { s += 1; }
      return half4(float(s) / 64, float(t) / 64, 0, 1);
    }
    """

  /// (function, the colour every pixel gets) as C++ runs each loop.
  static let expected: [(String, SIMD4<Float>)] = [
    ("postIncrementCondition", SIMD4(30.0 / 64, 0, 0, 1)),
    ("whileCondition", SIMD4(10.0 / 64, 11.0 / 64, 0, 1)),
    ("doCondition", SIMD4(5.0 / 64, 5.0 / 64, 0, 1)),
    // x = 0 → 2, step 3; 3 → 5, 6; 6 → 8, 9; 9 → 11, 12: four iterations, m = 11.
    ("stepAndBody", SIMD4(4.0 / 64, 11.0 / 64, 0, 1)),
    // s = 0, 1, 2 pass on s < 3; at s = 3, t++ > 100 fails (t = 1): three iterations.
    ("shortCircuitCondition", SIMD4(3.0 / 64, 1.0 / 64, 0, 1)),
  ]

  @Test(arguments: expected.map(\.0))
  func sideEffectsRunOncePerEvaluation(_ name: String) throws {
    let library = try ShaderLibrary(source: Self.source, path: "sequencing.metal")
    let shader = try library.function(named: name).bind([])
    let want = Self.expected.first { $0.0 == name }!.1
    let input = randomImage(9, 3, seed: 11, format: .rgba32f)
    let (reference, _, difference) = try MetalSupport.run(shader.effect, [input])
    #expect(difference == 0, "\(name): the JIT differs from the interpreter by \(difference)")
    #expect(reference[4, 1] == want, "\(name)")
  }
}

/// A shader whose body cannot be lowered with the arguments given is an
/// error wherever it is built — never the identity effect.
struct MetalFailureTests {
  static let source = """
    [[ stitchable ]] half4 repeated(float2 position, half4 color, float n) {
      half4 c = color;
      for (int i = 0; i < int(n); i++) { c = c * 0.5h + 0.1h; }
      return c;
    }
    """

  @Test func aBodyThatCannotBeLoweredIsAnErrorNotTheIdentity() throws {
    let function = try ShaderLibrary(source: Self.source, path: "failure.metal").function(named: "repeated")
    // 8,000,000 constant iterations: more than a loop may have (Loop.maxLimit).
    #expect(throws: (any Error).self) { try function.bind([.float(8_000_000)]) }
    // The chain's route (EffectSpec.build cannot throw): the graph does, with the diagnostic.
    let effect = function.effectSpec.build([.number(Expr(Float(8_000_000)))])
    do {
      _ = try Pipeline(effect)
      Issue.record("the pipeline was built: the failure became an effect")
    } catch {
      #expect("\(error)".contains("unsupported: a loop of 8000000 iterations"), "\(error)")
    }
    // With a number it can run, the same route gives the shader's own result.
    let ok = function.effectSpec.build([.number(Expr(Float(3)))])
    let pixel = try MetalSupport.pixel(ok, color: SIMD4(0.8, 0.4, 0.2, 1))
    // c ← c/2 + 0.1 three times: 0.8 → 0.5 → 0.35 → 0.275 (alpha 1 → 0.6 → 0.4 → 0.3).
    #expect(abs(pixel.x - 0.275) < 1e-6 && abs(pixel.w - 0.3) < 1e-6, "\(pixel)")
  }
}

/// A loop with a float counter and a variable step (Inferno's variable
/// Gaussian blur: `for (half d = interval; d <= radius; d += interval)`)
/// folds over a bound derived from its start, bound and step — not over the
/// 1,024 capped iterations — and still runs exactly its real iterations
/// (the condition stops it): counted by the shader itself, and the fold's
/// count read from the lowered graph.
struct MetalLoopBoundTests {
  static let source = """
    [[ stitchable ]] half4 steps(float2 position, half4 color, float interval, float radius) {
      float n = 0;
      float last = 0;
      for (half d = interval; d <= radius; d += interval) { n += 1; last = d; }
      return half4(n / 64, last / 64, 0, 1);
    }
    """

  @Test(arguments: [(Float(1), Float(20)), (0.5, 7.25), (3, 2), (0.1, 1)])
  func aVariableStepLoopRunsItsRealCount(interval: Float, radius: Float) throws {
    let function = try ShaderLibrary(source: Self.source, path: "steps.metal").function(named: "steps")
    // C++'s count, by the same float additions.
    var n: Float = 0, last: Float = 0, d = interval
    while d <= radius {
      n += 1
      last = d
      d += interval
    }
    let constant = try function.bind([.float(Expr(interval)), .float(Expr(radius))])
    #expect(constant.warnings.isEmpty, "a bound of constants ≤ 1,024 cuts nothing: \(constant.warnings)")
    let pixel = try MetalSupport.pixel(constant.effect)
    #expect(pixel.x == n / 64 && pixel.y == last / 64, "\(pixel) for \(n) iterations")
    // With uniforms the bound is per run: the fold's count is that expression, not the constant 1,024.
    let uniform = try function.bind([.float(Param.uniform("interval", interval)), .float(Param.uniform("radius", radius))])
    let graph = try Pipeline(uniform.effect).graph
    let counts = graph.stages.flatMap { stage in
      stage.program.nodes.compactMap { node -> NodeID? in
        if case .fold = node.op { return node.args[1] }
        return nil
      }.map { stage.program.constantValue($0) }
    }
    #expect(!counts.isEmpty && counts.allSatisfy { $0 == nil }, "\(counts)")
    let (reference, _, difference) = try MetalSupport.run(uniform.effect, [randomImage(9, 2, seed: 1, format: .rgba32f)])
    #expect(difference == 0 && reference[3, 1].x == n / 64)
  }
}
