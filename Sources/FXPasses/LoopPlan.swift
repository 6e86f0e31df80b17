import FXIR

/// How one loop nest of a ``Kernel`` is executed for a ``Target``: every decision
/// the code generator and the runtime follow, made here as data so that it
/// can be printed (`fxc dump`) and tested at any vector width without LLVM.
///
/// A loop nest runs W = ``lanes`` pixels at a time (structure of arrays). It runs
/// in row order (row by row, W columns at a time) or in column order: rows in
/// chunks of ``chunkRows``, each vector of columns walking down a chunk, with
/// row addresses from a per-chunk table for the buffers in ``rowTables``.
/// With an ``interior`` range, each row is three loops — left border,
/// interior, right border — so that taps `pixelX + k` load densely inside.
public struct LoopNestPlan: Sendable {
  public enum Order: String, Sendable, Equatable { case rows, columns }

  /// How a load gets its W pixels.
  public enum LoadStrategy: Sendable, Equatable {
    /// Column `pixelX` of a row the same in every lane: one vector load.
    case dense
    /// Column `pixelX + offset` clamped to the row, of a row the same in every
    /// lane: dense in interior vectors; in border vectors `border`.
    case denseInterior(offset: Int32, border: Border)
    /// Any other coordinates: a gather per channel (float) or per pixel (8/16-bit).
    case gather
    /// Columns computed per lane, of a row the same in every lane (a shift
    /// that depends on the column only, as a chromatic aberration's): the
    /// emitter tests each vector's columns, one dense load when they are
    /// consecutive (as a slowly varying shift leaves most vectors), a gather
    /// otherwise. Either reads exactly the pixels the gather would.
    case gatherOrDense
    /// In a loop body: column `pixelX + index·i + offset` (`index` 0, 1 or −1
    /// times the loop's index i) clamped to the row, of a row the same in
    /// every lane. The loop is emitted twice (``LoopNestPlan/shifted``): dense
    /// loads where every such column of every iteration is inside the row,
    /// masked edge loads elsewhere.
    case denseShifted(offset: Int32, index: Int32)
  }

  /// What a dense tap does in a vector near the row's ends.
  public enum Border: String, Sendable, Equatable {
    /// A masked vector load for the lanes inside the row, the edge pixel for the others.
    case masked
    /// A gather of the clamped columns (interleaved float buffers).
    case gather
  }

  public struct Load: Sendable, Equatable {
    public var buffer: Int
    public var channel: Int
    public var strategy: LoadStrategy
    /// `k` when the row is `pixelY + k` clamped to the image (or `pixelY`);
    /// in a loop body, `pixelY + rowIndex·i + k` (i the loop's index).
    public var rowOffset: Int32?
    /// The loop index's coefficient in the row (0, 1 or −1).
    public var rowIndex: Int32 = 0
    /// For a gather at data-dependent rows outside loops: the largest
    /// |row − pixelY| when the value ranges bound it (``PixelOffsetBounds``).
    public var rowReach: Int32? = nil
    /// Rows ahead of the pixel's to prefetch (``LoopPlanner/prefetchRows(_:order:planar:interleavedFloat:)``), or nil.
    public var prefetchRows: Int? = nil
  }

