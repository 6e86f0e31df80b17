import FXIR
import FXImage
import FXLLVM
import FXPasses

/// Loads, addresses and stores of the CPU back end: how a loop nest reads and
/// writes its buffers (``BufferDescriptor``), following each load's strategy
/// in the plan.
extension LoopNestEmitter {
  /// A load, by its strategy in the plan (``LoopNestPlan/LoadStrategy``): dense
  /// vector loads (deinterleaved by shuffles for RGBA buffers), masked edge
  /// loads in border vectors, or gathers. Whole pixels loaded for one channel
  /// are kept in `pixels` for the others.
  func load(
    _ buffer: Int, _ channel: Int, _ node: Node, _ a: [Value], id: Int, xs: Value, y: Value, interior: Bool,
    rowInChunk: Value?, _ pixels: inout [PixelKey: Value]
  ) throws -> Value {
    let key = PixelKey(buffer: buffer, x: node.args[0], y: node.args[1])
    let load = plan.loads[id]!
    // The row's address, emitted only on the paths that use it (a row-table
    // load is volatile, so LLVM would not drop an unused one).
    func row() -> Value {
      rowStart(buffer, rows: a[1], tap: load.rowOffset, index: load.rowIndex == 0 ? nil : (load.rowIndex, loopIndex!), rowInChunk: rowInChunk)
    }
    // A dense load at `offset` (interior vectors), or a masked edge load
    // at `masked` (border vectors); otherwise a gather.
    var offset: Int32? = nil, masked: Int32? = nil
    let unshifted = xs
    var xs = xs
    // The columns' sign in the loop index (denseShifted), and the first lane's
    // column for a planar dense load, shifted as a scalar.
    var shift: Int32 = 0
    func x0() -> Value {
      let x = b.extractElement(unshifted, at: i32(0))
      return shift == 1 ? b.nswAdd(x, loopIndex!) : shift == -1 ? b.nswSub(x, loopIndex!) : x
    }
    switch load.strategy {
    case .dense: offset = 0
    case .denseInterior(let k, let border):
      if interior { offset = k } else if border == .masked { masked = k }
    case .denseShifted(let k, let index):
      // In a loop body: `interior` is the loop copy's (every shifted column inside the row).
      // Columns (< 2²⁰) ± an index (|i| ≤ 2²²) never overflow: `nsw` lets LLVM
      // fold an unrolled loop's constant index into each load's displacement.
      if interior, tapWindow, isPlanar(buffer) {
        // The index is a constant here: the column offset k ± i is one.
        let column = index == 0 ? i32(0) : index == 1 ? loopIndex! : b.sub(i32(0), loopIndex!)
        let x = b.extractElement(unshifted, at: i32(0))
        return try windowTap(buffer, channel: channel, row: row(), x: x, offset: b.add(column, i32(Int(k))))
      }
      shift = index
      if index == 1 { xs = b.nswAdd(xs, splat(loopIndex!)) }
      if index == -1 { xs = b.nswSub(xs, splat(loopIndex!)) }
      // Interleaved floats have no whole-pixel masked load: their border gathers the clamped columns.
      if interior { offset = k } else if isPlanar(buffer) || formats[buffer] != .rgba32f { masked = k }
    case .gather: break
    case .gatherOrDense:
      return try gatherOrDense(buffer, channel, key: key, columns: a[0], rows: a[1], row: row, near: load.rowReach, y: y, &pixels)
    }
    if isPlanar(buffer) {
      // Planar intermediates: each channel is a row of floats; a dense read is one vector load.
      if let offset {
        return b.load(vf, from: planarAddress(buffer, row: row(), x: x0(), channel: channel, offset: Int(offset)), alignment: 4)
      }
      if let k = masked { return try edgeLoad(buffer, channel: channel, row: row(), x: xs, offset: Int(k)) }
      return try gather(t.float, planarAddresses(buffer, a[0], a[1], channel: channel), align: 4)
    }
    if let offset {
      if pixels[key] == nil, let rows = load.prefetchRows { try prefetchAhead(buffer, rows: rows, x: xs, y: y) }
      if formats[buffer] == .rgba8 && plan.alignedPixels {
        if pixels[key] == nil { pixels[key] = denseWords(buffer, row: row(), x: x0(), offset: Int(offset)) }
        return channelOfGathered(pixels[key]!, buffer, channel)
      }
      if pixels[key] == nil { pixels[key] = denseLoad(buffer, row: row(), x: xs, offset: Int(offset)) }
      return channelOfDense(pixels[key]!, buffer, channel)
    }
    if let k = masked {
      if pixels[key] == nil { pixels[key] = try edgeLoad(buffer, channel: nil, row: row(), x: xs, offset: Int(k)) }
      return channelOfDense(pixels[key]!, buffer, channel)
    }
    // Rows within a few of the pixel's: 32-bit offsets from its row.
    let near = load.rowReach.map { $0 <= Self.nearRows } == true ? y : nil
    if formats[buffer] == .rgba32f {
      return try gather(t.float, addresses(buffer, a[0], a[1], offset: 4 * channel, near: near), align: 4)
    }
    if pixels[key] == nil {
      if let rows = load.prefetchRows { try prefetchAhead(buffer, rows: rows, x: xs, y: y) }
      pixels[key] = try gather(
        formats[buffer] == .rgba8 ? t.i32 : t.i64, addresses(buffer, a[0], a[1], near: near), align: Int(pixelAlignment(formats[buffer])))
    }
    return channelOfGathered(pixels[key]!, buffer, channel)
  }

