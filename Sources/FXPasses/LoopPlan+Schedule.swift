import FXIR

/// A fold of a loop in a program: the loop and its bound operands (node
/// indices of the program), which the code generator names the same way.
public struct FoldKey: Hashable, Sendable {
  public var loop: Loop
  public var lo: Int, hi: Int

  public init(_ loop: Loop, lo: Int, hi: Int) {
    self.loop = loop
    self.lo = lo
    self.hi = hi
  }
}

/// How the code generator emits one fold of a loop (``LoopNestPlan/folds``):
/// every number it uses decided here, for the target, with its reasons.
public struct FoldSchedule: Sendable, Equatable, CustomStringConvertible {
  /// A horizontal tap window: the vectors at x + j·W, |j| ≤ `vectors`, hold every tap of the body for indices `first…last`.
  public struct TapWindow: Sendable, Equatable {
    public var first: Int32, last: Int32
    public var vectors: Int
  }

  /// Iterations when the bounds are constants.
  public var trips: Int?
  /// Iterations per trip of the emitted loop (LLVM's unroll count) in the
  /// dense copy, or the only copy of a body without shifted taps.
  public var unroll: Int
  /// The same for the masked copy that runs near the row's ends; nil: not unrolled.
  public var unrollMasked: Int?
  /// Unrolled completely (constant trips ≤ ``LoopPlanner/maxFullyUnrolledIterations``).
  public var fullyUnrolled: Bool
  /// The straight-line window copy, when used.
  public var tapWindow: TapWindow?
  /// Why, for `fxc dump`.
  public var reasons: [String]

  public var description: String {
    var parts = ["unroll \(unroll)" + (unrollMasked == nil ? " (masked copy not unrolled: it runs only near the row's ends)" : "")]
    if let trips { parts.append("\(trips) iterations" + (fullyUnrolled ? ", unrolled completely" : "")) }
    if let w = tapWindow { parts.append("tap window ±\(w.vectors) vector\(w.vectors == 1 ? "" : "s") for indices \(w.first)…\(w.last)") }
    return (parts + reasons).joined(separator: "; ")
  }
}

extension LoopPlanner {
  /// Iterations per trip of an emitted loop: LLVM unrolls a fold's loop by this.
  public static let foldUnroll = 4
  /// Loops with constant bounds and at most this many iterations are
  /// unrolled completely (their weights tabulated constants, their taps
  /// constant offsets): on the 5640×3172 photo, 1 thread, σ 10 (30
  /// iterations) 94.6 → 101.1 Mpix/s, unsharp (5) 366 → 375, σ 3 (9) 175 → 176.
  public static let maxFullyUnrolledIterations = 32
  /// The most vectors on each side of the pixel's that a tap window holds:
  /// reaches up to W columns (16 at 16 lanes: a Gaussian of σ up to 5). Two
  /// (σ 10's 30 columns, 5 vectors a channel) made σ 10 slower, 107.3 → 99.9
  /// Mpix/s: 60 shuffles a channel for 61 loads.
  public static let maxTapWindowVectors = 1
  /// How many rows ahead a row-order loop nest prefetches an input it reads
  /// densely (intermediates are rings already in cache). A column tile reads
  /// each image row in a short run (a 512 KiB tile of unsharp's rings: 690
  /// pixels, 2.7 KB), too short for the hardware prefetcher to get ahead of,
  /// and the planar copy sat on its input load (78 % of its samples): with
  /// the prefetch, on the 5640×3172 photo, unsharp 339 → 364 Mpix/s, σ 3 +
  /// grade 164 → 172, σ 10 91 → 95, the colour chain 1.03×.
  public static let inputPrefetchRows = 4