  /// fp32 lanes per vector (the target's).
  public var lanes: Int
  public var order: Order
  /// Why ``order`` was chosen, for `fxc dump`.
  public var orderReason: String
  /// Rows per chunk of column order.
  public var chunkRows: Int
  /// In column order, for each buffer read at rows `pixelY + k`, the largest
  /// |k| (a table of chunkRows + 2·reach row addresses per chunk).
  public var rowTables: [Int: Int]
  /// The smallest and largest dense tap offset, when some is not 0: vectors
  /// whose every tap column is inside the row form the interior loop.
  public var interior: (lo: Int32, hi: Int32)?
  /// `floor` nodes of an affine function of `pixelX` with slope ≤ 1/W (a
  /// pixelate's block index): piecewise constant over runs of ≥ W columns,
  /// so usually the same in all lanes; the emitter checks each vector and
  /// then computes what depends on them once.
  public var blockUniform: [Int]
  /// Why ``blockUniform`` is or is not used, for `fxc dump`.
  public var blockUniformReason: String
  /// In row order: values that depend on the column only (on `pixelX`,
  /// constants and uniforms, not on the row or any buffer) and feed per-pixel
  /// work — a vignette's `((x + ½)/width − ½)²` — kept per vector position of
  /// the row in a table of the loop nest function and computed in its first row
  /// only (Halide's `compute_root` of a function of x). Empty when none is
  /// worth a table.
  public var columnTable: [Int] = []
  /// The nodes computed only for ``columnTable`` (it included), in emission
  /// order: what a row after the first no longer computes.
  public var columnTableWork: [Int] = []
  /// Why ``columnTable`` is or is not used, for `fxc dump`.
  public var columnTableReason = ""
  /// In column order: output rows computed in one step of a vector of columns
  /// (2 for a vertical filter: the two rows' tap loops run as one loop, their
  /// sums overlap and their shared taps load once), else 1.
  public var rowsPerStep = 1
  /// Why ``rowsPerStep`` is what it is, for `fxc dump` (empty in row order).
  public var rowsPerStepReason = ""
  /// The plan of each live load node, by node index.
  public var loads: [Int: Load]
  /// More live nodes than ``LoopPlanner/largePass``: one vector body, no
  /// interior split or block-uniform body (LLVM's time grows faster than
  /// linearly with code size).
  public var isLarge: Bool
  /// Live nodes of the loop nest program.
  public var live: [Bool]
  /// Nodes whose value changes along a row (depend on `pixelX`).
  public var varies: [Bool]
  /// The live nodes in the order the body emits them: depth first from each
  /// output in turn, operands just before their first use. A blur's four
  /// channel sums are then computed one after another, instead of every tap's
  /// four channels being loaded first and held (which spills registers).
  public var emissionOrder: [Int]
  /// What the value-range and NaN analysis proved, and the code it licenses.
  public var proofs: RangeProofs
  /// The float semantics the code is compiled with.
  public var floatMode: FloatMode = .strict
  /// Whether every pixel of the 8- and 16-bit buffers lies at an address
  /// that is a multiple of its size, so that the code reads or writes it as
  /// one aligned word: a CUDA device's copies of the images guarantee it
  /// (its buffers are fxc's, rows a multiple of the pixel size apart), a
  /// CPU's caller-owned buffers need not. On a GPU, four byte loads a pixel
  /// become one 32-bit load.
  public var alignedPixels = false
  /// The plan of the body of each loop the program folds (``Loop``), whose
  /// loads are planned like the loop nest's; nested loops in theirs.
  public var loops: [Loop: LoopNestPlan] = [:]
  /// In a loop body's plan: the smallest and largest offset of its
  /// ``LoadStrategy/denseShifted(offset:index:)`` loads, by their index
  /// coefficient (−1, 0, 1); the emitter tests them against the row once per
  /// vector and loop, before choosing the dense or the masked copy.
  public var shifted: [Int32: ClosedRange<Int32>] = [:]
  /// How each fold of a loop in the program is emitted (unrolling, tap window: ``FoldSchedule``).
  public var folds: [FoldKey: FoldSchedule] = [:]
}

/// Makes the ``LoopNestPlan`` of every loop nest and the ``RunPlan`` of a kernel for
/// a target. Pure: the same kernel, buffers and lanes give the same plan on
/// every machine.
public enum LoopPlanner {
  /// Loop nests with more live nodes than this are compiled for size: one vector body.
  public static let largePass = 4000
  /// Rows per chunk of column order: a vector of columns walks down this many
  /// rows, reading a window of chunkRows + 2·reach rows (for a σ10 blur of
  /// planar floats, 32 + 60 rows × 4 planes × 32 bytes ≈ 12 KiB: in L1).
  public static let chunkRows = 32
  /// Taps further away than this many rows keep row order: their row window
  /// would not stay in cache, and the row tables live on the stack. (A loop nest in
  /// column order for its column-only work gives such loads no table.)
  public static let maxTableReach = 256
  /// How much the column-order saving must exceed to leave row order for it:
  /// a sine's worth, not a few multiplies (column order's chunk loops and
  /// strided stores cost a little).
  public static let columnOrderThreshold = 16

