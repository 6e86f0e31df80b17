/// A loop of the IR (DESIGN §2, amended 2026-12-01): a fold of ``body`` over
/// an integer range, the one construct behind reductions of every size — a
/// blur's sum of taps, a minimum over a window, a shader's `for` loop.
///
/// A node `fold(loop, result: k)` has the operands
/// `(lo, hi, initial₀ … initialₙ₋₁, captured₀ … capturedₘ₋₁)`: two ints, one
/// initial value per accumulator, one value per capture. Its meaning
/// (``Semantics/loopRange(_:_:limit:)``):
///
/// ```
/// acc = initial
/// for i in max(lo, −limit) ..< min(hi, limit + 1)   // ascending, in order
///   if let e = exit, acc[e] { break }                // a loop with an exit
///   acc = body(i, acc, captured)
/// result = acc[k]
/// ```
///
/// A loop with an ``exit`` (a bool accumulator: a `while` loop's condition,
/// a `break`) stops before the first iteration at which it is true: the
/// iterations after it do not run, so they cost nothing.
///
/// The index never leaves `−limit…limit`, whatever the bounds: ``limit`` is
/// the loop's declared maximum (a blur's largest radius), so the work per
/// pixel is bounded and the analyses know how far the body's taps reach.
///
/// The body is a ``Program`` of its own whose outputs are the accumulators'
/// next values. It reads the index (`loopIndex`), the accumulators
/// (`loopAccumulator(k)`), the captured values (`loopCapture(k)`, values of
/// the enclosing program) and the built-ins of the current pixel directly
/// (`position`, `pixelX`, `size`, uniforms); a body may contain loops.
/// Nodes with the same loop and operands are one loop: evaluated once for all
/// their results.
public final class Loop: Hashable, Sendable, CustomStringConvertible {
  public let body: Program
  /// The kinds of the accumulators (and of the body's outputs).
  public let accumulators: [ScalarKind]
  /// The kinds of the captured values.
  public let captures: [ScalarKind]
  /// The index's declared maximum magnitude, at most ``maxLimit``.
  public let limit: Int32
  /// The accumulator (a bool) that ends the loop when it is true before an
  /// iteration, or nil for a loop that runs its whole range.
  public let exit: Int?
  private let hash: Int

  /// The largest ``limit``: `float(i)` is exact and `i + 0.5` too, for every index.
  public static let maxLimit: Int32 = 1 << 22

  public init(body: Program, accumulators: [ScalarKind], captures: [ScalarKind], limit: Int32, exit: Int? = nil) {
    self.body = body
    self.accumulators = accumulators
    self.captures = captures
    self.limit = Swift.min(Swift.max(limit, 0), Self.maxLimit)
    self.exit = exit
    var h = Hasher()
    h.combine(body)
    h.combine(accumulators)
    h.combine(captures)
    h.combine(self.limit)
    h.combine(exit)
    hash = h.finalize()
  }

  public static func == (a: Loop, b: Loop) -> Bool {
    a === b
      || (a.hash == b.hash && a.limit == b.limit && a.exit == b.exit && a.accumulators == b.accumulators
        && a.captures == b.captures && a.body == b.body)
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(hash) }

  /// The operand kinds a fold of this loop takes.
  public var operandKinds: [ScalarKind] { [.int, .int] + accumulators + captures }

  /// Index of the first initial value and of the first capture among a fold's operands.
  public var firstInitial: Int { 2 }
  public var firstCapture: Int { 2 + accumulators.count }

  /// This loop with another body (same accumulators, captures, limit and exit).
  public func with(body: Program) -> Loop {
    Loop(body: body, accumulators: accumulators, captures: captures, limit: limit, exit: exit)
  }

  /// Checks the body: it verifies, reads accumulators and captures that exist
  /// with their kinds, and returns one value of each accumulator's kind.
  public func verify() -> String? {
    if let e = body.verify(inLoop: self) { return "loop body: \(e)" }
    if let exit, accumulators.indices.contains(exit) ? accumulators[exit] != .bool : true {
      return "loop exit: accumulator \(exit) is not a bool"
    }
    guard body.outputs.map({ body[$0].kind }) == accumulators else {
      return
        "loop body returns (\(body.outputs.map { body[$0].kind.description }.joined(separator: ", "))), accumulators are (\(accumulators.map(\.description).joined(separator: ", ")))"
    }
    return nil
  }

  public var description: String {
    "loop(index −\(limit)…\(limit), accumulators (\(accumulators.map(\.description).joined(separator: ", "))), captures (\(captures.map(\.description).joined(separator: ", ")))\(exit.map { ", exit when accumulator \($0)" } ?? ""))"
  }
}

extension Semantics {
  /// The indices a loop with `limit` runs for bounds `lo..<hi`, ascending:
  /// `max(lo, −limit) ..< min(hi, limit + 1)`, empty when that is.
  @inlinable public static func loopRange(_ lo: Int32, _ hi: Int32, limit: Int32) -> Range<Int32> {
    let start = Swift.max(lo, -limit)
    let end = Swift.min(hi, limit + 1)
    return start..<Swift.max(start, end)
  }
}

extension Program {
  /// Calls `visit` for every live node of this program and, depth first, of
  /// the bodies of the loops it contains (each distinct body once).
  public func visitDeep(_ visit: (Node) -> Void) {
    var seen = Set<ObjectIdentifier>()
    func walk(_ p: Program) {
      let live = p.live()
      for (i, n) in p.nodes.enumerated() where live[i] {
        visit(n)
        if case .fold(let loop, _) = n.op, seen.insert(ObjectIdentifier(loop)).inserted { walk(loop.body) }
      }
    }
    walk(self)
  }

  /// Whether some live node here or in a loop body satisfies `test`.
  public func containsDeep(_ test: (Op) -> Bool) -> Bool {
    var found = false
    visitDeep { if !found, test($0.op) { found = true } }
    return found
  }

  /// Whether the program contains a loop.
  public var hasLoops: Bool { nodes.contains { if case .fold = $0.op { true } else { false } } }

  /// The program with every op rewritten by `f`, in loop bodies too (a
  /// fold's loop gets its rewritten body); operands unchanged.
  public func mapOpsDeep(_ f: (Op) -> Op) -> Program {
    var out = Program()
    var map = [NodeID](repeating: NodeID(0), count: count)
    var bodies: [ObjectIdentifier: Loop] = [:]
    let live = live()
    for (i, n) in nodes.enumerated() where live[i] {
      var op = f(n.op)
      if case .fold(let loop, let k) = op {
        let mapped = bodies[ObjectIdentifier(loop)] ?? loop.with(body: loop.body.mapOpsDeep(f))
        bodies[ObjectIdentifier(loop)] = mapped
        op = .fold(mapped, result: k)
      }
      map[i] = out.add(op, n.args.map { map[Int($0.index)] })
    }
    out.outputs = outputs.map { map[Int($0.index)] }
    return out
  }
}