  /// A load of columns computed per lane from one row (``LoopNestPlan/LoadStrategy/gatherOrDense``):
  /// when the vector's columns are consecutive, `c, c + 1, …`, one dense load
  /// at `c` — the same pixels the gather would read — else the gather. 8- and
  /// 16-bit pixels are kept whole in `pixels`, as gathered ones are.
  func gatherOrDense(
    _ buffer: Int, _ channel: Int, key: PixelKey, columns: Value, rows: Value, row: () -> Value, near reach: Int32?,
    y: Value, _ pixels: inout [PixelKey: Value]
  ) throws -> Value {
    if isPlanar(buffer) {
      return try consecutiveOrGathered(columns) {
        b.load(vf, from: planarAddress(buffer, row: row(), x: b.extractElement(columns, at: i32(0)), channel: channel), alignment: 4)
      } gathered: {
        try gather(t.float, planarAddresses(buffer, columns, rows, channel: channel), align: 4)
      }
    }
    if pixels[key] == nil {
      let near = reach.map { $0 <= Self.nearRows } == true ? y : nil
      let whole = formats[buffer] == .rgba8 ? t.i32 : t.i64
      pixels[key] = try consecutiveOrGathered(columns) {
        b.bitcast(denseLoad(buffer, row: row(), x: columns), to: t.vector(whole, w))
      } gathered: {
        try gather(whole, addresses(buffer, columns, rows, near: near), align: Int(pixelAlignment(formats[buffer])))
      }
    }
    return channelOfGathered(pixels[key]!, buffer, channel)
  }

  /// `dense()` in vectors whose `columns` are consecutive (lane i holds
  /// `columns[0] + i`), `gathered()` in the others: a branch that a slowly
  /// varying shift takes the same way for long runs of vectors.
  func consecutiveOrGathered(_ columns: Value, dense: () throws -> Value, gathered: () throws -> Value) throws -> Value {
    let expected = b.add(splat(b.extractElement(columns, at: i32(0))), constVector((0..<w).map { i32($0) }))
    let consecutive = try call("llvm.vector.reduce.and", [vb], [b.icmp(.eq, columns, expected)])
    return try b.ifElse(consecutive, name: "load.consecutive", then: { [try dense()] }, else: { [try gathered()] })[0]
  }