  /// The plan of each loop nest of `kernel` at `lanes` fp32 lanes, where
  /// `interleavedFloat` names the buffers stored as interleaved RGBA32F
  /// (float inputs; intermediates are planar).
  /// `tapWindows`: the target has AVX-512's 16-lane shuffles (``FoldSchedule/tapWindow``).
  public static func plan(_ kernel: Kernel, lanes: Int, interleavedFloat: Set<Int>, tapWindows: Bool = false) -> [LoopNestPlan] {
    // 8- and 16-bit buffers: the inputs and the output that are not interleaved floats.
    let unorm = Set((0..<kernel.inputCount) + [kernel.outputBuffer]).subtracting(interleavedFloat)
    let facts = RangeAnalysis.run(kernel, unormBuffers: unorm)
    // From the last loop nest back: a channel a later loop nest reads into a
    // discontinuous op stays strict where it is written as well.
    var plans: [LoopNestPlan] = []
    var discontinuous: Set<RangeProofs.BufferChannel> = []
    for (pass, f) in zip(kernel.loopNests, facts).reversed() {
      let outputs = Set(pass.program.outputs.indices.filter { discontinuous.contains(.init(buffer: pass.output, channel: $0)) })
      var plan = plan(pass, kernel: kernel, lanes: lanes, interleavedFloat: interleavedFloat, facts: f, outputsFeedingDiscontinuity: outputs)
      let planar = Set(kernel.inputCount..<kernel.outputBuffer)
      schedule(&plan, pass.program, planar: planar, interleavedFloat: interleavedFloat, tapWindows: tapWindows)
      discontinuous.formUnion(plan.proofs.loadsFeedingDiscontinuity(pass.program))
      plans.append(plan)
    }
    return plans.reversed()
  }

  static func plan(
    _ pass: Kernel.LoopNest, kernel: Kernel, lanes: Int, interleavedFloat: Set<Int>, facts: [ValueFacts],
    outputsFeedingDiscontinuity: Set<Int> = []
  ) -> LoopNestPlan {
    let p = pass.program
    let live = p.live()
    let varies = p.dependence(on: .pixelX)
    let isLarge = live.lazy.filter { $0 }.count > largePass
    let planar = Set(kernel.inputCount..<kernel.outputBuffer)
    var loads: [Int: LoopNestPlan.Load] = [:]
    for (i, n) in p.nodes.enumerated() where live[i] {
      guard case .load(let buffer, let channel) = n.op else { continue }
      let rowInvariant = !varies[Int(n.args[1].index)]
      // Interleaved floats gather one channel at a time: no whole pixels to load densely.
      let checked = rowInvariant && varies[Int(n.args[0].index)] && (planar.contains(buffer) || !interleavedFloat.contains(buffer))
      var strategy = checked ? LoopNestPlan.LoadStrategy.gatherOrDense : .gather
      if rowInvariant, p[n.args[0]].op == .pixelX {
        strategy = .dense
      } else if rowInvariant, let k = ClampToEdge.offset(of: n.args[0], .x, in: p) {
        let border: LoopNestPlan.Border = !planar.contains(buffer) && interleavedFloat.contains(buffer) ? .gather : .masked
        strategy = .denseInterior(offset: k, border: border)
      }
      loads[i] = .init(buffer: buffer, channel: channel, strategy: strategy, rowOffset: ClampToEdge.offset(of: n.args[1], .y, in: p))
      if strategy == .gather || strategy == .gatherOrDense, loads[i]!.rowOffset == nil {
        loads[i]!.rowReach = PixelOffsetBounds.reach(n.args[1], .y, in: p, facts: facts)
      }
    }
    var plan = LoopNestPlan(
      lanes: lanes, order: .rows, orderReason: "", chunkRows: chunkRows, rowTables: [:], interior: nil, blockUniform: [],
      blockUniformReason: "", loads: loads, isLarge: isLarge, live: live, varies: varies, emissionOrder: depthFirstOrder(p),
      proofs: RangeProofs(p, facts: facts, live: live, outputsFeedingDiscontinuity: outputsFeedingDiscontinuity))
    plan.interior = isLarge ? nil : interiorRange(loads)
    plan.loops = loopPlans(p, live: live, varies: varies, lanes: lanes, kernel: kernel, interleavedFloat: interleavedFloat)
    chooseOrder(&plan, p)
    chooseBlockUniform(&plan, p)
    chooseColumnTable(&plan, p)
    chooseRowsPerStep(&plan, p)
    return plan
  }

