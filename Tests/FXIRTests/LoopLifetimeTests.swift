import FXIR
import Testing

@testable import FXDSL

/// A fold's nodes are freed with the last expression that reads its result
/// (issue 16: LeakSanitizer found every fold leaked, because a loop and its
/// index and accumulator placeholders held each other strongly).
@Suite struct LoopLifetimeTests {
  /// The loop behind a fold result.
  static func loop(of result: Expr) -> LoopNode? {
    if case .foldResult(let loop, _) = result.node.kind { return loop }
    return nil
  }

  @Test func aFoldIsFreedWithItsResult() {
    weak var loop: LoopNode?
    weak var index: ExprNode?
    do {
      let results = Expr.fold(from: 0, to: 4, limit: 4, initial: [Expr(Float(0))]) { i, acc in [acc[0] + float(i)] }
      loop = Self.loop(of: results[0])
      index = loop?.index
      #expect(loop != nil && index != nil)
    }
    #expect(loop == nil)
    #expect(index == nil)
  }

  @Test func aSumIsFreedWithItsResult() {
    weak var loop: LoopNode?
    weak var accumulator: ExprNode?
    do {
      let total = Expr.sum(from: -2, to: 3, limit: 2) { i in float(i) * 2 }
      loop = Self.loop(of: total)
      accumulator = loop?.accumulators.first
      #expect(loop != nil && accumulator != nil)
    }
    #expect(loop == nil)
    #expect(accumulator == nil)
  }

  @Test func anIndexThatOutlivesItsLoopIsAnErrorNotACrash() {
    // The placeholder's link to its loop is weak: once the loop is gone the
    // index belongs to no loop, and the graph check says where it went wrong.
    var escaped: Expr?
    _ = Expr.sum(from: 0, to: 2, limit: 2) { i in
      escaped = i
      return float(i)
    }
    let out = Effect.color("escapedIndex") { _, _ in float4(float(escaped!), 0, 0, 1) }(Image.input())
    #expect(throws: GraphError.self) { try EffectGraph(output: out) }
  }
}