  /// Prefetches the pixels of row `y + rows` (clamped to the image) at the
  /// vector's columns: the row a gather at data-dependent rows within reach
  /// will first need a strip later in column order, or the row a row-order
  /// loop nest reads a few rows on.
  func prefetchAhead(_ buffer: Int, rows: Int, x xs: Value, y: Value) throws {
    let h = headers[buffer]!
    let last = b.sub(h.height, i32(1))
    let row = try call("llvm.smin", [t.i32], [b.add(y, i32(rows)), last])
    let p = pixelAddress(buffer, row: rowStart(buffer, y: row), x: b.extractElement(xs, at: i32(0)))
    _ = try call("llvm.prefetch", [t.ptr], [p, i32(0), i32(3), i32(1)])
  }

  /// The largest |row − pixelY| a gather from a whole image may address
  /// relative to the pixel's row in 32 bits: 64 rows of at most 2²⁰ pixels
  /// of 16 bytes (plus padding) stay under 2³¹ bytes.
  static var nearRows: Int32 { 64 }

  // MARK: memory

  /// Bytes per channel and the integer type of one channel.
  func channelType(_ f: PixelFormat) -> IRType {
    switch f {
    case .rgba8: t.i8
    case .rgba16: t.i16
    case .rgba32f: t.float
    }
  }

  func unormScale(_ f: PixelFormat) -> Float { f == .rgba8 ? 1 / 255 : 1 / 65535 }

  /// W consecutive pixels starting at `xs[0] + offset` of the row starting
  /// at `row` (``rowStart``), as one `<4W x channel>` vector.
  func denseLoad(_ buffer: Int, row: Value, x xs: Value, offset: Int = 0) -> Value {
    let f = formats[buffer]
    let x = b.extractElement(xs, at: i32(0))
    let p = pixelAddress(buffer, row: row, x: x, offset: offset)
    return b.load(t.vector(channelType(f), 4 * w), from: p, alignment: pixelAlignment(f), name: "pixels")
  }

  /// W consecutive 8-bit pixels from column `x + offset` of the row starting
  /// at `row`, as `<W x i32>`, a word per pixel (kept whole, as a gather's
  /// are), for aligned pixels (``LoopNestPlan/alignedPixels``): LLVM 19's
  /// NVPTX back end makes one 16-byte `ld.v4.u32` of a `<16 x i8>` load
  /// whatever its alignment (llvm/llvm-project#118851), and a grid's vector
  /// starts at any pixel (a row's last overlaps the one before).
  func denseWords(_ buffer: Int, row: Value, x: Value, offset: Int) -> Value {
    b.load(t.vector(t.i32, w), from: pixelAddress(buffer, row: row, x: x, offset: offset), alignment: pixelAlignment(.rgba8), name: "pixels")
  }

