import FXIR

/// A loop of the front end: its bounds, limit and initial values, and the
/// body's results, which read the loop's index and accumulator placeholders.
final class LoopNode {
  let lo: ExprNode
  let hi: ExprNode
  let limit: Int32
  /// The accumulator (a bool) whose truth ends the loop before an iteration (``Loop/exit``).
  var exit: Int?
  /// The accumulators' initial values (``Expr/sum(from:to:limit:file:line:_:)``
  /// sets them once the body's type is known).
  var initial: [ExprNode]
  /// The accumulators' next values (set once the body has been built).
  var results: [ExprNode] = []
  /// The index and accumulator placeholders, in the order the body reads them.
  var index: ExprNode!
  var accumulators: [ExprNode] = []

  init(lo: ExprNode, hi: ExprNode, limit: Int32, initial: [ExprNode]) {
    self.lo = lo
    self.hi = hi
    self.limit = limit
    self.initial = initial
  }
}

/// A placeholder's link to its loop. It is weak because the loop holds its
/// placeholders: with strong links both ways every fold was a reference
/// cycle, and nothing a loop reached was ever freed (LeakSanitizer, issue 16).
/// A placeholder that outlives its loop belongs to no loop, so lowering
/// reports it as used outside its body.
struct LoopLink {
  weak var loop: LoopNode?

  init(_ loop: LoopNode) { self.loop = loop }
}

extension Expr {
  /// A fold over the integers `lo ..< hi` (DESIGN §2's loop; the IR's ``Loop``):
  /// `acc = initial; for i in lo..<hi { acc = body(i, acc) }`, in ascending
  /// order, and the final accumulators are returned (one per initial value,
  /// each of its type).
  ///
  /// - Parameters:
  ///   - lo, hi: int bounds (floats are truncated toward zero, as `int(x)`):
  ///     constants, uniforms or per-pixel values. An empty range returns `initial`.
  ///   - limit: the declared maximum magnitude of the index, 0…2²²: the index
  ///     only takes values in `−limit…limit`, whatever the bounds (the loop
  ///     runs `max(lo, −limit) ..< min(hi, limit + 1)`), so a pixel's work and
  ///     the reach of its samples are bounded.
  ///   - exit: the index of an accumulator of type bool, or nil: the loop
  ///     stops before the first iteration at which it is true (``Loop/exit``),
  ///     so a `while` loop's condition or a `break` costs no further iterations.
  ///   - body: the next accumulators from the index (int) and the accumulators.
  /// - Returns: the final accumulators; invalid values (reported when the graph
  ///   is checked) when `body` returns the wrong number or types of values, or
  ///   `exit` names no bool accumulator.
  public static func fold(
    from lo: Expr, to hi: Expr, limit: Int, initial: [Expr], exit: Int? = nil, file: String = #fileID, line: Int = #line,
    _ body: (_ index: Expr, _ accumulators: [Expr]) -> [Expr]
  ) -> [Expr] {
    let location = CodeLocation(file: file, line: line)
    if let e = ([lo, hi] + initial).lazy.compactMap(\.node.error).first { return initial.map { _ in Expr(.invalid(e), .float) } }
    guard (0...Int(Loop.maxLimit)).contains(limit) else {
      return initial.map { _ in .invalid("fold: limit \(limit) is outside 0…\(Loop.maxLimit)", location) }
    }
    if let exit, !initial.indices.contains(exit) || initial[exit].type != .bool {
      return initial.map { _ in .invalid("fold: exit \(exit) is not the index of a bool accumulator", location) }
    }
    let loop = LoopNode(lo: FXDSL.int(lo).node, hi: FXDSL.int(hi).node, limit: Int32(limit), initial: initial.map(\.node))
    loop.exit = exit
    loop.index = ExprNode(.loopIndex(LoopLink(loop)), .int)
    loop.accumulators = initial.enumerated().map { ExprNode(.loopAccumulator(LoopLink(loop), $0.offset), $0.element.type) }
    let next = body(Expr(loop.index), loop.accumulators.map(Expr.init))
    guard next.count == initial.count else {
      return initial.map { _ in .invalid("fold: the body returns \(next.count) values for \(initial.count) accumulators", location) }
    }
    for (k, (n, i)) in zip(next, initial).enumerated() {
      if let e = n.node.error { return initial.map { _ in Expr(.invalid(e), .float) } }
      guard n.type == i.type else {
        return initial.map { _ in .invalid("fold: accumulator \(k) is \(i.type), the body returns \(n.type)", location) }
      }
    }
    loop.results = next.map { $0.node }
    return initial.indices.map { Expr(.foldResult(loop, $0), initial[$0].type) }
  }

  /// `Σ body(i)` for `i` in `lo ..< hi` (at most `−limit…limit`, see
  /// ``fold(from:to:limit:initial:file:line:_:)``), summed in ascending order
  /// from 0 of the body's type. The body is built once; its type gives the zero.
  public static func sum(
    from lo: Expr, to hi: Expr, limit: Int, file: String = #fileID, line: Int = #line, _ body: (_ index: Expr) -> Expr
  ) -> Expr {
    let location = CodeLocation(file: file, line: line)
    if let e = [lo, hi].lazy.compactMap(\.node.error).first { return Expr(.invalid(e), .float) }
    guard (0...Int(Loop.maxLimit)).contains(limit) else { return .invalid("sum: limit \(limit) is outside 0…\(Loop.maxLimit)", location) }
    let loop = LoopNode(lo: FXDSL.int(lo).node, hi: FXDSL.int(hi).node, limit: Int32(limit), initial: [])
    loop.index = ExprNode(.loopIndex(LoopLink(loop)), .int)
    let term = body(Expr(loop.index))
    if let e = term.node.error { return Expr(.invalid(e), .float) }
    let zero = term.type.scalar == .int ? Expr.int(0) : Expr(Float(0))
    let zeros = term.type.lanes == 1 ? zero : Expr(.vector(Array(repeating: zero.node, count: term.type.lanes)), term.type)
    let accumulator = ExprNode(.loopAccumulator(LoopLink(loop), 0), term.type)
    let next = Expr(accumulator) + term
    if let e = next.node.error { return Expr(.invalid(e), .float) }
    loop.initial = [zeros.node]
    loop.accumulators = [accumulator]
    loop.results = [next.node]
    return Expr(.foldResult(loop, 0), term.type)
  }
}
