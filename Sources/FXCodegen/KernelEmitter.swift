import CLLVM
import FXIR
import FXImage
import FXPasses

/// How a kernel's buffers are stored: the layout a compiled kernel is specialised for.
public struct KernelLayout: Hashable, Sendable {
  /// Formats of the graph inputs, in order.
  public var inputs: [PixelFormat]
  /// Format of the output buffer.
  public var output: PixelFormat

  public init(inputs: [PixelFormat], output: PixelFormat) {
    self.inputs = inputs
    self.output = output
  }

  /// The format of every buffer of `kernel`: inputs, RGBA32F intermediates, output.
  func formats(_ kernel: Kernel) -> [PixelFormat] {
    inputs + Array(repeating: .rgba32f, count: kernel.intermediates.count) + [output]
  }
}

/// The C view of one buffer that a pass function receives (32 bytes):
/// `{ void *data; int64 rowBytes; int32 width; int32 height; int32 rowMask; int32 planeStride; }`.
/// Row `y` lives at `data + (y & rowMask)·rowBytes`: `rowMask` is all ones for
/// a whole image, `2^n − 1` for a ring of `2^n` rows (a line buffer). A planar
/// intermediate holds channel `c` of row `y` at `planeStride · c` floats into the row.
struct BufferDescriptor {
  var data: UnsafeMutableRawPointer
  var rowBytes: Int64
  var width: Int32
  var height: Int32
  var rowMask: Int32 = -1
  var planeStride: Int32 = 0

  /// The plane stride and row bytes of a planar RGBA32F intermediate `width`
  /// pixels wide. Padded so that neither planes nor rows lie a multiple of
  /// 4 KiB apart: the taps of a vertical blur read the same column of many
  /// rows and planes, and at such strides they would all compete for one set
  /// of the L1 cache (4K aliasing), evicting each other.
  static func planar(width: Int) -> (planeStride: Int, rowBytes: Int) {
    var stride = (width + 15) / 16 * 16
    if (stride / 16) % 2 == 0 { stride += 16 }  // an odd number of cache lines per plane
    return (stride, 4 * stride * 4 + 64)  // and per row, 4·odd + 1 cache lines
  }
}

/// Emits the LLVM IR of a ``Kernel``: one function per pass,
/// `void fxc_pass<k>(BufferDescriptor *buffers, float *uniforms, i32 width,
/// i32 height, i32 y0, i32 y1, i32 x0, i32 x1)`, computing columns `x0..<x1`
/// of rows `y0..<y1` (every index the body computes stays inside the image
/// whatever the range; a range is only the work to do).
///
/// Each row is processed `W` pixels at a time (W = the host's fp32 vector
/// width), every scalar IR node becoming one `<W x T>` value: structure of
/// arrays in registers. Loads at `pixelX` of a row-invariant row are dense
/// vector loads deinterleaved by shuffles; other loads are gathers of whole
/// pixels; intermediates are stored planar (a row of each channel in turn), so
/// passes read and write them without shuffles. A row range is covered by
/// whole vectors, the last one ending at `x1` (overlapping the one before);
/// a range narrower than W computes nothing — ``CompiledKernel`` never asks
/// for one (it pads images narrower than W).
///
/// A pass runs in row order (row by row, W columns at a time) or in column
/// order: rows in chunks of ``PassEmitter/chunkRows``, each vector of columns
/// walking down a chunk. Column order is for a pass with vertical taps — rows
/// `pixelY + k` —, whose taps then read a window of rows that stays in L1
/// (row addresses from a per-chunk table), and for a pass whose work that
/// depends on the column only outweighs the work that depends on the row only
/// (``PassEmitter/columnOrderSaving``: a wave's `sin(x·k)` is then computed
/// once per column and chunk instead of at every pixel).
public enum KernelEmitter {
  public static func emit(_ kernel: Kernel, layout: KernelLayout, target: HostTarget = .host) throws -> KernelModule {
    let module = try KernelModule(name: "fxc_kernel", target: target)
    let formats = layout.formats(kernel)
    for (k, pass) in kernel.passes.enumerated() {
      try module.withBuilder { builder in
        let planar = Set(kernel.inputCount..<kernel.outputBuffer)
        var e = PassEmitter(
          module: module, builder: builder, lanes: target.vectorWidth, formats: formats, planar: planar, pass: pass)
        try e.emitFunction(named: "fxc_pass\(k)")
      }
    }
    try module.verify()
    return module
  }
}