  /// A dense tap in a vector near the row's ends (the border loops), in the
  /// row starting at `row` (``rowStart``): lanes
  /// whose column `x + offset + lane` lies in the row are one masked vector
  /// load (masked-off lanes touch no memory), the others take the first or
  /// last pixel of the row — the clamp-to-edge index, without a gather.
  /// Those two are read at the vector's own first and last columns clamped
  /// to the row, which are the row's ends whenever a lane needs them: no
  /// column outside the tap's clamped span is touched (a column tile's ring
  /// holds only the tile's columns, ``ColumnTiles``).
  /// `channel` names the plane of a planar buffer; nil loads whole RGBA8/RGBA16
  /// pixels as one integer lane each, returned as `<4W x channel>` like ``denseLoad``.
  func edgeLoad(_ buffer: Int, channel: Int?, row: Value, x xs: Value, offset: Int) throws -> Value {
    let x = b.extractElement(xs, at: i32(0))
    let columns = b.add(splat(b.add(x, i32(offset))), constVector((0..<w).map { i32($0) }))
    let zero = vi.null
    let before = b.icmp(.slt, columns, zero)
    let inside = b.and(b.not(before), b.icmp(.slt, columns, splat(width)))
    let last = b.sub(width, i32(1))
    func clamped(_ column: Value) throws -> Value {
      try call("llvm.smax", [t.i32], [try call("llvm.smin", [t.i32], [column, last]), i32(0)])
    }
    let start = try clamped(b.add(x, i32(offset))), end = try clamped(b.add(x, i32(offset + w - 1)))
    let element: IRType, pointer: Value, first: Value, final: Value
    if let c = channel {
      element = t.float
      pointer = planarAddress(buffer, row: row, x: x, channel: c, offset: offset)
      first = planarAddress(buffer, row: row, x: start, channel: c)
      final = planarAddress(buffer, row: row, x: end, channel: c)
    } else {
      element = formats[buffer] == .rgba8 ? t.i32 : t.i64
      pointer = pixelAddress(buffer, row: row, x: x, offset: offset)
      first = pixelAddress(buffer, row: row, x: start)
      final = pixelAddress(buffer, row: row, x: end)
    }
    let type = t.vector(element, w)
    func scalar(_ p: Value) -> Value { splat(b.load(element, from: p, alignment: 1)) }
    let edges = b.select(before, scalar(first), scalar(final))
    let loaded = try call("llvm.masked.load", [type, t.ptr], [pointer, i32(1), inside, edges])
    return channel == nil ? b.bitcast(loaded, to: t.vector(channelType(formats[buffer]), 4 * w)) : loaded
  }

  /// The address of row `y` (a scalar) of `buffer`: `data + (y & rowMask)·rowBytes`.
  func rowStart(_ buffer: Int, y: Value) -> Value {
    let h = headers[buffer]!
    let ring = b.and(y, h.rowMask)
    return gep(t.i8, h.data, b.mul(b.sext(ring, to: t.i64), h.rowBytes))
  }

  /// The address of the row a load reads, `rows[0]` (its row is the same for
  /// every lane). A load at row `pixelY + tap` (clamped) of a buffer with a
  /// row table (column order) takes it from the table: one load, no clamp,
  /// mask or multiply per tap. The load is volatile so that LLVM reloads the
  /// address at each use (an L1 hit) instead of keeping 61 row addresses of a
  /// σ10 blur alive across its four channel sums, spilling them to the stack.
  /// In a loop body, `index` (coefficient, the loop's index) adds `±i` to
  /// the tap; the plan gives the table the reach of every such row.
  ///
  /// In a grid thread's rows (``GridRowMemo``), where `rowInChunk` is the
  /// row's place among them and the index (if any) a constant, the row is
  /// the first row plus a constant, clamped to the image (what the plan's
  /// ``LoopNestPlan/Load/rowOffset`` promises): one address per offset.
  func rowStart(_ buffer: Int, rows: Value, tap: Int32?, index: (Int32, Value)? = nil, rowInChunk: Value?) -> Value {
    if let tap, let memo = gridRows, rowTables[buffer] == nil, let place = rowInChunk?.constantInt {
      let term = index.map { c, i in i.constantInt.map { Int(c) * Int($0) } } ?? 0
      if let term {
        let key = GridRowMemo.Key(buffer: buffer, offset: Int(place) + Int(tap) + term, block: b.insertBlock)
        if let row = memo.rows[key] { return row }
        let y = b.add(memo.base, i32(key.offset)), last = b.sub(height, i32(1))
        let low = b.select(b.icmp(.slt, y, i32(0)), i32(0), y)
        let row = rowStart(buffer, y: b.select(b.icmp(.sgt, low, last), last, low))
        memo.rows[key] = row
        return row
      }
    }
    if let tap, let table = rowTables[buffer], let rowInChunk {
      var slot = gep(t.ptr, gep(t.ptr, table.pointer, rowInChunk), i64(Int(tap) + table.reach))
      if let (c, i) = index { slot = gep(t.ptr, slot, b.sext(c < 0 ? b.sub(i32(0), i) : i, to: t.i64)) }
      return b.load(t.ptr, from: slot, volatile: index == nil, name: "row")
    }
    return rowStart(buffer, y: b.extractElement(rows, at: i32(0)))
  }

