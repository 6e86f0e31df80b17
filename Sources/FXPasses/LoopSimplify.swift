import FXIR

/// Simplification of loops (``Loop``), part of ``Simplify``'s sweep: each
/// group of folds of one loop with the same operands is rewritten once.
///
/// - The body is simplified as a program of its own (nested loops too).
/// - An empty constant range gives the initial values.
/// - **Constant evaluation:** an accumulator whose value depends only on
///   constants — constant bounds and initial value, and a body cone of pure
///   ops over the index, constant captures and such accumulators — is
///   computed at compile time by ``Semantics`` (the interpreter's meaning, in
///   order), up to ``maxEvaluatedIterations`` iterations. A Gaussian's weight
///   total with a constant σ becomes a constant, and so does its alpha on an
///   opaque input.
/// - **Tabulation:** such an accumulator that the loop's other work reads
///   (a Gaussian's weight, a recurrence `w ← w·r`, `r ← r·q`) is read from a
///   ``ConstantTable`` of its per-iteration values instead (up to
///   ``maxTabulatedIterations``): the same bits, and the recurrence — a
///   chain of multiplications per iteration, repeated for every pixel —
///   leaves the loop.
/// - **Unrolling:** a loop of at most ``maxUnrolledIterations`` constant
///   iterations without nested loops is unrolled (a visible rule in `fxc dump`).
/// - **Dead accumulators:** those no kept result reads, directly or through
///   other kept accumulators' updates, are dropped from the loop.
/// - **Exits** (``Loop/exit``): one that can never be true (false at first,
///   and the update keeps it or sets false) is dropped; one computed from
///   constants alone becomes the loop's upper bound. A loop that still has an
///   exit keeps its exit accumulator, and its results are never constants
///   (where it stops depends on the pixel); unrolled, each copy of the body
///   takes effect only where the exit is false.
enum LoopSimplify {
  /// The most iterations constant evaluation runs.
  static let maxEvaluatedIterations = 1 << 16
  /// Loops of at most this many iterations (constant bounds, no nested loop)
  /// are unrolled: their body copied per iteration into the enclosing program.
  static let maxUnrolledIterations = 2
  /// The name of the unrolling rule in ``Simplify/Stats/byRule``.
  static let unrolledRule = "loops of ≤ \(maxUnrolledIterations) iterations unrolled"
  /// The most iterations whose per-iteration constants are tabulated.
  static let maxTabulatedIterations = 4096

  struct Key: Hashable {
    var loop: Loop
    var args: [NodeID]
  }

  /// A loop group after rewriting: each result is a node of the output
  /// program (a constant or initial value) or result `k` of the new fold.
  struct Rewritten {
    var results: [Int: NodeID] = [:]
  }

  /// For each group of folds in `p` (by loop and operands of `p`), the results that live nodes read.
  static func usedResults(_ p: Program, live: [Bool]) -> [Key: Set<Int>] {
    var used: [Key: Set<Int>] = [:]
    for (i, n) in p.nodes.enumerated() where live[i] {
      if case .fold(let loop, let k) = n.op { used[Key(loop: loop, args: n.args), default: []].insert(k) }
    }
    return used
  }

