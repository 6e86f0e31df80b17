import FXIR
import FXImage
import FXLLVM
import FXPasses

/// The per-pixel body: every live node of the loop nest program as a `<W x T>` value.
extension LoopNestEmitter {
  /// The W pixels from column `x` of row `y`, all of them inside the range
  /// the function computes (the runtime gives every call at least W columns).
  /// `interior`: every dense-able load's `pixelX + k` is inside the row for all lanes.
  /// `rowInChunk`: in column order, `y` minus the first row of the chunk (the row tables' origin).
  ///
  /// A loop nest with ``blockUniform`` nodes (a pixelate's block index) computes
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
      if !plan.columnTable.isEmpty && loopIndex == nil {
        try emitColumnTable(&values, x: x) { order, values in try emitNodes(order, &values, &pixels) }
      }
      try emitNodes(emissionOrder.filter { values[$0] == nil }, &values, &pixels)
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

  /// With ``LoopNestPlan/rowsPerStep`` above 1 (column order's row pairs, a
  /// grid thread's rows): the vector at column `x` of rows `ys` (consecutive)
  /// together. Each node is emitted for each row, except that a fold runs
  /// for all rows as one loop (``emitJammedFold``). `rowsInChunk`: the rows'
  /// places in column order's chunk, nil without row tables. `gridRows`: a
  /// grid thread's rows, `ys[0] + r` (``GridRowMemo``; `rowsInChunk` then
  /// their places, 0, 1, …).
  func emitBodies(x: Value, ys: [Value], interior: Bool, rowsInChunk: [Value?], gridRows: Bool = false) throws {
    if gridRows && self.gridRows == nil {
      var e = self
      e.gridRows = GridRowMemo(base: ys[0])
      return try e.emitBodies(x: x, ys: ys, interior: interior, rowsInChunk: (0..<ys.count).map { i64($0) })
    }
    var values = [[Value?]](repeating: [Value?](repeating: nil, count: program.count), count: ys.count)
    var pixels = [[PixelKey: Value]](repeating: [:], count: ys.count)
    var jammed: [FoldMemo.Key: [[Value]]] = [:]
    let xs = b.add(splat(x), constVector((0..<w).map { i32($0) }), name: "xs")
    for i in emissionOrder {
      let node = program.nodes[i]
      let a = ys.indices.map { r in node.args.map { values[r][Int($0.index)]! } }
      if case .fold(let loop, let k) = node.op {
        let key = FoldMemo.Key(loop: loop, args: node.args)
        if jammed[key] == nil { jammed[key] = try emitJammedFold(loop, a, node.args, xs: xs, ys: ys, rowsInChunk: rowsInChunk) }
        for r in ys.indices { values[r][i] = jammed[key]![r][k] }
        continue
      }
      for r in ys.indices {
        values[r][i] = try emit(node, a[r], id: i, xs: xs, y: ys[r], interior: interior, rowInChunk: rowsInChunk[r], &pixels[r])
      }
    }
    for r in ys.indices { store(program.outputs.map { values[r][Int($0.index)]! }, x: x, y: ys[r]) }
  }

  /// The plan's column table (``LoopNestPlan/columnTable``) for the vector at
  /// column `x`: read from the function's ``BlockCache`` (keyed by `x`) when
  /// its slot holds this column, else computed with the work only it needs
  /// and kept there; in `values` either way. What that work reads from the
  /// rest of the body (pixelX, constants) is emitted first.
  private func emitColumnTable(
    _ values: inout [Value?], x: Value, emitNodes: (_ order: [Int], _ values: inout [Value?]) throws -> Void
  ) throws {
    let work = Set(plan.columnTableWork)
    var needed = Set<Int>()
    var stack = plan.columnTableWork.flatMap { program.nodes[$0].args.map { Int($0.index) } }.filter { !work.contains($0) }
    while let i = stack.popLast() {
      if needed.insert(i).inserted { stack += program.nodes[i].args.map { Int($0.index) } }
    }
    try emitNodes(emissionOrder.filter { needed.contains($0) && values[$0] == nil }, &values)

    let table = plan.columnTable
    if columnCache.cache == nil {
      columnCache.cache = try BlockCache(self, key: 1, values: table.map { _ in vf }, bytesPerValue: 4 * w)
    }
    let kept = try columnCache.cache!.lookUp(x: x, columnStart: columnStart, lanes: w, key: [x], name: "columns", b: b, t: t) {
      try emitNodes(plan.columnTableWork, &values)
      return table.map { values[$0]! }
    }
    for (i, v) in zip(table, kept) { values[i] = v }
    // The rest of the work lives in the compute block only.
    for i in plan.columnTableWork where !table.contains(i) { values[i] = nil }
  }

