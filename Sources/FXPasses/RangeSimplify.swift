import FXIR

/// Rewrites that hold because of what ``RangeAnalysis`` proves, not for every
/// input: each gives the same bits as the node it replaces on every value the
/// node can take, so the kernel still agrees with the interpreter bit for bit.
///
/// - a float `min`/`max` that cannot act (``RangeProofs/forwarded``) is its operand;
/// - `(t + 0.5) − 0.5` is `t` when `t` is `float(i)` of a pixel index or size
///   (|i| ≤ 2²⁰): both steps are exact. A sample at a pixel centre along
///   an axis (a wave's x) then has the exact texel index and a zero fraction;
/// - `x − x` is +0 when `x` is proved finite (∞ − ∞ would be NaN);
/// - `isNaN(x)` is false when `x` is proved never NaN (a sample position
///   that cannot be NaN never reads as transparent);
/// - `(1 − t) + t` is 1 when `t` is in [0, 1], never NaN: the bilinear
///   weights of a constant channel (an opaque alpha) sum to it exactly. For
///   t ≥ ½, `1 − t` is exact (Sterbenz); for t < ½ it is off by at most
///   2⁻²⁵, and `1 ± 2⁻²⁵` rounds to 1 (the tie to even).
///
/// - `fma(x, ±0, y)` and `y + x·±0` are `y` when `x` is proved finite and `y`
///   never −0 (``NegativeZero``): `x·0` is ±0 exactly, and `y + ±0` is `y`
///   for every `y` but −0. An interpolation `a·(1 − t) + b·t` at a constant
///   `t` of 0 or 1 is then `a` or `b` (sepia at amount 1: its toned colour,
///   with no multiply and add of the identity).
///
/// They run as an extra rule of ``Simplify``'s sweep, so the
/// consequences (`floor(float(i))`, a bilinear weight of 0, `select(true, …)`)
/// fold at once.
public enum RangeSimplify {
  /// The kernel with every pass rewritten, and how many nodes each rule
  /// rewrote (the ``Simplify`` rules that fired in the same sweep included).
  ///
  /// Sweeps again (at most ``maxSweeps`` in all) while a sweep rewrites
  /// something: a rewrite can expose a shape the facts of the old nodes did
  /// not cover (a bilinear weight of 0 leaves `(1 − t)·1 + 1·t` as `(1 − t) + t`).
  public static func run(_ kernel: Kernel) -> (Kernel, [String: Int]) {
    var k = kernel
    var counts: [String: Int] = [:]
    for _ in 0..<maxSweeps {
      let (next, sweep) = sweep(k)
      k = next
      counts.merge(sweep, uniquingKeysWith: +)
      if sweep.isEmpty { break }
    }
    return (k, counts)
  }

  public static let maxSweeps = 3

  static func sweep(_ kernel: Kernel) -> (Kernel, [String: Int]) {
    let unorm = kernel.straightAlphaInputs.union(kernel.straightAlphaOutput ? [kernel.outputBuffer] : [])
    let facts = RangeAnalysis.run(kernel, unormBuffers: unorm)
    var k = kernel
    var counts: [String: Int] = [:]
    for i in k.loopNests.indices {
      let p = k.loopNests[i].program
      let proofs = RangeProofs(p, facts: facts[i], live: p.live())
      let negativeZero = NegativeZero.analyse(p, facts: facts[i], unormBuffers: unorm)
      let (rewritten, stats) = Simplify.run(p) { index, node, args, out in
        if let y = timesZeroPlus(node, args, p, facts[i], negativeZero) { return (y, "y + x·0 → y (x finite, y never −0)") }
        return rule(index, node, args, &out, facts[i], proofs)
      }
      k.loopNests[i].program = rewritten
      counts.merge(stats.byRule, uniquingKeysWith: +)
    }
    return (k, counts)
  }

