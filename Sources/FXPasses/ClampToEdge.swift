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
    guard let t = tap(of: id, axis, in: p), t.index == 0 else { return nil }
    return t.k
  }

  /// How far a tap `pixel + index·i + k` reaches from `pixel`: `|k|`, plus
  /// the loop's `limit` when it reads the index (nil: no loop to bound it).
  /// The run plan's rings and halos and the loop plan's row tables use it.
  public static func reach(k: Int32, index: Int32, limit: Int32?) -> Int32? {
    index == 0 ? abs(k) : limit.map { abs(k) + $0 }
  }

  /// ``offset(of:_:in:)`` (`index` 0), and in a loop body also the index
  /// `min(max(pixel ± i + k, 0), extent − 1)` (or without `k`) with `i` the
  /// loop's index (`index` 1 or −1): the tap `pixel ± i + k` that lowering
  /// writes for a whole-pixel sample at the index.
  public static func tap(of id: NodeID, _ axis: PixelOffset.Axis, in p: Program) -> (k: Int32, index: Int32)? {
    let (pixel, extent): (Op, Op) = axis == .x ? (.pixelX, .width) : (.pixelY, .height)
    let n = p[id]
    if n.op == pixel { return (0, 0) }
    guard n.op == .min, p[n.args[1]].op == .sub, p[p[n.args[1]].args[0]].op == extent,
      p.constantValue(p[n.args[1]].args[1]) == .int(1)
    else { return nil }
    let inner = p[n.args[0]]
    guard inner.op == .max, p.constantValue(inner.args[1]) == .int(0) else { return nil }
    var sum = p[inner.args[0]], k: Int32 = 0
    guard sum.op == .add else { return nil }
    if case .int(let c)? = p.constantValue(sum.args[1]) {
      k = c
      if p[sum.args[0]].op == pixel { return (k, 0) }
      sum = p[sum.args[0]]
      guard sum.op == .add else { return nil }
    }
    guard p[sum.args[0]].op == pixel else { return nil }
    let i = p[sum.args[1]]
    if i.op == .loopIndex { return (k, 1) }
    if i.op == .neg, p[i.args[0]].op == .loopIndex { return (k, -1) }
    return nil
  }
}

extension Program {
  /// For each node, whether its value depends on a node for which `isRoot`
  /// holds, through its operands; nodes for which `stop` holds count as not
  /// depending (what passes through them is cut). The one dependence
  /// analysis of the loop plan: on `pixelX` (varies along a row), on
  /// `pixelY`, on a block index.
  ///
  /// A fold depends on what its operands depend on and on the pixel
  /// position its loop's body reads itself: a body that loads at `pixelX`
  /// gives a result that varies along the row whatever its operands (fxc
  /// fuzz seed 11751977387946507995: a row taken from such a result was
  /// planned as the same in every lane). In a body (nested ones too), only
  /// `pixelX` and `pixelY` nodes are asked, with index −1: the body's
  /// captures and accumulators are its fold's operands, not this program's
  /// (asking about a nested loop's capture crashed: seed 1433841142305390477).
  public func dependence(on isRoot: (Int, Node) -> Bool, stoppingAt stop: (Int) -> Bool = { _ in false }) -> [Bool] {
    var depends = [Bool](repeating: false, count: count)
    var bodies: [ObjectIdentifier: Bool] = [:]
    func reads(_ loop: Loop) -> Bool {
      if let known = bodies[ObjectIdentifier(loop)] { return known }
      let found = loop.body.nodes.contains { n in
        if n.op == .pixelX || n.op == .pixelY, isRoot(-1, n) { return true }
        if case .fold(let inner, _) = n.op { return reads(inner) }
        return false
      }
      bodies[ObjectIdentifier(loop)] = found
      return found
    }
    for (i, n) in nodes.enumerated() where !stop(i) {
      depends[i] = isRoot(i, n) || n.args.contains { depends[Int($0.index)] }
      if !depends[i], case .fold(let loop, _) = n.op { depends[i] = reads(loop) }
    }
    return depends
  }

  /// Whether each node depends on `op` (e.g. `.pixelX`).
  public func dependence(on op: Op) -> [Bool] { dependence { $1.op == op } }
}