  /// Two rows per step in column order when every loop the loop nest folds can
  /// run for both rows as one loop: index bounds the same in every lane and
  /// row, no load shifted along the row (those have two copies of their body),
  /// no nested loop; and no block-uniform body. Loops of any length: with the
  /// second row's row-table slot written as the first's plus one (so that
  /// LLVM sees the taps both rows share as one load), σ 3 (±9) went 241 →
  /// 257 Mpix/s, the unsharp mask (±5) 300 → 326 on 1 thread and 554–613 →
  /// 650 on 2 (5640×3172, Zen 4); σ 10 (±30) had it already.
  static func chooseRowsPerStep(_ plan: inout LoopNestPlan, _ p: Program) {
    guard plan.order == .columns else { return }
    let dependsOnY = p.dependence(on: .pixelY)
    var reasons: [String] = []
    if plan.loops.isEmpty { reasons.append("no loop") }
    if plan.isLarge { reasons.append("the pass is large") }
    if !plan.blockUniform.isEmpty { reasons.append("a block-uniform body") }
    for (i, n) in p.nodes.enumerated() where plan.live[i] {
      guard case .fold(let loop, _) = n.op, let body = plan.loops[loop] else { continue }
      let bounds = n.args[0..<2].map { Int($0.index) }
      if bounds.contains(where: { plan.varies[$0] || dependsOnY[$0] }) { reasons.append("loop bounds that vary") }
      if !body.shifted.isEmpty { reasons.append("taps shifted along the row") }
      if !body.loops.isEmpty { reasons.append("nested loops") }
    }
    reasons = reasons.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    plan.rowsPerStep = reasons.isEmpty ? 2 : 1
    plan.rowsPerStepReason =
      reasons.isEmpty
      ? "2 rows per step: their tap loops run as one, the sums overlap and shared taps load once"
      : "1 row per step: " + reasons.joined(separator: ", ")
  }

