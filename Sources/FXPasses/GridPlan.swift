import FXIR

/// How a kernel's loop nests cover the image on a target (``KernelPlan/schedule``).
public enum KernelSchedule: String, Sendable, Equatable {
  /// A CPU's: rows in strips, W = lanes columns at a time (structure of
  /// arrays), line buffers or whole-image intermediates (``RunPlan``).
  case strips
  /// A GPU's: a grid of one thread per vector of ``KernelPlan/gridLanes``
  /// pixels of a row (per pixel in a loop nest with a loop), in blocks of
  /// ``KernelPlan/gridBlock`` threads, one launch per loop nest over the
  /// whole image, every intermediate a whole image in device memory.
  case grid
}

extension LoopPlanner {
  /// Reshapes `plan` (made at ``KernelPlan/gridLanes`` lanes, or at one for
  /// a loop nest with a loop) for a thread per vector of a row
  /// (``KernelSchedule/grid``), and the plans of its loops' bodies: a
  /// thread computes one vector of neighbouring pixels and
  /// shares nothing with the threads beside it, so nothing a CPU's strips
  /// share between vectors or rows applies — no column order or row tables,
  /// no interior split, no block-uniform body, no column table, no prefetch,
  /// no shifted tap copies or tap windows. A load at the pixel's own column
  /// stays one vector load of the row; every other load gathers its lanes at
  /// their coordinates. The body's arithmetic, the range proofs and the
  /// loops' schedules are the CPU's. What a CPU's column order shares
  /// between rows stays: where it would compute two rows in one step (a
  /// vertical filter, ``chooseRowsPerStep(_:_:)``), a thread per pixel
  /// computes ``KernelPlan/gridRows`` rows of its column, their tap loops
  /// run as one.
  public static func threadPerVector(_ plan: inout LoopNestPlan) {
    let jammed = plan.order == .columns && plan.rowsPerStep == 2 && plan.lanes == 1
    plan.order = .rows
    plan.orderReason =
      plan.lanes == 1
      ? "a thread per pixel (grid): a loop's taps would be gathered lane by lane, and a loop that stops early runs until its thread's last pixel stops"
      : "a thread per vector of \(plan.lanes) pixels (grid)"
    plan.rowTables = [:]
    plan.interior = nil
    plan.blockUniform = []
    plan.blockUniformReason = "none: a thread per vector"
    plan.columnTable = []
    plan.columnTableWork = []
    plan.columnTableReason = "none: a thread per vector"
    plan.rowsPerStep = jammed ? KernelPlan.gridRows : 1
    plan.rowsPerStepReason =
      jammed
      ? "\(KernelPlan.gridRows) rows per thread: their tap loops run as one, unrolled, and the taps the rows share load once"
      : ""
    plan.shifted = [:]
    for k in plan.loads.keys {
      if plan.loads[k]!.strategy != .dense { plan.loads[k]!.strategy = .gather }
      plan.loads[k]!.prefetchRows = nil
    }
    for key in plan.folds.keys { plan.folds[key]!.tapWindow = nil }
    for loop in plan.loops.keys { threadPerVector(&plan.loops[loop]!) }
  }
}