  /// The range-licensed rewrite of node `i` (operands `args` of `out`), if one applies.
  static func rule(_ i: Int, _ node: Node, _ args: [NodeID], _ out: inout Program, _ facts: [ValueFacts], _ proofs: RangeProofs)
    -> (NodeID, String)?
  {
    if let k = forwarded(i, node, facts, proofs) { return (args[k], "min/max that cannot act → its operand") }
    if node.op == .isNaN, !facts[Int(node.args[0].index)].mayBeNaN { return (out.constant(false), "isNaN(x) → false (x never NaN)") }
    if node.op == .add, node.kind == .float, let t = complementSum(node, args, out), facts[Int(node.args[t].index)].within(0...1) {
      return (out.constant(Float(1)), "(1 − t) + t → 1 (t in 0…1)")
    }
    guard node.op == .sub, node.kind == .float else { return nil }
    if args[0] == args[1], facts[Int(node.args[0].index)].isFinite { return (out.constant(Float(0)), "x − x → 0 (x finite)") }
    if let t = halfRoundTrip(args, out) { return (t, "(float(i) + 0.5) − 0.5 → float(i) (i an index)") }
    return nil
  }

  /// Which operand a float min/max that cannot act equals, if it is one. Int
  /// clamps stay: they are the clamp-to-edge indices the loop planner
  /// recognises (``ClampToEdge``) to load taps densely.
  static func forwarded(_ i: Int, _ node: Node, _ facts: [ValueFacts], _ proofs: RangeProofs) -> Int? {
    guard node.op == .min || node.op == .max, node.kind == .float else { return nil }
    return proofs.forwarded[i]
  }

  /// The new id of `y` when `node` (of the old program `p`) is
  /// `fma(x, ±0, y)`, `fma(±0, x, y)` or `y + x·±0` (either order), with `x`
  /// finite and `y` never −0.
  static func timesZeroPlus(_ node: Node, _ args: [NodeID], _ p: Program, _ facts: [ValueFacts], _ negativeZero: [Bool]) -> NodeID? {
    guard node.kind == .float else { return nil }
    /// Whether `m` of `p` is `x·±0` or `±0·x` with `x` finite.
    func finiteTimesZero(_ m: [NodeID]) -> Bool {
      (0..<2).contains { k in
        guard case .float(let bits)? = p.constantValue(m[k]), Float(bitPattern: bits) == 0 else { return false }
        return facts[Int(m[1 - k].index)].isFinite
      }
    }
    switch node.op {
    case .fma:
      return !negativeZero[Int(node.args[2].index)] && finiteTimesZero(Array(node.args[0..<2])) ? args[2] : nil
    case .add:
      for k in 0..<2 where !negativeZero[Int(node.args[k].index)] {
        let other = p[node.args[1 - k]]
        if other.op == .mul, finiteTimesZero(other.args) { return args[k] }
      }
      return nil
    default: return nil
    }
  }

  /// Which operand is `t` when the sum's operands are `1 − t` and `t`, in either order.
  static func complementSum(_ node: Node, _ args: [NodeID], _ out: Program) -> Int? {
    for (k, t) in [(1, args[1]), (0, args[0])] {
      let other = out[args[1 - k]]
      if other.op == .sub, other.args[1] == t, out.constantValue(other.args[0]) == .float(1) { return k }
    }
    return nil
  }

  /// `t` when `args` are `(t + 0.5, 0.5)` with `t = float(i)` and `i` a pixel
  /// index or size (at most 2²⁰).
  static func halfRoundTrip(_ args: [NodeID], _ out: Program) -> NodeID? {
    let half = Float(0.5).bitPattern
    guard out.constantValue(args[1]) == .float(bits: half) else { return nil }
    let sum = out[args[0]]
    guard sum.op == .add, out.constantValue(sum.args[1]) == .float(bits: half) else { return nil }
    let t = sum.args[0]
    guard out[t].op == .toFloat else { return nil }
    switch out[out[t].args[0]].op {
    case .pixelX, .pixelY, .width, .height, .inputWidth, .inputHeight: return t
    default: return nil
    }
  }
}
