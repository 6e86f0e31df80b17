import FXIR

extension EffectGraph {
  /// Lowers and type-checks the graph that computes `output`.
  /// - Parameter constants: uniform parameters to treat as constants instead (folded at compile time).
  /// - Throws: ``GraphError`` for the first ill-typed expression, naming the
  ///   effect and, where known, the source line.
  public init(output: Image, constants: Set<Param> = []) throws {
    var lowering = GraphLowering(constants: constants)
    // Images in the order the lowering completes them (each after every
    // image it reads), found without recursion, then lowered in that order:
    // a stage's lowering never recurses into the stages it samples, so a
    // chain of 10,000 effects needs no deeper stack than one effect.
    for node in GraphLowering.completionOrder(output.node) { _ = try lowering.image(node) }
    let ref = try lowering.image(output.node)
    let count = (lowering.inputNames.keys.max() ?? 0) + 1
    self.init(
      inputs: (0..<count).map { lowering.inputNames[$0] ?? "input\($0)" }, stages: lowering.stages, output: ref,
      uniforms: lowering.uniforms)
  }
}

/// Lowers the front end's DAG of vectors into scalar stage programs.
struct GraphLowering {
  var constants: Set<Param>
  var stages: [Stage] = []
  var inputNames: [Int: String] = [:]
  var uniforms: [Param] = []
  var done: [ObjectIdentifier: ImageRef] = [:]

  init(constants: Set<Param>) { self.constants = constants }

  mutating func image(_ node: ImageNode) throws -> ImageRef {
    if let r = done[ObjectIdentifier(node)] { return r }
    let ref: ImageRef
    switch node.source {
    case .input(let index, let name):
      inputNames[index] = inputNames[index] ?? name
      ref = .input(index)
    case .stage(let name, let kind, let body):
      var stage = StageLowering(graph: self)
      let lanes: [NodeID]
      do { lanes = try stage.lower(body) } catch var e as GraphError {
        e.effect = e.effect ?? name
        throw e
      }
      self = stage.graph
      stage.program.outputs = lanes
      stages.append(Stage(name: name, kind: kind, program: stage.program))
      ref = .stage(stages.count - 1)
    }
    done[ObjectIdentifier(node)] = ref
    return ref
  }

  /// The images reachable from `root`, each after the images its expression
  /// reads, in the order a depth-first lowering of `root` would finish them
  /// (operands in order; a sample's image before its position), iteratively.
  static func completionOrder(_ root: ImageNode) -> [ImageNode] {
    enum Item {
      case image(ImageNode)
      case expr(ExprNode)
      case finish(ImageNode)
    }
    var order: [ImageNode] = []
    var seenImages = Set<ObjectIdentifier>(), seenExprs = Set<ObjectIdentifier>()
    var stack: [Item] = [.image(root)]
    while let item = stack.popLast() {
      switch item {
      case .finish(let node): order.append(node)
      case .image(let node):
        guard seenImages.insert(ObjectIdentifier(node)).inserted else { continue }
        stack.append(.finish(node))
        if case .stage(_, _, let body) = node.source { stack.append(.expr(body)) }
      case .expr(let e):
        guard seenExprs.insert(ObjectIdentifier(e)).inserted else { continue }
        let children: [Item]
        switch e.kind {
        case .vector(let parts): children = parts.map { .expr($0) }
        case .swizzle(let v, _): children = [.expr(v)]
        case .lanewise(_, let args): children = args.map { .expr($0) }
        case .sample(let img, _, let p): children = [.image(img), .expr(p)]
        case .imageSize(let img): children = [.image(img)]
        case .constant, .position, .size, .param, .invalid: children = []
        }
        stack += children.reversed()
      }
    }
    return order
  }

  mutating func uniformIndex(_ p: Param) -> Int {
    if let i = uniforms.firstIndex(of: p) { return i }
    uniforms.append(p)
    return uniforms.count - 1
  }
}

/// Lowers one stage's expression DAG, memoised per node.
struct StageLowering {
  var graph: GraphLowering
  var program = Program()
  var memo: [ObjectIdentifier: [NodeID]] = [:]

  mutating func lower(_ e: ExprNode) throws -> [NodeID] {
    if let m = memo[ObjectIdentifier(e)] { return m }
    let r: [NodeID]
    switch e.kind {
    case .invalid(let err): throw err
    case .constant(let s, _): r = [program.add(.constant(s))]
    case .position: r = [program.add(.positionX), program.add(.positionY)]
    case .size: r = [program.add(.toFloat, [program.add(.width)]), program.add(.toFloat, [program.add(.height)])]
    case .param(let p):
      if p.isUniform && !graph.constants.contains(p) {
        r = [program.add(.uniform(graph.uniformIndex(p)))]
      } else {
        r = [program.constant(p.value)]
      }
    case .vector(let parts): r = try parts.flatMap { try lower($0) }
    case .swizzle(let v, let idx):
      let lanes = try lower(v)
      r = idx.map { lanes[$0] }
    case .lanewise(let op, let args):
      let lanes = try args.map { try lower($0) }
      r = (0..<e.type.lanes).map { i in program.add(op, lanes.map { $0.count == 1 ? $0[0] : $0[i] }) }
    case .sample(let img, let sampler, let p):
      let ref = try graph.image(img)
      let xy = try lower(p)
      r = (0..<4).map { program.add(.sample(ref, sampler, channel: $0), xy) }
    case .imageSize(let img):
      let ref = try graph.image(img)
      switch ref {
      case .input(let k):
        r = [program.add(.toFloat, [program.add(.inputWidth(k))]), program.add(.toFloat, [program.add(.inputHeight(k))])]
      case .stage:
        r = [program.add(.toFloat, [program.add(.width)]), program.add(.toFloat, [program.add(.height)])]
      }
    }
    memo[ObjectIdentifier(e)] = r
    return r
  }
}
