import FXIR
import FXImage
import FXLLVM
import FXPasses

/// How a kernel's buffers are stored: the layout a compiled kernel is specialised for.
public struct KernelLayout: Hashable, Sendable {
  /// Formats of the graph inputs, in order.
  public var inputs: [PixelFormat]
  /// Format of the output buffer.
  public var output: PixelFormat
  /// The float semantics of the code (strict unless asked).
  public var floatMode: FloatMode

  public init(inputs: [PixelFormat], output: PixelFormat, floatMode: FloatMode = .strict) {
    self.inputs = inputs
    self.output = output
    self.floatMode = floatMode
  }

  /// `options` with the alpha storage of these buffers: straight alpha for
  /// the 8- and 16-bit ones (``PixelFormat/holdsStraightAlpha``), which the
  /// kernel then premultiplies after loads and un-premultiplies before the store.
  public func matching(_ options: LoweringOptions) -> LoweringOptions {
    var o = options
    o.straightAlphaInputs = Set(inputs.indices.filter { inputs[$0].holdsStraightAlpha })
    o.straightAlphaOutput = output.holdsStraightAlpha
    return o
  }

  /// Why `kernel` cannot run on these buffers' alpha storage (it was lowered
  /// for another: see ``matching(_:)``), or nil when it can.
  public func alphaMismatch(_ kernel: Kernel) -> String? {
    let straight = matching(LoweringOptions())
    if kernel.straightAlphaInputs != straight.straightAlphaInputs || kernel.straightAlphaOutput != straight.straightAlphaOutput {
      return "the kernel was lowered for straight alpha in inputs \(kernel.straightAlphaInputs.sorted())"
        + "\(kernel.straightAlphaOutput ? " and the output" : ""), but the buffers are \(inputs) → \(output)"
        + " (lower with KernelLayout.matching(_:))"
    }
    return nil
  }

  /// The format of every buffer of `kernel`: inputs, RGBA32F intermediates, output.
  func formats(_ kernel: Kernel) -> [PixelFormat] {
    inputs + Array(repeating: .rgba32f, count: kernel.intermediates.count) + [output]
  }

  /// The loop plan of `kernel` with these buffers on `target` (`schedule`:
  /// the target kind's unless given: ``KernelPlan/init(_:target:interleavedFloat:floatMode:schedule:)``).
  public func plan(_ kernel: Kernel, target: Target, schedule: KernelSchedule? = nil) -> KernelPlan {
    let planar = kernel.inputCount..<kernel.outputBuffer
    let interleavedFloat = formats(kernel).indices.filter { !planar.contains($0) && formats(kernel)[$0] == .rgba32f }
    return KernelPlan(kernel, target: target, interleavedFloat: Set(interleavedFloat), floatMode: floatMode, schedule: schedule)
  }
}

/// The C view of one buffer that a loop nest function receives (32 bytes), the
/// contract between the code generator and the runtime:
/// `{ void *data; int64 rowBytes; int32 width; int32 height; int32 rowMask; int32 planeStride; }`.
/// Row `y` lives at `data + (y & rowMask)·rowBytes`: `rowMask` is all ones for
/// a whole image, `2^n − 1` for a ring of `2^n` rows (a line buffer). A planar
/// intermediate holds channel `c` of row `y` at `planeStride · c` floats into the row.
public struct BufferDescriptor {
  public var data: UnsafeMutableRawPointer
  public var rowBytes: Int64
  public var width: Int32
  public var height: Int32
  public var rowMask: Int32 = -1
  public var planeStride: Int32 = 0

  public init(
    data: UnsafeMutableRawPointer, rowBytes: Int64, width: Int32, height: Int32, rowMask: Int32 = -1, planeStride: Int32 = 0
  ) {
    self.data = data
    self.rowBytes = rowBytes
    self.width = width
    self.height = height
    self.rowMask = rowMask
    self.planeStride = planeStride
  }

  /// The plane stride and row bytes of a planar RGBA32F intermediate `width`
  /// pixels wide. Padded so that neither planes nor rows lie a multiple of
  /// 4 KiB apart: the taps of a vertical blur read the same column of many
  /// rows and planes, and at such strides they would all compete for one set
  /// of the L1 cache (4K aliasing), evicting each other.
  public static func planar(width: Int) -> (planeStride: Int, rowBytes: Int) {
    var stride = (width + 15) / 16 * 16
    if (stride / 16) % 2 == 0 { stride += 16 }  // an odd number of cache lines per plane
    return (stride, 4 * stride * 4 + 64)  // and per row, 4·odd + 1 cache lines
  }
}