  /// The rewritten group of `loop` with operands `args` (nodes of `out`), whose results `used` are read.
  static func rewrite(
    _ loop: Loop, _ args: [NodeID], used: Set<Int>, _ out: inout Program, _ stats: inout Simplify.Stats, _ bodies: inout [Loop: Program]
  ) -> Rewritten {
    var r = Rewritten()
    var body = bodies[loop] ?? Simplify.run(loop.body).0
    bodies[loop] = body
    let initial = Array(args[loop.firstInitial..<loop.firstCapture]), captures = Array(args[loop.firstCapture...])
    var range: Range<Int32>?
    if case .int(let a)? = out.constantValue(args[0]), case .int(let b)? = out.constantValue(args[1]) {
      range = Semantics.loopRange(a, b, limit: loop.limit)
    }
    var hi = args[1]
    let exit = simplifyExit(loop, body, initial: initial, captures: captures, range: &range, hi: &hi, &out, &stats)
    if let range, range.isEmpty {
      for k in used.sorted() { r.results[k] = initial[k] }
      stats.byRule["empty loop → initial values", default: 0] += 1
      return r
    }
    if let range, range.count <= maxUnrolledIterations, !body.hasLoops {
      stats.byRule[unrolledRule, default: 0] += 1
      let values = unroll(body, range, initial: initial, captures: captures, exit: exit, &out)
      for k in used.sorted() { r.results[k] = values[k] }
      return r
    }
    var reads = accumulatorReads(body)
    var constant = Set<Int>()
    if let range, range.count <= maxEvaluatedIterations {
      constant = evaluable(body, reads, initial: initial.map { out.constantValue($0) }, captures: captures.map { out.constantValue($0) })
      // Values of constants alone that the loop's other work reads each iteration: tabulated.
      let tabulated =
        range.count <= maxTabulatedIterations ? tabulable(body, constant, captures: captures.map { out.constantValue($0) }) : []
      if !constant.isEmpty,
        let (values, traces, _) = evaluate(
          body, constant, range, initial: initial.map { out.constantValue($0) }, captures: captures.map { out.constantValue($0) },
          tracing: tabulated)
      {
        // With an exit, the final values depend on where each pixel stops: only the tables are kept.
        if exit != nil { constant = [] }
        for k in used.sorted() where constant.contains(k) { r.results[k] = out.add(.constant(values[k]!)) }
        if used.contains(where: constant.contains) { stats.byRule["loop accumulators of constants evaluated", default: 0] += 1 }
        if !tabulated.isEmpty {
          body = tabulate(body, traces.mapValues { ConstantTable(first: range.lowerBound, values: $0) })
          reads = accumulatorReads(body)
          stats.byRule["loop constants tabulated", default: 0] += 1
        }
      } else {
        constant = []
      }
    }
    // The accumulators still computed: the used ones not evaluated, and what their updates read.
    var keep = Set(used.subtracting(constant))
    if let exit, !keep.isEmpty { keep.insert(exit) }
    var stack = Array(keep)
    while let k = stack.popLast() {
      for j in reads[k] where keep.insert(j).inserted { stack.append(j) }
    }
    guard !keep.isEmpty else { return r }
    let kept = keep.sorted()
    var number: [Int: Int] = [:]
    for (n, k) in kept.enumerated() { number[k] = n }
    var trimmed = body
    trimmed.outputs = kept.map { body.outputs[$0] }
    let newBody = trimmed.mapOpsShallow { op in
      if case .loopAccumulator(let k, let kind) = op, let n = number[k] { return .loopAccumulator(n, kind) }
      return op
    }
    if kept.count < loop.accumulators.count { stats.byRule["dead loop accumulators dropped", default: 0] += 1 }
    let newLoop = Loop(
      body: newBody, accumulators: kept.map { loop.accumulators[$0] }, captures: loop.captures, limit: loop.limit,
      exit: exit.map { number[$0]! })
    let newArgs = [args[0], hi] + kept.map { initial[$0] } + captures
    for k in used.sorted() where r.results[k] == nil { r.results[k] = out.add(.fold(newLoop, result: number[k]!), newArgs) }
    return r
  }

  /// The final accumulators of `body` run over `range`, its nodes copied into
  /// `out` once per iteration (the index a constant): the same ops in the
  /// same order as the loop, so the same values. With an `exit`, each
  /// iteration's values take effect only where the exit accumulator was false.
  static func unroll(
    _ body: Program, _ range: Range<Int32>, initial: [NodeID], captures: [NodeID], exit: Int?, _ out: inout Program
  ) -> [NodeID] {
    var acc = initial
    let live = body.live()
    for index in range {
      var map = [NodeID](repeating: NodeID(0), count: body.count)
      for (i, n) in body.nodes.enumerated() where live[i] {
        switch n.op {
        case .loopIndex: map[i] = out.add(.constant(.int(index)))
        case .loopAccumulator(let k, _): map[i] = acc[k]
        case .loopCapture(let k, _): map[i] = captures[k]
        default: map[i] = out.add(n.op, n.args.map { map[Int($0.index)] })
        }
      }
      let next = body.outputs.map { map[Int($0.index)] }
      if let exit {
        let stopped = acc[exit]
        acc = zip(next, acc).map { new, old in out.add(.select, [stopped, old, new]) }
      } else {
        acc = next
      }
    }
    return acc
  }