  /// The folds' schedules and the loads' prefetch distances of `plan` (the
  /// plan of program `p`) and of its loops' bodies, recursively.
  /// `tapWindows`: the target has 16-lane AVX-512 shuffles (x86-64 with AVX-512F).
  static func schedule(_ plan: inout LoopNestPlan, _ p: Program, planar: Set<Int>, interleavedFloat: Set<Int>, tapWindows: Bool) {
    for (i, n) in p.nodes.enumerated() where plan.live[i] {
      guard case .fold(let loop, _) = n.op, let body = plan.loops[loop] else { continue }
      let key = FoldKey(loop, lo: Int(n.args[0].index), hi: Int(n.args[1].index))
      plan.folds[key] = foldSchedule(loop, p, key, body: body, lanes: plan.lanes, planar: planar, tapWindows: tapWindows)
    }
    for (k, load) in plan.loads {
      plan.loads[k]!.prefetchRows = prefetchRows(load, order: plan.order, planar: planar, interleavedFloat: interleavedFloat)
    }
    for loop in Array(plan.loops.keys) {
      schedule(&plan.loops[loop]!, loop.body, planar: planar, interleavedFloat: interleavedFloat, tapWindows: tapWindows)
    }
  }

  /// How fold `key` of `loop` in `p` is emitted.
  static func foldSchedule(
    _ loop: Loop, _ p: Program, _ key: FoldKey, body: LoopNestPlan, lanes: Int, planar: Set<Int>, tapWindows: Bool
  ) -> FoldSchedule {
    var bounds: Range<Int32>?
    if case .int(let lo)? = p.constantValue(NodeID(key.lo)), case .int(let hi)? = p.constantValue(NodeID(key.hi)) {
      bounds = Semantics.loopRange(lo, hi, limit: loop.limit)
    }
    let trips = bounds?.count
    var s = FoldSchedule(
      trips: trips, unroll: foldUnroll, unrollMasked: body.shifted.isEmpty ? foldUnroll : nil,
      fullyUnrolled: trips.map { $0 <= maxFullyUnrolledIterations } ?? false, tapWindow: nil, reasons: [])
    if loop.exit != nil {
      // Each trip tests whether every lane has stopped: LLVM's unroller takes loops of one exit.
      s.unroll = 1
      s.unrollMasked = nil
      s.fullyUnrolled = false
      s.reasons.append("not unrolled, no tap window: the loop has an exit")
      return s
    }
    guard !body.shifted.isEmpty else { return s }
    guard tapWindows, lanes == 16 else {
      s.reasons.append("no tap window: it needs 16 lanes of AVX-512")
      return s
    }
    guard let range = bounds, let trips, trips <= maxFullyUnrolledIterations, let first = range.first, let last = range.last else {
      s.reasons.append("no tap window: bounds not constant, or over \(maxFullyUnrolledIterations) iterations")
      return s
    }
    var reach = 0
    for load in body.loads.values {
      guard case .denseShifted(let k, let c) = load.strategy else { continue }
      guard planar.contains(load.buffer) else {
        s.reasons.append("no tap window: a shifted tap of an input (interleaved pixels)")
        return s
      }
      reach = max(reach, abs(Int(k + c * first)), abs(Int(k + c * last)))
    }
    let vectors = (reach + lanes - 1) / lanes
    guard vectors <= maxTapWindowVectors else {
      s.reasons.append("no tap window: taps reach \(reach) columns, over \(maxTapWindowVectors) vector a side")
      return s
    }
    s.tapWindow = .init(first: first, last: last, vectors: max(vectors, 1))
    return s
  }

  /// Rows ahead to prefetch for `load`: an input read densely in row order
  /// (``inputPrefetchRows``); a gather of 8- or 16-bit pixels at rows within
  /// a known reach in column order, the row it will first need a strip later
  /// (reach + ``RunPlan/stripRows`` + 1); else none.
  static func prefetchRows(_ load: LoopNestPlan.Load, order: LoopNestPlan.Order, planar: Set<Int>, interleavedFloat: Set<Int>) -> Int? {
    guard !planar.contains(load.buffer) else { return nil }
    if load.strategy == .dense, order == .rows { return inputPrefetchRows }
    if load.strategy == .gather, order == .columns, !interleavedFloat.contains(load.buffer), let reach = load.rowReach {
      return Int(reach) + RunPlan.stripRows + 1
    }
    return nil
  }
}