  /// Address of pixel (x + offset) of the row starting at `row`, scalars. The
  /// offset is added in 64 bits, after the sign extension, so that it folds
  /// into the load's displacement.
  func pixelAddress(_ buffer: Int, row: Value, x: Value, offset: Int = 0) -> Value {
    let col = b.mul(b.sext(x, to: t.i64), i64(formats[buffer].bytesPerPixel))
    return gep(t.i8, gep(t.i8, row, col), i64(offset * formats[buffer].bytesPerPixel))
  }

  func channelOfDense(_ pixels: Value, _ buffer: Int, _ c: Int) -> Value {
    let f = formats[buffer]
    let mask = constVector((0..<w).map { i32(4 * $0 + c) })
    let lane = b.shuffleVector(pixels, pixels.type.undef, mask: mask)
    if f == .rgba32f { return lane }
    return b.fmul(b.uitofp(lane, to: vf), splat(f32(unormScale(f))))
  }

  /// Per-lane byte offsets of rows `iy` (masked to the ring) of `buffer`:
  /// `(iy & rowMask)·rowBytes` in 64 bits, as a product of two sign-extended
  /// 32-bit values — one `vpmuldq` per four lanes, where a general 64-bit
  /// multiply takes five instructions on AVX2. `rowBytes` fits in 32 bits: at
  /// most 2²⁰ pixels (ImageBuffer.maxDimension) of 16 bytes, plus padding.
  func rowByteOffsets(_ buffer: Int, _ iy: Value) -> Value {
    let h = headers[buffer]!
    let v64 = t.vector(t.i64, w)
    let ring = b.and(iy, splat(h.rowMask))
    let rowBytes = b.sext(splat(b.trunc(h.rowBytes, to: t.i32)), to: v64)
    return b.nswMul(b.sext(ring, to: v64), rowBytes)
  }

  /// Per-lane addresses of pixels (ix, iy) of `buffer`, plus `offset` bytes.
  /// With `near` (the pixel's row, a scalar, when every `iy` is within
  /// ``nearRows`` of it), as 32-bit offsets from that row's start, so LLVM
  /// gathers with 32-bit indices (one instruction per 16 lanes, not two).
  /// Only for whole images (inputs): a ring's rows wrap around.
  func addresses(_ buffer: Int, _ ix: Value, _ iy: Value, offset: Int = 0, near y: Value? = nil) -> Value {
    let v64 = t.vector(t.i64, w)
    if let y, !isPlanar(buffer) {
      let h = headers[buffer]!
      let rows = b.nswMul(b.sub(iy, splat(y)), splat(b.trunc(h.rowBytes, to: t.i32)))
      let columns = b.nswMul(ix, splat(i32(formats[buffer].bytesPerPixel)))
      let bytes = b.add(b.add(rows, columns), splat(i32(offset)))
      return gep(t.i8, rowStart(buffer, y: y), b.sext(bytes, to: v64))
    }
    let row = rowByteOffsets(buffer, iy)
    let col = b.mul(b.sext(ix, to: v64), splat(t.i64.constant(UInt64(formats[buffer].bytesPerPixel))))
    var off = b.add(row, col)
    if offset != 0 { off = b.add(off, splat(t.i64.constant(UInt64(offset)))) }
    return gep(t.i8, headers[buffer]!.data, off)
  }

  func gather(_ element: IRType, _ ptrs: Value, align: Int) throws -> Value {
    let type = t.vector(element, w)
    let mask = splat(t.i1.constant(1))
    return try call("llvm.masked.gather", [type, t.vector(t.ptr, w)], [ptrs, i32(align), mask, type.undef])
  }

