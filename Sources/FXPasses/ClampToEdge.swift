import FXIR

/// The clamp-to-edge index of a whole-pixel tap, `min(max(pixel + k, 0),
/// extent − 1)`: written by ``LowerToKernel`` and recognised by the loop plan
/// (``LoopPlanner``), which turns such loads into dense vector loads away
/// from the image's edges. Both sides use this one definition, so the shape
/// the planner looks for is the shape lowering writes.
public enum ClampToEdge {
  /// Emits `min(max(v, 0), extent − 1)`.
  static func emit(_ v: NodeID, extent: NodeID, in p: inout Program) -> NodeID {
    let zero = p.constant(Int32(0)), last = p.add(.sub, [extent, p.constant(Int32(1))])
    return p.add(.min, [p.add(.max, [v, zero]), last])
  }

  /// `k` when `id` is `min(max(pixel + k, 0), extent − 1)`, or the bare
  /// `pixel` (k = 0), with pixel/extent = pixelX/width along x and
  /// pixelY/height along y; nil for any other index.
  public static func offset(of id: NodeID, _ axis: PixelOffset.Axis, in p: Program) -> Int32? {
    let (pixel, extent): (Op, Op) = axis == .x ? (.pixelX, .width) : (.pixelY, .height)
    let n = p[id]
    if n.op == pixel { return 0 }
    guard n.op == .min, p[n.args[1]].op == .sub, p[p[n.args[1]].args[0]].op == extent,
      p.constantValue(p[n.args[1]].args[1]) == .int(1)
    else { return nil }
    let inner = p[n.args[0]]
    guard inner.op == .max, p.constantValue(inner.args[1]) == .int(0) else { return nil }
    let sum = p[inner.args[0]]
    guard sum.op == .add, p[sum.args[0]].op == pixel, case .int(let k)? = p.constantValue(sum.args[1]) else { return nil }
    return k
  }
}

extension Program {
  /// For each node, whether its value depends on a node for which `isRoot`
  /// holds, through its operands; nodes for which `stop` holds count as not
  /// depending (what passes through them is cut). The one dependence
  /// analysis of the loop plan: on `pixelX` (varies along a row), on
  /// `pixelY`, on a block index.
  public func dependence(on isRoot: (Int, Node) -> Bool, stoppingAt stop: (Int) -> Bool = { _ in false }) -> [Bool] {
    var depends = [Bool](repeating: false, count: count)
    for (i, n) in nodes.enumerated() where !stop(i) {
      depends[i] = isRoot(i, n) || n.args.contains { depends[Int($0.index)] }
    }
    return depends
  }

  /// Whether each node depends on `op` (e.g. `.pixelX`).
  public func dependence(on op: Op) -> [Bool] { dependence { $1.op == op } }
}
