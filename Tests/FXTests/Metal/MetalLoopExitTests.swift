import FX
import Foundation
import Testing

/// Loops of every form run their real trip count, not their limit: a `while`
/// loop, a `do` loop, a counted loop that `break`s, a `return` from a loop,
/// a loop inside an `if` that some pixels skip, a nested loop. The IR loop
/// exits (``Loop/exit``) when a pixel's condition fails; the interpreter
/// counts the iterations the pixels ran (nothing is timed), and each count
/// is worked out per pixel as C++ runs the loop, with the same float
/// operations. An iteration is one check of a `while` or `for` condition
/// (the last, failing, check included) with the body when it holds; a
/// counted loop's range is its condition, checked by the loop itself. Before loops had exits, every one of these ran 1,024 (or its
/// bound's) iterations per pixel. The JIT must give the interpreter's bits.
struct MetalLoopExitTests {
  static let source = """
    #include <metal_stdlib>
    using namespace metal;

    // Halving until at most 1: ⌈log₂ x⌉ iterations, x from the pixel.
    [[ stitchable ]] half4 halving(float2 position, half4 color) {
      float x = position.x * 37 + position.y * 5;
      float n = 0;
      while (x > 1) { x *= 0.5; n += 1; }
      return half4(n / 64, x, 0, 1);
    }

    // A counted loop of 500 that breaks once the sum passes the pixel's target.
    [[ stitchable ]] half4 breaking(float2 position, half4 color) {
      float target = position.x * 3 + position.y;
      float sum = 0;
      float n = 0;
      for (int i = 0; i < 500; i++) {
        if (sum > target) break;
        sum += 1.5;
        n += 1;
      }
      return half4(n / 64, sum / 64, 0, 1);
    }

    // A return from inside a loop: the pixel's function ends there.
    [[ stitchable ]] half4 returning(float2 position, half4 color) {
      int k = int(position.x) + 2 * int(position.y);
      for (int i = 0; i < 900; i++) {
        if (i >= k) return half4(float(i) / 64, 0, 1, 1);
      }
      return half4(1, 1, 1, 1);
    }

    // A loop inside an if: the pixels for which it does not run stop at once.
    [[ stitchable ]] half4 guarded(float2 position, half4 color) {
      float n = 0;
      if (position.x < 3) {
        for (float t = 0; t < position.y * 4; t += 0.5) { n += 1; }
      }
      return half4(n / 64, 0, 0, 1);
    }

    // A do loop and, inside it, a while loop that breaks.
    [[ stitchable ]] half4 nested(float2 position, half4 color) {
      float outer = 0;
      float inner = 0;
      float a = position.x;
      do {
        float b = 0;
        while (true) {
          if (b >= a) break;
          b += 1;
          inner += 1;
        }
        a -= 1;
        outer += 1;
      } while (a > 0);
      return half4(outer / 64, inner / 64, 0, 1);
    }
    """

  /// Each function's iterations at one pixel (centre `p`), and the colour it returns, by C++'s rules.
  static func expected(_ name: String, _ p: SIMD2<Float>) -> (iterations: Int, colour: SIMD4<Float>) {
    switch name {
    case "halving":
      var x = p.x * 37 + p.y * 5, n: Float = 0
      while x > 1 {
        x *= 0.5
        n += 1
      }
      return (Int(n) + 1, SIMD4(n / 64, x, 0, 1))
    case "breaking":
      let target = p.x * 3 + p.y
      var sum: Float = 0, n: Float = 0, iterations = 0
      for _ in 0..<500 {
        iterations += 1
        if sum > target { break }
        sum += 1.5
        n += 1
      }
      return (iterations, SIMD4(n / 64, sum / 64, 0, 1))
    case "returning":
      let k = Int(p.x) + 2 * Int(p.y)
      return (k + 1, SIMD4(Float(k) / 64, 0, 1, 1))
    case "guarded":
      guard p.x < 3 else { return (0, SIMD4(0, 0, 0, 1)) }
      var t: Float = 0, n: Float = 0
      while t < p.y * 4 {
        n += 1
        t += 0.5
      }
      return (Int(n) + 1, SIMD4(n / 64, 0, 0, 1))
    default:
      // nested: the do loop's iterations, and the while loop's (each counting the iteration that breaks).
      var outer: Float = 0, inner: Float = 0, a = p.x, iterations = 0
      repeat {
        iterations += 1
        var b: Float = 0
        while true {
          iterations += 1
          if b >= a { break }
          b += 1
          inner += 1
        }
        a -= 1
        outer += 1
      } while a > 0
      return (iterations, SIMD4(outer / 64, inner / 64, 0, 1))
    }
  }

  @Test(arguments: ["halving", "breaking", "returning", "guarded", "nested"])
  func aLoopRunsItsRealIterations(name: String) throws {
    let function = try ShaderLibrary(source: Self.source, path: "exits.metal").function(named: name)
    let effect = try function.bind([]).effect
    let (w, h) = (8, 3)
    let input = randomImage(w, h, seed: 3, format: .rgba32f)
    let graph = try Pipeline(effect).graph
    let counter = LoopIterations()
    let out = try Interpreter.runStaged(graph, inputs: [input], loopIterations: counter)
    var total = 0
    for y in 0..<h {
      for x in 0..<w {
        let (n, colour) = Self.expected(name, SIMD2(Float(x) + 0.5, Float(y) + 0.5))
        total += n
        #expect(out[x, y] == colour, "\(name) at (\(x), \(y))")
      }
    }
    #expect(counter.count == total, "\(name): \(counter.count) iterations run, \(total) by C++'s rules")
    let (_, _, difference) = try MetalSupport.run(effect, [input])
    #expect(difference == 0, "\(name): the JIT differs from the interpreter by \(difference)")
  }

  /// The IR's exit is kept where it can act and dropped where it cannot: a
  /// loop without `break`, `return` or a condition of its own (a counted loop
  /// at top level) has no exit once simplified, so its kernel is the one it
  /// was before loops had exits.
  @Test func aCountedLoopWithoutBreakHasNoExitLeft() throws {
    let source = """
      [[ stitchable ]] half4 sum(float2 position, half4 color, float n) {
        float s = 0;
        for (int i = 0; i < int(n); i++) { s += color.r; }
        return half4(s / 64, 0, 0, 1);
      }
      """
    let function = try ShaderLibrary(source: source, path: "sum.metal").function(named: "sum")
    let effect = try function.bind([.float(Param.uniform("n", 5))]).effect
    let (kernel, _) = try Pipeline(effect).lower()
    let loops = kernel.loopNests.flatMap { nest in
      nest.program.nodes.compactMap { node -> Loop? in
        if case .fold(let loop, _) = node.op { return loop }
        return nil
      }
    }
    #expect(!loops.isEmpty, "the loop is still a loop")
    #expect(loops.allSatisfy { $0.exit == nil }, "\(loops)")
    // The same loop with a break keeps its exit.
    let breaking = source.replacingOccurrences(of: "s += color.r;", with: "s += color.r; if (s > 2) break;")
    let other = try ShaderLibrary(source: breaking, path: "sum.metal").function(named: "sum")
    let (kept, _) = try Pipeline(try other.bind([.float(Param.uniform("n", 5))]).effect).lower()
    let exits = kept.loopNests.flatMap { nest in
      nest.program.nodes.compactMap { node -> Int? in
        if case .fold(let loop, _) = node.op { return loop.exit }
        return nil
      }
    }
    #expect(!exits.isEmpty, "a loop that breaks keeps its exit")
  }
}