  func channelOfGathered(_ pixels: Value, _ buffer: Int, _ c: Int) -> Value {
    let f = formats[buffer]
    let bits = f == .rgba8 ? 8 : 16
    let element = pixels.type.elementType
    let shifted = b.lshr(pixels, splat(element.constant(UInt64(bits * c))))
    let masked = b.and(shifted, splat(element.constant((1 << bits) - 1)))
    return b.fmul(b.uitofp(masked, to: vf), splat(f32(unormScale(f))))
  }

  /// Converts the four channels to the output format (DESIGN §1: NaN → 0,
  /// clamp to 0…1, round to nearest), interleaves and stores them at (x, y).
  /// Intermediates are stored planar: row `y` holds `width` reds, then greens,
  /// blues and alphas (structure of arrays), so a loop nest reads a channel of W
  /// pixels with one vector load and writes without interleaving.
  func isPlanar(_ buffer: Int) -> Bool { planar.contains(buffer) }

  /// Scalar address of channel `c` of pixel (x + offset) in the planar row
  /// starting at `row`: the column and channel plane are one index, the
  /// offset a constant displacement.
  func planarAddress(_ buffer: Int, row: Value, x: Value, channel c: Int, offset: Int = 0) -> Value {
    let h = headers[buffer]!
    let plane = b.mul(b.sext(h.planeStride, to: t.i64), i64(4 * c))
    let column = b.mul(b.sext(x, to: t.i64), i64(4))
    return gep(t.i8, gep(t.i8, row, b.add(plane, column)), i64(4 * offset))
  }

  /// Per-lane addresses of channel `c` of pixels (ix, iy) in a planar buffer.
  func planarAddresses(_ buffer: Int, _ ix: Value, _ iy: Value, channel c: Int) -> Value {
    let h = headers[buffer]!
    if compactRings.contains(buffer) {
      // In 32 bits (the ring is small; ix and the masked row are ≥ 0):
      // LLVM sees a sign-extended i32 offset and gathers with 32-bit indices.
      let row = b.nswMul(b.and(iy, splat(h.rowMask)), splat(b.trunc(h.rowBytes, to: t.i32)))
      let column = b.add(splat(b.mul(h.planeStride, i32(c))), ix)
      let offset = b.add(row, b.nswMul(column, splat(i32(4))))
      return gep(t.i8, h.data, b.sext(offset, to: t.vector(t.i64, w)))
    }
    let v64 = t.vector(t.i64, w)
    let row = rowByteOffsets(buffer, iy)
    let column = b.add(splat(b.mul(h.planeStride, i32(c))), ix)
    let offset = b.add(row, b.mul(b.sext(column, to: v64), splat(t.i64.constant(4))))
    return gep(t.i8, h.data, offset)
  }

