import FXCodegen
import FXIR
import FXImage
import FXLLVM
import FXPasses
import Foundation

/// Running a kernel over an image that is never whole in memory: input rows
/// arrive a band at a time (from a decoder), output rows leave a band at a
/// time (to an encoder).
///
/// Input 0 and the output are rings of rows, as intermediates are in the
/// line-buffer schedule (``RunPlan``): row `y` lives at slot `y & rowMask`
/// (the descriptor's `rowMask`), so the same machine code runs on them. The
/// strips are those of ``CompiledKernel/run(inputs:output:uniforms:threads:)``
/// in one column tile, so every pixel is computed exactly as there: a
/// streamed result is byte-identical to the whole-image result.
extension CompiledKernel {
  /// Why this kernel cannot be streamed, or nil when it can: every stage
  /// must read input 0 (the streamed one; others are whole) and every intermediate
  /// at rows `y + k` for constant `k` (no distortion of rows, no data-dependent reads).
  public var streamingRefusal: String? {
    if !kernel.intermediates.isEmpty && plan.run.lookahead == nil {
      return "a stage reads an intermediate at data-dependent rows"
    }
    if inputReach.contains(where: { $0 == .some(nil) }) {
      return "a stage reads the image at data-dependent rows (a distortion or a lookup)"
    }
    return nil
  }

  /// The most bytes of intermediate rows a column tile of a streamed run
  /// keeps in flight: about an L2 cache. Smaller than a whole-image run's
  /// ``tileCacheBytes``: a streamed tile computes one strip of rows at a time,
  /// so it revisits its rings' rows strip after strip, and they should still
  /// be in cache (a 20,000 px wide JPEG through σ 3 + sepia on 2 threads:
  /// 6.03 s with 1 MiB, 5.95 s with 256 KiB, 6.65 s with 4 MiB, 7.71 s with
  /// whole rows; Benchmarks/README.md).
  public nonisolated(unsafe) static var streamTileCacheBytes: Int = 1 << 20

  /// For each loop nest, the largest row offset at which it reads input 0:
  /// nil when it does not read it, `.some(nil)` when at data-dependent rows
  /// (computed once, with the plan: ``inputRowReach``).
  private var inputReach: [Int??] { inputRowReach }

  /// ``inputReach`` of `kernel`.
  static func inputRowReach(_ kernel: Kernel) -> [Int??] {
    kernel.loopNests.map { pass in RunPlan.reach(pass.program, .y)[0].map { $0.map(Int.init) } }
  }