struct PassEmitter {
  let m: KernelModule
  let b: LLVMBuilderRef
  let t: LLVMTypes
  var w: Int
  let formats: [PixelFormat]
  let pass: Kernel.Pass
  let program: Program
  let live: [Bool]
  /// Nodes whose value changes along a row (depend on `pixelX`).
  let varies: [Bool]
  /// Passes with more live nodes than this are compiled for size: one vector body.
  static let largePass = 4000
  /// Whether this pass has more than ``largePass`` live nodes.
  let isLarge: Bool

  /// The live nodes in the order the body emits them: depth first from each
  /// output in turn, operands just before their first use. A blur's four
  /// channel sums are then computed one after another, instead of every tap's
  /// four channels being loaded first and held (which spills registers).
  let emissionOrder: [Int]

  static func depthFirstOrder(_ p: Program) -> [Int] {
    var order: [Int] = []
    var state = [UInt8](repeating: 0, count: p.count)  // 0 new, 1 open, 2 done
    for out in p.outputs {
      var stack = [Int(out.index)]
      while let top = stack.last {
        if state[top] == 2 { stack.removeLast(); continue }
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

  /// Buffers stored planar (the intermediates).
  let planar: Set<Int>

  /// `floor` nodes of an affine function of `pixelX` whose slope is at most
  /// 1/W in magnitude (a pixelate's `floor((x + ½)/16)`): piecewise constant
  /// over runs of at least W columns, so usually the same in all W lanes of a
  /// vector (``emitBody`` checks, and then computes what depends on them once).
  let blockUniform: [Int]

  static func blockUniformNodes(_ p: Program, live: [Bool], lanes: Int) -> [Int] {
    // The slope d(node)/d(pixelX) of nodes affine in pixelX; 0 for nodes
    // that do not depend on it, nil where unknown.
    var slope = [Double?](repeating: nil, count: p.count)
    func constant(_ id: NodeID) -> Double? {
      switch p[id].op {
      case .constant(.float(let bits)): Double(Float(bitPattern: bits))
      case .constant(.int(let n)): Double(n)
      default: nil
      }
    }
    var result: [Int] = []
    for (i, n) in p.nodes.enumerated() {
      let s = n.args.map { slope[Int($0.index)] }
      switch n.op {
      case .pixelX: slope[i] = 1
      case .toFloat: slope[i] = s[0]
      case .add: slope[i] = s[0].flatMap { a in s[1].map { a + $0 } }
      case .sub: slope[i] = s[0].flatMap { a in s[1].map { a - $0 } }
      case .neg: slope[i] = s[0].map { -$0 }
      case .mul:
        if let c = constant(n.args[1]) { slope[i] = s[0].map { $0 * c } }
        else if let c = constant(n.args[0]) { slope[i] = s[1].map { $0 * c } }
        else { slope[i] = s == [0, 0] ? 0 : nil }
      case .div:
        if let c = constant(n.args[1]), c != 0 { slope[i] = s[0].map { $0 / c } }
        else { slope[i] = s == [0, 0] ? 0 : nil }
      default: slope[i] = s.allSatisfy({ $0 == 0 }) ? 0 : nil
      }
      if live[i], n.op == .floor, let a = s[0], a != 0, abs(a) <= 1 / Double(lanes) { result.append(i) }
    }
    return result
  }

  // Function arguments and values hoisted into the entry block.
  var buffersArg: LLVMValueRef!
  var uniformsArg: LLVMValueRef!
  var width: LLVMValueRef!
  var height: LLVMValueRef!
  var headers:
    [Int: (data: LLVMValueRef, rowBytes: LLVMValueRef, width: LLVMValueRef, height: LLVMValueRef, rowMask: LLVMValueRef, planeStride: LLVMValueRef)] =
    [:]
  var uniforms: [Int: LLVMValueRef] = [:]

  init(module: KernelModule, builder: LLVMBuilderRef, lanes: Int, formats: [PixelFormat], planar: Set<Int>, pass: Kernel.Pass) {
    self.planar = planar
    m = module
    b = builder
    t = module.types
    w = lanes
    self.formats = formats
    self.pass = pass
    program = pass.program
    live = program.live()
    var varies = [Bool](repeating: false, count: program.count)
    for (i, n) in program.nodes.enumerated() {
      varies[i] = n.op == .pixelX || n.args.contains { varies[Int($0.index)] }
    }
    self.varies = varies
    emissionOrder = Self.depthFirstOrder(program)
    isLarge = live.lazy.filter { $0 }.count > Self.largePass
    blockUniform = isLarge ? [] : Self.blockUniformNodes(program, live: live, lanes: lanes)
    var offsets = [Int32?](repeating: nil, count: program.count)
    var rows = [Int32?](repeating: nil, count: program.count)
    for (i, n) in program.nodes.enumerated() where live[i] {
      guard case .load = n.op else { continue }
      if !varies[Int(n.args[1].index)] { offsets[i] = Self.clampedOffset(n.args[0], program, .x) }
      rows[i] = Self.clampedOffset(n.args[1], program, .y)
    }
    denseOffsets = offsets
    rowOffsets = rows
  }

  /// Row offset `k` of each load whose row is `pixelY + k` clamped to the
  /// image (or `pixelY`, k = 0).
  let rowOffsets: [Int32?]

  /// In column order, for each buffer read at rows `pixelY + k`: a table of
  /// the row addresses of a chunk (``chunkRows``) plus `reach` rows above and
  /// below, clamped to the image; entry `reach + j + k` is row `chunk + j + k`.
  var rowTables: [Int: (pointer: LLVMValueRef, reach: Int)] = [:]

  /// Rows per chunk of column order: a vector of columns walks down this many
  /// rows, reading a window of chunkRows + 2·reach rows (for a σ10 blur of
  /// planar floats, 32 + 60 rows × 4 planes × 32 bytes ≈ 12 KiB: in L1).
  static let chunkRows = 32

  /// Whole-pixel offset `k` of each load whose column is `pixelX + k` clamped
  /// to the output row (the clamp-to-edge index LowerToKernel emits) and whose
  /// row is the same for every lane: such loads are dense away from the edges.
  let denseOffsets: [Int32?]

  /// The smallest and largest offset of loads that need the interior/border split, if any is not 0.
  var offsetRange: (Int32, Int32)? {
    // A huge pass (an unsplit blur of thousands of taps) gets one vector body,
    // not three: LLVM's time grows faster than linearly with code size.
    guard !isLarge else { return nil }
    let ks = denseOffsets.compactMap { $0 }
    guard ks.contains(where: { $0 != 0 }) else { return nil }
    return (min(ks.min()!, 0), max(ks.max()!, 0))
  }

  /// `k` when `id` is `min(max(pixel + k, 0), extent − 1)` or `pixel` (k = 0),
  /// with pixel/extent = pixelX/width or pixelY/height: the clamp-to-edge index
  /// LowerToKernel emits for a whole-pixel tap.
  static func clampedOffset(_ id: NodeID, _ p: Program, _ axis: PixelOffset.Axis) -> Int32? {
    let (pixel, extent): (Op, Op) = axis == .x ? (.pixelX, .width) : (.pixelY, .height)
    let n = p[id]
    if n.op == pixel { return 0 }
    guard n.op == .min, p[n.args[1]].op == .sub, p[p[n.args[1]].args[0]].op == extent,
      p.constantValue(p[n.args[1]].args[1]) == .int(1)
    else { return nil }
    let inner = p[n.args[0]]
    guard inner.op == .max, p.constantValue(inner.args[1]) == .int(0) else { return nil }
    let sum = p[inner.args[0]]
    guard sum.op == .add, p[sum.args[0]].op == pixel, case .int(let k)? = p.constantValue(sum.args[1]) else { return nil }
    return k
  }

  /// For each buffer that `program` loads, the largest |offset| along `axis`
  /// of its loads, when every load's coordinate on that axis is
  /// `pixelX/pixelY + k` clamped; nil for a buffer read at data-dependent
  /// coordinates there.
  public static func reach(_ program: Program, _ axis: PixelOffset.Axis) -> [Int: Int32?] {
    var reach: [Int: Int32?] = [:]
    let live = program.live()
    for (i, n) in program.nodes.enumerated() where live[i] {
      guard case .load(let b, _) = n.op else { continue }
      let k = clampedOffset(n.args[axis == .x ? 0 : 1], program, axis)
      switch (reach[b], k) {
      case (nil, _): reach[b] = .some(k.map(abs))
      case (.some(.some(let r)), .some(let k)): reach[b] = .some(max(r, abs(k)))
      default: reach[b] = .some(nil)
      }
    }
    return reach
  }

  var vf: LLVMTypeRef { t.vector(t.float, w) }
  var vi: LLVMTypeRef { t.vector(t.i32, w) }
  var vb: LLVMTypeRef { t.vector(t.i1, w) }

  func vectorType(_ k: ScalarKind) -> LLVMTypeRef {
    switch k {
    case .float: vf
    case .int: vi
    case .bool: vb
    }
  }

  func splat(_ v: LLVMValueRef, _ lanes: Int? = nil) -> LLVMValueRef {
    let n = lanes ?? w
    let type = t.vector(LLVMTypeOf(v), n)
    let one = LLVMBuildInsertElement(b, LLVMGetUndef(type), v, LLVMConstInt(t.i32, 0, 0), "")!
    return LLVMBuildShuffleVector(b, one, LLVMGetUndef(type), LLVMConstNull(t.vector(t.i32, n)), "")!
  }

  func constVector(_ values: [LLVMValueRef]) -> LLVMValueRef {
    var v: [LLVMValueRef?] = values
    return v.withUnsafeMutableBufferPointer { LLVMConstVector($0.baseAddress, UInt32($0.count))! }
  }

  /// `getelementptr type, base, index` (index scalar, or a vector for a vector of pointers).
  func gep(_ type: LLVMTypeRef, _ base: LLVMValueRef, _ index: LLVMValueRef) -> LLVMValueRef {
    var idx: [LLVMValueRef?] = [index]
    return idx.withUnsafeMutableBufferPointer { LLVMBuildGEP2(b, type, base, $0.baseAddress, 1, "")! }
  }

  func i32(_ v: Int) -> LLVMValueRef { LLVMConstInt(t.i32, UInt64(bitPattern: Int64(v)), 1) }
  func i64(_ v: Int) -> LLVMValueRef { LLVMConstInt(t.i64, UInt64(bitPattern: Int64(v)), 1) }
  func f32(_ v: Float) -> LLVMValueRef { LLVMConstReal(t.float, Double(v)) }

  func call(_ name: String, _ types: [LLVMTypeRef], _ args: [LLVMValueRef]) throws -> LLVMValueRef {
    let (fn, type) = try m.intrinsic(name, types)
    var a: [LLVMValueRef?] = args
    return a.withUnsafeMutableBufferPointer { LLVMBuildCall2(b, type, fn, $0.baseAddress, UInt32($0.count), "")! }
  }

  // MARK: the function and its loops

  mutating func emitFunction(named name: String) throws {
    var params: [LLVMTypeRef?] = [t.ptr, t.ptr, t.i32, t.i32, t.i32, t.i32, t.i32, t.i32]
    let fnType = params.withUnsafeMutableBufferPointer { LLVMFunctionType(t.void, $0.baseAddress, 8, 0)! }
    let fn = LLVMAddFunction(m.module, name, fnType)!
    let entry = LLVMAppendBasicBlockInContext(m.context, fn, "entry")!

    LLVMPositionBuilderAtEnd(b, entry)
    buffersArg = LLVMGetParam(fn, 0)
    uniformsArg = LLVMGetParam(fn, 1)
    width = LLVMGetParam(fn, 2)
    height = LLVMGetParam(fn, 3)
    let y0 = LLVMGetParam(fn, 4)!, y1 = LLVMGetParam(fn, 5)!
    let x0 = LLVMGetParam(fn, 6)!, x1 = LLVMGetParam(fn, 7)!
    hoistHeaders()

    func rows(_ body: (LLVMValueRef) throws -> Void) throws {
      _ = try loop("row", from: y0, step: 1, while: { y in LLVMBuildICmp(b, LLVMIntSLT, y, y1, "")! }, body: body)
    }
    let reach = verticalReach
    let verticalTaps = reach.values.contains(where: { $0 > 0 }) && reach.values.allSatisfy({ $0 <= Self.maxTableReach })
    if verticalTaps || columnOrderSaving > Self.columnOrderThreshold {
      // Column order: rows in chunks; in a chunk, each vector of columns walks
      // down its rows. The taps of a vertical filter then read a window of
      // rows that moves one row per step and stays in L1, instead of
      // streaming every tap row from L2 once per output row; row addresses
      // come from a table filled once per chunk.
      // Beyond maxTableReach a table would not fit the stack (a pass in column
      // order for its column-only work may also read rows a million away):
      // such loads compute their row address as in row order.
      for (buffer, r) in reach.sorted(by: { $0.key < $1.key }) where r <= Self.maxTableReach {
        let table = LLVMBuildArrayAlloca(b, t.ptr, i32(Self.chunkRows + 2 * r), "rows\(buffer)")!
        rowTables[buffer] = (table, r)
      }
      _ = try loop("chunk", from: y0, step: Self.chunkRows, while: { y in LLVMBuildICmp(b, LLVMIntSLT, y, y1, "")! }) { chunk in
        try fillRowTables(chunk: chunk)
        let chunkEnd = try call("llvm.smin", [t.i32], [LLVMBuildAdd(b, chunk, i32(Self.chunkRows), "")!, y1])
        try columns(x0: x0, x1: x1) { x, interior in
          _ = try loop("row", from: chunk, step: 1, while: { y in LLVMBuildICmp(b, LLVMIntSLT, y, chunkEnd, "")! }) { y in
            try emitBody(x: x, y: y, interior: interior, rowInChunk: LLVMBuildSExt(b, LLVMBuildSub(b, y, chunk, "")!, t.i64, "")!)
          }
        }
      }
    } else {
      // Row order: values that depend only on the row are computed once per row.
      try rows { y in try columns(x0: x0, x1: x1) { x, interior in try emitBody(x: x, y: y, interior: interior) } }
    }
    LLVMBuildRetVoid(b)
  }

  /// For each buffer read at rows `pixelY + k` (the same row for every lane),
  /// the largest |k|. A pass with vertical taps (some k ≠ 0) runs in column order.
  var verticalReach: [Int: Int] {
    var reach: [Int: Int] = [:]
    for (i, k) in rowOffsets.enumerated() {
      guard let k, !varies[Int(program.nodes[i].args[1].index)], case .load(let buffer, _) = program.nodes[i].op else { continue }
      reach[buffer] = max(reach[buffer] ?? 0, abs(Int(k)))
    }
    return reach
  }

  /// The float work column order takes out of the per-pixel body minus what
  /// row order does, in rough instructions per vector: row order computes values
  /// that depend on the row only (not on x) once per row, column order those
  /// that depend on the column only once per chunk — a wave's `sin(x·k)`
  /// (the loop-invariant code motion is LLVM's).
  var columnOrderSaving: Int {
    var dependsOnY = [Bool](repeating: false, count: program.count)
    var saving = 0
    for (i, n) in program.nodes.enumerated() {
      dependsOnY[i] = n.op == .pixelY || n.args.contains { dependsOnY[Int($0.index)] }
      // Float work only: integer index arithmetic is cheap, and that of a
      // horizontal blur's taps (clamp(x + k)) folds into addresses anyway.
      guard live[i], varies[i] != dependsOnY[i], n.kind == .float else { continue }
      let cost: Int
      switch n.op {
      case .sin, .cos: cost = 30
      case .exp, .log: cost = 60  // double precision: twice the vectors
      case .pow, .atan2: cost = 120
      case .div, .sqrt: cost = 8
      case .constant, .pixelX, .pixelY, .width, .height, .uniform, .inputWidth, .inputHeight: cost = 0
      default: cost = 1
      }
      saving += varies[i] ? cost : -cost
    }
    return saving
  }

  /// How much ``columnOrderSaving`` must exceed to leave row order for it: a
  /// sine's worth, not a few multiplies (column order's chunk loops and
  /// strided stores cost a little).
  static let columnOrderThreshold = 16

  /// Taps further away than this many rows keep row order: their row window
  /// would not stay in cache, and the row tables live on the stack. (A pass in
  /// column order for its column-only work gives such loads no table.)
  static let maxTableReach = 256

  /// Fills each row table with the addresses of rows `chunk − reach ..<
  /// chunk + chunkRows + reach`, clamped to the image as LowerToKernel's
  /// clamp-to-edge index is.
  func fillRowTables(chunk: LLVMValueRef) throws {
    for (buffer, table) in rowTables.sorted(by: { $0.key < $1.key }) {
      let count = Self.chunkRows + 2 * table.reach
      let first = LLVMBuildSub(b, chunk, i32(table.reach), "")!
      let last = LLVMBuildSub(b, height, i32(1), "")!
      _ = try loop("fill\(buffer)", from: i32(0), step: 1, while: { j in LLVMBuildICmp(b, LLVMIntSLT, j, i32(count), "")! }) { j in
        let row = try call("llvm.smin", [t.i32], [try call("llvm.smax", [t.i32], [LLVMBuildAdd(b, first, j, "")!, i32(0)]), last])
        LLVMBuildStore(b, rowStart(buffer, y: row), gep(t.ptr, table.pointer, LLVMBuildSExt(b, j, t.i64, "")!))
      }
    }
  }

  /// Calls `body(x, interior)` for whole vectors covering columns `x0..<x1`.
  func columns(x0: LLVMValueRef, x1: LLVMValueRef, _ body: (LLVMValueRef, Bool) throws -> Void) throws {
    var x = x0
    func fits(_ x: LLVMValueRef, _ limit: LLVMValueRef) -> LLVMValueRef {
      LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, x, i32(w), "")!, limit, "")!
    }
    if let (lo, hi) = offsetRange {
      // Three loops, so each body stays separate (merged, LLVM would sink their
      // common arithmetic behind a phi per tap and spill): vectors near the left
      // edge load taps with masked loads and edge pixels, interior vectors — where
      // every x + k of a tap is inside the row — load them densely, and vectors
      // near the right edge are masked again.
      let interiorStart = LLVMBuildSub(b, i32(0), i32(Int(lo)), "")!
      let interiorEnd = LLVMBuildSub(b, width, i32(Int(hi)), "")!
      x = try loop("left", from: x, step: w) { x in
        LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSLT, x, interiorStart, "")!, fits(x, x1), "")!
      } body: { x in try body(x, false) }
      x = try loop("interior", from: x, step: w) { x in
        LLVMBuildAnd(b, fits(x, interiorEnd), fits(x, x1), "")!
      } body: { x in try body(x, true) }
    }
    // The rest of the row, W at a time; the last vector ends at x1, overlapping
    // the one before: pixels are a function of their position, so those
    // computed twice get the same values, and no masked tail body is needed.
    // A range narrower than one vector computes nothing: CompiledKernel pads
    // images narrower than W and never makes such a tile.
    let wide = fits(x0, x1)
    let lastStart = LLVMBuildSub(b, x1, i32(w), "")!
    _ = try loop("vector", from: x, step: w) { x in
      LLVMBuildAnd(b, wide, LLVMBuildICmp(b, LLVMIntSLT, x, x1, "")!, "")!
    } body: { x in try body(try call("llvm.smin", [t.i32], [x, lastStart]), false) }
  }

  /// `while condition(i) { body(i); i += step }` from the current block;
  /// returns the final i, with the builder in the loop's exit block. LLVM is
  /// told not to vectorise or unroll the loop (its body is vector code already).
  func loop(
    _ name: String, from start: LLVMValueRef, step: Int, while condition: (LLVMValueRef) -> LLVMValueRef,
    body: (LLVMValueRef) throws -> Void
  ) throws -> LLVMValueRef {
    let fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b))!
    let before = LLVMGetInsertBlock(b)!
    let head = LLVMAppendBasicBlockInContext(m.context, fn, name)!
    let bodyBlock = LLVMAppendBasicBlockInContext(m.context, fn, name + ".body")!
    let done = LLVMAppendBasicBlockInContext(m.context, fn, name + ".done")!
    LLVMBuildBr(b, head)
    LLVMPositionBuilderAtEnd(b, head)
    let i = LLVMBuildPhi(b, t.i32, name)!
    LLVMBuildCondBr(b, condition(i), bodyBlock, done)
    LLVMPositionBuilderAtEnd(b, bodyBlock)
    try body(i)
    let next = LLVMBuildAdd(b, i, i32(step), "")!
    let end = LLVMGetInsertBlock(b)!
    m.disableVectorization(ofLoopLatch: LLVMBuildBr(b, head)!)
    addIncoming(i, [(start, before), (next, end)])
    LLVMPositionBuilderAtEnd(b, done)
    return i
  }

  func addIncoming(_ phi: LLVMValueRef, _ edges: [(LLVMValueRef, LLVMBasicBlockRef)]) {
    var values: [LLVMValueRef?] = edges.map(\.0)
    var blocks: [LLVMBasicBlockRef?] = edges.map(\.1)
    values.withUnsafeMutableBufferPointer { v in
      blocks.withUnsafeMutableBufferPointer { bl in
        LLVMAddIncoming(phi, v.baseAddress, bl.baseAddress, UInt32(edges.count))
      }
    }
  }

  /// Loads every buffer descriptor and uniform the pass uses, once per call.
  mutating func hoistHeaders() {
    var used = Set<Int>([pass.output])
    for (i, n) in program.nodes.enumerated() where live[i] {
      switch n.op {
      case .load(let buffer, _): used.insert(buffer)
      case .inputWidth(let k), .inputHeight(let k): used.insert(k)
      case .uniform(let k):
        uniforms[k] = LLVMBuildLoad2(b, t.float, gep(t.float, uniformsArg, i32(k)), "uniform\(k)")
      default: break
      }
    }
    for k in used.sorted() {
      let base = gep(t.i8, buffersArg, LLVMConstInt(t.i64, UInt64(MemoryLayout<BufferDescriptor>.stride * k), 0))
      func field(_ offset: Int, _ type: LLVMTypeRef, _ name: String) -> LLVMValueRef {
        let p = gep(t.i8, base, LLVMConstInt(t.i64, UInt64(offset), 0))
        return LLVMBuildLoad2(b, type, p, "b\(k).\(name)")!
      }
      headers[k] = (
        field(0, t.ptr, "data"), field(8, t.i64, "rowBytes"), field(16, t.i32, "width"), field(20, t.i32, "height"),
        field(24, t.i32, "rowMask"), field(28, t.i32, "planeStride")
      )
    }
  }
}