  func store(_ rgba: [Value], x: Value, y: Value) {
    if isPlanar(pass.output) {
      for (c, v) in rgba.enumerated() where !unreadChannels.contains(c) {
        b.store(v, to: planarAddress(pass.output, row: rowStart(pass.output, y: y), x: x, channel: c), alignment: 4)
      }
      return
    }
    let f = formats[pass.output]
    if f == .rgba8, let packs = SaturatingPacks(m.target, lanes: w) {
      storeSaturating(rgba, packs, x: x, y: y)
      return
    }
    var channels = rgba
    if f != .rgba32f {
      // DESIGN §1: NaN → 0, clamp to 0…1, round — as much of it as the range
      // analysis cannot prove unnecessary (``RangeProofs/quantise(_:)``).
      let scale = f == .rgba8 ? Float(255) : 65535
      channels = zip(rgba, program.outputs).map { v, node in
        let zero = splat(f32(0)), one = splat(f32(1))
        let c: Value
        switch plan.proofs.quantise(node) {
        case .inRange: c = v
        case .clampOnly: c = ops.fminmaxNotNaN(ops.fminmaxNotNaN(v, zero, .ogt), one, .olt)
        case .full: c = try! call("llvm.minnum", [vf], [try! call("llvm.maxnum", [vf], [v, zero]), one])
        }
        let r = b.fadd(b.fmul(c, splat(f32(scale))), splat(f32(Self.roundingBias)))
        // 0.5…255.5: a signed conversion (one instruction on every x86 level) gives the same integer.
        return f == .rgba8 ? b.fptosi(r, to: vi) : b.fptoui(r, to: t.vector(channelType(f), w))
      }
    }
    if f == .rgba8 {
      // One 32-bit lane per pixel, `r | g << 8 | b << 16 | a << 24` (little-endian
      // RGBA bytes): shifts and ors instead of a byte interleave.
      let packed = (1..<4).reduce(channels[0]) { p, c in b.or(p, b.shl(channels[c], splat(i32(8 * c)))) }
      b.store(packed, to: pixelAddress(pass.output, row: rowStart(pass.output, y: y), x: x), alignment: pixelAlignment(f))
      return
    }
    let rg = b.shuffleVector(channels[0], channels[1], mask: constVector((0..<2 * w).map { i32($0) }))
    let ba = b.shuffleVector(channels[2], channels[3], mask: constVector((0..<2 * w).map { i32($0) }))
    let interleave = constVector((0..<4 * w).map { l in i32((l % 4) * w + l / 4) })
    let pixels = b.shuffleVector(rg, ba, mask: interleave)
    b.store(pixels, to: pixelAddress(pass.output, row: rowStart(pass.output, y: y), x: x), alignment: pixelAlignment(f))
  }

  /// The alignment a whole pixel of format `f` may be loaded or stored
  /// with: its size where the plan says pixels are aligned
  /// (``LoopNestPlan/alignedPixels``), else a channel's.
  func pixelAlignment(_ f: PixelFormat) -> UInt32 { UInt32(plan.alignedPixels ? f.bytesPerPixel : f.bytesPerPixel / 4) }

  /// What a store adds to `c·255` (or `c·65535`) before truncating: the
  /// float just below ½. `⌊x + ½⌋` would round `x` in [½ − 2⁻²⁵, ½) up (the
  /// sum rounds to 1); with this bias the truncation is round-half-away-from-zero
  /// of `x` — DESIGN §1's rounding, as ``ImageBuffer`` rounds — for every `x`
  /// in 0…65535: a half (n + ½) still reaches n + 1, anything below stays under it.
  static let roundingBias = Float(0.5).nextDown

