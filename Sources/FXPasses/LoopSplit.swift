import FXIR

/// Separable splitting of 2-D reductions (DESIGN §6 for loops, issue 14):
/// a stage whose four channels are
///
/// ```
/// Σ_j Σ_i  h(i)·v(j)·sample(src, position + (i, j)).c      (sums from 0)
/// ```
///
/// — a loop over `j` whose body adds a loop over `i`, each term a product
/// of one whole-pixel sample at `(position.x + i, position.y + j)` and
/// weight factors that each depend on `i` only, on `j` only or on neither —
/// becomes a horizontal stage `H = Σ_i h(i)·sample(src, position + (i, 0))`
/// and a vertical one `Σ_j v(j)·sample(H, position + (0, j))`, each one
/// loop. Weight factors are recomputed in the loop that needs them, so they
/// may read only the index, constants, uniforms and sizes: a weight that
/// depends on position (a radius varying per pixel), a bound that depends on
/// position or on `j`, a factor of both indices (rank > 1), several samples
/// per term or an accumulator read other than the sum are refused.
/// Exact up to rounding, as the tap split: sampling resolves x and y
/// independently under every address mode, and a whole-pixel tap reads one
/// texel under either filter. The rounding is a reassociation (each row's
/// sum times `v(j)` instead of every tap times `h(i)·v(j)`), which a
/// cancelling sum of large values can amplify past DESIGN §4's tolerance, so
/// the split runs only with ``LoweringOptions/splitLoops``.
enum LoopSplit {
  /// The two stage programs; the vertical one reads the horizontal as `.stage(s)`.
  struct Split {
    var horizontal: Program
    var vertical: (ImageRef) -> Program
    var source: ImageRef
    var limits: (Int32, Int32)
  }

  struct Refused: Error { var why: String }

  /// The split of `p`, or why not.
  static func analyse(_ p: Program) -> Result<Split, Refused> {
    Result { try match(p) }.mapError { $0 as? Refused ?? Refused(why: "\($0)") }
  }

  /// The fold of `loop` whose result `c` is output `c`, the same loop and operands for the four.
  static func sums(_ p: Program, _ outputs: [NodeID]) throws -> (Loop, [NodeID]) {
    guard outputs.count == 4, case .fold(let loop, 0) = p[outputs[0]].op, loop.exit == nil,
      loop.accumulators == [.float, .float, .float, .float]
    else { throw Refused(why: "not a loop of four float sums") }
    let args = p[outputs[0]].args
    for (c, o) in outputs.enumerated() {
      guard p[o].op == .fold(loop, result: c), p[o].args == args else { throw Refused(why: "not one loop of four sums") }
    }
    for k in 0..<4 where p.constantValue(args[2 + k]) != .float(0) { throw Refused(why: "a sum that does not start from 0") }
    return (loop, args)
  }

  /// The term that output `c` of `body` adds to accumulator `c`.
  static func term(_ body: Program, _ c: Int) throws -> NodeID {
    let n = body[body.outputs[c]]
    guard n.op == .add else { throw Refused(why: "an update that is not a sum") }
    if body[n.args[0]].op == .loopAccumulator(c, .float) { return n.args[1] }
    if body[n.args[1]].op == .loopAccumulator(c, .float) { return n.args[0] }
    throw Refused(why: "an update that is not a sum")
  }

  /// The 2-D loop: the stage, its outer loop (over j) and the inner one (over i), with their operands.
  struct Match {
    var p: Program
    var outer: Loop, outerArgs: [NodeID]
    var inner: Loop, innerArgs: [NodeID]
  }

  /// Outputs `sum_c op S` (or `S · sum_c`), the same `op` and `S` for every
  /// channel (a normalisation): the sums, and how to apply `S` again.
  static func peelScale(_ p: Program) -> ([NodeID], (Op, NodeID, Bool)?) {
    func isFold(_ id: NodeID) -> Bool { if case .fold = p[id].op { true } else { false } }
    guard !p.outputs.allSatisfy(isFold) else { return (p.outputs, nil) }
    var scale: (Op, NodeID, Bool)?
    var sums: [NodeID] = []
    for o in p.outputs {
      let n = p[o]
      guard n.op == .div || n.op == .mul else { return (p.outputs, nil) }
      let first = isFold(n.args[0])
      guard first || (n.op == .mul && isFold(n.args[1])) else { return (p.outputs, nil) }
      let s = (n.op, n.args[first ? 1 : 0], first)
      guard scale.map({ $0 == s }) ?? true else { return (p.outputs, nil) }
      scale = s
      sums.append(n.args[first ? 0 : 1])
    }
    return (sums, scale)
  }

