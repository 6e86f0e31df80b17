import FXIR

/// Propagates constant channels of materialised stages into their consumers.
///
/// When a pass computes a channel of its intermediate as a constant (the alpha
/// of a stage that only reads an opaque input, a fill's alpha), every load of
/// that channel in a later pass reads that constant — loads are in bounds by
/// construction, so each reads a pixel the pass computed. The loads are
/// replaced by the constant and the consumer simplified again, so a chain of
/// passes (a split blur's planar copy, horizontal and vertical passes) folds
/// the channel away in every pass, not just the first. No later pass loads
/// the channel, so the code generator does not store it either.
public enum ConstantChannels {
  /// The kernel with such loads replaced, and how many were.
  public static func run(_ kernel: Kernel) -> (Kernel, replaced: Int) {
    var k = kernel
    var known: [Int: [Int: Scalar]] = [:]  // buffer → channel → value
    var replaced = 0
    for i in k.loopNests.indices {
      if !known.isEmpty {
        let (p, n) = substitute(k.loopNests[i].program, known)
        if n > 0 {
          k.loopNests[i].program = Simplify.run(p).0
          replaced += n
        }
      }
      guard k.loopNests[i].output != k.outputBuffer else { continue }
      let p = k.loopNests[i].program
      for (c, out) in p.outputs.enumerated() {
        if let v = p.constantValue(out) { known[k.loopNests[i].output, default: [:]][c] = v }
      }
    }
    return (k, replaced)
  }

  /// `p`'s live nodes with every load of a known channel replaced by its
  /// value, in loop bodies too.
  static func substitute(_ p: Program, _ known: [Int: [Int: Scalar]]) -> (Program, Int) {
    var q = Program()
    var map = [NodeID](repeating: NodeID(0), count: p.count)
    var replaced = 0
    var bodies: [ObjectIdentifier: Loop] = [:]
    let live = p.live()
    for (i, node) in p.nodes.enumerated() where live[i] {
      if case .load(let buffer, let channel) = node.op, let v = known[buffer]?[channel] {
        map[i] = q.add(.constant(v))
        replaced += 1
      } else if case .fold(let loop, let k) = node.op {
        if bodies[ObjectIdentifier(loop)] == nil {
          let (body, n) = substitute(loop.body, known)
          replaced += n
          bodies[ObjectIdentifier(loop)] = n == 0 ? loop : loop.with(body: body)
        }
        map[i] = q.add(.fold(bodies[ObjectIdentifier(loop)]!, result: k), node.args.map { map[Int($0.index)] })
      } else {
        map[i] = q.add(node.op, node.args.map { map[Int($0.index)] })
      }
    }
    q.outputs = p.outputs.map { map[Int($0.index)] }
    return (q, replaced)
  }
}