  /// The rest of the body (`order`) for a vector whose block-uniform nodes
  /// hold one value: the nodes that depend on `pixelX` only through them, or
  /// not at all, are emitted on one lane (an emitter with W = 1) and splatted
  /// where a per-pixel node reads them. Those that depend on the block-uniform
  /// values are kept in a ``BlockCache`` slot per vector position of the row,
  /// keyed by the block-uniform values and the row values the block work
  /// reads: the rows of one block row find them there, so a 16 × 16 block
  /// computes its sample once per vector, not once per row.
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

    let key = blockKey(blockWork, lane: lane, scalarOf)
    // One cache per function: its loops' bodies compute the same block work.
    let types = frontier.map { lane.vectorType(program.nodes[$0].kind) }
    if blockCache.cache.map({ $0.keys.count != key.count || $0.stored.map(\.type) != types }) ?? true {
      blockCache.cache = try BlockCache(self, key: key.count, values: types)
    }
    let kept = try blockCache.cache!.lookUp(x: x, columnStart: columnStart, lanes: w, key: key, name: "block", b: b, t: t) {
      try emitLane(blockWork)
      return frontier.map { scalar[$0]! }
    }
    for (f, v) in zip(frontier, kept) { scalar[f] = v }
    var vectorPixels = sharedPixels
    for i in perPixelWork {
      let node = program.nodes[i]
      let a = node.args.map { vectorOf(Int($0.index)) }
      vector[i] = try emit(node, a, id: i, xs: xs, y: y, interior: interior, rowInChunk: rowInChunk, &vectorPixels)
    }
    store(program.outputs.map { vectorOf(Int($0.index)) }, x: x, y: y)
  }

  /// What the block work computes from, the key of its cached results: lane 0
  /// of each block-uniform value and of each row value it reads (what depends
  /// on pixelY), as i32 bits. The rest it reads is the same for the whole call.
  private func blockKey(_ blockWork: [Int], lane: LoopNestEmitter, _ scalarOf: (Int) -> Value) -> [Value] {
    let onRow = program.dependence(on: .pixelY)
    let inWork = Set(blockWork), uniformNodes = Set(blockUniform)
    let rowInputs = Set(blockWork.flatMap { program.nodes[$0].args.map { Int($0.index) } })
      .filter { !inWork.contains($0) && !uniformNodes.contains($0) && onRow[$0] }.sorted()
    return (blockUniform + rowInputs).map { j in
      let v = scalarOf(j)
      switch program.nodes[j].kind {
      case .float: return b.extractElement(b.bitcast(v, to: lane.vi), at: i32(0))
      case .int: return b.extractElement(v, at: i32(0))
      case .bool: return b.extractElement(b.zext(v, to: lane.vi), at: i32(0))
      }
    }
  }

  /// `table` at `index` (a vector of ints), read from a constant array: one
  /// scalar load for the whole vector at the loop index, a gather elsewhere.
  /// The index is clamped to the table as ``ConstantTable/value(at:)`` says.
  func tableValue(_ table: ConstantTable, index: Value, atLoopIndex: Bool) throws -> Value {
    let element = table.kind == .float ? t.float : t.i32
    let array = m.constantArray(
      table.values.map { $0.kind == .float ? f32($0.floatValue) : i32(Int($0.intValue)) }, of: element)
    // The index minus `first`, clamped to the table's slots (scalar, or per lane).
    func slot(_ i: Value, _ lanes: Int?) -> Value {
      func constant(_ v: Int) -> Value { lanes.map { splat(i32(v), $0) } ?? i32(v) }
      let offset = b.sub(i, constant(Int(table.first))), last = constant(table.values.count - 1), zero = constant(0)
      let below = b.select(b.icmp(.slt, offset, last), offset, last)
      return b.select(b.icmp(.sgt, below, zero), below, zero)
    }
    if atLoopIndex, let loopIndex {
      return splat(b.load(element, from: b.gep(element, array, [slot(loopIndex, nil)])))
    }
    return try gather(element, b.gep(element, array, [slot(index, w)]), align: 4)
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
    case .table(let table): return try tableValue(table, index: a[0], atLoopIndex: program[node.args[0]].op == .loopIndex)
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
      if plan.proofs.ordinaryPow.contains(id) {
        return try ops.power(a[0], a[1], provedOrdinary: true, provedNormal: plan.proofs.normalPow.contains(id))
      }
      var ops = self.ops
      ops.relax = plan.floatMode == .relaxed && plan.proofs.mayRelax(node.op, id, node.args)
      return try ops.pure(node.op, a, isFloat: isFloat)
    }
  }
}

