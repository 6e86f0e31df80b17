import FXIR
import FXLLVM
import FXPasses

/// The folds emitted in one vector body: each loop with its operands is one
/// loop nest, whatever number of its results are read.
final class FoldMemo {
  struct Key: Hashable {
    var loop: Loop
    var args: [NodeID]
  }
  var results: [Key: [Value]] = [:]
}

/// The rows a grid thread computes together (``LoopNestPlan/rowsPerStep``):
/// the first, `base`, and the address of each row a load reads, by buffer
/// and offset from `base` (the row's place among the thread's rows, plus
/// the tap, plus the loop index's term when it is a constant), so that the
/// taps the rows share are one address, hence one load once LLVM merges
/// loads of one address. An address is reused only in the block that
/// computed it (a branch of the body cannot reach another's values).
final class GridRowMemo {
  struct Key: Hashable {
    var buffer: Int
    var offset: Int
    var block: BasicBlock
  }
  let base: Value
  var rows: [Key: Value] = [:]
  init(base: Value) { self.base = base }
}

/// Loops of the IR (``Loop``) as loops of LLVM IR: a scalar index counting
/// up, the accumulators carried as `<W x T>` phis, the body emitted once per
/// copy by an emitter whose program and plan are the body's.
extension LoopNestEmitter {
  /// The plan's schedule of the fold of `loop` with bound operands `ids` (``FoldSchedule``).
  func foldSchedule(_ loop: Loop, _ ids: [NodeID]) throws -> FoldSchedule {
    guard let s = plan.folds[FoldKey(loop, lo: Int(ids[0].index), hi: Int(ids[1].index))] else {
      throw LLVMError("internal error: a fold without a schedule in the plan")
    }
    return s
  }

  /// The results of `loop` with operands `a` (nodes `ids` of this program).
  ///
  /// The index runs over `max(lo, −limit) ..< min(hi, limit + 1)`
  /// (``Semantics/loopRange(_:_:limit:)``). When the bounds are the same in
  /// every lane (the plan says they do not vary along the row) it is that
  /// range; otherwise it is the union of the lanes' ranges, and each lane
  /// keeps the body's values only inside its own. A body with shifted dense
  /// loads (``LoopNestPlan/LoadStrategy/denseShifted(offset:indexed:)``) is
  /// emitted twice: the dense copy runs when every shifted column of every
  /// iteration lies in the row, tested once before the loop.
  func emitFold(_ loop: Loop, _ a: [Value], _ ids: [NodeID], xs: Value, y: Value, rowInChunk: Value?) throws -> [Value] {
    guard let body = plan.loops[loop] else { throw LLVMError("internal error: a loop without a plan") }
    let start = try call("llvm.smax", [vi], [a[0], splat(i32(-Int(loop.limit)))])
    let end = try call("llvm.smin", [vi], [a[1], splat(i32(Int(loop.limit) + 1))])
    let uniformBounds = !varies[Int(ids[0].index)] && !varies[Int(ids[1].index)]
    let first = uniformBounds ? b.extractElement(start, at: i32(0)) : try call("llvm.vector.reduce.smin", [vi], [start])
    let last = uniformBounds ? b.extractElement(end, at: i32(0)) : try call("llvm.vector.reduce.smax", [vi], [end])
    let bounds = uniformBounds ? nil : (start, end)
    let row = LoopRow(loop, a, y: y, rowInChunk: rowInChunk)
    let schedule = try foldSchedule(loop, ids)
    func copy(interior: Bool) throws -> [Value] {
      try emitLoop(loop, body, from: first, to: last, lanes: bounds, [row], xs: xs, interior: interior, schedule: schedule)[0]
    }
    guard !body.shifted.isEmpty else { return try copy(interior: false) }

    // Every shifted column inside the row for all lanes: x + lo ≥ 0 and x + hi + W ≤ width.
    let x = b.extractElement(xs, at: i32(0))
    var inside = t.i1.constant(1)
    func within(_ lo: Value, _ hi: Value) {
      let left = b.icmp(.sge, b.add(x, lo), i32(0))
      let right = b.icmp(.sle, b.add(b.add(x, hi), i32(w)), width)
      inside = b.and(inside, b.and(left, right))
    }
    if let window = schedule.tapWindow {
      let (indices, vectors) = (window.first..<(window.last + 1), window.vectors)
      // The window's vectors, x − J·W … x + J·W + W − 1, inside the row: every tap one of them or a shuffle of two.
      within(i32(-vectors * w), i32(vectors * w))
      return try b.ifElse(
        inside, name: "fold.window",
        then: { try emitUnrolled(loop, body, indices: indices, [row], xs: xs)[0] },
        else: { try copy(interior: false) })
    }
    // Index coefficient c: the columns x + c·i + k for i in first..<last.
    let lastIndex = b.sub(last, i32(1))
    for (c, r) in body.shifted.sorted(by: { $0.key < $1.key }) {
      let lo = i32(Int(r.lowerBound)), hi = i32(Int(r.upperBound))
      switch c {
      case 1: within(b.add(first, lo), b.add(lastIndex, hi))
      case -1: within(b.sub(lo, lastIndex), b.sub(hi, first))
      default: within(lo, hi)
      }
    }
    return try b.ifElse(inside, name: "fold.dense", then: { try copy(interior: true) }, else: { try copy(interior: false) })
  }

