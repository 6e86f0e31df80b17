import FX
import Testing

/// Every rewrite rule of ``Simplify/rules`` (the table is the data under test):
/// it fires on operands it cannot see the values of, and its result equals
/// ``Semantics``' value of the original operation, bit for bit (NaN as NaN),
/// on special values — ±0, ±1, ±∞, NaN, the smallest subnormal, the largest
/// float — and random ones.
struct SimplifyRuleTests {
  static let specials: [Float] = [
    0, -0.0, 1, -1, 0.5, -2.5, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e20, -3e-39,
  ]

  /// The kind of each operand of `op`.
  func kinds(_ rule: Simplify.Rule) -> [ScalarKind] {
    switch rule.op {
    case .and, .or: return [.bool, .bool]
    case .select: return [.bool, .float, .float]
    case .toInt, .floor: return [.int]  // the index under `float(·)`
    default:
      let int = rule.operands.contains { if case .intZero = $0 { return true } else { return false } }
      return Array(repeating: int ? .int : .float, count: rule.operands.count)
    }
  }

  /// Divisors whose reciprocal is exact: ±2ᵏ from 2⁻¹²⁶ to 2¹²⁶.
  static let powersOfTwo: [Float] = [1, -1, 0.5, 2, -0.25, 1024, 0x1p126, 0x1p-126, -0x1p-100]

  func values(_ kind: ScalarKind) -> [Scalar] {
    switch kind {
    case .bool: return [.bool(true), .bool(false)]
    case .int: return [0, 1, -1, 7, 1 << 20, -(1 << 23), Int32.max, Int32.min].map { .int($0) }
    case .float:
      var rng = SplitMix(seed: 5)
      let random = (0..<12).map { _ in Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())) }
      return (Self.specials + random).map { .float(bits: $0.bitPattern) }
    }
  }

  /// The operand nodes for one assignment: each pattern's constant, or `value`.
  func operands(_ rule: Simplify.Rule, _ values: [Scalar], _ p: inout Program) -> [NodeID] {
    var ids: [NodeID] = []
    for (i, pattern) in rule.operands.enumerated() {
      switch pattern {
      case .any: ids.append(p.add(.constant(values[i])))
      case .float(let v): ids.append(p.constant(v))
      case .intZero: ids.append(p.constant(Int32(0)))
      case .bool(let b): ids.append(p.constant(b))
      case .same(let j): ids.append(ids[j])
      case .computed(let op): ids.append(p.add(op, [p.add(.constant(values[i]))]))
      case .powerOfTwo: ids.append(p.add(.constant(values[i])))
      }
    }
    return ids
  }

  /// The value of node `id`, folding through `Semantics` (the constant folder's table).
  func value(_ id: NodeID, _ p: Program) -> Scalar? {
    if let c = p.constantValue(id) { return c }
    let args = p[id].args.map { value($0, p) }
    guard args.allSatisfy({ $0 != nil }) else { return nil }
    return Semantics.evaluate(p[id].op, args.map { $0! })
  }

  func same(_ a: Scalar?, _ b: Scalar?) -> Bool {
    if case .float(let x)? = a, case .float(let y)? = b { return x == y || (Float(bitPattern: x).isNaN && Float(bitPattern: y).isNaN) }
    return a == b
  }

  @Test(arguments: Simplify.rules.indices)
  func ruleHoldsForEveryValue(_ r: Int) {
    let rule = Simplify.rules[r]
    let kinds = kinds(rule)
    // Every assignment of values to the operands the pattern leaves open.
    var assignments: [[Scalar]] = [[]]
    for (i, pattern) in rule.operands.enumerated() {
      let choices: [Scalar]
      switch pattern {
      case .any, .computed: choices = values(kinds[i])
      case .powerOfTwo: choices = Self.powersOfTwo.map { .float(bits: $0.bitPattern) }
      default: choices = [Scalar.int(0)]
      }
      assignments = assignments.flatMap { a in choices.map { a + [$0] } }
    }
    var checked = 0
    for a in assignments {
      var p = Program()
      let ids = operands(rule, a, &p)
      if let condition = rule.condition, !condition(ids, p) { continue }
      guard let original = value(p.add(rule.op, ids), p) else { continue }
      let rewritten = rule.result(ids, &p)
      #expect(same(value(rewritten, p), original), "\(rule.name) with \(a)")
      checked += 1
    }
    #expect(checked > 0, "\(rule.name): no assignment checked")
  }

  /// Each rule fires when its open operands are unknown (uniforms, pixel indices).
  @Test(arguments: Simplify.rules.indices)
  func ruleFiresOnUnknownOperands(_ r: Int) {
    let rule = Simplify.rules[r]
    var p = Program()
    let kinds = kinds(rule)
    var ids: [NodeID] = []
    for (i, pattern) in rule.operands.enumerated() {
      switch pattern {
      case .any:
        let u = p.add(.uniform(i))
        ids.append(kinds[i] == .bool ? p.add(.isNaN, [u]) : kinds[i] == .int ? p.add(.pixelX) : u)
      case .float(let v): ids.append(p.constant(v))
      case .intZero: ids.append(p.constant(Int32(0)))
      case .bool(let b): ids.append(p.constant(b))
      case .same(let j): ids.append(ids[j])
      case .computed(let op): ids.append(p.add(op, [p.add(.pixelX)]))
      case .powerOfTwo: ids.append(p.constant(Float(4)))
      }
    }
    p.outputs = [p.add(rule.op, ids)]
    let (_, stats) = Simplify.run(p)
    #expect(stats.rewritten >= 1, "\(rule.name) did not fire")
  }

  /// Division by a constant becomes a multiplication only where the
  /// reciprocal is exact: not by 3, 0, ∞, NaN, a subnormal, or 2¹²⁷ (whose
  /// reciprocal 2⁻¹²⁷ is subnormal).
  @Test(arguments: [Float(3), 0, .infinity, .nan, 0x1p127, 0x1p-127, .leastNonzeroMagnitude])
  func divisionKeepsAnInexactReciprocal(_ divisor: Float) {
    var p = Program()
    p.outputs = [p.add(.div, [p.add(.uniform(0)), p.constant(divisor)])]
    let (q, stats) = Simplify.run(p)
    #expect(stats.rewritten == 0)
    #expect(q[q.outputs[0]].op == .div)
  }
}