  /// The column table (``LoopNestPlan/columnTable``) and why: in row order, the
  /// column-only values that per-pixel work reads, when the work only they
  /// need costs more than reading them back (a load each and a check of the
  /// slot per vector).
  static func chooseColumnTable(_ plan: inout LoopNestPlan, _ p: Program) {
    guard plan.order == .rows else {
      plan.columnTableReason = "none: column order computes column-only work once per chunk"
      return
    }
    guard plan.blockUniform.isEmpty, !plan.isLarge else {
      plan.columnTableReason = plan.isLarge ? "none: the pass is large, one vector body" : "none: the pass has a block-uniform body"
      return
    }
    let dependsOnY = p.dependence(on: .pixelY)
    // Column-only: computed from pixelX, constants and uniforms alone — no row, no buffer, no loop.
    var columnOnly = [Bool](repeating: false, count: p.count)
    var invariant = [Bool](repeating: false, count: p.count)
    for (i, n) in p.nodes.enumerated() {
      let args = n.args.map { Int($0.index) }
      switch n.op {
      case .pixelX: columnOnly[i] = true
      case .constant, .width, .height, .uniform, .inputWidth, .inputHeight: invariant[i] = true
      default:
        guard n.op.isPure, !args.isEmpty, args.allSatisfy({ columnOnly[$0] || invariant[$0] }) else { continue }
        if args.allSatisfy({ invariant[$0] }) { invariant[i] = true } else { columnOnly[i] = true }
      }
      columnOnly[i] = columnOnly[i] && plan.live[i] && !dependsOnY[i]
    }
    // Read by per-pixel work or stored: the candidates for the table.
    var readOutside = [Bool](repeating: false, count: p.count)
    for (i, n) in p.nodes.enumerated() where plan.live[i] && !columnOnly[i] && !invariant[i] {
      for a in n.args { readOutside[Int(a.index)] = true }
    }
    for o in p.outputs { readOutside[Int(o.index)] = true }
    var users = [[Int]](repeating: [], count: p.count)
    for (i, n) in p.nodes.enumerated() where plan.live[i] { for a in n.args { users[Int(a.index)].append(i) } }
    // Each candidate's own work: the column-only nodes only it (or other such nodes) reads.
    let table = p.nodes.indices.filter { columnOnly[$0] && readOutside[$0] && p.nodes[$0].kind == .float && p.nodes[$0].op != .toFloat }
    var work = [Bool](repeating: false, count: p.count)
    for i in table { work[i] = true }
    for i in plan.emissionOrder.reversed() where columnOnly[i] && !work[i] && !readOutside[i] {
      work[i] = !users[i].isEmpty && users[i].allSatisfy { work[$0] }
    }
    let cost = p.nodes.indices.filter { work[$0] }.reduce(0) { $0 + p.nodes[$1].op.spec.cost }
    // A load per value kept and about 3 scalar instructions per vector to check the slot.
    let overhead = table.count + 3
    guard !table.isEmpty, cost > overhead else {
      plan.columnTableReason =
        table.isEmpty
        ? "none: no column-only float value feeds per-pixel work"
        : "none: its work (\(cost)) does not outweigh reading it back (\(overhead))"
      return
    }
    plan.columnTable = table
    plan.columnTableWork = plan.emissionOrder.filter { work[$0] }
    plan.columnTableReason =
      table.map { "%\($0)" }.joined(separator: ", ")
      + ": \(plan.columnTableWork.count) nodes of column-only work (cost \(cost)) computed in the first row of a call, read back in the others"
  }

  /// The plans of the bodies of the loops `p` folds. A captured value varies
  /// along the row when it does at any fold of the loop.
  static func loopPlans(
    _ p: Program, live: [Bool], varies: [Bool], lanes: Int, kernel: Kernel, interleavedFloat: Set<Int>
  ) -> [Loop: LoopNestPlan] {
    var captureVaries: [Loop: [Bool]] = [:]
    for (i, n) in p.nodes.enumerated() where live[i] {
      guard case .fold(let loop, _) = n.op else { continue }
      let v = n.args[loop.firstCapture...].map { varies[Int($0.index)] }
      captureVaries[loop] = zip(captureVaries[loop] ?? v, v).map { $0 || $1 }
    }
    var plans: [Loop: LoopNestPlan] = [:]
    for (loop, v) in captureVaries {
      plans[loop] = bodyPlan(loop, captureVaries: v, lanes: lanes, kernel: kernel, interleavedFloat: interleavedFloat)
    }
    return plans
  }