  /// One trip through `loop`'s body for `row`: its nodes emitted with the
  /// index `index` and the accumulators `accumulators`; the accumulators'
  /// next values. `window`: the taps come from a window (``tapWindow``).
  func emitBody(
    _ loop: Loop, _ bodyPlan: LoopNestPlan, index: Value, accumulators: [Value], _ row: LoopRow, xs: Value, interior: Bool,
    window: Bool = false
  ) throws -> [Value] {
    var inner = self
    inner.program = loop.body
    inner.plan = bodyPlan
    inner.loopIndex = index
    inner.tapWindow = window
    inner.loopAccumulators = accumulators
    inner.loopCaptures = row.captures
    inner.folds = FoldMemo()
    var values = [Value?](repeating: nil, count: loop.body.count)
    var pixels: [PixelKey: Value] = [:]
    for n in bodyPlan.emissionOrder {
      let node = loop.body.nodes[n]
      let a = node.args.map { values[Int($0.index)]! }
      values[n] = try inner.emit(node, a, id: n, xs: xs, y: row.y, interior: interior, rowInChunk: row.rowInChunk, &pixels)
    }
    return loop.body.outputs.map { values[Int($0.index)]! }
  }

  /// One copy of the loop: `for i in first..<last`, the accumulators as phis;
  /// with `lanes` (per-lane bounds) a lane takes the body's values only where
  /// `start ≤ i < end`. With several `rows` (column order's row pairs,
  /// ``LoopNestPlan/rowsPerStep``) one loop carries each row's accumulators and
  /// runs each row's body in turn: the independent sums overlap, and once
  /// LLVM unrolls the loop the rows' shared taps are one load. How LLVM
  /// unrolls each copy is the plan's (``FoldSchedule``). A loop with an
  /// ``Loop/exit`` leaves its head when the exit flag is true in every lane
  /// of every row, and a lane whose flag is true keeps its values.
  func emitLoop(
    _ loop: Loop, _ bodyPlan: LoopNestPlan, from first: Value, to last: Value, lanes: (Value, Value)?, _ rows: [LoopRow],
    xs: Value, interior: Bool, schedule: FoldSchedule
  ) throws -> [[Value]] {
    let fn = b.insertBlock.parent
    let before = b.insertBlock
    let head = fn.appendBasicBlock(named: "fold")
    let bodyBlock = fn.appendBasicBlock(named: "fold.body")
    let done = fn.appendBasicBlock(named: "fold.done")
    b.br(head)
    b.position(atEndOf: head)
    let i = b.phi(t.i32, name: "index")
    let accumulators = rows.map { $0.initial.map { b.phi($0.type, name: "acc") } }
    var more = b.icmp(.slt, i, last)
    if let exit = loop.exit {
      // Some lane of some row has not stopped.
      var stopped = accumulators[0][exit]
      for row in accumulators.dropFirst() { stopped = b.and(stopped, row[exit]) }
      let all = try call("llvm.vector.reduce.and", [vb], [stopped])
      more = b.and(more, b.xor(all, t.i1.constant(1)))
    }
    b.condBr(more, then: bodyBlock, else: done)

    b.position(atEndOf: bodyBlock)
    var next: [[Value]] = []
    for (row, rowAccumulators) in zip(rows, accumulators) {
      var rowNext = try emitBody(loop, bodyPlan, index: i, accumulators: rowAccumulators, row, xs: xs, interior: interior)
      var active: Value?
      if let (start, end) = lanes {
        let index = splat(i)
        active = b.and(b.icmp(.sge, index, start), b.icmp(.slt, index, end))
      }
      if let exit = loop.exit {
        let running = b.xor(rowAccumulators[exit], splat(t.i1.constant(1)))
        active = active.map { b.and($0, running) } ?? running
      }
      if let active { rowNext = zip(rowNext, rowAccumulators).map { b.select(active, $0, $1) } }
      next.append(rowNext)
    }
    let step = b.add(i, i32(1))
    let end = b.insertBlock
    let unroll = interior ? schedule.unroll : schedule.unrollMasked
    m.disableVectorization(ofLoopLatch: b.br(head), unrollCount: unroll, fullUnroll: unroll != nil && schedule.fullyUnrolled)
    i.addIncoming([(first, before), (step, end)])
    for (row, (phis, values)) in zip(rows, zip(accumulators, next)) {
      for (phi, (start, value)) in zip(phis, zip(row.initial, values)) { phi.addIncoming([(start, before), (value, end)]) }
    }
    b.position(atEndOf: done)
    return accumulators
  }

