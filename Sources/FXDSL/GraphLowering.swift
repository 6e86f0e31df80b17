import FXIR

extension EffectGraph {
  /// Lowers and type-checks the graph that computes `output`.
  /// - Parameter constants: uniform parameters to treat as constants instead (folded at compile time).
  /// - Throws: ``GraphError`` for the first ill-typed expression, naming the
  ///   effect and, where known, the source line.
  public init(output: Image, constants: Set<Param> = []) throws {
    // Images in the order the lowering completes them (each after every
    // image it reads), found without recursion, then lowered in that order:
    // a stage's lowering never recurses into the stages it samples, so a
    // chain of 10,000 effects needs no deeper stack than one effect.
    // An EffectGraph holds no cuts: of two alternatives it takes the precise one (a loop).
    var lowering = GraphLowering(constants: constants)
    lowering.precise = true
    try self.init(lowering, order: GraphLowering.completionOrder(output.node, precise: true).order, output: output.node)
  }
}

/// Lowers the front end's DAG of vectors into scalar stage programs.
struct GraphLowering {
  var constants: Set<Param>
  var stages: [Stage] = []
  var inputNames: [Int: String] = [:]
  var uniforms: [Param] = []
  var done: [ObjectIdentifier: ImageRef] = [:]
  /// The cut stage whose result is this graph's input 0, when the graph is
  /// one segment of a cut pipeline (``PipelineGraph``).
  var cut: Cut?
  /// Which of two alternatives (``Image/either(fast:precise:)``) this lowering takes.
  var precise = false

  init(constants: Set<Param>) { self.constants = constants }

