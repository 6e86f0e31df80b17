import FXIR
import FXLLVM
import FXPasses

extension LoopNestEmitter {
  /// Emits loop nest function `name` as a CUDA kernel entry point for a plan
  /// of the ``KernelSchedule/grid`` schedule: `void name(BufferDescriptor
  /// *buffers, float *uniforms, i32 width, i32 height, i32 columns)`,
  /// launched on a grid of blocks covering `columns` (the buffers' width,
  /// at least W; `width` elsewhere) in vectors of W pixels of a row (the
  /// plan's lanes: ``KernelPlan/gridLanes``, or 1 in a loop nest with a
  /// loop). Thread `v = blockIdx.x·blockDim.x + threadIdx.x` of row
  /// `y = blockIdx.y·blockDim.y + threadIdx.y` computes the W pixels from
  /// column `min(v·W, columns − W)`: the last vector of a row ends at the
  /// row's end and overlaps the one before, as a CPU's last vector does (a
  /// pixel is a function of its position, so both write the same values),
  /// and threads past the image do nothing. An image narrower than W runs in
  /// buffers padded to W columns (``CUDAKernel``, as ``CompiledKernel``
  /// does): `width` stays the image's for every clamp and coordinate. With
  /// ``LoopNestPlan/rowsPerStep`` R > 1 (a vertical filter), thread row `v`
  /// computes rows `v·R ..< v·R + R` of its column with their tap loops as
  /// one (``emitBodies(x:ys:interior:rowsInChunk:)``), or, at the image's
  /// last rows, the rows left one at a time.
  /// Its body is the CPU's at W lanes — the same
  /// ``LoopNestEmitter/emitBody(x:y:interior:rowInChunk:)`` a CPU runs for a
  /// grid plan, there in a loop over the rows and vectors — so the tests that
  /// run a grid plan on the CPU check every instruction here but the
  /// thread's coordinates. The buffers' descriptors and uniforms live in
  /// device memory; LLVM's NVPTX back end reads them through generic pointers.
  mutating func emitThreadFunction(named name: String) throws {
    precondition((w == 1 || w == KernelPlan.gridLanes) && plan.order == .rows, "a thread function needs a grid plan (row order)")
    let fn = m.addFunction(name, type: t.function(t.void, [t.ptr, t.ptr, t.i32, t.i32, t.i32]))
    fn.markAsPTXKernel()
    let entry = fn.appendBasicBlock(named: "entry")
    let pixel = fn.appendBasicBlock(named: "pixel")
    let done = fn.appendBasicBlock(named: "done")
    b.position(atEndOf: entry)
    buffersArg = fn.parameter(0)
    uniformsArg = fn.parameter(1)
    width = fn.parameter(2)
    height = fn.parameter(3)
    let columns = fn.parameter(4)
    func coordinate(_ axis: String) throws -> Value {
      let block = try call("llvm.nvvm.read.ptx.sreg.ctaid.\(axis)", [], [])
      let size = try call("llvm.nvvm.read.ptx.sreg.ntid.\(axis)", [], [])
      let thread = try call("llvm.nvvm.read.ptx.sreg.tid.\(axis)", [], [])
      return b.add(b.mul(block, size), thread, name: axis)
    }
    let rows = plan.rowsPerStep
    let first = b.mul(try coordinate("x"), i32(w), name: "first"), y = b.mul(try coordinate("y"), i32(rows), name: "y")
    // Unsigned: a coordinate is never negative, and one comparison each.
    _ = b.condBr(b.and(b.icmp(.ult, first, columns), b.icmp(.ult, y, height)), then: pixel, else: done)
    b.position(atEndOf: pixel)
    let x = try call("llvm.smin", [t.i32], [first, b.sub(columns, i32(w))])
    columnStart = x
    hoistHeaders()
    if rows == 1 {
      try emitBody(x: x, y: y, interior: false)
      _ = b.br(done)
    } else {
      let all = fn.appendBasicBlock(named: "rows"), left = fn.appendBasicBlock(named: "rows.left")
      // Signed: height − R may be negative.
      _ = b.condBr(b.icmp(.sle, y, b.sub(height, i32(rows))), then: all, else: left)
      b.position(atEndOf: all)
      try emitBodies(x: x, ys: (0..<rows).map { b.add(y, i32($0)) }, interior: false, rowsInChunk: [], gridRows: true)
      _ = b.br(done)
      b.position(atEndOf: left)
      _ = try loop("row", from: y, step: 1, while: { r in b.icmp(.slt, r, height) }) { r in try emitBody(x: x, y: r, interior: false) }
      _ = b.br(done)
    }
    b.position(atEndOf: done)
    _ = b.retVoid()
  }
}
