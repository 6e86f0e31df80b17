import FXIR

/// Constant folding and algebraic simplification, one forward sweep over a
/// program (operands precede users, so each node sees simplified operands).
///
/// Every rule holds for all inputs, NaN, ±∞ and the sign of zero included:
/// `x·0` is *not* rewritten (∞·0 is NaN), nor `x + 0` (−0 + 0 is +0, and the
/// sign of a zero reaches outputs through `1/x` or `atan2`); `x + (−0)` and
/// `x − 0` are.
public enum Simplify {
  public struct Stats: Sendable {
    public var folded = 0, rewritten = 0, removed = 0
    /// How often each rule of ``rules`` fired, by name.
    public var byRule: [String: Int] = [:]

    /// "rewrote N (rule: k times; …)" for `fxc dump --passes`.
    public var rewriteSummary: String {
      let detail = byRule.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value == 1 ? "once" : "\($0.value) times")" }
        .joined(separator: "; ")
      return "rewrote \(rewritten)" + (detail.isEmpty ? "" : " (\(detail))")
    }

    mutating func add(_ other: Stats) {
      folded += other.folded
      rewritten += other.rewritten
      removed += other.removed
      byRule.merge(other.byRule, uniquingKeysWith: +)
    }
  }

  /// A rewrite tried before folding and ``rules`` on node `index` of the
  /// input program, whose operands are already `args` of the output program:
  /// the replacement and the rule's name, or nil.
  public typealias ExtraRule = (_ index: Int, _ node: Node, _ args: [NodeID], _ out: inout Program) -> (NodeID, String)?

  /// Returns the simplified program and what changed; `extra` adds rewrites
  /// that hold only for this program (``RangeSimplify``'s). A sweep that
  /// unrolled a loop is followed by another: the copied body's nodes (a
  /// `toFloat` of the now constant index, a weight times 1) fold only then,
  /// and a tap at `position − float(1)` must become `position − 1.0` to be
  /// read as a dense tap (a Gaussian of σ < 0.667, two taps a side, was
  /// gathered at 3.6–6× the cost of σ 1). Those sweeps leave `extra` out:
  /// its node indices and facts are the input program's, not the swept one's
  /// (applied to the unrolled program they named other nodes and dropped a
  /// clamp that acts — fxc fuzz on 16 cores, 2 graphs in 27,000); its caller
  /// sweeps again with facts of its own (``RangeSimplify/run(_:)``).
  public static func run(_ p: Program, extra: ExtraRule? = nil) -> (Program, Stats) {
    var (out, stats) = sweep(p, extra: extra)
    var sweeps = 1
    while sweeps < 8, stats.byRule.keys.contains(where: { $0.hasPrefix(LoopSimplify.unrolledRule) }) {
      let (again, more) = sweep(out, extra: nil)
      sweeps += 1
      out = again
      stats.folded += more.folded
      stats.rewritten += more.rewritten
      for (rule, count) in more.byRule where !rule.hasPrefix(LoopSimplify.unrolledRule) { stats.byRule[rule, default: 0] += count }
      if !more.byRule.keys.contains(where: { $0.hasPrefix(LoopSimplify.unrolledRule) }) { break }
      stats.byRule[LoopSimplify.unrolledRule + " (again)", default: 0] += 1
    }
    stats.removed = p.count - out.count
    return (out, stats)
  }

  /// One pass over the program: each node folded, rewritten or copied.
  static func sweep(_ p: Program, extra: ExtraRule?) -> (Program, Stats) {
    var out = Program()
    var map = [NodeID](repeating: NodeID(0), count: p.count)
    var stats = Stats()
    let live = p.live()
    let used = p.hasLoops ? LoopSimplify.usedResults(p, live: live) : [:]
    var loops: [LoopSimplify.Key: LoopSimplify.Rewritten] = [:]
    var bodies: [Loop: Program] = [:]  // each body simplified once, however many folds instantiate it
    for (i, node) in p.nodes.enumerated() where live[i] {
      let args = node.args.map { map[Int($0.index)] }
      if case .fold(let loop, let k) = node.op {
        let key = LoopSimplify.Key(loop: loop, args: node.args)
        if loops[key] == nil { loops[key] = LoopSimplify.rewrite(loop, args, used: used[key] ?? [k], &out, &stats, &bodies) }
        map[i] = loops[key]!.results[k]!
        continue
      }
      if let (r, rule) = extra?(i, node, args, &out) {
        map[i] = r
        stats.rewritten += 1
        stats.byRule[rule, default: 0] += 1
        continue
      }
      let consts = args.map { out.constantValue($0) }
      if node.op.isPure, !args.isEmpty, consts.allSatisfy({ $0 != nil }),
        let v = Semantics.evaluate(node.op, consts.map { $0! })
      {
        map[i] = out.add(.constant(v))
        stats.folded += 1
        continue
      }
      if let (r, rule) = rewrite(node.op, args, consts, &out) {
        map[i] = r
        stats.rewritten += 1
        stats.byRule[rule, default: 0] += 1
        continue
      }
      map[i] = out.add(node.op, args)
    }
    out.outputs = p.outputs.map { map[Int($0.index)] }
    stats.removed = p.count - out.count
    return (out, stats)
  }

  /// One algebraic identity: `op` applied to operands matching `operands`
  /// is replaced by `result`. Each holds for every input — NaN, ±∞ and the
  /// sign of zero included — under ``Semantics`` (``Transcendentals/pow(_:_:)`` for `pow`), which
  /// SimplifyRuleTests checks on special and random values for every rule.
  public struct Rule: Sendable {
    public enum Operand: Sendable {
      /// Any value.
      case any
      /// The float constant with exactly these bits (`-0.0` is not `0.0`), or an int constant of that value.
      case float(Float)
      /// The int constant 0 (an integer add of 0 is exact, unlike a float one).
      case intZero
      case bool(Bool)
      /// The same node as operand `i`.
      case same(Int)
      /// A node computing `op` (structural rules).
      case computed(Op)
      /// A float constant ±2ᵏ whose reciprocal is a normal float (so exact).
      case powerOfTwo
    }
    public var name: String
    public var op: Op
    public var operands: [Operand]
    /// Extra condition on the matched operands, if any.
    public var condition: (@Sendable ([NodeID], Program) -> Bool)? = nil
    /// The replacement, built from the matched operands.
    public var result: @Sendable ([NodeID], inout Program) -> NodeID
  }

  /// The rules, tried in order. Deliberately absent: `x · 0 → 0` (∞·0 is NaN),
  /// `x + 0 → x` (−0 + 0 is +0, a sign that reaches outputs through 1/x or
  /// atan2), `pow(x, 2) → x·x` (pow is within 1 ulp, not correctly rounded, so it
  /// may differ from x·x in the last bit), `pow(x, 0.5) → sqrt(x)`
  /// (differs at −0 and −∞), `sqrt(x·x) → |x|` (x·x overflows), and `mix`
  /// with a constant weight (mix is `a + (b − a)·t`: t = 1 gives b only up
  /// to rounding, t = 0 is `a + (b − a)·0`, NaN when b − a is infinite).
  public static let rules: [Rule] = [
    Rule(name: "x + (−0) → x", op: .add, operands: [.any, .float(-0.0)]) { a, _ in a[0] },
    Rule(name: "(−0) + x → x", op: .add, operands: [.float(-0.0), .any]) { a, _ in a[1] },
    Rule(name: "i + 0 → i (int)", op: .add, operands: [.any, .intZero]) { a, _ in a[0] },
    Rule(name: "0 + i → i (int)", op: .add, operands: [.intZero, .any]) { a, _ in a[1] },
    Rule(name: "x − (+0) → x", op: .sub, operands: [.any, .float(0)]) { a, _ in a[0] },
    Rule(name: "x · 1 → x", op: .mul, operands: [.any, .float(1)]) { a, _ in a[0] },
    Rule(name: "1 · x → x", op: .mul, operands: [.float(1), .any]) { a, _ in a[1] },
    Rule(name: "x / 1 → x", op: .div, operands: [.any, .float(1)]) { a, _ in a[0] },
    // x/2ᵏ and x·2⁻ᵏ are the same real number when 2⁻ᵏ is a normal float, so
    // they round to the same float: NaN, ±∞, ±0 and subnormal results included.
    Rule(name: "x / 2ᵏ → x · 2⁻ᵏ", op: .div, operands: [.any, .powerOfTwo]) { a, p in
      p.add(.mul, [a[0], p.constant(powerOfTwoReciprocal(p[a[1]])!)])
    },
    // 1·x is exact, so the fused sum is the plain one; x·y + (−0) is x·y, signed zeros included.
    Rule(name: "fma(1, x, y) → x + y", op: .fma, operands: [.float(1), .any, .any]) { a, p in p.add(.add, [a[1], a[2]]) },
    Rule(name: "fma(x, 1, y) → x + y", op: .fma, operands: [.any, .float(1), .any]) { a, p in p.add(.add, [a[0], a[2]]) },
    Rule(name: "fma(x, y, −0) → x · y", op: .fma, operands: [.any, .any, .float(-0.0)]) { a, p in p.add(.mul, [a[0], a[1]]) },
    Rule(name: "pow(x, 1) → x", op: .pow, operands: [.any, .float(1)]) { a, _ in a[0] },
    Rule(name: "pow(x, +0) → 1", op: .pow, operands: [.any, .float(0)]) { _, p in p.constant(Float(1)) },
    Rule(name: "pow(x, −0) → 1", op: .pow, operands: [.any, .float(-0.0)]) { _, p in p.constant(Float(1)) },
    Rule(name: "select(true, a, b) → a", op: .select, operands: [.bool(true), .any, .any]) { a, _ in a[1] },
    Rule(name: "select(false, a, b) → b", op: .select, operands: [.bool(false), .any, .any]) { a, _ in a[2] },
    Rule(name: "select(c, a, a) → a", op: .select, operands: [.any, .any, .same(1)]) { a, _ in a[1] },
    Rule(name: "min(x, x) → x", op: .min, operands: [.any, .same(0)]) { a, _ in a[0] },
    Rule(name: "max(x, x) → x", op: .max, operands: [.any, .same(0)]) { a, _ in a[0] },
    Rule(name: "true ∧ b → b", op: .and, operands: [.bool(true), .any]) { a, _ in a[1] },
    Rule(name: "b ∧ true → b", op: .and, operands: [.any, .bool(true)]) { a, _ in a[0] },
    Rule(name: "false ∧ b → false", op: .and, operands: [.bool(false), .any]) { _, p in p.constant(false) },
    Rule(name: "b ∧ false → false", op: .and, operands: [.any, .bool(false)]) { _, p in p.constant(false) },
    Rule(name: "false ∨ b → b", op: .or, operands: [.bool(false), .any]) { a, _ in a[1] },
    Rule(name: "b ∨ false → b", op: .or, operands: [.any, .bool(false)]) { a, _ in a[0] },
    Rule(name: "true ∨ b → true", op: .or, operands: [.bool(true), .any]) { _, p in p.constant(true) },
    Rule(name: "b ∨ true → true", op: .or, operands: [.any, .bool(true)]) { _, p in p.constant(true) },
    // int(float(i)) = i for every index: float(i) is exact below 2^24, where
    // indices live (Sampler.coordinateLimit).
    Rule(
      name: "int(float(i)) → i (i an index)", op: .toInt, operands: [.computed(.toFloat)],
      condition: { a, p in isIndex(p[a[0]].args[0], p) }
    ) { a, p in p[a[0]].args[0] },
    Rule(name: "floor(float(i)) → float(i)", op: .floor, operands: [.computed(.toFloat)]) { a, _ in a[0] },
  ]

  /// ``rules`` grouped by operation, in order (one lookup per node, not a scan).
  static let rulesByOp: [Op: [Rule]] = Dictionary(grouping: rules, by: \.op)

  /// The first rule of ``rules`` that matches, and its name; nil when none applies.
  static func rewrite(_ op: Op, _ a: [NodeID], _ c: [Scalar?], _ p: inout Program) -> (NodeID, String)? {
    func matches(_ pattern: Rule.Operand, _ i: Int) -> Bool {
      switch pattern {
      case .any: return true
      case .float(let v):
        if case .float(let b)? = c[i] { return b == v.bitPattern }
        if case .int(let n)? = c[i] { return Float(n) == v && v.sign == .plus }
        return false
      case .intZero: return c[i] == .int(0)
      case .bool(let v): return c[i] == .bool(v)
      case .same(let j): return a[i] == a[j]
      case .computed(let o): return p[a[i]].op == o
      case .powerOfTwo: return powerOfTwoReciprocal(p[a[i]]) != nil
      }
    }
    guard let candidates = rulesByOp[op] else { return nil }
    for rule in candidates where rule.operands.count == a.count {
      guard a.indices.allSatisfy({ matches(rule.operands[$0], $0) }) else { continue }
      if let condition = rule.condition, !condition(a, p) { continue }
      return (rule.result(a, &p), rule.name)
    }
    return nil
  }

  /// `1/c` for a float constant `c = ±2ᵏ` whose reciprocal is a normal float
  /// (and so exact); nil for any other node.
  static func powerOfTwoReciprocal(_ node: Node) -> Float? {
    guard case .constant(.float(let bits)) = node.op else { return nil }
    let c = Float(bitPattern: bits)
    guard c.isNormal, c.significandBitPattern == 0 else { return nil }
    let r = 1 / c
    return r.isNormal ? r : nil
  }

  /// Values known to be pixel indices (|v| < 2^24).
  static func isIndex(_ id: NodeID, _ p: Program) -> Bool {
    switch p[id].op {
    case .pixelX, .pixelY, .width, .height, .inputWidth, .inputHeight: return true
    case .constant(.int(let v)): return abs(Int(v)) < 1 << 24
    default: return false
    }
  }
}
