import FXIR

/// How a kernel's loop nests are run over an image: line buffers or whole-image
/// intermediates, how far ahead each loop nest runs, ring sizes and column halos.
///
/// When every intermediate is read only at rows `y + k` with constant `k`
/// (blur taps, colour reads), each thread streams its band of rows in strips
/// of ``stripRows``, computing each loop nest just far enough ahead of its
/// consumers into a small per-thread ring of rows — a line buffer (Halide's
/// sliding window) — so intermediates stay in cache. Otherwise intermediates
/// are whole images. Both give identical pixels for any thread count.
public struct RunPlan: Sendable {
  /// Rows per strip of the line-buffer schedule.
  public static let stripRows = 8

  /// How far ahead of the output row each loop nest must have computed its rows
  /// (0 for the last loop nest), or nil when some intermediate is read at
  /// data-dependent rows (then intermediates are whole images) or there is none.
  public var lookahead: [Int]?
  /// Columns each loop nest must compute beyond a tile's edges, or nil when some
  /// intermediate is read at data-dependent columns with no proved bound
  /// (then tiles are whole rows).
  public var columnLookahead: [Int]?
  /// For each loop nest, how many rows of its output are alive at once beyond a
  /// strip: from the oldest row a consumer still reads, `lookahead[j] − r`,
  /// to the newest row written, `lookahead[i] = max(lookahead[j] + r)`, over
  /// its consumers j reading it at rows `y ± r`. A buffer read only at `y`
  /// (the planar copy) needs a strip, however far ahead it is computed.
  public var rowSpan: [Int] = []

  /// The run plan of `kernel`; with `facts` (each loop nest's ``RangeAnalysis``
  /// facts), a load at data-dependent rows whose offset from the pixel is
  /// bounded (``PixelOffsetBounds``) reaches that far, so it keeps line
  /// buffers; a load at such columns (a chromatic aberration's shift) keeps
  /// column tiles, its producer computing the bound as halo. Clamp-to-edge
  /// keeps every read column inside the image, and so inside the last tile.
  public init(_ kernel: Kernel, facts: [[ValueFacts]]? = nil) {
    columnLookahead = Self.lookahead(kernel, kernel.loopNests.indices.map { Self.reach(kernel.loopNests[$0].program, .x, facts: facts?[$0]) })
    let reach = kernel.loopNests.indices.map { Self.reach(kernel.loopNests[$0].program, .y, facts: facts?[$0]) }
    lookahead = kernel.intermediates.isEmpty ? nil : Self.lookahead(kernel, reach)
    if let lookahead {
      rowSpan = kernel.loopNests.indices.map { i in
        let buffer = kernel.loopNests[i].output
        var oldest = lookahead[i]
        for j in kernel.loopNests.indices where j > i {
          if case .some(.some(let r)) = reach[j][buffer] { oldest = Swift.min(oldest, lookahead[j] - Int(r)) }
        }
        return lookahead[i] - oldest
      }
    }
  }

  /// Rows of a ring holding a strip plus `span` more rows, a power of two.
  public static func ringRows(_ span: Int) -> Int {
    var n = 1
    while n < stripRows + span + 1 { n *= 2 }
    return n
  }

  /// For each buffer that `program` loads, the largest |offset| along `axis`
  /// of its loads, when every load's coordinate on that axis is
  /// `pixelX/pixelY + k` clamped; nil for a buffer read at data-dependent
  /// coordinates there.
  /// With `facts` (the program's ``RangeAnalysis`` facts), a load outside
  /// loops at a bounded offset from the pixel reaches that offset, rounded up.
  public static func reach(_ program: Program, _ axis: PixelOffset.Axis, facts: [ValueFacts]? = nil) -> [Int: Int32?] {
    var reach: [Int: Int32?] = [:]
    collectReach(program, axis, limit: nil, facts: facts, into: &reach)
    return reach
  }

  /// A load in a loop body at `pixel + i + k` reaches |k| + the loop's limit.
  static func collectReach(
    _ program: Program, _ axis: PixelOffset.Axis, limit: Int32?, facts: [ValueFacts]? = nil, into reach: inout [Int: Int32?]
  ) {
    let live = program.live()
    for (i, n) in program.nodes.enumerated() where live[i] {
      if case .fold(let loop, _) = n.op { collectReach(loop.body, axis, limit: loop.limit, into: &reach) }
      guard case .load(let b, _) = n.op else { continue }
      let coordinate = n.args[axis == .x ? 0 : 1]
      var k = ClampToEdge.tap(of: coordinate, axis, in: program).flatMap {
        ClampToEdge.reach(k: $0.k, index: $0.index, limit: limit)
      }
      if k == nil, let facts { k = PixelOffsetBounds.reach(coordinate, axis, in: program, facts: facts) }
      switch (reach[b], k) {
      case (nil, _): reach[b] = .some(k)
      case (.some(.some(let r)), .some(let k)): reach[b] = .some(max(r, k))
      default: reach[b] = .some(nil)
      }
    }
  }

