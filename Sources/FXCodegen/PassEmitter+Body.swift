import FXIR
import FXImage
import FXLLVM
import FXPasses

/// The per-pixel body: every live node of the pass program as a `<W x T>` value.
extension PassEmitter {
  /// The W pixels from column `x` of row `y`, all of them inside the range
  /// the function computes (the runtime gives every call at least W columns).
  /// `interior`: every dense-able load's `pixelX + k` is inside the row for all lanes.
  /// `rowInChunk`: in column order, `y` minus the first row of the chunk (the row tables' origin).
  ///
  /// A pass with ``blockUniform`` nodes (a pixelate's block index) computes
  /// them first; when each is the same in every lane (bit for bit), what
  /// depends on pixelX only through them — the block's sample, its gathers
  /// included — is computed once, on lane 0 (``emitBlockUniformBody``);
  /// otherwise the general body runs. Both give the same bits.
  func emitBody(x: Value, y: Value, interior: Bool, rowInChunk: Value? = nil) throws {
    folds.results = [:]
    var values = [Value?](repeating: nil, count: program.count)
    var pixels: [PixelKey: Value] = [:]
    let iota = constVector((0..<w).map { i32($0) })
    let xs = b.add(splat(x), iota, name: "xs")
    func emitNodes(_ order: [Int], _ values: inout [Value?], _ pixels: inout [PixelKey: Value]) throws {
      for i in order {
        let node = program.nodes[i]
        let a = node.args.map { values[Int($0.index)]! }
        values[i] = try emit(node, a, id: i, xs: xs, y: y, interior: interior, rowInChunk: rowInChunk, &pixels)
      }
    }
    guard !blockUniform.isEmpty else {
      try emitNodes(emissionOrder, &values, &pixels)
      store(program.outputs.map { values[Int($0.index)]! }, x: x, y: y)
      return
    }
    // The block-uniform nodes and what they depend on, shared by both bodies.
    var inCone = [Bool](repeating: false, count: program.count)
    var stack = blockUniform
    while let i = stack.popLast() {
      guard !inCone[i] else { continue }
      inCone[i] = true
      stack += program.nodes[i].args.map { Int($0.index) }
    }
    try emitNodes(emissionOrder.filter { inCone[$0] }, &values, &pixels)
    let rest = emissionOrder.filter { !inCone[$0] }
    var uniform = t.i1.constant(1)
    for q in blockUniform {
      let bits = b.bitcast(values[q]!, to: vi)
      let first = splat(b.extractElement(bits, at: i32(0)))
      let same = try call("llvm.vector.reduce.and", [vb], [b.icmp(.eq, bits, first)])
      uniform = b.and(uniform, same)
    }
    let fn = b.insertBlock.parent
    let uniformBlock = fn.appendBasicBlock(named: "block.uniform")
    let generalBlock = fn.appendBasicBlock(named: "block.general")
    let done = fn.appendBasicBlock(named: "block.done")
    b.condBr(uniform, then: uniformBlock, else: generalBlock)

    b.position(atEndOf: uniformBlock)
    try emitBlockUniformBody(rest, values, pixels, xs: xs, x: x, y: y, interior: interior, rowInChunk: rowInChunk)
    b.br(done)

    b.position(atEndOf: generalBlock)
    try emitNodes(rest, &values, &pixels)
    store(program.outputs.map { values[Int($0.index)]! }, x: x, y: y)
    b.br(done)
    b.position(atEndOf: done)
  }

