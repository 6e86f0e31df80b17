import FXIR

/// Rewrites that hold because of what ``RangeAnalysis`` proves, not for every
/// input: each gives the same bits as the node it replaces on every value the
/// node can take, so the kernel still agrees with the interpreter bit for bit.
///
/// - a float `min`/`max` that cannot act (``RangeProofs/forwarded``) is its operand;
/// - `(t + 0.5) − 0.5` is `t` when `t` is an integer-valued float (`float(i)`)
///   with |t| ≤ 2²²: both steps are exact. A sample at a pixel centre along
///   an axis (a wave's x) then has the exact texel index and a zero fraction;
/// - `x − x` is +0 when `x` is proved finite (∞ − ∞ would be NaN).
///
/// Constant folding and ``Simplify``'s rules run in the same sweep, so the
/// consequences (`floor(float(i))`, a bilinear weight of 0, `select(true, …)`)
/// fold at once.
public enum RangeSimplify {
  /// The kernel with every pass rewritten, and how many nodes each rule rewrote.
  public static func run(_ kernel: Kernel) -> (Kernel, [String: Int]) {
    let unorm = kernel.straightAlphaInputs.union(kernel.straightAlphaOutput ? [kernel.outputBuffer] : [])
    let facts = RangeAnalysis.run(kernel, unormBuffers: unorm)
    var k = kernel
    var counts: [String: Int] = [:]
    for i in k.passes.indices {
      k.passes[i].program = rewrite(k.passes[i].program, facts[i], &counts)
    }
    return (k, counts)
  }

  static func rewrite(_ p: Program, _ facts: [ValueFacts], _ counts: inout [String: Int]) -> Program {
    var out = Program()
    var map = [NodeID](repeating: NodeID(0), count: p.count)
    var factsOut: [NodeID: ValueFacts] = [:]
    let live = p.live()
    let proofs = RangeProofs(p, facts: facts, live: live)
    for (i, node) in p.nodes.enumerated() where live[i] {
      let args = node.args.map { map[Int($0.index)] }
      defer { if factsOut[map[i]] == nil { factsOut[map[i]] = facts[i] } }
      if let k = forwarded(i, node, facts, proofs) {
        map[i] = args[k]
        counts["min/max that cannot act → its operand", default: 0] += 1
        continue
      }
      if node.op == .sub, node.kind == .float {
        if args[0] == args[1], facts[Int(node.args[0].index)].isFinite {
          map[i] = out.constant(Float(0))
          counts["x − x → 0 (x finite)", default: 0] += 1
          continue
        }
        if let t = halfRoundTrip(args, out, factsOut) {
          map[i] = t
          counts["(float(i) + 0.5) − 0.5 → float(i) (|i| ≤ 2²²)", default: 0] += 1
          continue
        }
      }
      let consts = args.map { out.constantValue($0) }
      if node.op.isPure, !args.isEmpty, consts.allSatisfy({ $0 != nil }), let v = Semantics.evaluate(node.op, consts.map { $0! }) {
        map[i] = out.add(.constant(v))
        continue
      }
      if let (r, _) = Simplify.rewrite(node.op, args, consts, &out) {
        map[i] = r
        continue
      }
      map[i] = out.add(node.op, args)
    }
    out.outputs = p.outputs.map { map[Int($0.index)] }
    return out
  }

  /// Which operand a float min/max that cannot act equals, if it is one. Int
  /// clamps stay: they are the clamp-to-edge indices the loop planner
  /// recognises (``ClampToEdge``) to load taps densely.
  static func forwarded(_ i: Int, _ node: Node, _ facts: [ValueFacts], _ proofs: RangeProofs) -> Int? {
    guard node.op == .min || node.op == .max, node.kind == .float else { return nil }
    return proofs.forwarded[i]
  }

  /// `t` when `args` are `(t + 0.5, 0.5)` with `t = float(i)`, |i| ≤ 2²².
  static func halfRoundTrip(_ args: [NodeID], _ out: Program, _ facts: [NodeID: ValueFacts]) -> NodeID? {
    let half = Float(0.5).bitPattern
    guard out.constantValue(args[1]) == .float(bits: half) else { return nil }
    let sum = out[args[0]]
    guard sum.op == .add, out.constantValue(sum.args[1]) == .float(bits: half) else { return nil }
    let t = sum.args[0]
    guard out[t].op == .toFloat, let i = facts[out[t].args[0]], i.lo >= -Double(1 << 22), i.hi <= Double(1 << 22) else {
      return nil
    }
    return t
  }
}