  static func lookahead(_ kernel: Kernel, _ reach: [[Int: Int32?]]) -> [Int]? {
    var lookahead = [Int](repeating: 0, count: kernel.loopNests.count)
    for i in stride(from: kernel.loopNests.count - 2, through: 0, by: -1) {
      let buffer = kernel.loopNests[i].output
      for j in (i + 1)..<kernel.loopNests.count {
        guard let r = reach[j][buffer] else { continue }
        guard let r else { return nil }
        lookahead[i] = Swift.max(lookahead[i], lookahead[j] + Int(r))
      }
    }
    return lookahead
  }
}

/// Everything the code generator and the runtime follow for one kernel on
/// one target: a ``LoopNestPlan`` per loop nest and the ``RunPlan``. `fxc dump`
/// prints it.
public struct KernelPlan: Sendable, CustomStringConvertible {
  public var target: Target
  /// How the loop nests cover the image: a CPU's strips of vectors, or a
  /// GPU's grid of a thread per vector of a row.
  public var schedule: KernelSchedule
  public var loopNests: [LoopNestPlan]
  public var run: RunPlan
  let kernel: Kernel
  /// Whether the output is an 8- or 16-bit buffer (its store quantises).
  let unormOutput: Bool

  /// Threads per block of a ``KernelSchedule/grid`` launch, x by y: 32 × 8,
  /// a warp a row of 32 neighbouring vectors of ``gridLanes`` pixels (their
  /// loads of a row coalesce), 256 threads a block.
  public static let gridBlock = (x: 32, y: 8)
  /// Pixels of a row that one thread of a ``KernelSchedule/grid`` computes,
  /// as a vector (the CPU's structure of arrays at 4 lanes), in a loop nest
  /// without a loop: four loads or stores of neighbouring pixels in flight
  /// per thread instead of one, and the thread's per-vector work
  /// (coordinates, clamps, row addresses) done once for four pixels. On an
  /// H100 a colour chain's launches went from 145 to 206 Gpix/s (52 → 75 %
  /// of a device-to-device copy), pixelate + vignette 116 → 133, wave +
  /// chromatic aberration 57 → 65. A loop nest with a loop keeps a thread per
  /// pixel: its taps are gathered lane by lane (σ 10 went 7.6 → 5.2 Gpix/s
  /// at 4 lanes, the unsharp mask 28.5 → 21.2), and a loop that stops early
  /// would run until the thread's last pixel stops.
  public static let gridLanes = 4
  /// Rows of its column that a thread of a ``KernelSchedule/grid`` computes
  /// in a loop nest whose taps run down the column (a vertical blur: where a
  /// CPU computes two rows per step, ``LoopNestPlan/rowsPerStep``): the rows'
  /// tap loops run as one loop, unrolled, so a tap row that several of the
  /// rows read is loaded once. A σ 10 pass reads 61 rows for one pixel, 68
  /// for 8 (8.5 a pixel).
  public static let gridRows = 8

  /// Pixels the code computes at a time: a CPU's vector lanes (strips), or
  /// the most of any loop nest (grid: ``gridLanes`` or 1).
  public var lanes: Int { schedule == .grid ? loopNests.map(\.lanes).max() ?? 1 : target.lanes }