  /// The plan of `loop`'s body: its loads dense where the column is `pixelX`
  /// (plus a constant and the index: shifted) and the row the same in every
  /// lane, else gathered. A row `pixelY ± i + k` comes from the loop nest's row
  /// table in column order when the table reaches `limit + |k|` rows
  /// (``rowTableReach(_:)``). Values depend on the column through `pixelX`, the
  /// accumulators and the captured values that vary.
  static func bodyPlan(_ loop: Loop, captureVaries: [Bool], lanes: Int, kernel: Kernel, interleavedFloat: Set<Int>) -> LoopNestPlan {
    let p = loop.body
    let live = p.live()
    let varies = p.dependence { _, n in
      switch n.op {
      case .pixelX, .loopAccumulator: true
      case .loopCapture(let k, _): captureVaries[k]
      default: false
      }
    }
    var loads: [Int: LoopNestPlan.Load] = [:]
    var shifted: [Int32: ClosedRange<Int32>] = [:]
    for (i, n) in p.nodes.enumerated() where live[i] {
      guard case .load(let buffer, let channel) = n.op else { continue }
      var strategy = LoopNestPlan.LoadStrategy.gather
      if !varies[Int(n.args[1].index)], let t = ClampToEdge.tap(of: n.args[0], .x, in: p) {
        if t.k == 0, t.index == 0, p[n.args[0]].op == .pixelX {
          strategy = .dense
        } else {
          strategy = .denseShifted(offset: t.k, index: t.index)
          let r = shifted[t.index] ?? t.k...t.k
          shifted[t.index] = Swift.min(r.lowerBound, t.k)...Swift.max(r.upperBound, t.k)
        }
      }
      var load = LoopNestPlan.Load(buffer: buffer, channel: channel, strategy: strategy, rowOffset: nil)
      if !varies[Int(n.args[1].index)], let t = ClampToEdge.tap(of: n.args[1], .y, in: p) {
        load.rowOffset = t.k
        load.rowIndex = t.index
      }
      loads[i] = load
    }
    let unknown = [ValueFacts](repeating: .unknown, count: p.count)
    var plan = LoopNestPlan(
      lanes: lanes, order: .rows, orderReason: "a loop body", chunkRows: chunkRows, rowTables: [:], interior: nil, blockUniform: [],
      blockUniformReason: "none: a loop body", loads: loads, isLarge: false, live: live, varies: varies,
      emissionOrder: depthFirstOrder(p), proofs: RangeProofs(p, facts: unknown, live: live))
    plan.shifted = shifted
    plan.loops = loopPlans(p, live: live, varies: varies, lanes: lanes, kernel: kernel, interleavedFloat: interleavedFloat)
    return plan
  }

  /// For each buffer that the loop bodies of `plan` read at rows
  /// `pixelY ± i + k` (or `pixelY + k`), the farthest such row: `limit + |k|`
  /// (`|k|`). Nested bodies count too: every body's emitter reads the loop nest's
  /// row tables, so each table must reach every row any of them reads.
  static func rowTableReach(_ plan: LoopNestPlan) -> [Int: Int] {
    var reach: [Int: Int] = [:]
    for (loop, body) in plan.loops {
      for load in body.loads.values {
        guard let k = load.rowOffset, let r = ClampToEdge.reach(k: k, index: load.rowIndex, limit: loop.limit) else { continue }
        reach[load.buffer] = max(reach[load.buffer] ?? 0, Int(r))
      }
      reach.merge(rowTableReach(body), uniquingKeysWith: max)
    }
    return reach
  }

  /// Whether a loop body of `plan` (or one nested in it) loads rows at the
  /// loop's index: a vertical filter, whose window of rows column order keeps in cache.
  static func loopsWalkRows(_ plan: LoopNestPlan) -> Bool {
    plan.loops.contains { loop, body in
      body.loads.contains { i, _ in
        let row = loop.body.nodes[i].args[1]
        return !body.varies[Int(row.index)] && (ClampToEdge.tap(of: row, .y, in: loop.body).map { $0.index != 0 } ?? false)
      } || loopsWalkRows(body)
    }
  }