  /// Node `id` of `p` and what it reads, copied into `q` as they are (the
  /// vertical stage computes at the pixels the stage did).
  static func copyVerbatim(_ id: NodeID, from p: Program, into q: inout Program, _ memo: inout [NodeID: NodeID]) -> NodeID {
    if let m = memo[id] { return m }
    let r = q.add(p[id].op, p[id].args.map { copyVerbatim($0, from: p, into: &q, &memo) })
    memo[id] = r
    return r
  }

  static func match(_ p: Program) throws -> Split {
    let (sumNodes, scale) = peelScale(p)
    let (outer, outerArgs) = try sums(p, sumNodes)
    let bj = outer.body
    let (inner, innerArgs) = try sums(bj, try (0..<4).map { try term(bj, $0) })
    let bi = inner.body
    let m = Match(p: p, outer: outer, outerArgs: outerArgs, inner: inner, innerArgs: innerArgs)
    // One sample per channel at (position.x + float(i), position.y + float(j)), the same weights.
    var source: (ImageRef, Sampler)?
    var weights: [NodeID]?
    for c in 0..<4 {
      var factors: [NodeID] = []
      var stack = [try term(bi, c)]
      while let f = stack.popLast() {
        if bi[f].op == .mul { stack += bi[f].args } else { factors.append(f) }
      }
      let samples = factors.filter { if case .sample = bi[$0].op { true } else { false } }
      guard samples.count == 1, case .sample(let ref, let sampler, c) = bi[samples[0]].op else {
        throw Refused(why: "a term that is not one sample of its channel times weights")
      }
      guard isIndexTap(bi[samples[0]].args[0], .positionX, bi), isOuterIndexTap(bi[samples[0]].args[1], m) else {
        throw Refused(why: "a sample not at position + (i, j)")
      }
      let rest = factors.filter { $0 != samples[0] }.sorted()
      guard source.map({ $0 == (ref, sampler) }) ?? true, weights.map({ $0 == rest }) ?? true else {
        throw Refused(why: "channels with other samples or weights")
      }
      source = (ref, sampler)
      weights = rest
    }
    guard let (src, sampler) = source, let weights else { throw Refused(why: "no sample") }
    // Each weight factor recomputed in the loop of the index it reads.
    var hFactors: [NodeID] = [], vFactors: [NodeID] = []
    for f in weights {
      var probe = Program()
      var copier = Copier(m, index: .inner)
      if (try? copier.copy(f, .inner, into: &probe)) != nil {
        hFactors.append(f)
        continue
      }
      var other = Copier(m, index: .outer)
      guard (try? other.copy(f, .inner, into: &probe)) != nil else {
        throw Refused(why: "a weight that depends on both indices, on position or on data")
      }
      vFactors.append(f)
    }
    let h = try pass(m, factors: hFactors, horizontal: true) { x, y, i, q in
      (0..<4).map { q.add(.sample(src, sampler, channel: $0), [q.add(.add, [x, q.add(.toFloat, [i])]), y]) }
    }
    let vSampler = Sampler(filter: .nearest, address: sampler.address)
    // Built once here so that a bound or factor that cannot be copied refuses the split.
    _ = try pass(m, factors: vFactors, horizontal: false) { _, _, _, q in (0..<4).map { _ in q.constant(Float(0)) } }
    let vertical: (ImageRef) -> Program = { hRef in
      var v = try! pass(m, factors: vFactors, horizontal: false) { x, y, j, q in
        (0..<4).map { q.add(.sample(hRef, vSampler, channel: $0), [x, q.add(.add, [y, q.add(.toFloat, [j])])]) }
      }
      if let (op, node, sumFirst) = scale {
        var memo: [NodeID: NodeID] = [:]
        let s = copyVerbatim(node, from: p, into: &v, &memo)
        v.outputs = v.outputs.map { v.add(op, sumFirst ? [$0, s] : [s, $0]) }
      }
      return v
    }
    return Split(horizontal: h, vertical: vertical, source: src, limits: (inner.limit, outer.limit))
  }

  /// `position.<axis> + float(i)` in `body`, `i` its loop's index.
  static func isIndexTap(_ id: NodeID, _ position: Op, _ body: Program) -> Bool {
    let n = body[id]
    guard n.op == .add, body[n.args[0]].op == position, body[n.args[1]].op == .toFloat else { return false }
    return body[body[n.args[1]].args[0]].op == .loopIndex
  }

