import FXIR

/// How a kernel's loop nests cover the image on a target (``KernelPlan/schedule``).
public enum KernelSchedule: String, Sendable, Equatable {
  /// A CPU's: rows in strips, W = lanes columns at a time (structure of
  /// arrays), line buffers or whole-image intermediates (``RunPlan``).
  case strips
  /// A GPU's: a grid of one thread per pixel in blocks of
  /// ``KernelPlan/gridBlock`` threads, one launch per loop nest over the whole
  /// image, every intermediate a whole image in device memory.
  case grid
}

extension LoopPlanner {
  /// Reshapes `plan` (made at one lane) for a thread per pixel
  /// (``KernelSchedule/grid``), and the plans of its loops' bodies: a thread
  /// computes one pixel, so nothing a CPU's vectors and strips share between
  /// neighbouring pixels applies — no column order or row tables, no
  /// interior split, no block-uniform body, no column table, no prefetch,
  /// no shifted tap copies; every load reads its one pixel at its
  /// coordinates (a gather of one lane is a plain load). The body's
  /// arithmetic, the range proofs and the loops' schedules are the CPU's.
  public static func threadPerPixel(_ plan: inout LoopNestPlan) {
    plan.order = .rows
    plan.orderReason = "a thread per pixel (grid)"
    plan.rowTables = [:]
    plan.interior = nil
    plan.blockUniform = []
    plan.blockUniformReason = "none: a thread per pixel"
    plan.columnTable = []
    plan.columnTableWork = []
    plan.columnTableReason = "none: a thread per pixel"
    plan.rowsPerStep = 1
    plan.rowsPerStepReason = ""
    plan.shifted = [:]
    for k in plan.loads.keys {
      if plan.loads[k]!.strategy != .dense { plan.loads[k]!.strategy = .gather }
      plan.loads[k]!.prefetchRows = nil
    }
    for key in plan.folds.keys { plan.folds[key]!.tapWindow = nil }
    for loop in plan.loops.keys { threadPerPixel(&plan.loops[loop]!) }
  }
}