  static func interiorRange(_ loads: [Int: LoopNestPlan.Load]) -> (lo: Int32, hi: Int32)? {
    let ks = loads.values.compactMap { load -> Int32? in
      if case .denseInterior(let k, _) = load.strategy { return k }
      return load.strategy == .dense ? 0 : nil
    }
    guard ks.contains(where: { $0 != 0 }) else { return nil }
    return (min(ks.min()!, 0), max(ks.max()!, 0))
  }

  /// Column order for a loop nest with vertical taps (all within
  /// ``maxTableReach``), whose taps then read a window of rows that stays in
  /// L1, or for one whose column-only float work outweighs its row-only work
  /// (``columnOrderSaving``: a wave's `sin(x·k)` is then computed once per
  /// column and chunk instead of at every pixel).
  static func chooseOrder(_ plan: inout LoopNestPlan, _ p: Program) {
    var reach: [Int: Int] = [:]
    for (i, load) in plan.loads.sorted(by: { $0.key < $1.key }) {
      guard let k = load.rowOffset, !plan.varies[Int(p.nodes[i].args[1].index)] else { continue }
      reach[load.buffer] = max(reach[load.buffer] ?? 0, abs(Int(k)))
    }
    for (buffer, r) in rowTableReach(plan) { reach[buffer] = max(reach[buffer] ?? 0, r) }
    let far = reach.values.max() ?? 0
    let verticalTaps = far > 0 && far <= maxTableReach
    let saving = columnOrderSaving(plan, p)
    if loopsWalkRows(plan) {
      plan.order = .columns
      plan.orderReason = "a loop's taps walk down rows: each vector of columns walks down a chunk of \(chunkRows) rows"
    } else if verticalTaps {
      plan.order = .columns
      plan.orderReason = "vertical taps up to ±\(far) rows: each vector of columns walks down a chunk of \(chunkRows) rows"
    } else if saving > columnOrderThreshold {
      plan.order = .columns
      plan.orderReason =
        "the float work that depends on the column only outweighs the row-only work by \(saving) > \(columnOrderThreshold) (computed once per column and chunk)"
    } else {
      plan.order = .rows
      plan.orderReason =
        far > maxTableReach
        ? "taps up to ±\(far) rows, beyond ±\(maxTableReach): row order"
        : "no vertical taps, and the float work that depends on the column only outweighs the row-only work by \(saving) ≤ \(columnOrderThreshold)"
    }
    if plan.order == .columns { plan.rowTables = reach.filter { $0.value <= maxTableReach } }
  }

  /// The float work column order takes out of the per-pixel body minus what
  /// row order does, in rough instructions per vector: row order computes values
  /// that depend on the row only (not on x) once per row, column order those
  /// that depend on the column only once per chunk (the loop-invariant code
  /// motion is LLVM's). Integer index arithmetic is left out: it is cheap,
  /// and that of a horizontal blur's taps (clamp(x + k)) folds into addresses.
  static func columnOrderSaving(_ plan: LoopNestPlan, _ p: Program) -> Int {
    let dependsOnY = p.dependence(on: .pixelY)
    var saving = 0
    for (i, n) in p.nodes.enumerated() where plan.live[i] && plan.varies[i] != dependsOnY[i] && n.kind == .float {
      saving += plan.varies[i] ? n.op.spec.cost : -n.op.spec.cost
    }
    return saving
  }