  /// The loop's exit after simplification: nil when it can never be true,
  /// or when it is computed from constants alone — then every pixel stops at
  /// the same index, which becomes the loop's end (`range` and `hi` updated).
  static func simplifyExit(
    _ loop: Loop, _ body: Program, initial: [NodeID], captures: [NodeID], range: inout Range<Int32>?, hi: inout NodeID,
    _ out: inout Program, _ stats: inout Simplify.Stats
  ) -> Int? {
    guard let e = loop.exit else { return nil }
    if neverTrue(body, e, initial: out.constantValue(initial[e])) {
      stats.byRule["loop exits never taken dropped", default: 0] += 1
      return nil
    }
    if let whole = range, whole.count <= maxEvaluatedIterations,
      let stop = constantExit(body, e, whole, initial: initial.map { out.constantValue($0) }, captures: captures.map { out.constantValue($0) })
    {
      hi = out.add(.constant(.int(stop)))
      range = whole.lowerBound..<stop
      stats.byRule["loop exits of constants made bounds", default: 0] += 1
      return nil
    }
    return e
  }

  /// Whether exit accumulator `e` is false at first (`initial`) and its
  /// update is the accumulator itself or the constant false: then it is
  /// never true.
  static func neverTrue(_ body: Program, _ e: Int, initial: Scalar?) -> Bool {
    guard case .bool(false)? = initial else { return false }
    let update = body[body.outputs[e]].op
    return update == .loopAccumulator(e, .bool) || update == .constant(.bool(false))
  }

  /// Where a loop over constant `range` stops when its exit accumulator `e`
  /// is computed from constants alone (``evaluable(_:_:initial:captures:)``):
  /// the first index at which it is true before the iteration, or the
  /// range's end. Nil when it is not computable.
  static func constantExit(_ body: Program, _ e: Int, _ range: Range<Int32>, initial: [Scalar?], captures: [Scalar?]) -> Int32? {
    let set = evaluable(body, accumulatorReads(body), initial: initial, captures: captures)
    guard set.contains(e) else { return nil }
    return evaluate(body, set, range, initial: initial, captures: captures, exit: e)?.stop
  }

  /// For each accumulator, the accumulators its update reads (at the body's own level).
  static func accumulatorReads(_ body: Program) -> [Set<Int>] {
    var reads = [Set<Int>](repeating: [], count: body.count)
    for (i, n) in body.nodes.enumerated() {
      if case .loopAccumulator(let k, _) = n.op { reads[i] = [k] }
      for a in n.args { reads[i].formUnion(reads[Int(a.index)]) }
    }
    return body.outputs.map { reads[Int($0.index)] }
  }

  /// The accumulators computable at compile time: constant initial value,
  /// and an update of pure ops over the index, constants, constant captures
  /// and other such accumulators.
  static func evaluable(_ body: Program, _ reads: [Set<Int>], initial: [Scalar?], captures: [Scalar?]) -> Set<Int> {
    var pure = [Bool](repeating: false, count: body.count)
    for (i, n) in body.nodes.enumerated() {
      let leaf: Bool
      switch n.op {
      case .constant, .loopIndex, .loopAccumulator: leaf = true
      case .loopCapture(let k, _): leaf = captures[k] != nil
      default: leaf = n.op.isPure
      }
      pure[i] = leaf && n.args.allSatisfy { pure[Int($0.index)] }
    }
    var set = Set(body.outputs.indices.filter { pure[Int(body.outputs[$0].index)] && initial[$0] != nil })
    while true {
      let next = set.filter { reads[$0].isSubset(of: set) }
      if next == set { return set }
      set = next
    }
  }