/// Per-call storage of a block-uniform body's results (Halide's block colours
/// computed once per strip, `compute_at` the strip): ``slotCount`` slots, one
/// per vector position along the row (the last shared by vectors beyond),
/// each holding a key and the values computed under it, in stack arrays of
/// the loop nest function (at most ``stackBytes``). A slot is used only when
/// its whole key matches, so a collision or a stale slot costs a
/// recomputation, never a wrong value; the bodies of a function's loops
/// (left edge, interior, right edge) share one cache.
struct BlockCache {
  /// Where a loop nest function keeps its cache once made.
  final class Store {
    var cache: BlockCache?
  }

  /// Vector positions with a slot of their own, at most: 16,384 columns at 16 lanes.
  static let maxSlots = 1024
  /// The most stack the arrays take: 64 KiB, so fewer slots for a body with
  /// many values (a pixelate's 3 colours and 6 key parts take 37 KiB).
  static let stackBytes = 64 << 10
  /// Slots of this cache: ``maxSlots``, or fewer (at least 16) within ``stackBytes``.
  let slotCount: Int
  let valid: Value
  let keys: [Value]
  let stored: [(array: Value, type: IRType)]

  /// Arrays for `key` i32 components and values of `values` types, made in
  /// the entry block of `emitter`'s function, with every slot marked empty.
  /// `bytesPerValue`: 4 for scalars, more for vectors.
  init<E: VectorEmitter>(_ emitter: E, key: Int, values: [IRType], bytesPerValue: Int = 4) throws {
    let b = emitter.b, t = emitter.t
    let atEntry = Builder(in: emitter.m)
    atEntry.position(atStartOf: b.insertBlock.parent.entryBlock)
    slotCount = Swift.max(16, Swift.min(Self.maxSlots, Self.stackBytes / (1 + 4 * key + bytesPerValue * values.count)))
    let n = t.i32.constant(UInt64(slotCount))
    valid = atEntry.arrayAlloca(t.i8, count: n, name: "block.valid")
    keys = (0..<key).map { _ in atEntry.arrayAlloca(t.i32, count: n, name: "block.key") }
    stored = values.map { (atEntry.arrayAlloca($0, count: n, name: "block.value"), $0) }
    let memset = try emitter.m.intrinsic("llvm.memset", [t.ptr, t.i64])
    _ = atEntry.call(memset, [valid, t.i8.constant(0), t.i64.constant(UInt64(slotCount)), t.i1.constant(0)])
  }

  /// The values kept under `key` in the slot of the vector at column `x`, or,
  /// when the slot holds something else, those `compute` emits (in a block of
  /// their own), kept there for the next vector: phis of the join block.
  /// `name` prefixes the blocks.
  func lookUp(
    x: Value, columnStart: Value, lanes: Int, key: [Value], name: String, b: Builder, t: LLVMTypes, compute: () throws -> [Value]
  ) rethrows -> [Value] {
    let slot = self.slot(x: x, columnStart: columnStart, lanes: lanes, b: b, t: t)
    let hit = holds(key, at: slot, b: b, t: t)
    return try b.ifElse(hit, name: name + ".reuse", then: { values(at: slot, b: b, t: t) }) {
      let computed = try compute()
      fill(slot, key: key, values: computed, b: b, t: t)
      return computed
    }
  }

  /// The slot of the vector at column `x`: its position along the row (a
  /// vector that overlaps the one before gets the next), at most the last.
  func slot(x: Value, columnStart: Value, lanes: Int, b: Builder, t: LLVMTypes) -> Value {
    let position = b.udiv(b.add(b.sub(x, columnStart), t.i32.constant(UInt64(lanes - 1))), t.i32.constant(UInt64(lanes)))
    let last = t.i32.constant(UInt64(slotCount - 1))
    return b.zext(b.select(b.icmp(.ult, position, last), position, last), to: t.i64)
  }

  /// Whether `slot` holds values computed under `key`.
  func holds(_ key: [Value], at slot: Value, b: Builder, t: LLVMTypes) -> Value {
    var hit = b.icmp(.ne, b.load(t.i8, from: b.gep(t.i8, valid, [slot])), t.i8.constant(0))
    for (k, array) in zip(key, keys) {
      hit = b.and(hit, b.icmp(.eq, b.load(t.i32, from: b.gep(t.i32, array, [slot])), k))
    }
    return hit
  }

  func fill(_ slot: Value, key: [Value], values: [Value], b: Builder, t: LLVMTypes) {
    for (k, array) in zip(key, keys) { b.store(k, to: b.gep(t.i32, array, [slot])) }
    for (v, s) in zip(values, stored) { b.store(v, to: b.gep(s.type, s.array, [slot])) }
    b.store(t.i8.constant(1), to: b.gep(t.i8, valid, [slot]))
  }

  func values(at slot: Value, b: Builder, t: LLVMTypes) -> [Value] {
    stored.map { b.load($0.type, from: b.gep($0.type, $0.array, [slot])) }
  }
}