/// Emits the LLVM IR of a ``Kernel`` following its ``KernelPlan``: one
/// function per loop nest, `void fxc_nest<k>(BufferDescriptor *buffers, float
/// *uniforms, i32 width, i32 height, i32 y0, i32 y1, i32 x0, i32 x1)`,
/// computing columns `x0..<x1` of rows `y0..<y1` (every index the body
/// computes stays inside the image whatever the range; a range is only the
/// work to do).
///
/// Each row is processed `W` pixels at a time (W = the plan's lanes), every
/// scalar IR node becoming one `<W x T>` value: structure of arrays in
/// registers. Loads follow the plan's strategy (dense vector loads
/// deinterleaved by shuffles, masked edge loads, gathers); intermediates are
/// stored planar (a row of each channel in turn), so loop nests read and write
/// them without shuffles. A row range is covered by whole vectors, the last
/// one ending at `x1` (overlapping the one before); a range narrower than W
/// computes nothing — ``CompiledKernel`` never asks for one (it pads images
/// narrower than W). Loop order, chunks, row tables, the interior split and
/// block-uniform bodies are the plan's (``LoopNestPlan``); the emitter decides
/// nothing.
public enum KernelEmitter {
  /// A module defining `fxc_nest<k>` for each loop nest `k` of `loopNests` (by
  /// default every loop nest of `kernel`): one module per loop nest lets
  /// ``NativeCode`` optimise and generate code for the loop nests on several
  /// threads, each module in its own LLVM context.
  public static func emit(
    _ kernel: Kernel, plan: KernelPlan, layout: KernelLayout, loopNests: Range<Int>? = nil
  ) throws -> KernelModule {
    let nests = loopNests ?? kernel.loopNests.indices
    let module = try KernelModule(name: nests.count == 1 ? "fxc_nest\(nests.lowerBound)" : "fxc_kernel", target: plan.target)
    let formats = layout.formats(kernel)
    for k in nests {
      let (pass, passPlan) = (kernel.loopNests[k], plan.loopNests[k])
      try module.withBuilder { builder in
        let planar = Set(kernel.inputCount..<kernel.outputBuffer)
        var e = LoopNestEmitter(module: module, builder: builder, plan: passPlan, formats: formats, planar: planar, pass: pass)
        e.compactRings = compactRings(kernel, plan)
        e.unreadChannels = pass.output == kernel.outputBuffer ? [] : unreadChannels(kernel, pass.output)
        if case .cuda = plan.target.kind {
          try e.emitThreadFunction(named: "fxc_nest\(k)")
        } else {
          try e.emitFunction(named: "fxc_nest\(k)")
        }
      }
    }
    try module.verify()
    return module
  }

  /// The channels of intermediate `buffer` that no loop nest loads (an opaque
  /// input's alpha, once ``ConstantChannels`` has replaced its loads): its
  /// loop nest need not store them.
  public static func unreadChannels(_ kernel: Kernel, _ buffer: Int) -> Set<Int> {
    var unread = Set(0..<4)
    for pass in kernel.loopNests {
      pass.program.visitDeep { if case .load(buffer, let c) = $0.op { unread.remove(c) } }
    }
    return unread
  }

  /// The intermediates held in rings of under 2 GiB at the widest image
  /// (``ImageBuffer/maxDimension``): every byte offset into them fits in 32
  /// bits, so their gathers take 32-bit indices — one `vgatherdps` for 16
  /// lanes where 64-bit ones take two.
  public static func compactRings(_ kernel: Kernel, _ plan: KernelPlan) -> Set<Int> {
    let rowBytes = BufferDescriptor.planar(width: ImageBuffer.maxDimension).rowBytes
    return Set((kernel.inputCount..<kernel.outputBuffer).filter { b in plan.ringRows(of: b).map { $0 * rowBytes < Int(Int32.max) } ?? false })
  }
}