  /// The block-uniform nodes (``LoopNestPlan/blockUniform``) and why.
  static func chooseBlockUniform(_ plan: inout LoopNestPlan, _ p: Program) {
    let slopes = slopes(p)
    let candidates = p.nodes.indices.filter { i in
      plan.live[i] && p.nodes[i].op == .floor && (slopes[Int(p.nodes[i].args[0].index)].map { $0 != 0 } ?? false)
    }
    func describe(_ i: Int) -> String {
      let slope = slopes[Int(p.nodes[i].args[0].index)]!, inverse = 1 / slope
      let text = inverse == inverse.rounded() && Swift.abs(inverse) < 1e9 ? "\(slope < 0 ? "-" : "")1/\(Int(Swift.abs(inverse)))" : "\(slope)"
      return "%\(i) = floor(slope \(text) along x)"
    }
    guard !candidates.isEmpty else {
      plan.blockUniformReason = "none: no floor of an affine function of x"
      return
    }
    guard !p.hasLoops else {
      plan.blockUniformReason = "none: the pass has loops"
      return
    }
    guard !plan.isLarge else {
      plan.blockUniformReason = "none: the pass is large (> \(largePass) nodes), one vector body"
      return
    }
    let bound = 1 / Double(plan.lanes)
    plan.blockUniform = candidates.filter { abs(slopes[Int(p.nodes[$0].args[0].index)]!) <= bound }
    let rejected = candidates.filter { !plan.blockUniform.contains($0) }
    var parts: [String] = []
    if !plan.blockUniform.isEmpty {
      parts.append(
        "used for " + plan.blockUniform.map(describe).joined(separator: ", ")
          + ": |slope| ≤ 1/\(plan.lanes), runs of ≥ \(plan.lanes) columns, so usually one value per vector")
    }
    if !rejected.isEmpty {
      parts.append(
        "not for " + rejected.map(describe).joined(separator: ", ") + ": |slope| > 1/\(plan.lanes), blocks narrower than a \(plan.lanes)-lane vector")
    }
    plan.blockUniformReason = parts.joined(separator: "; ")
  }

  /// The slope d(node)/d(pixelX) of nodes affine in pixelX; 0 for nodes that
  /// do not depend on it, nil where unknown (a fold whose body reads pixelX
  /// among them: ``Program/dependence(on:stoppingAt:)``).
  static func slopes(_ p: Program) -> [Double?] {
    var slope = [Double?](repeating: nil, count: p.count)
    let varies = p.dependence(on: .pixelX)
    func constant(_ id: NodeID) -> Double? {
      switch p[id].op {
      case .constant(.float(let bits)): Double(Float(bitPattern: bits))
      case .constant(.int(let n)): Double(n)
      default: nil
      }
    }
    for (i, n) in p.nodes.enumerated() {
      let s = n.args.map { slope[Int($0.index)] }
      switch n.op {
      case .pixelX: slope[i] = 1
      case .toFloat: slope[i] = s[0]
      case .add: slope[i] = s[0].flatMap { a in s[1].map { a + $0 } }
      case .sub: slope[i] = s[0].flatMap { a in s[1].map { a - $0 } }
      case .neg: slope[i] = s[0].map { -$0 }
      case .mul:
        if let c = constant(n.args[1]) {
          slope[i] = s[0].map { $0 * c }
        } else if let c = constant(n.args[0]) {
          slope[i] = s[1].map { $0 * c }
        } else {
          slope[i] = s == [0, 0] ? 0 : nil
        }
      case .div:
        if let c = constant(n.args[1]), c != 0 { slope[i] = s[0].map { $0 / c } } else { slope[i] = s == [0, 0] ? 0 : nil }
      case .fold: slope[i] = s.allSatisfy({ $0 == 0 }) && !varies[i] ? 0 : nil
      default: slope[i] = s.allSatisfy({ $0 == 0 }) ? 0 : nil
      }
    }
    return slope
  }

  static func depthFirstOrder(_ p: Program) -> [Int] {
    var order: [Int] = []
    var state = [UInt8](repeating: 0, count: p.count)  // 0 new, 1 open, 2 done
    for out in p.outputs {
      var stack = [Int(out.index)]
      while let top = stack.last {
        if state[top] == 2 {
          stack.removeLast()
          continue
        }
        if state[top] == 1 {
          state[top] = 2
          order.append(top)
          stack.removeLast()
          continue
        }
        state[top] = 1
        // Push operands in reverse so the first operand is emitted first.
        for a in p.nodes[top].args.reversed() where state[Int(a.index)] == 0 { stack.append(Int(a.index)) }
      }
    }
    return order
  }
}