  /// `position.y + float(j)` read in the inner body: computed in the outer
  /// body and captured (lowering captures what does not depend on i), or
  /// computed in the inner body from a captured `j`.
  static func isOuterIndexTap(_ id: NodeID, _ m: Match) -> Bool {
    let bi = m.inner.body, bj = m.outer.body
    func captured(_ n: NodeID) -> NodeID? {
      if case .loopCapture(let k, _) = bi[n].op { return m.innerArgs[m.inner.firstCapture + k] }
      return nil
    }
    if let outer = captured(id) { return isIndexTap(outer, .positionY, bj) }
    let n = bi[id]
    guard n.op == .add, bi[n.args[0]].op == .positionY else { return false }
    // float(j) captured, or j captured and converted here.
    if let f = captured(n.args[1]) { return bj[f].op == .toFloat && bj[bj[f].args[0]].op == .loopIndex }
    guard bi[n.args[1]].op == .toFloat, let j = captured(bi[n.args[1]].args[0]) else { return false }
    return bj[j].op == .loopIndex
  }

  /// A one-loop stage: `Σ factors · taps(x, y, i)` from 0 over the bounds
  /// of the inner (horizontal) or outer loop, with its limit.
  static func pass(
    _ m: Match, factors: [NodeID], horizontal: Bool, taps: (NodeID, NodeID, NodeID, inout Program) -> [NodeID]
  ) throws -> Program {
    var stage = Program()
    // Bounds: the inner loop's may not read j (they are operands in the outer body).
    var boundCopier = Copier(m, index: .stage)
    let bounds =
      horizontal
      ? try m.innerArgs[0..<2].map { try boundCopier.copy($0, .outer, into: &stage) }
      : try m.outerArgs[0..<2].map { try boundCopier.copy($0, .stage, into: &stage) }
    var body = Program()
    var copier = Copier(m, index: horizontal ? .inner : .outer)
    let i = body.add(.loopIndex)
    var weight: NodeID?
    for f in factors {
      let w = try copier.copy(f, .inner, into: &body)
      weight = weight.map { body.add(.mul, [$0, w]) } ?? w
    }
    let x = body.add(.positionX), y = body.add(.positionY)
    let read = taps(x, y, i, &body)
    body.outputs = (0..<4).map { c in
      body.add(.add, [body.add(.loopAccumulator(c, .float)), weight.map { body.add(.mul, [$0, read[c]]) } ?? read[c]])
    }
    let loop = horizontal ? m.inner : m.outer
    let folded = Loop(body: body, accumulators: [.float, .float, .float, .float], captures: [], limit: loop.limit)
    let zero = stage.constant(Float(0))
    stage.outputs = (0..<4).map { stage.add(.fold(folded, result: $0), bounds + [zero, zero, zero, zero]) }
    return stage
  }

  /// Copies a value of the stage, the outer body or the inner body into a
  /// program of the split, reading only constants, uniforms, sizes and the
  /// one index `index` names (captured values are followed to where they
  /// are computed); throws on anything else. One copier per target program.
  struct Copier {
    enum Level { case stage, outer, inner }
    let p: Program, bj: Program, bi: Program
    /// The operands of the outer fold (nodes of the stage) and of the inner one (nodes of the outer body).
    let outerArgs: [NodeID], innerArgs: [NodeID]
    let outerFirstCapture: Int, innerFirstCapture: Int
    let index: Level
    private var memo: [Key: NodeID] = [:]

    struct Key: Hashable {
      var level: Level
      var id: NodeID
    }

    init(_ m: Match, index: Level) {
      p = m.p
      bj = m.outer.body
      bi = m.inner.body
      outerArgs = m.outerArgs
      innerArgs = m.innerArgs
      outerFirstCapture = m.outer.firstCapture
      innerFirstCapture = m.inner.firstCapture
      self.index = index
    }

    mutating func copy(_ id: NodeID, _ level: Level, into q: inout Program) throws -> NodeID {
      if let m = memo[Key(level: level, id: id)] { return m }
      let n = (level == .stage ? p : level == .outer ? bj : bi)[id]
      let r: NodeID
      switch n.op {
      case .loopIndex:
        guard level == index else { throw Refused(why: "reads the other index") }
        r = q.add(.loopIndex)
      case .loopCapture(let k, _):
        r =
          level == .inner
          ? try copy(innerArgs[innerFirstCapture + k], .outer, into: &q)
          : try copy(outerArgs[outerFirstCapture + k], .stage, into: &q)
      case .positionX, .positionY, .sample, .load, .pixelX, .pixelY, .fold, .loopAccumulator:
        throw Refused(why: "depends on position, data or a loop")
      default:
        r = q.add(n.op, try n.args.map { try copy($0, level, into: &q) })
      }
      memo[Key(level: level, id: id)] = r
      return r
    }
  }
}
