import FXIR
import FXLLVM
import FXPasses

extension LoopNestEmitter {
  /// Emits loop nest function `name` as a CUDA kernel entry point for a plan
  /// of the ``KernelSchedule/grid`` schedule: `void name(BufferDescriptor
  /// *buffers, float *uniforms, i32 width, i32 height)`, launched on a grid
  /// of blocks covering the image, each thread computing the pixel
  /// `x = blockIdx.x·blockDim.x + threadIdx.x`, `y` likewise (threads past
  /// the image's edge do nothing). Its body is the CPU's at one lane — the
  /// same ``LoopNestEmitter/emitBody(x:y:interior:rowInChunk:)`` a CPU runs
  /// for a grid plan, there in a loop over the rows and columns — so the tests
  /// that run a grid plan on the CPU check every instruction here but the
  /// thread's coordinates. The buffers' descriptors and uniforms live in
  /// device memory; LLVM's NVPTX back end reads them through generic pointers.
  mutating func emitThreadFunction(named name: String) throws {
    precondition(w == 1 && plan.order == .rows, "a thread function needs a grid plan (one lane, row order)")
    let fn = m.addFunction(name, type: t.function(t.void, [t.ptr, t.ptr, t.i32, t.i32]))
    fn.markAsPTXKernel()
    let entry = fn.appendBasicBlock(named: "entry")
    let pixel = fn.appendBasicBlock(named: "pixel")
    let done = fn.appendBasicBlock(named: "done")
    b.position(atEndOf: entry)
    buffersArg = fn.parameter(0)
    uniformsArg = fn.parameter(1)
    width = fn.parameter(2)
    height = fn.parameter(3)
    func coordinate(_ axis: String) throws -> Value {
      let block = try call("llvm.nvvm.read.ptx.sreg.ctaid.\(axis)", [], [])
      let size = try call("llvm.nvvm.read.ptx.sreg.ntid.\(axis)", [], [])
      let thread = try call("llvm.nvvm.read.ptx.sreg.tid.\(axis)", [], [])
      return b.add(b.mul(block, size), thread, name: axis)
    }
    let x = try coordinate("x"), y = try coordinate("y")
    // Unsigned: a coordinate is never negative, and one comparison each.
    _ = b.condBr(b.and(b.icmp(.ult, x, width), b.icmp(.ult, y, height)), then: pixel, else: done)
    b.position(atEndOf: pixel)
    columnStart = x
    hoistHeaders()
    try emitBody(x: x, y: y, interior: false)
    _ = b.br(done)
    b.position(atEndOf: done)
    _ = b.retVoid()
  }
}