  /// The RGBA8 store of DESIGN §1 (NaN → 0, clamp to 0…1, round `c·255` to nearest) in
  /// x86's integer conversions: a truncating conversion gives INT32_MIN for
  /// NaN and for anything out of the int32 range, and two saturating packs
  /// (dword → signed word, then signed word → unsigned byte) clamp to 0…255 —
  /// so NaN, −∞ and every negative value become 0 with no float compare, and
  /// only a value that may reach 2³¹/255 (or +∞) keeps one `min(c, 1)` (NaN
  /// loop nests through it to the conversion). Bit for bit the clamping store: on
  /// 0…1 the arithmetic is the same, above 1 `c·255 + bias` truncates to
  /// ≥ 255, below 0 to ≤ 0. The first pack is the signed one: an unsigned
  /// dword → word pack leaves 32,768…65,535 where `c` is above 128.5, which
  /// the byte pack reads as a negative word and stores as 0.
  /// The packs leave each 128-bit lane holding its 4 pixels channel by
  /// channel; one byte shuffle interleaves them.
  func storeSaturating(_ rgba: [Value], _ packs: SaturatingPacks, x: Value, y: Value) {
    let one = splat(f32(1))
    let ints = zip(rgba, program.outputs).map { v, node in
      if case .float(bits: let bits)? = program.constantValue(node) {
        // A constant channel (an opaque output's alpha): its byte, as the vector code would make it.
        let c = Float(bitPattern: bits)
        let clamped = c.isNaN ? 0 : Swift.min(Swift.max(c, 0), 1)
        return splat(i32(Int((clamped * 255).rounded(.toNearestOrAwayFromZero))))
      }
      let c = plan.proofs.isBelow(node, SaturatingPacks.exactBelow) ? v : ops.fminmaxNotNaN(v, one, .olt)
      let r = b.fadd(b.fmul(c, splat(f32(255))), splat(f32(Self.roundingBias)))
      return try! packs.convert(r, ops)
    }
    let words = (try! packs.packDwords(ints[0], ints[1], ops), try! packs.packDwords(ints[2], ints[3], ops))
    let bytes = try! packs.packWords(words.0, words.1, ops)
    // Lane l's 16 bytes are r, g, b, a of its pixels 4l…4l+3: byte 4p + c ← 4c + p.
    let interleave = (0..<4 * w).map { i in i32(i / 16 * 16 + (i % 4) * 4 + (i % 16) / 4) }
    let pixels = b.bitcast(b.shuffleVector(bytes, bytes, mask: constVector(interleave)), to: vi)
    b.store(pixels, to: pixelAddress(pass.output, row: rowStart(pass.output, y: y), x: x), alignment: 1)
  }
}

/// x86's truncating float → int32 conversion and its saturating unsigned
/// packs at one vector width, where the target has them: SSE4.1 (4 lanes),
/// AVX2 (8), AVX-512BW (16). Other targets store RGBA8 with float clamps.
struct SaturatingPacks {
  let convertName: String, dwordsName: String, wordsName: String
  let lanes: Int
  /// Below this a channel needs no `min(c, 1)`: `c·255 + ½` is then inside
  /// the int32 range (2³¹/255 ≈ 8.4·10⁶), with room to spare.
  static let exactBelow = 1.0e6

  init?(_ target: Target, lanes: Int) {
    guard target.triple.hasPrefix("x86_64") else { return nil }
    switch lanes {
    case 4 where target.has("sse4.1"):
      (convertName, dwordsName, wordsName) = ("llvm.x86.sse2.cvttps2dq", "llvm.x86.sse2.packssdw.128", "llvm.x86.sse2.packuswb.128")
    case 8 where target.has("avx2"):
      (convertName, dwordsName, wordsName) = ("llvm.x86.avx.cvtt.ps2dq.256", "llvm.x86.avx2.packssdw", "llvm.x86.avx2.packuswb")
    case 16 where target.has("avx512bw"):
      (convertName, dwordsName, wordsName) = ("llvm.x86.avx512.mask.cvttps2dq.512", "llvm.x86.avx512.packssdw.512", "llvm.x86.avx512.packuswb.512")
    default: return nil
    }
    self.lanes = lanes
  }

  /// Truncates each lane to int32; NaN and out-of-range lanes give INT32_MIN.
  func convert(_ v: Value, _ e: OpEmitter) throws -> Value {
    guard lanes == 16 else { return try e.call(convertName, [], [v]) }
    // The AVX-512 form is masked: no passthrough lanes (mask all ones), the current rounding mode (4).
    return try e.call(convertName, [], [v, e.splat(e.i32(0)), e.t.i16.constant(0xFFFF), e.i32(4)])
  }

  /// Two vectors of int32 → one of twice as many int16, saturated (signed), lane by 128-bit lane.
  func packDwords(_ a: Value, _ b: Value, _ e: OpEmitter) throws -> Value { try e.call(dwordsName, [], [a, b]) }

  /// Two vectors of int16 → one of twice as many uint8, saturated, lane by 128-bit lane.
  func packWords(_ a: Value, _ b: Value, _ e: OpEmitter) throws -> Value { try e.call(wordsName, [], [a, b]) }
}