  /// The body nodes worth a table: float or int values computed from
  /// accumulators in `constant` (and constants, the index, constant captures) alone,
  /// read by work that is not — a Gaussian's weight `w·r` — the last such
  /// node on each path, so one table replaces the whole recurrence.
  static func tabulable(_ body: Program, _ constant: Set<Int>, captures: [Scalar?]) -> [Int] {
    var pure = [Bool](repeating: false, count: body.count), fromAccumulator = pure
    for (i, n) in body.nodes.enumerated() {
      switch n.op {
      case .loopAccumulator(let k, _):
        pure[i] = constant.contains(k)
        fromAccumulator[i] = pure[i]
      case .constant, .loopIndex: pure[i] = true
      case .loopCapture(let k, _): pure[i] = captures[k] != nil
      default:
        pure[i] = n.op.isPure && n.args.allSatisfy { pure[Int($0.index)] }
        fromAccumulator[i] = pure[i] && n.args.contains { fromAccumulator[Int($0.index)] }
      }
    }
    var readOutside = [Bool](repeating: false, count: body.count)
    let live = body.live()
    for (i, n) in body.nodes.enumerated() where live[i] && !pure[i] {
      for a in n.args { readOutside[Int(a.index)] = true }
    }
    for (k, o) in body.outputs.enumerated() where !constant.contains(k) { readOutside[Int(o.index)] = true }
    return body.nodes.indices.filter { fromAccumulator[$0] && readOutside[$0] && body.nodes[$0].kind != .bool }
  }

  /// The final values of the accumulators in `set`, iterating `range` with
  /// ``Semantics``, and the value of each body node in `tracing` (computed
  /// from those accumulators alone) at each iteration; nil if an op cannot
  /// be evaluated. With `exit` (in `set`), the iterations stop before the
  /// first at which that accumulator is true, and `stop` is its index (else
  /// the range's end).
  static func evaluate(
    _ body: Program, _ set: Set<Int>, _ range: Range<Int32>, initial: [Scalar?], captures: [Scalar?], tracing: [Int] = [],
    exit: Int? = nil
  ) -> (values: [Int: Scalar], traces: [Int: [Scalar]], stop: Int32)? {
    // The nodes the outputs in `set` and the traced nodes need, in order.
    var need = [Bool](repeating: false, count: body.count)
    for k in set { need[Int(body.outputs[k].index)] = true }
    for i in tracing { need[i] = true }
    for i in stride(from: body.count - 1, through: 0, by: -1) where need[i] {
      for a in body.nodes[i].args { need[Int(a.index)] = true }
    }
    let order = body.nodes.indices.filter { need[$0] }
    var acc: [Int: Scalar] = [:]
    for k in set { acc[k] = initial[k]! }
    var traces: [Int: [Scalar]] = [:]
    var values = [Scalar](repeating: .int(0), count: body.count)
    for index in range {
      if let exit, case .bool(true)? = acc[exit] { return (acc, traces, index) }
      for i in order {
        let n = body.nodes[i]
        switch n.op {
        case .loopIndex: values[i] = .int(index)
        case .loopAccumulator(let k, _): values[i] = acc[k]!
        case .loopCapture(let k, _): values[i] = captures[k]!
        case .constant(let s): values[i] = s
        default:
          guard let v = Semantics.evaluate(n.op, n.args.map { values[Int($0.index)] }) else { return nil }
          values[i] = v
        }
      }
      for i in tracing { traces[i, default: []].append(values[i]) }
      for k in set { acc[k] = values[Int(body.outputs[k].index)] }
    }
    return (acc, traces, range.upperBound)
  }

  /// `body` with each node in `tables` replaced by its table at the loop index.
  static func tabulate(_ body: Program, _ tables: [Int: ConstantTable]) -> Program {
    var out = Program()
    var map = [NodeID](repeating: NodeID(0), count: body.count)
    for (i, n) in body.nodes.enumerated() {
      if let t = tables[i] {
        map[i] = out.add(.table(t), [out.add(.loopIndex)])
      } else {
        map[i] = out.add(n.op, n.args.map { map[Int($0.index)] })
      }
    }
    out.outputs = body.outputs.map { map[Int($0.index)] }
    return out
  }
}

extension Program {
  /// The program with every op rewritten by `f`, operands unchanged; loop
  /// bodies are left as they are.
  func mapOpsShallow(_ f: (Op) -> Op) -> Program {
    var out = Program()
    var map = [NodeID](repeating: NodeID(0), count: count)
    let live = live()
    for (i, n) in nodes.enumerated() where live[i] { map[i] = out.add(f(n.op), n.args.map { map[Int($0.index)] }) }
    out.outputs = outputs.map { map[Int($0.index)] }
    return out
  }
}