  /// Runs the kernel over a `width × height` image whose rows `read` gives
  /// and `write` takes, in order, top to bottom.
  ///
  /// `read(pointer, rowBytes, count)` must fill the next `count` rows of
  /// input 0 (its compiled format) into `count` rows `rowBytes` apart;
  /// `write(pointer, rowBytes, count)` gets the next `count` finished output
  /// rows (the compiled output format). Memory: a ring of input rows as tall
  /// as the kernel's vertical reach plus a strip (and 24 rows of slack with
  /// threads: the decoder's chunk of 16 and 8 more), a ring of output rows, and
  /// the intermediates' rings.
  ///
  /// With `threads` ≥ 2, `read` runs on a thread of its own and `write` on
  /// another, overlapping decoding, the kernel and encoding; with 1, all run
  /// on the caller's thread. The pixels are the same either way.
  /// - Throws: ``LLVMError`` when the kernel cannot stream (``streamingRefusal``),
  ///   the image is narrower than a vector or empty, or a uniform is not
  ///   finite; otherwise the first error `read` or `write` throws (then no
  ///   further rows are read or written).
  public func stream(
    width: Int, height: Int, uniforms: [Float] = [], threads: Int = 1, otherInputs: [ImageBuffer] = [],
    read: @escaping (UnsafeMutableRawPointer, Int, Int) throws -> Void,
    write: @escaping (UnsafeRawPointer, Int, Int) throws -> Void
  ) throws {
    if let streamingRefusal { throw LLVMError("this kernel cannot be streamed: \(streamingRefusal)") }
    guard otherInputs.count == layout.inputs.count - 1 else {
      throw LLVMError("the kernel reads \(layout.inputs.count) images: input 0 streams, \(otherInputs.count) others given")
    }
    for (i, b) in otherInputs.enumerated() where b.format != layout.inputs[i + 1] {
      throw LLVMError("input \(i + 1) is \(b.format), the kernel was compiled for \(layout.inputs[i + 1])")
    }
    guard width >= lanes, height >= 1 else {
      throw LLVMError("a streamed image must be at least \(lanes) px wide (one vector) and 1 px tall")
    }
    guard uniforms.count >= kernel.uniformCount, uniforms.allSatisfy({ $0.isFinite }) else {
      throw LLVMError("the kernel needs \(kernel.uniformCount) finite uniform values, got \(uniforms)")
    }
    let lookahead = plan.run.lookahead ?? Array(repeating: 0, count: kernel.loopNests.count)
    let (below, above) = inputRows(lookahead)
    // 64 rows of slack were as fast as 24 and 10 MiB more at peak on vips-bench's
    // 4800 px wide chain at 2 threads (0.31 s, 70 → 60 MiB).
    let slack = threads > 1 ? 24 : 0
    let input = try Ring(rows: RunPlan.stripRows + above - below + slack, rowBytes: width * layout.inputs[0].bytesPerPixel)
    let output = try Ring(rows: RunPlan.stripRows + slack, rowBytes: width * layout.output.bytesPerPixel)
    let state = StreamState(height: height)
    let ringRows = kernel.intermediates.indices.map { RunPlan.ringRows(plan.run.rowSpan[passWriting(inputCountOffset: $0)]) }
    // Every tile computes each strip before the next strip starts: each has rings of its own.
    let tiles = tiles(columns: width, ringRows: ringRows, cacheBytes: Self.streamTileCacheBytes)
    let (rings, tileDescriptors) = try Self.tileRings(
      tiles, ringRows, input: input, others: otherInputs.map(Self.descriptor), output: output, width: width, height: height)
    defer { rings.forEach(BufferPool.shared.release) }

    // Rows up to `end` into and out of the rings: inline, or on the decoder's and encoder's threads.
    let decode = { (end: Int) throws in
      try input.segments(from: state.decoded, to: end) { row, y, count in
        try read(row, input.rowBytes, count)
        state.advanceDecoded(to: y + count)
      }
    }
    let encode = { (end: Int) throws in
      try output.segments(from: state.encoded, to: end) { row, y, count in
        try write(row, output.rowBytes, count)
        state.advanceEncoded(to: y + count)
      }
    }
    let threaded = threads > 1
    if threaded {
      state.startDecoder(ringRows: input.rows, chunk: 16, decode: decode)
      state.startEncoder(encode: encode)
    }
    defer { state.stopAndJoin() }

    let values = uniforms.isEmpty ? [0] : uniforms
    var done = Array(repeating: 0, count: kernel.loopNests.count)
    var strip = -2 * (lookahead.max() ?? 0)
    try values.withUnsafeBufferPointer { u in
      while strip < height {
        let end = Swift.min(height, strip + RunPlan.stripRows)
        let needed = Swift.max(0, Swift.min(height, end + above))
        if threaded {
          try state.waitForInput(needed)
          try state.waitForOutputSpace(end - output.rows)
        } else {
          try decode(needed)
        }
        computeStrip(end: end, lookahead: lookahead, done: &done, tiles: tiles, descriptors: tileDescriptors, width: width, height: height, u)
        let produced = Swift.max(0, end)
        if threaded {
          state.publish(produced: produced, released: Swift.max(0, end + below))
        } else {
          try encode(produced)
        }
        strip = end
      }
    }
    if threaded { try state.waitForEncoder() }
    withExtendedLifetime((input, output, otherInputs)) {}
  }