  /// The results of `loop` (operands `a[r]` for row `ys[r]`) for rows emitted
  /// together (``LoopNestPlan/rowsPerStep``): one loop for all of them, which the
  /// plan allows only where the index bounds are the same in every lane and
  /// row and no load of the body is shifted along the row.
  func emitJammedFold(_ loop: Loop, _ a: [[Value]], _ ids: [NodeID], xs: Value, ys: [Value], rowsInChunk: [Value?]) throws -> [[Value]] {
    guard let body = plan.loops[loop] else { throw LLVMError("internal error: a loop without a plan") }
    let start = try call("llvm.smax", [vi], [a[0][0], splat(i32(-Int(loop.limit)))])
    let end = try call("llvm.smin", [vi], [a[0][1], splat(i32(Int(loop.limit) + 1))])
    let first = b.extractElement(start, at: i32(0)), last = b.extractElement(end, at: i32(0))
    let rows = ys.indices.map { LoopRow(loop, a[$0], y: ys[$0], rowInChunk: rowsInChunk[$0]) }
    let schedule = try foldSchedule(loop, ids)
    if gridRows != nil, loop.exit == nil, schedule.fullyUnrolled, case .int(let lo)? = program.constantValue(ids[0]),
      case .int(let hi)? = program.constantValue(ids[1])
    {
      // A grid thread's rows: straight-line code, each tap's row a constant offset from the first row's (GridRowMemo).
      let indices = Semantics.loopRange(lo, hi, limit: loop.limit)
      return try emitUnrolled(loop, body, indices: indices, rows, xs: xs, interior: false, window: false)
    }
    // As emitFold's single copy of a body without shifted loads: not the loop nest's interior.
    return try emitLoop(
      loop, body, from: first, to: last, lanes: nil, rows, xs: xs, interior: false, schedule: schedule)
  }
}

/// What one row's copy of a loop body starts from: the accumulators' initial
/// values and the captures (operands of the fold), its row and its place in
/// the chunk (column order's row tables).
struct LoopRow {
  var initial: [Value]
  var captures: [Value]
  var y: Value
  var rowInChunk: Value?

  init(_ loop: Loop, _ a: [Value], y: Value, rowInChunk: Value?) {
    initial = Array(a[loop.firstInitial..<loop.firstCapture])
    captures = Array(a[loop.firstCapture...])
    self.y = y
    self.rowInChunk = rowInChunk
  }
}

extension LoopNestEmitter {
  // MARK: taps from a window of vectors

  /// The loop run over the constant `indices` as straight-line code, the
  /// body emitted once per index with the index a constant (so each tap's
  /// column offset is one), by default in the window copy (``tapWindow``),
  /// or a grid thread's rows (``GridRowMemo``): the rows' accumulators after
  /// the last index.
  func emitUnrolled(
    _ loop: Loop, _ bodyPlan: LoopNestPlan, indices: Range<Int32>, _ rows: [LoopRow], xs: Value, interior: Bool = true,
    window: Bool = true
  ) throws -> [[Value]] {
    var accumulators = rows.map(\.initial)
    for index in indices {
      for (r, row) in rows.enumerated() {
        let next = try emitBody(
          loop, bodyPlan, index: i32(Int(index)), accumulators: accumulators[r], row, xs: xs, interior: interior, window: window)
        // A lane that has stopped keeps its values (the plan gives an exit loop no window; this keeps the meaning).
        accumulators[r] = loop.exit.map { e in zip(next, accumulators[r]).map { b.select(accumulators[r][e], $1, $0) } } ?? next
      }
    }
    return accumulators
  }

  /// The tap at column `x + offset` (a constant within the window) of
  /// channel `channel` of planar `buffer`: with `offset = j·W + r`,
  /// `0 ≤ r < W`, the vector at x + j·W, or lanes `r…r + W − 1` of it and
  /// the next. The window's loads are the same for every tap (LLVM keeps
  /// one of each); the shuffle is one two-source permute.
  func windowTap(_ buffer: Int, channel: Int, row: Value, x: Value, offset: Value) throws -> Value {
    guard let o = offset.constantInt.map(Int.init), abs(o) <= LoopPlanner.maxTapWindowVectors * w else {
      throw LLVMError("internal error: a window tap at a column offset that is not a constant within the window")
    }
    func vector(_ j: Int) -> Value { b.load(vf, from: planarAddress(buffer, row: row, x: x, channel: channel, offset: j * w), alignment: 4) }
    let j = o >= 0 ? o / w : -((-o + w - 1) / w), r = o - j * w
    if r == 0 { return vector(j) }
    return b.shuffleVector(vector(j), vector(j + 1), mask: constVector((0..<w).map { i32(r + $0) }))
  }
}
