import FXIR

extension Expr {
  /// This expression computed at another pixel: every use of `position`
  /// (also inside sample coordinates) replaced by `p` (float2), the rest
  /// shared. A pixel's value is a pure function of its position, so this is
  /// exactly the value the pixel at `p` computes — what a GPU's 2 × 2-quad
  /// derivatives (`dfdx`, `dfdy`) read from a neighbour. A loop is rebuilt
  /// as a loop of its own at `p` (new index and accumulators) unless nothing
  /// in it reads the position or a placeholder (a loop the same in both is
  /// one loop again once lowered: the IR's loops are equal by structure). Nil when `p` is not a float2, or a loop's index or accumulator
  /// appears outside its loop.
  public func atPosition(_ p: Expr) -> Expr? {
    guard p.type == .float2 else { return nil }
    var memo: [ObjectIdentifier: ExprNode] = [:]
    var loops: [ObjectIdentifier: LoopNode] = [:]
    var reads: [ObjectIdentifier: Bool] = [:]
    var failed = false
    /// Whether `n` reads the position (through any loop too).
    func readsPosition(_ n: ExprNode) -> Bool {
      if let r = reads[ObjectIdentifier(n)] { return r }
      reads[ObjectIdentifier(n)] = false  // a loop's placeholders lead back to it
      let r: Bool
      switch n.kind {
      case .position: r = true
      case .constant, .size, .param, .imageSize, .invalid: r = false
      // A placeholder may be an enclosing loop's, which is being moved: its users move with it.
      case .loopIndex, .loopAccumulator: r = true
      case .vector(let parts): r = parts.contains(where: readsPosition)
      case .swizzle(let a, _): r = readsPosition(a)
      case .lanewise(_, let args): r = args.contains(where: readsPosition)
      case .sample(_, _, let q): r = readsPosition(q)
      case .foldResult(let loop, _): r = ([loop.lo, loop.hi] + loop.initial + loop.results).contains(where: readsPosition)
      }
      reads[ObjectIdentifier(n)] = r
      return r
    }
    /// `loop` at `p`: its placeholders mapped to the new loop's before its results are rebuilt.
    func moved(_ loop: LoopNode) -> LoopNode {
      if let done = loops[ObjectIdentifier(loop)] { return done }
      let new = LoopNode(lo: rebuild(loop.lo), hi: rebuild(loop.hi), limit: loop.limit, initial: loop.initial.map(rebuild))
      new.exit = loop.exit
      new.index = ExprNode(.loopIndex(LoopLink(new)), .int)
      new.accumulators = loop.accumulators.enumerated().map { ExprNode(.loopAccumulator(LoopLink(new), $0.offset), $0.element.type) }
      memo[ObjectIdentifier(loop.index)] = new.index
      for (old, placeholder) in zip(loop.accumulators, new.accumulators) { memo[ObjectIdentifier(old)] = placeholder }
      loops[ObjectIdentifier(loop)] = new
      new.results = loop.results.map(rebuild)
      return new
    }
    func rebuild(_ n: ExprNode) -> ExprNode {
      if failed { return n }
      if let done = memo[ObjectIdentifier(n)] { return done }
      let out: ExprNode
      switch n.kind {
      case .position: out = p.node
      case .constant, .size, .param, .imageSize, .invalid: out = n
      case .vector(let parts):
        let new = parts.map(rebuild)
        out = zip(new, parts).allSatisfy({ $0 === $1 }) ? n : ExprNode(.vector(new), n.type)
      case .swizzle(let a, let lanes):
        let new = rebuild(a)
        out = new === a ? n : ExprNode(.swizzle(new, lanes), n.type)
      case .lanewise(let op, let args):
        let new = args.map(rebuild)
        out = zip(new, args).allSatisfy({ $0 === $1 }) ? n : ExprNode(.lanewise(op, new), n.type)
      case .sample(let image, let sampler, let q):
        let new = rebuild(q)
        out = new === q ? n : ExprNode(.sample(image, sampler, new), n.type)
      case .foldResult(let loop, let k):
        out = readsPosition(n) ? ExprNode(.foldResult(moved(loop), k), n.type) : n
      case .loopIndex, .loopAccumulator:
        // A placeholder of a loop being moved is in `memo` already; any other is outside its loop.
        failed = true
        out = n
      }
      memo[ObjectIdentifier(n)] = out
      return out
    }
    let result = rebuild(node)
    return failed ? nil : Expr(result)
  }
}