  /// The rings of a streamed run's intermediates, one per tile in each
  /// block, and each tile's buffers: input 0's ring, its rings (planar,
  /// ``ColumnTiles/span(_:)`` columns of `ringRows` rows), the output's ring.
  private static func tileRings(
    _ tiles: ColumnTiles, _ ringRows: [Int], input: Ring, others: [BufferDescriptor], output: Ring, width: Int, height: Int
  ) throws -> ([BufferPool.Block], [[BufferDescriptor]]) {
    let layouts = ringRows.indices.map { BufferDescriptor.planar(width: tiles.span($0)) }
    let tileBytes = zip(ringRows, layouts).map { $0 * $1.rowBytes }
    let rings = try tileBytes.map { try BufferPool.shared.allocate(byteCount: $0 * tiles.starts.count) }
    let descriptors = tiles.starts.indices.map { t in
      var descriptors = [input.descriptor(width: width, height: height)] + others
      for (k, ring) in rings.enumerated() {
        descriptors.append(
          BufferDescriptor(
            data: tiles.data(ring.pointer + t * tileBytes[k], ring: k, tile: t), rowBytes: Int64(layouts[k].rowBytes),
            width: Int32(width), height: Int32(height), rowMask: Int32(ringRows[k] - 1), planeStride: Int32(layouts[k].planeStride)))
      }
      return descriptors + [output.descriptor(width: width, height: height)]
    }
    return (rings, descriptors)
  }

  /// Input rows a strip `[s, e)` reads: `s + below ..< e + above`, from each
  /// loop nest's lookahead and its reach into input 0.
  private func inputRows(_ lookahead: [Int]) -> (below: Int, above: Int) {
    var below = Int.max, above = Int.min
    for (i, r) in inputReach.enumerated() {
      guard case .some(.some(let r)) = r else { continue }
      below = Swift.min(below, lookahead[i] - r)
      above = Swift.max(above, lookahead[i] + r)
    }
    return below == Int.max ? (0, 0) : (below, above)
  }

  /// Computes every loop nest up to its row for the strip ending at `end`.
  /// Every tile computes the strip's rows of every loop nest, in rings of its
  /// own, before the next strip starts.
  private func computeStrip(
    end: Int, lookahead: [Int], done: inout [Int], tiles: ColumnTiles, descriptors: [[BufferDescriptor]], width: Int, height: Int,
    _ u: UnsafeBufferPointer<Float>
  ) {
    let passes = self.loopNests, columnLookahead = plan.run.columnLookahead
    let targets = passes.indices.map { i in i == passes.count - 1 ? end : Swift.min(height, end + lookahead[i]) }
    for (t, tx) in tiles.starts.enumerated() {
      let tileEnd = t == tiles.starts.count - 1 ? width : tx + tiles.width
      descriptors[t].withUnsafeBytes { d in
        for (i, pass) in passes.enumerated() where targets[i] > done[i] {
          let halo = columnLookahead?[i] ?? 0
          let x0 = Swift.max(0, tx - halo), x1 = Swift.min(width, tileEnd + halo)
          pass(d.baseAddress!, u.baseAddress!, Int32(width), Int32(height), Int32(done[i]), Int32(targets[i]), Int32(x0), Int32(x1))
        }
      }
    }
    for i in passes.indices { done[i] = Swift.max(done[i], targets[i]) }
  }
}

/// A ring of rows from ``BufferPool``: row `y` at slot `y mod rows`, `rows` a power of two.
final class Ring {
  let rows: Int
  let rowBytes: Int
  private let block: BufferPool.Block

  init(rows atLeast: Int, rowBytes: Int) throws {
    var rows = 1
    while rows < atLeast { rows *= 2 }
    self.rows = rows
    self.rowBytes = rowBytes
    block = try BufferPool.shared.allocate(byteCount: rows * rowBytes)
  }

  deinit { BufferPool.shared.release(block) }