  /// The plan of `kernel` for `target`, where `interleavedFloat` names the
  /// buffers stored as interleaved RGBA32F (inputs or the output in that format).
  /// `schedule` defaults to the target's kind: ``KernelSchedule/grid`` on a
  /// CUDA device, ``KernelSchedule/strips`` on a CPU; a CPU may run the grid
  /// schedule too (its code then loops over the grid: how the tests check a
  /// GPU's code without a GPU).
  public init(
    _ kernel: Kernel, target: Target, interleavedFloat: Set<Int> = [], floatMode: FloatMode = .strict, schedule: KernelSchedule? = nil
  ) {
    self.kernel = kernel
    unormOutput = !interleavedFloat.contains(kernel.outputBuffer)
    self.target = target
    let schedule = schedule ?? (target.kind == .cpu ? .strips : .grid)
    self.schedule = schedule
    let tapWindows = schedule == .strips && target.triple.hasPrefix("x86_64") && target.has("avx512f")
    let lanes = schedule == .grid ? Self.gridLanes : target.lanes
    loopNests = LoopPlanner.plan(kernel, lanes: lanes, interleavedFloat: interleavedFloat, tapWindows: tapWindows)
    if schedule == .grid, loopNests.contains(where: { !$0.loops.isEmpty }) {
      // A loop nest with a loop: a thread per pixel (why: gridLanes).
      let single = LoopPlanner.plan(kernel, lanes: 1, interleavedFloat: interleavedFloat)
      for i in loopNests.indices where !loopNests[i].loops.isEmpty { loopNests[i] = single[i] }
    }
    for i in loopNests.indices {
      loopNests[i].floatMode = floatMode
      if schedule == .grid { LoopPlanner.threadPerVector(&loopNests[i]) }
      if case .cuda = target.kind { loopNests[i].alignedPixels = true }
    }
    run = RunPlan(kernel, facts: loopNests.map(\.proofs.facts))
    if schedule == .grid {
      // Every intermediate a whole image: a launch per loop nest.
      run.lookahead = nil
      run.columnLookahead = nil
      run.rowSpan = []
    }
  }

  /// Rows of the ring that holds intermediate `buffer` at run time
  /// (``RunPlan/ringRows(_:)``), or nil when intermediates are whole images
  /// or `buffer` is not one.
  public func ringRows(of buffer: Int) -> Int? {
    guard run.lookahead != nil, buffer != kernel.outputBuffer, let k = kernel.loopNests.firstIndex(where: { $0.output == buffer }) else {
      return nil
    }
    return RunPlan.ringRows(run.rowSpan[k])
  }

  public var description: String {
    var lines = [
      (target.name == target.cpuName ? "target \(target.summary)" : "target \(target.name): \(target.summary)")
        + (target.kind == .cpu ? " — \(target.kind)" : "")
    ]
    if schedule == .grid {
      lines.append(
        "schedule: grid — a thread per \(Self.gridLanes) pixels of a row (per pixel in a loop nest with a loop) "
          + "in blocks of \(Self.gridBlock.x)×\(Self.gridBlock.y) threads, "
          + "a launch per loop nest, intermediates whole images in device memory")
    }
    for (k, (pass, plan)) in zip(kernel.loopNests, loopNests).enumerated() {
      let width = schedule == .strips ? "\(plan.lanes) lanes" : plan.lanes == 1 ? "a thread per pixel" : "a thread per \(plan.lanes) pixels"
      lines.append(
        "loop nest \(k) '\(pass.name)' → b\(pass.output), " + width + (plan.floatMode == .strict ? "" : ", float \(plan.floatMode.rawValue)"))
      lines.append("  order: \(plan.order.rawValue) — \(plan.orderReason)")
      if !plan.rowTables.isEmpty {
        let tables = plan.rowTables.sorted { $0.key < $1.key }.map { "b\($0.key) ±\($0.value)" }
        lines.append("  row tables: " + tables.joined(separator: ", "))
      }
      if let (lo, hi) = plan.interior {
        lines.append("  interior: columns where x\(lo) … x+\(hi) are inside the row load densely; border vectors apart")
      } else {
        lines.append("  interior: one loop (no dense tap off pixelX)")
      }
      lines.append("  block-uniform: \(plan.blockUniformReason)")
      lines.append("  column table: \(plan.columnTableReason)")
      if !plan.rowsPerStepReason.isEmpty { lines.append("  rows: \(plan.rowsPerStepReason)") }
      if plan.isLarge { lines.append("  large pass: one vector body (> \(LoopPlanner.largePass) nodes)") }
      var counts: [String: Int] = [:]
      for load in plan.loads.values { counts[Self.name(load), default: 0] += 1 }
      let loads = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
      lines.append("  loads (one per channel read): " + (loads.isEmpty ? "none" : loads))
      let prefetched = Set(plan.loads.values.compactMap { l in l.prefetchRows.map { "b\(l.buffer) \($0) rows ahead" } }).sorted()
      if !prefetched.isEmpty { lines.append("  prefetch: " + prefetched.joined(separator: ", ")) }
      lines.append("  " + Self.describe(plan.proofs, pass, output: unormOutput && pass.output == kernel.outputBuffer))
      Self.describeLoops(plan, indent: "  ", into: &lines)
    }
    return lines.joined(separator: "\n")
  }