  mutating func image(_ node: ImageNode) throws -> ImageRef {
    if let r = done[ObjectIdentifier(node)] { return r }
    let ref: ImageRef
    switch node.source {
    case .input(let index, let name):
      if index == 0, let cut {
        throw GraphError("a stage after '\(cut)' also reads the image before it (not supported yet)")
      }
      inputNames[index] = inputNames[index] ?? name
      ref = .input(index)
    case .alternatives(let fast, let precise):
      ref = try image(self.precise ? precise : fast)
    case .cut(.geometry(let g), _):
      throw GraphError("'\(g)' changes the image's size: only a Pipeline runs it (an EffectGraph keeps one size)")
    case .cut(.scan(let s), _):
      throw GraphError("'\(s)' is a scan: only a Pipeline runs it (an EffectGraph is one fused kernel)")
    case .cut(.reduction(let r), _):
      throw GraphError("'\(r)' reads the whole image first: only a Pipeline runs it (an EffectGraph is one fused kernel)")
    case .stage(let name, let kind, let body):
      // The graph moves into the stage's lowering and back, never copied: two
      // live copies would make every `stages.append` copy the array (quadratic
      // in a chain's length: 10,000 stages took seconds).
      var stage = StageLowering(graph: self)
      self = GraphLowering(constants: constants)
      let lanes: [NodeID]
      do { lanes = try stage.lower(body) } catch var e as GraphError {
        self = stage.graph
        e.effect = e.effect ?? name
        throw e
      } catch {
        self = stage.graph
        throw error
      }
      self = stage.graph
      stage.graph = GraphLowering(constants: [])
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
  /// The images `root` needs, each after every image it reads; of two
  /// alternatives only the one `precise` picks (and whether there were any).
  static func completionOrder(_ root: ImageNode, precise: Bool) -> (order: [ImageNode], hasAlternatives: Bool) {
    enum Item {
      case image(ImageNode)
      case expr(ExprNode)
      case finish(ImageNode)
    }
    var order: [ImageNode] = []
    var hasAlternatives = false
    var seenImages = Set<ObjectIdentifier>(), seenExprs = Set<ObjectIdentifier>()
    var stack: [Item] = [.image(root)]
    while let item = stack.popLast() {
      switch item {
      case .finish(let node): order.append(node)
      case .image(let node):
        guard seenImages.insert(ObjectIdentifier(node)).inserted else { continue }
        stack.append(.finish(node))
        switch node.source {
        case .stage(_, _, let body): stack.append(.expr(body))
        case .alternatives(let fast, let slow):
          hasAlternatives = true
          stack.append(.image(precise ? slow : fast))
        case .cut, .input: break  // a cut's input belongs to the segment before it (PipelineGraph)
        }
      case .expr(let e):
        guard seenExprs.insert(ObjectIdentifier(e)).inserted else { continue }
        let children: [Item]
        switch e.kind {
        case .vector(let parts): children = parts.map { .expr($0) }
        case .swizzle(let v, _): children = [.expr(v)]
        case .lanewise(_, let args): children = args.map { .expr($0) }
        case .sample(let img, _, let p): children = [.image(img), .expr(p)]
        case .imageSize(let img): children = [.image(img)]
        case .foldResult(let loop, _): children = ([loop.lo, loop.hi] + loop.initial + loop.results).map { .expr($0) }
        case .constant, .position, .size, .param, .invalid, .loopIndex, .loopAccumulator: children = []
        }
        stack += children.reversed()
      }
    }
    return (order, hasAlternatives)
  }

  mutating func uniformIndex(_ p: Param) -> Int {
    if let i = uniforms.firstIndex(of: p) { return i }
    uniforms.append(p)
    return uniforms.count - 1
  }
}

/// Lowers one stage's expression DAG, memoised per node. A loop's body is
/// lowered into a program of its own (a scope): what the body reads that does
/// not depend on the loop's index or accumulators is lowered in the enclosing
/// scope and captured; constants and the pixel's built-ins are read in place.
struct StageLowering {
  var graph: GraphLowering
  var scopes = [Scope(loop: nil)]
  private var dependence: [DependenceKey: Bool] = [:]

  init(graph: GraphLowering) { self.graph = graph }

  struct Scope {
    var loop: LoopNode?
    var program = Program()
    var memo: [ObjectIdentifier: [NodeID]] = [:]
    /// Captured values: nodes of the enclosing scope, and their capture numbers.
    var captures: [NodeID] = []
    var captureIndex: [NodeID: Int] = [:]
    /// Folds lowered in this scope: each accumulator's lanes.
    var folds: [ObjectIdentifier: [[NodeID]]] = [:]
  }

  private struct DependenceKey: Hashable {
    var expr: ObjectIdentifier, loop: ObjectIdentifier
  }

  /// The stage's program.
  var program: Program {
    get { scopes[0].program }
    set { scopes[0].program = newValue }
  }

  mutating func lower(_ e: ExprNode) throws -> [NodeID] { try lower(e, scope: 0) }

  mutating func lower(_ e: ExprNode, scope s: Int) throws -> [NodeID] {
    if let m = scopes[s].memo[ObjectIdentifier(e)] { return m }
    let r: [NodeID]
    if s > 0, !Self.readsInPlace(e), !depends(e, on: scopes[s].loop!) {
      r = try lower(e, scope: s - 1).map { capture($0, into: s) }
    } else {
      r = try lowerHere(e, scope: s)
    }
    scopes[s].memo[ObjectIdentifier(e)] = r
    return r
  }

  /// Constants and the pixel's built-ins, which a loop body reads itself,
  /// and vectors and swizzles of them (a float4 zero).
  static func readsInPlace(_ e: ExprNode) -> Bool {
    switch e.kind {
    case .constant, .position, .size, .param, .imageSize, .invalid: true
    case .vector(let parts): parts.allSatisfy(readsInPlace)
    case .swizzle(let v, _): readsInPlace(v)
    default: false
    }
  }

  /// Whether `e` reads `loop`'s index or accumulators.
  mutating func depends(_ e: ExprNode, on loop: LoopNode) -> Bool {
    let key = DependenceKey(expr: ObjectIdentifier(e), loop: ObjectIdentifier(loop))
    if let d = dependence[key] { return d }
    let children: [ExprNode]
    switch e.kind {
    case .loopIndex(let link), .loopAccumulator(let link, _):
      dependence[key] = link.loop === loop
      return link.loop === loop
    case .vector(let parts): children = parts
    case .swizzle(let v, _): children = [v]
    case .lanewise(_, let args): children = args
    case .sample(_, _, let p): children = [p]
    case .foldResult(let l, _): children = [l.lo, l.hi] + l.initial + l.results
    case .constant, .position, .size, .param, .imageSize, .invalid: children = []
    }
    var d = false
    for c in children where depends(c, on: loop) {
      d = true
      break
    }
    dependence[key] = d
    return d
  }

  /// Captured value `outer` (a node of scope `s − 1`) as a node of scope `s`.
  mutating func capture(_ outer: NodeID, into s: Int) -> NodeID {
    let k: Int
    if let existing = scopes[s].captureIndex[outer] {
      k = existing
    } else {
      k = scopes[s].captures.count
      scopes[s].captures.append(outer)
      scopes[s].captureIndex[outer] = k
    }
    return scopes[s].program.add(.loopCapture(k, scopes[s - 1].program[outer].kind))
  }

  /// The lanes of each accumulator of `loop`, folded in scope `s`.
  mutating func fold(_ loop: LoopNode, scope s: Int) throws -> [[NodeID]] {
    if let f = scopes[s].folds[ObjectIdentifier(loop)] { return f }
    let lo = try lower(loop.lo, scope: s)[0], hi = try lower(loop.hi, scope: s)[0]
    let initial = try loop.initial.map { try lower($0, scope: s) }
    let kinds = initial.flatMap { $0.map { scopes[s].program[$0].kind } }
    var body = Scope(loop: loop)
    body.memo[ObjectIdentifier(loop.index)] = [body.program.add(.loopIndex)]
    var lane = 0
    for (placeholder, lanes) in zip(loop.accumulators, initial) {
      body.memo[ObjectIdentifier(placeholder)] = lanes.map { _ in
        defer { lane += 1 }
        return body.program.add(.loopAccumulator(lane, kinds[lane]))
      }
    }
    // The body is scope s + 1: scopes deeper than s (a loop body that
    // captures this fold) wait aside until it is lowered.
    let deeper = Array(scopes[(s + 1)...])
    scopes.removeLast(deeper.count)
    scopes.append(body)
    let results = try loop.results.flatMap { try lower($0, scope: s + 1) }
    var inner = scopes.removeLast()
    scopes += deeper
    inner.program.outputs = results
    let captureKinds = inner.captures.map { scopes[s].program[$0].kind }
    // The exit's lane: the accumulators before it take one IR accumulator per lane.
    let exit = loop.exit.map { k in initial[..<k].reduce(0) { $0 + $1.count } }
    let ir = Loop(body: inner.program, accumulators: kinds, captures: captureKinds, limit: loop.limit, exit: exit)
    let operands = [lo, hi] + initial.flatMap { $0 } + inner.captures
    let folded = (0..<kinds.count).map { scopes[s].program.add(.fold(ir, result: $0), operands) }
    var out: [[NodeID]] = []
    var next = 0
    for lanes in initial {
      out.append(Array(folded[next..<next + lanes.count]))
      next += lanes.count
    }
    scopes[s].folds[ObjectIdentifier(loop)] = out
    return out
  }

  mutating func lowerHere(_ e: ExprNode, scope s: Int) throws -> [NodeID] {
    func add(_ op: Op, _ args: [NodeID] = []) -> NodeID { scopes[s].program.add(op, args) }
    switch e.kind {
    case .invalid(let err): throw err
    case .constant(let sc, _): return [add(.constant(sc))]
    case .position: return [add(.positionX), add(.positionY)]
    case .size: return [add(.toFloat, [add(.width)]), add(.toFloat, [add(.height)])]
    case .param(let p):
      if p.isUniform && !graph.constants.contains(p) { return [add(.uniform(graph.uniformIndex(p)))] }
      return [add(.constant(.float(p.value)))]
    case .vector(let parts): return try parts.flatMap { try lower($0, scope: s) }
    case .swizzle(let v, let idx):
      let lanes = try lower(v, scope: s)
      return idx.map { lanes[$0] }
    case .lanewise(let op, let args):
      let lanes = try args.map { try lower($0, scope: s) }
      return (0..<e.type.lanes).map { i in add(op, lanes.map { $0.count == 1 ? $0[0] : $0[i] }) }
    case .sample(let img, let sampler, let p):
      let ref = try graph.image(img)
      let xy = try lower(p, scope: s)
      return (0..<4).map { add(.sample(ref, sampler, channel: $0), xy) }
    case .imageSize(let img):
      let ref = try graph.image(img)
      switch ref {
      case .input(let k): return [add(.toFloat, [add(.inputWidth(k))]), add(.toFloat, [add(.inputHeight(k))])]
      case .stage: return [add(.toFloat, [add(.width)]), add(.toFloat, [add(.height)])]
      }
    case .foldResult(let loop, let k): return try fold(loop, scope: s)[k]
    case .loopIndex, .loopAccumulator:
      throw GraphError("a loop's index or accumulator is used outside its body")
    }
  }
}