  func row(_ y: Int) -> UnsafeMutableRawPointer { block.pointer + (y & (rows - 1)) * rowBytes }
  /// Calls `body(pointer, y, count)` for rows `first..<end` in pieces that
  /// are contiguous in the ring's memory (a piece ends where the ring wraps).
  func segments(from first: Int, to end: Int, _ body: (UnsafeMutableRawPointer, Int, Int) throws -> Void) rethrows {
    var y = first
    while y < end {
      let count = Swift.min(end - y, rows - (y & (rows - 1)))
      try body(row(y), y, count)
      y += count
    }
  }

  func descriptor(width: Int, height: Int) -> BufferDescriptor {
    BufferDescriptor(
      data: block.pointer, rowBytes: Int64(rowBytes), width: Int32(width), height: Int32(height), rowMask: Int32(rows - 1))
  }
}

/// The counters a streamed run shares between its decoder, kernel and
/// encoder threads, under one lock: rows decoded, rows the kernel no longer
/// reads (the decoder may overwrite them), rows produced and rows encoded.
final class StreamState: @unchecked Sendable {
  let height: Int
  private let condition = NSCondition()
  private(set) var decoded = 0
  private(set) var encoded = 0
  private var released = 0
  private var produced = 0
  private var error: Error?
  private var stopping = false
  private var threads: [DispatchSemaphore] = []

  init(height: Int) { self.height = height }

  private func locked<T>(_ body: () throws -> T) rethrows -> T {
    condition.lock()
    defer {
      condition.broadcast()
      condition.unlock()
    }
    return try body()
  }

  /// Waits until `ready` holds or an error or stop is recorded; throws the error.
  private func wait(until ready: () -> Bool) throws {
    condition.lock()
    defer { condition.unlock() }
    while !ready() && error == nil && !stopping { condition.wait() }
    if let error { throw error }
  }

  func advanceDecoded(to row: Int) { locked { decoded = row } }
  func advanceEncoded(to row: Int) { locked { encoded = row } }
  func publish(produced: Int, released: Int) {
    locked {
      self.produced = produced
      self.released = Swift.max(self.released, released)
    }
  }

  func waitForInput(_ row: Int) throws { try wait { decoded >= row } }
  func waitForOutputSpace(_ row: Int) throws { try wait { encoded >= row } }
  func waitForEncoder() throws { try wait { encoded == height } }

  private func fail(_ e: Error) { locked { if error == nil { error = e } } }

  /// A thread's work, dropped before the thread says it has finished: after
  /// ``stopAndJoin()`` nothing the run's closures capture is still held
  /// (the Thread object itself may outlive it a moment).
  private final class Work: @unchecked Sendable {
    var body: (() -> Void)?
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  private func spawn(_ body: @escaping () -> Void) {
    let finished = DispatchSemaphore(value: 0)
    threads.append(finished)
    let work = Work(body)
    let thread = Thread {
      work.body?()
      work.body = nil
      finished.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// Decodes `chunk` rows at a time, never into a slot of a row the kernel may still read.
  func startDecoder(ringRows: Int, chunk: Int, decode: @escaping (Int) throws -> Void) {
    spawn { [self] in
      do {
        while decoded < height {
          let next = Swift.min(height, decoded + chunk)
          try wait { next - released <= ringRows }
          if locked({ stopping }) { return }
          try decode(next)
        }
      } catch { fail(error) }
    }
  }

  /// Encodes rows as the kernel produces them.
  func startEncoder(encode: @escaping (Int) throws -> Void) {
    spawn { [self] in
      do {
        while encoded < height {
          try wait { produced > encoded }
          if locked({ stopping }) { return }
          try encode(locked { produced })
        }
      } catch { fail(error) }
    }
  }

  /// Stops the threads (they finish the call they are in) and waits for them.
  func stopAndJoin() {
    locked { stopping = true }
    for t in threads { t.wait() }
  }
}
