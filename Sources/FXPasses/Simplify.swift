import FXIR

/// Constant folding and algebraic simplification, one forward sweep over a
/// program (operands precede users, so each node sees simplified operands).
///
/// Every rule holds for all inputs, NaN, ±∞ and the sign of zero included:
/// `x·0` is *not* rewritten (∞·0 is NaN), nor `x + 0` (−0 + 0 is +0, and the
/// sign of a zero reaches outputs through `1/x` or `atan2`); `x + (−0)` and
/// `x − 0` are.
public enum Simplify {
  public struct Stats: Sendable { public var folded = 0, rewritten = 0, removed = 0 }

  /// Returns the simplified program and what changed.
  public static func run(_ p: Program) -> (Program, Stats) {
    var out = Program()
    var map = [NodeID](repeating: NodeID(0), count: p.count)
    var stats = Stats()
    let live = p.live()
    for (i, node) in p.nodes.enumerated() where live[i] {
      let args = node.args.map { map[Int($0.index)] }
      let consts = args.map { out.constantValue($0) }
      if node.op.isPure, !args.isEmpty, consts.allSatisfy({ $0 != nil }),
        let v = Semantics.evaluate(node.op, consts.map { $0! })
      {
        map[i] = out.add(.constant(v))
        stats.folded += 1
        continue
      }
      if let r = rewrite(node.op, args, consts, &out) {
        map[i] = r
        stats.rewritten += 1
        continue
      }
      map[i] = out.add(node.op, args)
    }
    out.outputs = p.outputs.map { map[Int($0.index)] }
    stats.removed = p.count - out.count
    return (out, stats)
  }

  /// The algebraic rules; nil when none applies.
  static func rewrite(_ op: Op, _ a: [NodeID], _ c: [Scalar?], _ p: inout Program) -> NodeID? {
    /// Constant `v` exactly, sign of zero included (ints: any zero).
    func isConst(_ i: Int, _ v: Float) -> Bool {
      if case .float(let b)? = c[i] { return b == v.bitPattern }
      if case .int(let n)? = c[i] { return Float(n) == v }
      return false
    }
    switch op {
    // x + (−0) = x and x − (+0) = x for every x, −0 included; x + (+0) is not (−0 + 0 = +0).
    case .add where isConst(1, -0.0) || (p[a[0]].kind == .int && isConst(1, 0)): return a[0]
    case .add where isConst(0, -0.0) || (p[a[1]].kind == .int && isConst(0, 0)): return a[1]
    case .sub where isConst(1, 0): return a[0]
    case .mul where isConst(1, 1): return a[0]
    case .mul where isConst(0, 1): return a[1]
    case .div where isConst(1, 1): return a[0]
    case .select:
      if case .bool(let b)? = c[0] { return b ? a[1] : a[2] }
      if a[1] == a[2] { return a[1] }
    case .min, .max:
      if a[0] == a[1] { return a[0] }
    case .and, .or:
      if p[a[0]].kind == .bool, case .bool(let b)? = c[0] {
        return (op == .and) == b ? a[1] : p.constant(b)
      }
      if p[a[0]].kind == .bool, case .bool(let b)? = c[1] {
        return (op == .and) == b ? a[0] : p.constant(b)
      }
    case .toInt:
      // int(float(i)) == i for every Int32 whose float is exact; float(i) of an
      // index is exact below 2^24, which is where indices live (Sampler.coordinateLimit).
      if case .toFloat = p[a[0]].op, isIndex(p[a[0]].args[0], p) { return p[a[0]].args[0] }
    case .floor:
      if case .toFloat = p[a[0]].op { return a[0] }
    default: break
    }
    return nil
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
