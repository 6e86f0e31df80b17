import FXIR
import FXLLVM
import FXPasses

/// The CPU's loop nest function: rows in strips, W = lanes columns at a
/// time, in the plan's order (``KernelSchedule/strips``). A grid plan on a
/// CPU runs here too, at one lane: the GPU's per-pixel body in a loop over
/// the pixels (``LoopNestEmitter/emitThreadFunction(named:)`` is the GPU's entry).
extension LoopNestEmitter {
  mutating func emitFunction(named name: String) throws {
    let fnType = t.function(t.void, [t.ptr, t.ptr, t.i32, t.i32, t.i32, t.i32, t.i32, t.i32])
    let fn = m.addFunction(name, type: fnType)
    let entry = fn.appendBasicBlock(named: "entry")

    b.position(atEndOf: entry)
    buffersArg = fn.parameter(0)
    uniformsArg = fn.parameter(1)
    width = fn.parameter(2)
    height = fn.parameter(3)
    let y0 = fn.parameter(4), y1 = fn.parameter(5)
    let x0 = fn.parameter(6), x1 = fn.parameter(7)
    columnStart = x0
    hoistHeaders()

    func rows(_ body: (Value) throws -> Void) throws {
      _ = try loop("row", from: y0, step: 1, while: { y in b.icmp(.slt, y, y1) }, body: body)
    }
    if plan.order == .columns {
      // Column order: rows in chunks; in a chunk, each vector of columns walks
      // down its rows. The taps of a vertical filter then read a window of
      // rows that moves one row per step and stays in L1, instead of
      // streaming every tap row from L2 once per output row; row addresses
      // come from a table filled once per chunk (loads of buffers without
      // one compute their row address as in row order).
      for (buffer, r) in plan.rowTables.sorted(by: { $0.key < $1.key }) {
        let table = b.arrayAlloca(t.ptr, count: i32(plan.chunkRows + 2 * r), name: "rows\(buffer)")
        rowTables[buffer] = (table, r)
      }
      _ = try loop("chunk", from: y0, step: plan.chunkRows, while: { y in b.icmp(.slt, y, y1) }) { chunk in
        try fillRowTables(chunk: chunk)
        let chunkEnd = try call("llvm.smin", [t.i32], [b.add(chunk, i32(plan.chunkRows)), y1])
        try columns(x0: x0, x1: x1) { x, interior in
          var y = chunk
          if plan.rowsPerStep == 2 {
            // Rows in pairs (the loops of both rows run as one), then the odd row left.
            let pairsEnd = b.sub(chunkEnd, i32(1))
            y = try loop("rows", from: chunk, step: 2, while: { y in b.icmp(.slt, y, pairsEnd) }) { y in
              let next = b.add(y, i32(1))
              // The second row's slot as the first's plus one, so that LLVM sees their shared taps' row addresses as one.
              let first = b.sext(b.sub(y, chunk), to: t.i64)
              let inChunk = [first, b.add(first, i64(1))]
              try emitBodies(x: x, ys: [y, next], interior: interior, rowsInChunk: inChunk)
            }
          }
          _ = try loop("row", from: y, step: 1, while: { y in b.icmp(.slt, y, chunkEnd) }) { y in
            try emitBody(x: x, y: y, interior: interior, rowInChunk: b.sext(b.sub(y, chunk), to: t.i64))
          }
        }
      }
    } else if plan.rowsPerStep > 1 {
      // A grid plan's rows per thread (row order): groups of rows together, as a GPU thread runs them, then the rows left.
      let r = plan.rowsPerStep
      let groupsEnd = b.sub(y1, i32(r - 1))
      let y = try loop("rows", from: y0, step: r, while: { y in b.icmp(.slt, y, groupsEnd) }) { y in
        try columns(x0: x0, x1: x1) { x, interior in
          try emitBodies(x: x, ys: (0..<r).map { b.add(y, i32($0)) }, interior: interior, rowsInChunk: [], gridRows: true)
        }
      }
      _ = try loop("row", from: y, step: 1, while: { y in b.icmp(.slt, y, y1) }) { y in
        try columns(x0: x0, x1: x1) { x, interior in try emitBody(x: x, y: y, interior: interior) }
      }
    } else {
      // Row order: values that depend only on the row are computed once per row.
      try rows { y in try columns(x0: x0, x1: x1) { x, interior in try emitBody(x: x, y: y, interior: interior) } }
    }
    b.retVoid()
  }

  /// Fills each row table with the addresses of rows `chunk − reach ..<
  /// chunk + chunkRows + reach`, clamped to the image as LowerToKernel's
  /// clamp-to-edge index is.
  func fillRowTables(chunk: Value) throws {
    for (buffer, table) in rowTables.sorted(by: { $0.key < $1.key }) {
      let count = plan.chunkRows + 2 * table.reach
      let first = b.sub(chunk, i32(table.reach))
      let last = b.sub(height, i32(1))
      _ = try loop("fill\(buffer)", from: i32(0), step: 1, while: { j in b.icmp(.slt, j, i32(count)) }) { j in
        let row = try call("llvm.smin", [t.i32], [try call("llvm.smax", [t.i32], [b.add(first, j), i32(0)]), last])
        b.store(rowStart(buffer, y: row), to: gep(t.ptr, table.pointer, b.sext(j, to: t.i64)))
      }
    }
  }

  /// Calls `body(x, interior)` for whole vectors covering columns `x0..<x1`.
  func columns(x0: Value, x1: Value, _ body: (Value, Bool) throws -> Void) throws {
    var x = x0
    func fits(_ x: Value, _ limit: Value) -> Value { b.icmp(.sle, b.add(x, i32(w)), limit) }
    if let (lo, hi) = plan.interior {
      // Three loops, so each body stays separate (merged, LLVM would sink their
      // common arithmetic behind a phi per tap and spill): vectors near the left
      // edge load taps with masked loads and edge pixels, interior vectors — where
      // every x + k of a tap is inside the row — load them densely, and vectors
      // near the right edge are masked again.
      let interiorStart = b.sub(i32(0), i32(Int(lo)))
      let interiorEnd = b.sub(width, i32(Int(hi)))
      x = try loop("left", from: x, step: w) { x in
        b.and(b.icmp(.slt, x, interiorStart), fits(x, x1))
      } body: { x in
        try body(x, false)
      }
      x = try loop("interior", from: x, step: w) { x in
        b.and(fits(x, interiorEnd), fits(x, x1))
      } body: { x in
        try body(x, true)
      }
    }
    // The rest of the row, W at a time; the last vector ends at x1, overlapping
    // the one before: pixels are a function of their position, so those
    // computed twice get the same values, and no masked tail body is needed.
    // A range narrower than one vector computes nothing: CompiledKernel pads
    // images narrower than W and never makes such a tile.
    let wide = fits(x0, x1)
    let lastStart = b.sub(x1, i32(w))
    _ = try loop("vector", from: x, step: w) { x in
      b.and(wide, b.icmp(.slt, x, x1))
    } body: { x in
      try body(try call("llvm.smin", [t.i32], [x, lastStart]), false)
    }
  }
}
