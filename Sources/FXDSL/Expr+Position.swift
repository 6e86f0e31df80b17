import FXIR

extension Expr {
  /// This expression computed at another pixel: every use of `position`
  /// (also inside sample coordinates) replaced by `p` (float2), the rest
  /// shared. A pixel's value is a pure function of its position, so this is
  /// exactly the value the pixel at `p` computes — what a GPU's 2 × 2-quad
  /// derivatives (`dfdx`, `dfdy`) read from a neighbour. Nil when the
  /// expression holds a loop (its body's values are per iteration and are
  /// not rebuilt here).
  public func atPosition(_ p: Expr) -> Expr? {
    guard p.type == .float2 else { return nil }
    var memo: [ObjectIdentifier: ExprNode] = [:]
    var failed = false
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
      case .loopIndex, .loopAccumulator, .foldResult:
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