  /// One line per loop of a plan (nested loops indented): its limit, loads
  /// and the dense copy's test.
  static func describeLoops(_ plan: LoopNestPlan, indent: String, into lines: inout [String]) {
    // In an order fixed by the loops' contents (the plan keeps them in a dictionary).
    for (loop, body) in plan.loops.sorted(by: { "\($0.key)\n\($0.key.body)" < "\($1.key)\n\($1.key.body)" }) {
      var counts: [String: Int] = [:]
      for load in body.loads.values { counts[Self.name(load), default: 0] += 1 }
      let loads = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
      var line =
        indent + "loop (index −\(loop.limit)…\(loop.limit), \(loop.accumulators.count) accumulators"
        + (loop.exit.map { ", exit when accumulator \($0) is true in every lane" } ?? "") + "): loads " + (loads.isEmpty ? "none" : loads)
      if !body.shifted.isEmpty { line += "; two copies: dense where every shifted column is inside the row, masked elsewhere" }
      lines.append(line)
      // Each fold of the loop, in program order.
      for (key, schedule) in plan.folds.filter({ $0.key.loop == loop }).sorted(by: { $0.key.lo < $1.key.lo }) {
        lines.append(indent + "  fold (bounds %\(key.lo), %\(key.hi)): \(schedule)")
      }
      describeLoops(body, indent: indent + "  ", into: &lines)
    }
  }

  /// What the range analysis proved and what the code uses it for.
  static func describe(_ proofs: RangeProofs, _ pass: Kernel.LoopNest, output: Bool) -> String {
    let p = pass.program, live = p.live()
    let floats = p.nodes.indices.filter { live[$0] && p.nodes[$0].kind == .float }
    let nanFree = floats.filter { !proofs.facts[$0].mayBeNaN }.count
    let forwarded = proofs.forwarded.keys.sorted().map { "%\($0)" }
    var s = "ranges: \(nanFree) of \(floats.count) float values never NaN; "
    s += forwarded.isEmpty ? "no clamp proved redundant" : "clamps that cannot act, forwarded: " + forwarded.joined(separator: " ")
    s += "; \(proofs.singleInstruction.count) min/max as one instruction"
    if !proofs.ordinaryPow.isEmpty { s += "; \(proofs.ordinaryPow.count) pow with no special-case branch" }
    if !proofs.normalPow.isEmpty { s += " (\(proofs.normalPow.count) of them normal: one scale by 2ᵏ, no clamp)" }
    if output {
      let q = p.outputs.map { proofs.quantise($0) }
      s += "; store: " + ["r", "g", "b", "a"].indices.map { "\(["r", "g", "b", "a"][$0]) \(q[$0].rawValue)" }.joined(separator: ", ")
    }
    return s
  }

  static func name(_ load: LoopNestPlan.Load) -> String {
    switch load.strategy {
    case .dense: "dense"
    case .denseInterior(_, let border): "dense inside, \(border == .masked ? "masked" : "gathered") at the border"
    case .gather: "gathered"
    case .gatherOrDense: "gathered, dense where a vector's columns are consecutive"
    case .denseShifted(_, let index): index != 0 ? "dense at the loop index, masked at the border" : "dense, masked at the border"
    }
  }

  /// How intermediates are held at run time; column tiles keep at most
  /// `tileCacheBytes` of intermediate rows in flight.
  public func runDescription(tileCacheBytes: Int) -> String {
    guard !kernel.intermediates.isEmpty else { return "no intermediates: one fused pass" }
    if schedule == .grid {
      return "whole-image intermediates in device memory: one launch per loop nest, each over every pixel"
    }
    guard let lookahead = run.lookahead else {
      return "whole-image intermediates (some stage reads an intermediate at data-dependent rows), rows split across threads per pass"
    }
    var lines = [
      "line buffers: each thread streams its band of rows in strips of \(RunPlan.stripRows), every pass computed just ahead of its consumers"
    ]
    for (i, pass) in kernel.loopNests.enumerated() {
      var line = "  loop nest \(i) '\(pass.name)': \(lookahead[i]) rows ahead"
      if pass.output != kernel.outputBuffer { line += ", ring of \(RunPlan.ringRows(run.rowSpan[i])) rows" }
      if let c = run.columnLookahead { line += ", \(c[i]) columns of halo" }
      lines.append(line)
    }
    lines.append(
      run.columnLookahead == nil
        ? "  whole-row tiles (columns read at data-dependent offsets with no proved bound)"
        : "  column tiles sized so the rows in flight fit in \(tileCacheBytes / 1024) KiB; a ring row holds one tile and its halo")
    return lines.joined(separator: "\n")
  }
}