/// The CPU back end for one loop nest: the loop nest of its plan, the loads
/// (dense, masked at the edges, gathered), stores, and the block-uniform
/// body; pure ops go to the shared ``OpEmitter``.
struct LoopNestEmitter: VectorEmitter {
  let m: KernelModule
  let b: Builder
  let t: LLVMTypes
  var w: Int
  /// The pure-op emitter at this emitter's width.
  var ops: OpEmitter { OpEmitter(m: m, b: b, t: t, w: w) }
  let formats: [PixelFormat]
  let pass: Kernel.LoopNest
  /// The program emitted: the loop nest's, or a loop body's (``emitFold``).
  var program: Program
  /// What this loop nest (or loop body) does, decided by ``LoopPlanner``.
  var plan: LoopNestPlan
  /// In a loop body: the index (a scalar i32), the accumulators and the captured values.
  var loopIndex: Value? = nil
  /// In the window copy of a loop body (``LoopNestEmitter/tapWindowIndices(_:_:_:)``,
  /// the index a constant): each planar tap is one of the vectors at x + j·W
  /// or a shuffle of two (``LoopNestEmitter/windowTap(_:channel:row:x:offset:)``).
  var tapWindow = false
  var loopAccumulators: [Value] = []
  var loopCaptures: [Value] = []
  /// The folds emitted so far in the current vector body, by loop and operands.
  var folds = FoldMemo()
  /// A grid thread's rows (``LoopNestPlan/rowsPerStep`` above 1 in row order):
  /// their first row and the row addresses emitted so far.
  var gridRows: GridRowMemo? = nil
  /// The loop nest function's block-uniform cache, shared by its loops' bodies.
  let blockCache = BlockCache.Store()
  /// The loop nest function's column table (``LoopNestPlan/columnTable``), shared by its loops' bodies.
  let columnCache = BlockCache.Store()
  var live: [Bool] { plan.live }
  /// Nodes whose value changes along a row (depend on `pixelX`).
  var varies: [Bool] { plan.varies }
  var emissionOrder: [Int] { plan.emissionOrder }
  var blockUniform: [Int] { plan.blockUniform }
  /// Buffers stored planar (the intermediates).
  let planar: Set<Int>
  /// Planar buffers whose byte offsets fit in 32 bits (``KernelEmitter/compactRings(_:_:)``).
  var compactRings: Set<Int> = []
  /// Channels of this loop nest's planar output that no loop nest reads, left unstored
  /// (``KernelEmitter/unreadChannels(_:_:)``).
  var unreadChannels: Set<Int> = []

  // Function arguments and values hoisted into the entry block.
  var buffersArg: Value!
  var uniformsArg: Value!
  var width: Value!
  var height: Value!
  /// The first column the function computes (its `x0`).
  var columnStart: Value!
  var headers: [Int: (data: Value, rowBytes: Value, width: Value, height: Value, rowMask: Value, planeStride: Value)] = [:]
  var uniforms: [Int: Value] = [:]

  init(module: KernelModule, builder: Builder, plan: LoopNestPlan, formats: [PixelFormat], planar: Set<Int>, pass: Kernel.LoopNest) {
    self.planar = planar
    m = module
    b = builder
    t = module.types
    w = plan.lanes
    self.plan = plan
    self.formats = formats
    self.pass = pass
    program = pass.program
  }

  /// In column order, for each buffer with a row table in the plan: the
  /// table of the row addresses of a chunk plus `reach` rows above and
  /// below, clamped to the image; entry `reach + j + k` is row `chunk + j + k`.
  var rowTables: [Int: (pointer: Value, reach: Int)] = [:]

  /// `while condition(i) { body(i); i += step }` from the current block;
  /// returns the final i, with the builder in the loop's exit block. LLVM is
  /// told not to vectorise or unroll the loop (its body is vector code already).
  func loop(
    _ name: String, from start: Value, step: Int, while condition: (Value) -> Value,
    body: (Value) throws -> Void
  ) throws -> Value {
    let fn = b.insertBlock.parent
    let before = b.insertBlock
    let head = fn.appendBasicBlock(named: name)
    let bodyBlock = fn.appendBasicBlock(named: name + ".body")
    let done = fn.appendBasicBlock(named: name + ".done")
    b.br(head)
    b.position(atEndOf: head)
    let i = b.phi(t.i32, name: name)
    b.condBr(condition(i), then: bodyBlock, else: done)
    b.position(atEndOf: bodyBlock)
    try body(i)
    let next = b.add(i, i32(step))
    let end = b.insertBlock
    m.disableVectorization(ofLoopLatch: b.br(head))
    i.addIncoming([(start, before), (next, end)])
    b.position(atEndOf: done)
    return i
  }

  /// Loads every buffer descriptor and uniform the loop nest uses, once per call.
  mutating func hoistHeaders() {
    var used = Set<Int>([pass.output])
    program.visitDeep { n in
      switch n.op {
      case .load(let buffer, _): used.insert(buffer)
      case .inputWidth(let k), .inputHeight(let k): used.insert(k)
      case .uniform(let k) where uniforms[k] == nil:
        uniforms[k] = b.load(t.float, from: gep(t.float, uniformsArg, i32(k)), name: "uniform\(k)")
      default: break
      }
    }
    for k in used.sorted() {
      let base = gep(t.i8, buffersArg, t.i64.constant(UInt64(MemoryLayout<BufferDescriptor>.stride * k)))
      func field(_ offset: Int, _ type: IRType, _ name: String) -> Value {
        let p = gep(t.i8, base, t.i64.constant(UInt64(offset)))
        return b.load(type, from: p, name: "b\(k).\(name)")
      }
      headers[k] = (
        field(0, t.ptr, "data"), field(8, t.i64, "rowBytes"), field(16, t.i32, "width"), field(20, t.i32, "height"),
        field(24, t.i32, "rowMask"), field(28, t.i32, "planeStride")
      )
    }
  }
}