  /// The rest of the body (`order`) for a vector whose block-uniform nodes
  /// hold one value: the nodes that depend on `pixelX` only through them, or
  /// not at all, are emitted on one lane (an emitter with W = 1) and splatted
  /// where a per-pixel node reads them. Those that depend on the block-uniform
  /// values are kept from the previous vector when its key — the block-uniform
  /// values and the row — was the same (stack slots that LLVM turns into
  /// loop-carried registers): a block of 16 columns computes its sample once.
  private func emitBlockUniformBody(
    _ order: [Int], _ shared: [Value?], _ sharedPixels: [PixelKey: Value],
    xs: Value, x: Value, y: Value, interior: Bool, rowInChunk: Value?
  ) throws {
    let uniformNodes = Set(blockUniform)
    // Depends on pixelX other than through a block-uniform node; depends on one.
    let perPixel = program.dependence(on: { $1.op == .pixelX }, stoppingAt: uniformNodes.contains)
    let onBlock = program.dependence { i, _ in uniformNodes.contains(i) }
    var lane = self
    lane.w = 1
    /// Lane 0 of `v` repeated `lanes` times.
    func broadcast(_ v: Value, _ lanes: Int) -> Value {
      b.shuffleVector(v, v.type.poison, mask: t.vector(t.i32, lanes).null)
    }
    var vector = shared, scalar = [Value?](repeating: nil, count: program.count)
    func vectorOf(_ j: Int) -> Value {
      if vector[j] == nil { vector[j] = broadcast(scalar[j]!, w) }
      return vector[j]!
    }
    func scalarOf(_ j: Int) -> Value {
      if scalar[j] == nil { scalar[j] = broadcast(vector[j]!, 1) }
      return scalar[j]!
    }
    var scalarPixels: [PixelKey: Value] = [:]
    let xs1 = broadcast(xs, 1)
    func emitLane(_ nodes: [Int]) throws {
      for i in nodes {
        let node = program.nodes[i]
        let a = node.args.map { scalarOf(Int($0.index)) }
        scalar[i] = try lane.emit(node, a, id: i, xs: xs1, y: y, interior: interior, rowInChunk: rowInChunk, &scalarPixels)
      }
    }
    // Lane work that does not depend on the block: every vector (LLVM hoists it).
    try emitLane(order.filter { !perPixel[$0] && !onBlock[$0] })
    let blockWork = order.filter { !perPixel[$0] && onBlock[$0] }
    let perPixelWork = order.filter { perPixel[$0] }
    // Block work that per-pixel work or the output reads: what is kept.
    let read = Set(program.outputs.map { Int($0.index) } + perPixelWork.flatMap { program.nodes[$0].args.map { Int($0.index) } })
    let frontier = blockWork.filter { read.contains($0) }

    // The key: each block-uniform value's bits and the row.
    let fn = b.insertBlock.parent
    let atEntry = Builder(in: m)
    atEntry.position(atStartOf: fn.entryBlock)
    func slot(_ type: IRType) -> Value { atEntry.alloca(type, name: "block.cache") }
    let valid = slot(t.i1)
    atEntry.store(t.i1.constant(0), to: valid)
    let key = blockUniform.map { b.extractElement(b.bitcast(vector[$0]!, to: vi), at: i32(0)) } + [y]
    let keySlots = key.map { _ in slot(t.i32) }
    var hit = b.load(t.i1, from: valid)
    for (k, s) in zip(key, keySlots) {
      hit = b.and(hit, b.icmp(.eq, b.load(t.i32, from: s), k))
    }
    let compute = fn.appendBasicBlock(named: "block.compute")
    let reuse = fn.appendBasicBlock(named: "block.reuse")
    let join = fn.appendBasicBlock(named: "block.join")
    b.condBr(hit, then: reuse, else: compute)

    b.position(atEndOf: compute)
    try emitLane(blockWork)
    let slots = frontier.map { slot(scalar[$0]!.type) }
    for (f, s) in zip(frontier, slots) { b.store(scalar[f]!, to: s) }
    for (k, s) in zip(key, keySlots) { b.store(k, to: s) }
    b.store(t.i1.constant(1), to: valid)
    let computeEnd = b.insertBlock
    b.br(join)

    b.position(atEndOf: reuse)
    let kept = zip(frontier, slots).map { f, s in b.load(scalar[f]!.type, from: s) }
    b.br(join)

    b.position(atEndOf: join)
    for (f, old) in zip(frontier, kept) {
      let phi = b.phi(scalar[f]!.type)
      phi.addIncoming([(scalar[f]!, computeEnd), (old, reuse)])
      scalar[f] = phi
    }
    var vectorPixels = sharedPixels
    for i in perPixelWork {
      let node = program.nodes[i]
      let a = node.args.map { vectorOf(Int($0.index)) }
      vector[i] = try emit(node, a, id: i, xs: xs, y: y, interior: interior, rowInChunk: rowInChunk, &vectorPixels)
    }
    store(program.outputs.map { vectorOf(Int($0.index)) }, x: x, y: y)
  }

  struct PixelKey: Hashable {
    var buffer: Int
    var x: NodeID, y: NodeID
  }

  /// One node as a `<W x T>` value: built-ins and loads here, pure ops by the ``OpEmitter``.
  func emit(
    _ node: Node, _ a: [Value], id: Int, xs: Value, y: Value, interior: Bool, rowInChunk: Value?,
    _ pixels: inout [PixelKey: Value]
  ) throws -> Value {
    let isFloat = node.args.first.map { program[$0].kind == .float } ?? false
    switch node.op {
    case .constant(let s):
      switch s {
      case .float(let bits): return splat(f32(Float(bitPattern: bits)))
      case .int(let n): return splat(i32(Int(n)))
      case .bool(let f): return splat(t.i1.constant(f ? 1 : 0))
      }
    case .pixelX: return xs
    case .pixelY: return splat(y)
    case .width: return splat(width)
    case .height: return splat(height)
    case .inputWidth(let k): return splat(headers[k]!.width)
    case .inputHeight(let k): return splat(headers[k]!.height)
    case .uniform(let k): return splat(uniforms[k]!)
    case .positionX, .positionY, .sample:
      throw LLVMError("internal error: \(node.op.name) in a kernel program (not lowered)")
    case .loopIndex: return splat(loopIndex!)
    case .loopAccumulator(let k, _): return loopAccumulators[k]
    case .loopCapture(let k, _): return loopCaptures[k]
    case .fold(let loop, let k):
      let key = FoldMemo.Key(loop: loop, args: node.args)
      if folds.results[key] == nil { folds.results[key] = try emitFold(loop, a, node.args, xs: xs, y: y, rowInChunk: rowInChunk) }
      return folds.results[key]![k]
    case .load(let buffer, let channel):
      return try load(buffer, channel, node, a, id: id, xs: xs, y: y, interior: interior, rowInChunk: rowInChunk, &pixels)
    default:
      // What the range analysis proved: a clamp that cannot act is its operand;
      // a min/max whose first operand is never NaN needs no NaN test.
      if let k = plan.proofs.forwarded[id] { return a[k] }
      if plan.proofs.singleInstruction.contains(id) { return ops.fminmaxNotNaN(a[0], a[1], node.op == .min ? .olt : .ogt) }
      var ops = self.ops
      ops.relax = plan.floatMode == .relaxed && plan.proofs.mayRelax(node.op, id, node.args)
      return try ops.pure(node.op, a, isFloat: isFloat)
    }
  }
}
