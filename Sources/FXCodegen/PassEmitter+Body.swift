internal import CLLVM
import FXIR
import FXImage
import FXPasses

/// The per-pixel body: every live node of the pass program as a `<W x T>` value.
extension PassEmitter {
  /// The W pixels from column `x` of row `y`, all of them inside the range
  /// the function computes (the runtime gives every call at least W columns).
  /// `interior`: every dense-able load's `pixelX + k` is inside the row for all lanes.
  /// `rowInChunk`: in column order, `y` minus the first row of the chunk (the row tables' origin).
  ///
  /// A pass with ``blockUniform`` nodes (a pixelate's block index) computes
  /// them first; when each is the same in every lane (bit for bit), what
  /// depends on pixelX only through them — the block's sample, its gathers
  /// included — is computed once, on lane 0 (``emitBlockUniformBody``);
  /// otherwise the general body runs. Both give the same bits.
  func emitBody(x: LLVMValueRef, y: LLVMValueRef, interior: Bool, rowInChunk: LLVMValueRef? = nil) throws {
    var values = [LLVMValueRef?](repeating: nil, count: program.count)
    var pixels: [PixelKey: LLVMValueRef] = [:]
    let iota = constVector((0..<w).map { i32($0) })
    let xs = LLVMBuildAdd(b, splat(x), iota, "xs")!
    func emitNodes(_ order: [Int], _ values: inout [LLVMValueRef?], _ pixels: inout [PixelKey: LLVMValueRef]) throws {
      for i in order {
        let node = program.nodes[i]
        let a = node.args.map { values[Int($0.index)]! }
        values[i] = try emit(node, a, id: i, xs: xs, y: y, interior: interior, rowInChunk: rowInChunk, &pixels)
      }
    }
    guard !blockUniform.isEmpty else {
      try emitNodes(emissionOrder, &values, &pixels)
      store(program.outputs.map { values[Int($0.index)]! }, x: x, y: y)
      return
    }
    // The block-uniform nodes and what they depend on, shared by both bodies.
    var inCone = [Bool](repeating: false, count: program.count)
    var stack = blockUniform
    while let i = stack.popLast() {
      guard !inCone[i] else { continue }
      inCone[i] = true
      stack += program.nodes[i].args.map { Int($0.index) }
    }
    try emitNodes(emissionOrder.filter { inCone[$0] }, &values, &pixels)
    let rest = emissionOrder.filter { !inCone[$0] }
    var uniform = LLVMConstInt(t.i1, 1, 0)!
    for q in blockUniform {
      let bits = LLVMBuildBitCast(b, values[q]!, vi, "")!
      let first = splat(LLVMBuildExtractElement(b, bits, i32(0), "")!)
      let same = try call("llvm.vector.reduce.and", [vb], [LLVMBuildICmp(b, LLVMIntEQ, bits, first, "")!])
      uniform = LLVMBuildAnd(b, uniform, same, "")!
    }
    let fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b))!
    let uniformBlock = LLVMAppendBasicBlockInContext(m.context, fn, "block.uniform")!
    let generalBlock = LLVMAppendBasicBlockInContext(m.context, fn, "block.general")!
    let done = LLVMAppendBasicBlockInContext(m.context, fn, "block.done")!
    LLVMBuildCondBr(b, uniform, uniformBlock, generalBlock)

    LLVMPositionBuilderAtEnd(b, uniformBlock)
    try emitBlockUniformBody(rest, values, pixels, xs: xs, x: x, y: y, interior: interior, rowInChunk: rowInChunk)
    LLVMBuildBr(b, done)

    LLVMPositionBuilderAtEnd(b, generalBlock)
    try emitNodes(rest, &values, &pixels)
    store(program.outputs.map { values[Int($0.index)]! }, x: x, y: y)
    LLVMBuildBr(b, done)
    LLVMPositionBuilderAtEnd(b, done)
  }

  /// The rest of the body (`order`) for a vector whose block-uniform nodes
  /// hold one value: the nodes that depend on `pixelX` only through them, or
  /// not at all, are emitted on one lane (an emitter with W = 1) and splatted
  /// where a per-pixel node reads them. Those that depend on the block-uniform
  /// values are kept from the previous vector when its key — the block-uniform
  /// values and the row — was the same (stack slots that LLVM turns into
  /// loop-carried registers): a block of 16 columns computes its sample once.
  private func emitBlockUniformBody(
    _ order: [Int], _ shared: [LLVMValueRef?], _ sharedPixels: [PixelKey: LLVMValueRef],
    xs: LLVMValueRef, x: LLVMValueRef, y: LLVMValueRef, interior: Bool, rowInChunk: LLVMValueRef?
  ) throws {
    let uniformNodes = Set(blockUniform)
    // Depends on pixelX other than through a block-uniform node; depends on one.
    let perPixel = program.dependence(on: { $1.op == .pixelX }, stoppingAt: uniformNodes.contains)
    let onBlock = program.dependence { i, _ in uniformNodes.contains(i) }
    var lane = self
    lane.w = 1
    /// Lane 0 of `v` repeated `lanes` times.
    func broadcast(_ v: LLVMValueRef, _ lanes: Int) -> LLVMValueRef {
      LLVMBuildShuffleVector(b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstNull(t.vector(t.i32, lanes)), "")!
    }
    var vector = shared, scalar = [LLVMValueRef?](repeating: nil, count: program.count)
    func vectorOf(_ j: Int) -> LLVMValueRef {
      if vector[j] == nil { vector[j] = broadcast(scalar[j]!, w) }
      return vector[j]!
    }
    func scalarOf(_ j: Int) -> LLVMValueRef {
      if scalar[j] == nil { scalar[j] = broadcast(vector[j]!, 1) }
      return scalar[j]!
    }
    var scalarPixels: [PixelKey: LLVMValueRef] = [:]
    let xs1 = broadcast(xs, 1)
    func emitLane(_ nodes: [Int]) throws {
      for i in nodes {
        let node = program.nodes[i]
        let a = node.args.map { scalarOf(Int($0.index)) }
        scalar[i] = try lane.emit(node, a, id: i, xs: xs1, y: y, interior: interior, rowInChunk: rowInChunk, &scalarPixels)
      }
    }
    // Lane work that does not depend on the block: every vector (LLVM hoists it).
    try emitLane(order.filter { !perPixel[$0] && !onBlock[$0] })
    let blockWork = order.filter { !perPixel[$0] && onBlock[$0] }
    let perPixelWork = order.filter { perPixel[$0] }
    // Block work that per-pixel work or the output reads: what is kept.
    let read = Set(program.outputs.map { Int($0.index) } + perPixelWork.flatMap { program.nodes[$0].args.map { Int($0.index) } })
    let frontier = blockWork.filter { read.contains($0) }

    // The key: each block-uniform value's bits and the row.
    let fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b))!
    let entry = LLVMGetEntryBasicBlock(fn)!
    let atEntry = LLVMCreateBuilderInContext(m.context)!
    defer { LLVMDisposeBuilder(atEntry) }
    LLVMPositionBuilderBefore(atEntry, LLVMGetFirstInstruction(entry))
    func slot(_ type: LLVMTypeRef) -> LLVMValueRef { LLVMBuildAlloca(atEntry, type, "block.cache")! }
    let valid = slot(t.i1)
    LLVMBuildStore(atEntry, LLVMConstInt(t.i1, 0, 0), valid)
    let key = blockUniform.map { LLVMBuildExtractElement(b, LLVMBuildBitCast(b, vector[$0]!, vi, "")!, i32(0), "")! } + [y]
    let keySlots = key.map { _ in slot(t.i32) }
    var hit = LLVMBuildLoad2(b, t.i1, valid, "")!
    for (k, s) in zip(key, keySlots) {
      hit = LLVMBuildAnd(b, hit, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildLoad2(b, t.i32, s, "")!, k, "")!, "")!
    }
    let compute = LLVMAppendBasicBlockInContext(m.context, fn, "block.compute")!
    let reuse = LLVMAppendBasicBlockInContext(m.context, fn, "block.reuse")!
    let join = LLVMAppendBasicBlockInContext(m.context, fn, "block.join")!
    LLVMBuildCondBr(b, hit, reuse, compute)

    LLVMPositionBuilderAtEnd(b, compute)
    try emitLane(blockWork)
    let slots = frontier.map { slot(LLVMTypeOf(scalar[$0]!)) }
    for (f, s) in zip(frontier, slots) { LLVMBuildStore(b, scalar[f]!, s) }
    for (k, s) in zip(key, keySlots) { LLVMBuildStore(b, k, s) }
    LLVMBuildStore(b, LLVMConstInt(t.i1, 1, 0), valid)
    let computeEnd = LLVMGetInsertBlock(b)!
    LLVMBuildBr(b, join)

    LLVMPositionBuilderAtEnd(b, reuse)
    let kept = zip(frontier, slots).map { f, s in LLVMBuildLoad2(b, LLVMTypeOf(scalar[f]!), s, "")! }
    LLVMBuildBr(b, join)

    LLVMPositionBuilderAtEnd(b, join)
    for (f, old) in zip(frontier, kept) {
      let phi = LLVMBuildPhi(b, LLVMTypeOf(scalar[f]!), "")!
      addIncoming(phi, [(scalar[f]!, computeEnd), (old, reuse)])
      scalar[f] = phi
    }
    var vectorPixels = sharedPixels
    for i in perPixelWork {
      let node = program.nodes[i]
      let a = node.args.map { vectorOf(Int($0.index)) }
      vector[i] = try emit(node, a, id: i, xs: xs, y: y, interior: interior, rowInChunk: rowInChunk, &vectorPixels)
    }
    store(program.outputs.map { vectorOf(Int($0.index)) }, x: x, y: y)
  }

  struct PixelKey: Hashable {
    var buffer: Int
    var x: NodeID, y: NodeID
  }

  func emit(
    _ node: Node, _ a: [LLVMValueRef], id: Int, xs: LLVMValueRef, y: LLVMValueRef, interior: Bool, rowInChunk: LLVMValueRef?,
    _ pixels: inout [PixelKey: LLVMValueRef]
  ) throws -> LLVMValueRef {
    let isFloat = node.args.first.map { program[$0].kind == .float } ?? false
    let v = isFloat ? vf : vi
    switch node.op {
    case .constant(let s):
      switch s {
      case .float(let bits): return splat(f32(Float(bitPattern: bits)))
      case .int(let n): return splat(i32(Int(n)))
      case .bool(let f): return splat(LLVMConstInt(t.i1, f ? 1 : 0, 0))
      }
    case .pixelX: return xs
    case .pixelY: return splat(y)
    case .width: return splat(width)
    case .height: return splat(height)
    case .inputWidth(let k): return splat(headers[k]!.width)
    case .inputHeight(let k): return splat(headers[k]!.height)
    case .uniform(let k): return splat(uniforms[k]!)
    case .positionX, .positionY, .sample:
      throw LLVMError("internal error: \(node.op.name) in a kernel program (not lowered)")
    case .load(let buffer, let channel):
      return try load(buffer, channel, node, a, id: id, xs: xs, interior: interior, rowInChunk: rowInChunk, &pixels)
    case .add: return isFloat ? LLVMBuildFAdd(b, a[0], a[1], "")! : LLVMBuildAdd(b, a[0], a[1], "")!
    case .sub: return isFloat ? LLVMBuildFSub(b, a[0], a[1], "")! : LLVMBuildSub(b, a[0], a[1], "")!
    case .mul: return isFloat ? LLVMBuildFMul(b, a[0], a[1], "")! : LLVMBuildMul(b, a[0], a[1], "")!
    case .neg: return isFloat ? LLVMBuildFNeg(b, a[0], "")! : LLVMBuildSub(b, LLVMConstNull(vi), a[0], "")!
    case .min: return isFloat ? fminmax(a[0], a[1], LLVMRealOLT) : try call("llvm.smin", [v], a)
    case .max: return isFloat ? fminmax(a[0], a[1], LLVMRealOGT) : try call("llvm.smax", [v], a)
    case .abs:
      return isFloat ? try call("llvm.fabs", [vf], a) : try call("llvm.abs", [vi], [a[0], LLVMConstInt(t.i1, 0, 0)])
    case .div: return LLVMBuildFDiv(b, a[0], a[1], "")!
    case .floor: return try call("llvm.floor", [vf], a)
    case .ceil: return try call("llvm.ceil", [vf], a)
    case .sqrt: return try call("llvm.sqrt", [vf], a)
    case .sin: return try sineOrCosine(a[0], cosine: false)
    case .cos: return try sineOrCosine(a[0], cosine: true)
    case .exp: return try exponential(a[0])
    case .log: return try logarithm(a[0])
    case .pow: return try power(a[0], a[1])
    case .atan2: return try arctangent2(a[0], a[1])
    case .lt: return compare(isFloat, LLVMRealOLT, LLVMIntSLT, a)
    case .le: return compare(isFloat, LLVMRealOLE, LLVMIntSLE, a)
    case .gt: return compare(isFloat, LLVMRealOGT, LLVMIntSGT, a)
    case .ge: return compare(isFloat, LLVMRealOGE, LLVMIntSGE, a)
    case .eq: return compare(isFloat, LLVMRealOEQ, LLVMIntEQ, a)
    case .ne: return compare(isFloat, LLVMRealUNE, LLVMIntNE, a)
    case .isNaN: return LLVMBuildFCmp(b, LLVMRealUNO, a[0], a[0], "")!
    case .and: return LLVMBuildAnd(b, a[0], a[1], "")!
    case .or: return LLVMBuildOr(b, a[0], a[1], "")!
    case .xor: return LLVMBuildXor(b, a[0], a[1], "")!
    case .not: return LLVMBuildNot(b, a[0], "")!
    case .shl, .shr, .ushr:
      let amount = LLVMBuildAnd(b, a[1], splat(i32(31)), "")!
      switch node.op {
      case .shl: return LLVMBuildShl(b, a[0], amount, "")!
      case .shr: return LLVMBuildAShr(b, a[0], amount, "")!
      default: return LLVMBuildLShr(b, a[0], amount, "")!
      }
    case .mod:
      // Euclidean remainder; a divisor ≤ 0 gives 0 (Semantics.euclidMod).
      let positive = LLVMBuildICmp(b, LLVMIntSGT, a[1], LLVMConstNull(vi), "")!
      let d = LLVMBuildSelect(b, positive, a[1], splat(i32(1)), "")!
      let r = LLVMBuildSRem(b, a[0], d, "")!
      let negative = LLVMBuildICmp(b, LLVMIntSLT, r, LLVMConstNull(vi), "")!
      let fixed = LLVMBuildSelect(b, negative, LLVMBuildAdd(b, r, d, ""), r, "")!
      return LLVMBuildSelect(b, positive, fixed, LLVMConstNull(vi), "")!
    case .toInt: return saturatingToInt(a[0])
    case .toFloat: return LLVMBuildSIToFP(b, a[0], vf, "")!
    case .toFloatUnsigned: return LLVMBuildUIToFP(b, a[0], vf, "")!
    case .select: return LLVMBuildSelect(b, a[0], a[1], a[2], "")!
    }
  }

  /// A load, by its strategy in the plan (``PassPlan/LoadStrategy``): dense
  /// vector loads (deinterleaved by shuffles for RGBA buffers), masked edge
  /// loads in border vectors, or gathers. Whole pixels loaded for one channel
  /// are kept in `pixels` for the others.
  func load(
    _ buffer: Int, _ channel: Int, _ node: Node, _ a: [LLVMValueRef], id: Int, xs: LLVMValueRef, interior: Bool,
    rowInChunk: LLVMValueRef?, _ pixels: inout [PixelKey: LLVMValueRef]
  ) throws -> LLVMValueRef {
    let key = PixelKey(buffer: buffer, x: node.args[0], y: node.args[1])
    let load = plan.loads[id]!
    // The row's address, emitted only on the paths that use it (a row-table
    // load is volatile, so LLVM would not drop an unused one).
    func row() -> LLVMValueRef { rowStart(buffer, rows: a[1], tap: load.rowOffset, rowInChunk: rowInChunk) }
    // A dense load at `offset` (interior vectors), or a masked edge load
    // at `masked` (border vectors); otherwise a gather.
    var offset: Int32? = nil, masked: Int32? = nil
    switch load.strategy {
    case .dense: offset = 0
    case .denseInterior(let k, let border):
      if interior { offset = k } else if border == .masked { masked = k }
    case .gather: break
    }
    if isPlanar(buffer) {
      // Planar intermediates: each channel is a row of floats; a dense read is one vector load.
      if let offset {
        let x = LLVMBuildExtractElement(b, xs, i32(0), "")!
        let load = LLVMBuildLoad2(b, vf, planarAddress(buffer, row: row(), x: x, channel: channel, offset: Int(offset)), "")!
        LLVMSetAlignment(load, 4)
        return load
      }
      if let k = masked { return try edgeLoad(buffer, channel: channel, row: row(), x: xs, offset: Int(k)) }
      return try gather(t.float, planarAddresses(buffer, a[0], a[1], channel: channel), align: 4)
    }
    if let offset {
      if pixels[key] == nil { pixels[key] = denseLoad(buffer, row: row(), x: xs, offset: Int(offset)) }
      return channelOfDense(pixels[key]!, buffer, channel)
    }
    if let k = masked {
      if pixels[key] == nil { pixels[key] = try edgeLoad(buffer, channel: nil, row: row(), x: xs, offset: Int(k)) }
      return channelOfDense(pixels[key]!, buffer, channel)
    }
    if formats[buffer] == .rgba32f {
      return try gatherFloat(buffer, a[0], a[1], channel)
    }
    if pixels[key] == nil { pixels[key] = try gatherPixel(buffer, a[0], a[1]) }
    return channelOfGathered(pixels[key]!, buffer, channel)
  }

  /// Vectorised sin/cos, bit for bit ``Trigonometry`` (the interpreter's
  /// meaning): Cephes `sinf`/`cosf` for |x| ≤ 8192, libm beyond. Every lane
  /// takes the polynomial; a vector with any lane outside ±8192 (or NaN, ±∞)
  /// then also calls libm lane by lane and keeps it for exactly those lanes.
  func sineOrCosine(_ x: LLVMValueRef, cosine: Bool) throws -> LLVMValueRef {
    let absolute = try call("llvm.fabs", [vf], [x])
    let inRange = LLVMBuildFCmp(b, LLVMRealOLE, absolute, splat(f32(Trigonometry.polynomialLimit)), "")!
    // Out-of-range lanes compute on 0 (their result is replaced), keeping fptosi defined.
    let ax = LLVMBuildSelect(b, inRange, absolute, LLVMConstNull(vf), "")!

    func mul(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFMul(b, p, q, "")! }
    func add(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFAdd(b, p, q, "")! }
    func sub(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFSub(b, p, q, "")! }
    func c(_ v: Float) -> LLVMValueRef { splat(f32(v)) }
    var j = LLVMBuildFPToSI(b, mul(ax, c(Trigonometry.fourOverPi)), vi, "")!
    j = LLVMBuildAnd(b, LLVMBuildAdd(b, j, splat(i32(1)), ""), splat(i32(~1)), "")!
    let y = LLVMBuildSIToFP(b, j, vf, "")!
    let pi4 = Trigonometry.piOver4
    let r = sub(sub(sub(ax, mul(y, c(pi4.0))), mul(y, c(pi4.1))), mul(y, c(pi4.2)))
    let z = mul(r, r)
    // The same operations in the same order as Trigonometry (x + (−c) and x − c round alike).
    let (c0, c1, c2) = Trigonometry.cosCoefficients, (s0, s1, s2) = Trigonometry.sinCoefficients
    let cosPoly = add(sub(mul(mul(add(mul(add(mul(c(c0), z), c(c1)), z), c(c2)), z), z), mul(c(0.5), z)), c(1))
    let sinPoly = add(mul(mul(add(mul(add(mul(c(s0), z), c(s1)), z), c(s2)), z), r), r)
    let q = cosine ? LLVMBuildAdd(b, j, splat(i32(2)), "")! : j
    let zero = LLVMConstNull(vi)
    let useCos = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, q, splat(i32(2)), ""), zero, "")!
    var negate = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, q, splat(i32(4)), ""), zero, "")!
    if !cosine {
      // sin is odd: the sign bit of x (so that sin(−0) = −0), not x < 0.
      let signBit = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildBitCast(b, x, vi, "")!, zero, "")!
      negate = LLVMBuildXor(b, negate, signBit, "")!
    }
    let v = LLVMBuildSelect(b, useCos, cosPoly, sinPoly, "")!
    let fastResult = LLVMBuildSelect(b, negate, LLVMBuildFNeg(b, v, "")!, v, "")!
    return try withLibmFallback(cosine ? "cosf" : "sinf", [x], ordinary: inRange, fast: fastResult)
  }

  /// Semantics.toInt: truncation, NaN → 0, saturating at Int32's bounds —
  /// `llvm.fptosi.sat`'s meaning, in vector instructions: x86 lowers that
  /// intrinsic lane by lane with two branches per lane. NaN becomes 0, the
  /// value is clamped into the range where `fptosi` is defined (2147483520 is
  /// the largest float below 2³¹), and values ≥ 2³¹ then take Int32.max.
  func saturatingToInt(_ x: LLVMValueRef) -> LLVMValueRef {
    let isNaN = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "")!
    let n = LLVMBuildSelect(b, isNaN, LLVMConstNull(vf), x, "")!
    let low = splat(f32(-2_147_483_648)), high = splat(f32(2_147_483_520))
    let above = LLVMBuildFCmp(b, LLVMRealOGT, n, high, "")!
    let clamped = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, n, low, "")!, low, LLVMBuildSelect(b, above, high, n, "")!, "")!
    let truncated = LLVMBuildFPToSI(b, clamped, vi, "")!
    return LLVMBuildSelect(b, above, splat(i32(Int(Int32.max))), truncated, "")!
  }

  /// Semantics.min / max exactly: `isnan(a) ? b : (b ⋖ a ? b : a)`, so a NaN
  /// operand yields the other and equal operands (±0) yield `a` — which
  /// `llvm.minnum` does not promise. x86 matches the inner select with one minps.
  func fminmax(_ a: LLVMValueRef, _ b: LLVMValueRef, _ predicate: LLVMRealPredicate) -> LLVMValueRef {
    let pick = LLVMBuildSelect(self.b, LLVMBuildFCmp(self.b, predicate, b, a, "")!, b, a, "")!
    return LLVMBuildSelect(self.b, LLVMBuildFCmp(self.b, LLVMRealUNO, a, a, "")!, b, pick, "")!
  }

  func compare(_ isFloat: Bool, _ f: LLVMRealPredicate, _ i: LLVMIntPredicate, _ a: [LLVMValueRef]) -> LLVMValueRef {
    isFloat ? LLVMBuildFCmp(b, f, a[0], a[1], "")! : LLVMBuildICmp(b, i, a[0], a[1], "")!
  }

  /// A libm function with no LLVM intrinsic, called lane by lane.
  func libmPerLane(_ name: String, _ a: [LLVMValueRef]) -> LLVMValueRef {
    var params: [LLVMTypeRef?] = Array(repeating: t.float, count: a.count)
    let type = params.withUnsafeMutableBufferPointer { LLVMFunctionType(t.float, $0.baseAddress, UInt32($0.count), 0)! }
    let fn = LLVMGetNamedFunction(m.module, name) ?? LLVMAddFunction(m.module, name, type)!
    var result = LLVMGetUndef(vf)!
    let nobuiltin = LLVMCreateEnumAttribute(m.context, LLVMGetEnumAttributeKindForName("nobuiltin", 9), 0)!
    for lane in 0..<w {
      var args: [LLVMValueRef?] = a.map { LLVMBuildExtractElement(b, $0, i32(lane), "") }
      let r = args.withUnsafeMutableBufferPointer { LLVMBuildCall2(b, type, fn, $0.baseAddress, UInt32($0.count), "")! }
      // nobuiltin: LLVM must not fold or rewrite the call (powf(x, 2) → x·x, …).
      LLVMAddCallSiteAttribute(r, LLVMAttributeIndex(bitPattern: -1), nobuiltin)
      result = LLVMBuildInsertElement(b, result, r, i32(lane), "")!
    }
    return result
  }

  // MARK: memory

  /// Bytes per channel and the integer type of one channel.
  func channelType(_ f: PixelFormat) -> LLVMTypeRef {
    switch f {
    case .rgba8: t.i8
    case .rgba16: t.i16
    case .rgba32f: t.float
    }
  }

  func unormScale(_ f: PixelFormat) -> Float { f == .rgba8 ? 1 / 255 : 1 / 65535 }

  /// W consecutive pixels starting at `xs[0] + offset` of the row starting
  /// at `row` (``rowStart``), as one `<4W x channel>` vector.
  func denseLoad(_ buffer: Int, row: LLVMValueRef, x xs: LLVMValueRef, offset: Int = 0) -> LLVMValueRef {
    let f = formats[buffer]
    let x = LLVMBuildExtractElement(b, xs, i32(0), "")!
    let p = pixelAddress(buffer, row: row, x: x, offset: offset)
    let load = LLVMBuildLoad2(b, t.vector(channelType(f), 4 * w), p, "pixels")!
    LLVMSetAlignment(load, UInt32(f.bytesPerPixel / 4))
    return load
  }

  /// A dense tap in a vector near the row's ends (the border loops), in the
  /// row starting at `row` (``rowStart``): lanes
  /// whose column `x + offset + lane` lies in the row are one masked vector
  /// load (masked-off lanes touch no memory), the others take the first or
  /// last pixel of the row — the clamp-to-edge index, without a gather.
  /// `channel` names the plane of a planar buffer; nil loads whole RGBA8/RGBA16
  /// pixels as one integer lane each, returned as `<4W x channel>` like ``denseLoad``.
  func edgeLoad(_ buffer: Int, channel: Int?, row: LLVMValueRef, x xs: LLVMValueRef, offset: Int) throws -> LLVMValueRef {
    let x = LLVMBuildExtractElement(b, xs, i32(0), "")!
    let columns = LLVMBuildAdd(b, splat(LLVMBuildAdd(b, x, i32(offset), "")!), constVector((0..<w).map { i32($0) }), "")!
    let zero = LLVMConstNull(vi)
    let before = LLVMBuildICmp(b, LLVMIntSLT, columns, zero, "")!
    let inside = LLVMBuildAnd(b, LLVMBuildNot(b, before, "")!, LLVMBuildICmp(b, LLVMIntSLT, columns, splat(width), "")!, "")!
    let last = LLVMBuildSub(b, width, i32(1), "")!
    let element: LLVMTypeRef, pointer: LLVMValueRef, first: LLVMValueRef, final: LLVMValueRef
    if let c = channel {
      element = t.float
      pointer = planarAddress(buffer, row: row, x: x, channel: c, offset: offset)
      first = planarAddress(buffer, row: row, x: i32(0), channel: c)
      final = planarAddress(buffer, row: row, x: last, channel: c)
    } else {
      element = formats[buffer] == .rgba8 ? t.i32 : t.i64
      pointer = pixelAddress(buffer, row: row, x: x, offset: offset)
      first = pixelAddress(buffer, row: row, x: i32(0))
      final = pixelAddress(buffer, row: row, x: last)
    }
    let type = t.vector(element, w)
    func scalar(_ p: LLVMValueRef) -> LLVMValueRef {
      let v = LLVMBuildLoad2(b, element, p, "")!
      LLVMSetAlignment(v, 1)
      return splat(v)
    }
    let edges = LLVMBuildSelect(b, before, scalar(first), scalar(final), "")!
    let loaded = try call("llvm.masked.load", [type, t.ptr], [pointer, i32(1), inside, edges])
    return channel == nil ? LLVMBuildBitCast(b, loaded, t.vector(channelType(formats[buffer]), 4 * w), "")! : loaded
  }

  /// The address of row `y` (a scalar) of `buffer`: `data + (y & rowMask)·rowBytes`.
  func rowStart(_ buffer: Int, y: LLVMValueRef) -> LLVMValueRef {
    let h = headers[buffer]!
    let ring = LLVMBuildAnd(b, y, h.rowMask, "")!
    return gep(t.i8, h.data, LLVMBuildMul(b, LLVMBuildSExt(b, ring, t.i64, ""), h.rowBytes, "")!)
  }

  /// The address of the row a load reads, `rows[0]` (its row is the same for
  /// every lane). A load at row `pixelY + tap` (clamped) of a buffer with a
  /// row table (column order) takes it from the table: one load, no clamp,
  /// mask or multiply per tap. The load is volatile so that LLVM reloads the
  /// address at each use (an L1 hit) instead of keeping 61 row addresses of a
  /// σ10 blur alive across its four channel sums, spilling them to the stack.
  func rowStart(_ buffer: Int, rows: LLVMValueRef, tap: Int32?, rowInChunk: LLVMValueRef?) -> LLVMValueRef {
    if let tap, let table = rowTables[buffer], let rowInChunk {
      let slot = gep(t.ptr, gep(t.ptr, table.pointer, rowInChunk), i64(Int(tap) + table.reach))
      let row = LLVMBuildLoad2(b, t.ptr, slot, "row")!
      LLVMSetVolatile(row, 1)
      return row
    }
    return rowStart(buffer, y: LLVMBuildExtractElement(b, rows, i32(0), "")!)
  }

  /// Address of pixel (x + offset) of the row starting at `row`, scalars. The
  /// offset is added in 64 bits, after the sign extension, so that it folds
  /// into the load's displacement.
  func pixelAddress(_ buffer: Int, row: LLVMValueRef, x: LLVMValueRef, offset: Int = 0) -> LLVMValueRef {
    let col = LLVMBuildMul(b, LLVMBuildSExt(b, x, t.i64, ""), i64(formats[buffer].bytesPerPixel), "")!
    return gep(t.i8, gep(t.i8, row, col), i64(offset * formats[buffer].bytesPerPixel))
  }

  func channelOfDense(_ pixels: LLVMValueRef, _ buffer: Int, _ c: Int) -> LLVMValueRef {
    let f = formats[buffer]
    let mask = constVector((0..<w).map { i32(4 * $0 + c) })
    let lane = LLVMBuildShuffleVector(b, pixels, LLVMGetUndef(LLVMTypeOf(pixels)), mask, "")!
    if f == .rgba32f { return lane }
    return LLVMBuildFMul(b, LLVMBuildUIToFP(b, lane, vf, ""), splat(f32(unormScale(f))), "")!
  }

  /// Per-lane byte offsets of rows `iy` (masked to the ring) of `buffer`:
  /// `(iy & rowMask)·rowBytes` in 64 bits, as a product of two sign-extended
  /// 32-bit values — one `vpmuldq` per four lanes, where a general 64-bit
  /// multiply takes five instructions on AVX2. `rowBytes` fits in 32 bits: at
  /// most 2²⁰ pixels (ImageBuffer.maxDimension) of 16 bytes, plus padding.
  func rowByteOffsets(_ buffer: Int, _ iy: LLVMValueRef) -> LLVMValueRef {
    let h = headers[buffer]!
    let v64 = t.vector(t.i64, w)
    let ring = LLVMBuildAnd(b, iy, splat(h.rowMask), "")!
    let rowBytes = LLVMBuildSExt(b, splat(LLVMBuildTrunc(b, h.rowBytes, t.i32, "")!), v64, "")!
    return LLVMBuildNSWMul(b, LLVMBuildSExt(b, ring, v64, ""), rowBytes, "")!
  }

  /// Per-lane addresses of pixels (ix, iy) of `buffer`, plus `offset` bytes.
  func addresses(_ buffer: Int, _ ix: LLVMValueRef, _ iy: LLVMValueRef, offset: Int = 0) -> LLVMValueRef {
    let v64 = t.vector(t.i64, w)
    let row = rowByteOffsets(buffer, iy)
    let col = LLVMBuildMul(b, LLVMBuildSExt(b, ix, v64, ""), splat(LLVMConstInt(t.i64, UInt64(formats[buffer].bytesPerPixel), 0)), "")!
    var off = LLVMBuildAdd(b, row, col, "")!
    if offset != 0 { off = LLVMBuildAdd(b, off, splat(LLVMConstInt(t.i64, UInt64(offset), 0)), "")! }
    return gep(t.i8, headers[buffer]!.data, off)
  }

  func gather(_ element: LLVMTypeRef, _ ptrs: LLVMValueRef, align: Int) throws -> LLVMValueRef {
    let type = t.vector(element, w)
    let mask = splat(LLVMConstInt(t.i1, 1, 0))
    return try call("llvm.masked.gather", [type, t.vector(t.ptr, w)], [ptrs, i32(align), mask, LLVMGetUndef(type)])
  }

  /// Whole pixels of an integer format gathered as one lane each (i32 for RGBA8, i64 for RGBA16).
  func gatherPixel(_ buffer: Int, _ ix: LLVMValueRef, _ iy: LLVMValueRef) throws -> LLVMValueRef {
    let element = formats[buffer] == .rgba8 ? t.i32 : t.i64
    return try gather(element, addresses(buffer, ix, iy), align: 1)
  }

  func channelOfGathered(_ pixels: LLVMValueRef, _ buffer: Int, _ c: Int) -> LLVMValueRef {
    let f = formats[buffer]
    let bits = f == .rgba8 ? 8 : 16
    let type = LLVMTypeOf(pixels)!
    let element = LLVMGetElementType(type)!
    let shifted = LLVMBuildLShr(b, pixels, splat(LLVMConstInt(element, UInt64(bits * c), 0)), "")!
    let masked = LLVMBuildAnd(b, shifted, splat(LLVMConstInt(element, (1 << bits) - 1, 0)), "")!
    return LLVMBuildFMul(b, LLVMBuildUIToFP(b, masked, vf, ""), splat(f32(unormScale(f))), "")!
  }

  func gatherFloat(_ buffer: Int, _ ix: LLVMValueRef, _ iy: LLVMValueRef, _ c: Int) throws -> LLVMValueRef {
    try gather(t.float, addresses(buffer, ix, iy, offset: 4 * c), align: 4)
  }

  /// Converts the four channels to the output format (DESIGN §1: NaN → 0,
  /// clamp to 0…1, round to nearest), interleaves and stores them at (x, y).
  /// Intermediates are stored planar: row `y` holds `width` reds, then greens,
  /// blues and alphas (structure of arrays), so a pass reads a channel of W
  /// pixels with one vector load and writes without interleaving.
  func isPlanar(_ buffer: Int) -> Bool { planar.contains(buffer) }

  /// Scalar address of channel `c` of pixel (x + offset) in the planar row
  /// starting at `row`: the column and channel plane are one index, the
  /// offset a constant displacement.
  func planarAddress(_ buffer: Int, row: LLVMValueRef, x: LLVMValueRef, channel c: Int, offset: Int = 0) -> LLVMValueRef {
    let h = headers[buffer]!
    let plane = LLVMBuildMul(b, LLVMBuildSExt(b, h.planeStride, t.i64, ""), i64(4 * c), "")!
    let column = LLVMBuildMul(b, LLVMBuildSExt(b, x, t.i64, ""), i64(4), "")!
    return gep(t.i8, gep(t.i8, row, LLVMBuildAdd(b, plane, column, "")!), i64(4 * offset))
  }

  /// Per-lane addresses of channel `c` of pixels (ix, iy) in a planar buffer.
  func planarAddresses(_ buffer: Int, _ ix: LLVMValueRef, _ iy: LLVMValueRef, channel c: Int) -> LLVMValueRef {
    let h = headers[buffer]!
    let v64 = t.vector(t.i64, w)
    let row = rowByteOffsets(buffer, iy)
    let column = LLVMBuildAdd(b, splat(LLVMBuildMul(b, h.planeStride, i32(c), "")!), ix, "")!
    let offset = LLVMBuildAdd(b, row, LLVMBuildMul(b, LLVMBuildSExt(b, column, v64, ""), splat(LLVMConstInt(t.i64, 4, 0)), ""), "")!
    return gep(t.i8, h.data, offset)
  }

  func store(_ rgba: [LLVMValueRef], x: LLVMValueRef, y: LLVMValueRef) {
    if isPlanar(pass.output) {
      for (c, v) in rgba.enumerated() {
        LLVMSetAlignment(LLVMBuildStore(b, v, planarAddress(pass.output, row: rowStart(pass.output, y: y), x: x, channel: c))!, 4)
      }
      return
    }
    let f = formats[pass.output]
    var channels = rgba
    if f != .rgba32f {
      let scale = f == .rgba8 ? Float(255) : 65535
      channels = rgba.map { v in
        let c = try! call("llvm.minnum", [vf], [try! call("llvm.maxnum", [vf], [v, splat(f32(0))]), splat(f32(1))])
        let r = LLVMBuildFAdd(b, LLVMBuildFMul(b, c, splat(f32(scale)), ""), splat(f32(0.5)), "")!
        return LLVMBuildFPToUI(b, r, t.vector(channelType(f), w), "")!
      }
    }
    let rg = LLVMBuildShuffleVector(b, channels[0], channels[1], constVector((0..<2 * w).map { i32($0) }), "")!
    let ba = LLVMBuildShuffleVector(b, channels[2], channels[3], constVector((0..<2 * w).map { i32($0) }), "")!
    let interleave = constVector((0..<4 * w).map { l in i32((l % 4) * w + l / 4) })
    let pixels = LLVMBuildShuffleVector(b, rg, ba, interleave, "")!
    LLVMSetAlignment(LLVMBuildStore(b, pixels, pixelAddress(pass.output, row: rowStart(pass.output, y: y), x: x))!, UInt32(f.bytesPerPixel / 4))
  }
}
