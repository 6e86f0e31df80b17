import Dispatch
import FXCodegen
import FXIR
import FXImage
import FXLLVM
import FXPasses
import Foundation
import Synchronization

/// A kernel compiled to native code for one ``KernelLayout``, ready to run on
/// any image size. Safe to run from several threads at once (each run has its
/// own intermediates).
public final class CompiledKernel: @unchecked Sendable {
  public typealias LoopNestFunction = NativeCode.LoopNestFunction

  public let kernel: Kernel
  public let layout: KernelLayout
  public var target: Target { plan.target }
  /// Pixels the code computes at a time: the target's vector lanes, or the
  /// most of any loop nest for a grid plan (``KernelSchedule/grid``, a
  /// thread per vector of ``KernelPlan/gridLanes`` or 1 pixels, run here in
  /// a loop over the vectors).
  public var lanes: Int { plan.lanes }
  /// Time spent emitting, optimising and generating machine code (or linking
  /// a cached object), in milliseconds.
  public let compileMilliseconds: Double
  /// The machine code, from the code generator.
  private let code: NativeCode
  var loopNests: [LoopNestFunction] { code.loopNests }
  /// The loop plan the code follows (``KernelPlan``): per loop nest and at run time.
  public let plan: KernelPlan
  /// Each loop nest's reach into input 0's rows (``stream(width:height:uniforms:threads:read:write:)``).
  let inputRowReach: [Int??]

  /// Milliseconds spent in each phase of the compile (``NativeCode/phaseMilliseconds``:
  /// "emit", "optimise" and "codegen" summed over the loop nests, compiled in parallel; "link").
  public var phaseMilliseconds: [String: Double] { code.phaseMilliseconds }

  /// The machine code as ELF objects (``NativeCode/object``), when compiled with `keepObject` or loaded from them (for the disk cache).
  var object: [UInt8]? { code.object }

  /// Plans `kernel` for `target` and has the code generator compile it
  /// (``NativeCode``); with `keepObject`, code generation goes through an ELF
  /// object that is kept for the disk cache (one code generation either way).
  /// With `object`, links that machine code instead (a disk-cache hit): no LLVM
  /// optimisation or code generation.
  /// - Throws: ``LLVMError`` if LLVM rejects the module (a compiler bug; the
  ///   interpreter remains available as a fallback), this machine cannot
  ///   run `target`'s code, or `kernel` was lowered for another alpha storage
  ///   than `layout`'s (``KernelLayout/matching(_:)``).
  /// `schedule`: the plan's (``KernelPlan/init(_:target:interleavedFloat:floatMode:schedule:)``);
  /// ``KernelSchedule/grid`` on a CPU runs the code a GPU runs for each
  /// pixel, in a loop over the pixels (how tests check it without a GPU).
  public init(
    _ kernel: Kernel, layout: KernelLayout, target: Target = .host, keepObject: Bool = false, object: [UInt8]? = nil,
    schedule: KernelSchedule? = nil
  ) throws {
    guard layout.inputs.count == kernel.inputCount else {
      throw LLVMError("the kernel reads \(kernel.inputCount) inputs, the layout names \(layout.inputs.count)")
    }
    if let mismatch = layout.alphaMismatch(kernel) { throw LLVMError(mismatch) }
    let start = DispatchTime.now().uptimeNanoseconds
    let plan = layout.plan(kernel, target: target, schedule: schedule)
    if let object {
      code = try NativeCode(object: object, passCount: kernel.loopNests.count, target: target)
    } else {
      code = try NativeCode(kernel, plan: plan, layout: layout, keepObject: keepObject)
    }
    compileMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    inputRowReach = Self.inputRowReach(kernel)
    self.plan = plan
    self.kernel = kernel
    self.layout = layout
  }

  /// Runs every loop nest on `threads` threads: with line buffers, rows split into
  /// one contiguous band per thread; otherwise into strips of 16 rows that the
  /// threads take one at a time.
  ///
  /// Schedule: when every intermediate is read only at rows `y + k` with
  /// constant `k` (blur taps, color reads), each band streams through its rows
  /// in strips of ``RunPlan/stripRows``, computing each loop nest just far enough ahead of
  /// its consumers into a small per-thread ring of rows — a line buffer (Halide's
  /// sliding window) — so intermediates stay in cache and no whole-image buffer
  /// is streamed through memory. Otherwise intermediates (if any) are whole
  /// images. Both give identical pixels for any thread count.
  /// - Parameters:
  ///   - inputs: the graph's inputs in the compiled formats; input 0 sets the output size.
  ///   - output: a buffer of input 0's size in the compiled output format.
  ///   - uniforms: one value per uniform of the graph, in order.
  /// - Throws: ``LLVMError`` describing a format, size or count mismatch; nothing is written then.
  public func run(inputs: [ImageBuffer], output: ImageBuffer, uniforms: [Float] = [], threads: Int = 1) throws {
    try checkArguments(inputs: inputs, output: output, uniforms: uniforms)
    let lanes = self.lanes
    guard output.width >= lanes else {
      // The loop nest functions work in whole vectors of `lanes` columns (a row
      // range narrower than that computes nothing). A narrower image runs on
      // copies of input 0 and the output padded to `lanes` columns: the
      // kernel still sees the true width (every clamp and address mode uses
      // it), the extra columns only hold lanes whose results are dropped.
      let paddedInput = try ImageBuffer(width: lanes, height: output.height, format: inputs[0].format)
      let paddedOutput = try ImageBuffer(width: lanes, height: output.height, format: output.format)
      Self.copyColumns(of: inputs[0], to: paddedInput)
      try execute(inputs: [paddedInput] + inputs.dropFirst(), output: paddedOutput, width: output.width, uniforms: uniforms, threads: threads)
      Self.copyColumns(of: paddedOutput, to: output)
      withExtendedLifetime(inputs) {}
      return
    }
    try execute(inputs: inputs, output: output, width: output.width, uniforms: uniforms, threads: threads)
  }

  /// Copies the first `min(a.width, b.width)` columns of every row of `a` into `b` (same format and height).
  static func copyColumns(of a: ImageBuffer, to b: ImageBuffer) {
    let bytes = Swift.min(a.width, b.width) * a.format.bytesPerPixel
    for y in 0..<a.height { (b.data + y * b.rowBytes).copyMemory(from: a.data + y * a.rowBytes, byteCount: bytes) }
  }

  /// Runs the loop nests over `width` columns of images whose buffers are at
  /// least one vector wide: every loop nest call gets a column range of at least
  /// `lanes` columns (`columns` = the buffers' width).
  private func execute(inputs: [ImageBuffer], output: ImageBuffer, width: Int, uniforms: [Float], threads: Int) throws {
    let height = output.height, columns = output.width
    var fixed = (inputs + [output]).map(Self.descriptor)
    for i in [0, fixed.count - 1] { fixed[i].width = Int32(width) }
    let values = uniforms.isEmpty ? [0] : uniforms
    let bands = Swift.max(1, Swift.min(threads, (height + RunPlan.stripRows - 1) / RunPlan.stripRows))
    if let lookahead = plan.run.lookahead {
      // Line buffers: each band owns a ring of rows per intermediate, holding one column tile at a time.
      let ringRows = kernel.intermediates.indices.map { RunPlan.ringRows(plan.run.rowSpan[passWriting(inputCountOffset: $0)]) }
      let columnLookahead = plan.run.columnLookahead
      let tiles = tiles(columns: columns, ringRows: ringRows)
      var layouts = ringRows.indices.map { BufferDescriptor.planar(width: tiles.span($0)) }
      let (bandRings, release) = try allocateRings(bands: bands, ringRows: ringRows, layouts: &layouts)
      defer { release() }
      let perBand = { (band: Int) in
        let y0 = band * height / bands, y1 = (band + 1) * height / bands
        // Column tiles keep the rows a loop nest reads in cache (Halide's tile
        // schedule); each tile slides down the band on its own, in the same rings.
        for (t, tx) in tiles.starts.enumerated() {
          var descriptors = Array(fixed.dropLast())
          for (k, r) in bandRings[band].enumerated() {
            descriptors.append(
              BufferDescriptor(
                data: tiles.data(r, ring: k, tile: t), rowBytes: Int64(layouts[k].rowBytes), width: Int32(width),
                height: Int32(height), rowMask: Int32(ringRows[k] - 1), planeStride: Int32(layouts[k].planeStride)))
          }
          descriptors.append(fixed.last!)
          let tileEnd = t == tiles.starts.count - 1 ? columns : tx + tiles.width
          var done = lookahead.map { Swift.max(0, y0 - $0) }
          done[done.count - 1] = y0
          // Start 2·lookahead rows early, so that from the first strip on
          // every call computes at most a strip of rows: a ring then only
          // needs its consumers' span (Plan.rowSpan), not 2·lookahead.
          var strip = y0 - 2 * (lookahead.max() ?? 0)
          descriptors.withUnsafeBytes { d in
            values.withUnsafeBufferPointer { u in
              while strip < y1 {
                let end = Swift.min(y1, strip + RunPlan.stripRows)
                for (i, pass) in self.loopNests.enumerated() {
                  let target = i == self.loopNests.count - 1 ? end : Swift.min(height, end + lookahead[i])
                  guard target > done[i] else { continue }
                  let halo = columnLookahead?[i] ?? 0
                  let x0 = Swift.max(0, tx - halo), x1 = Swift.min(columns, tileEnd + halo)
                  pass(d.baseAddress!, u.baseAddress!, Int32(width), Int32(height), Int32(done[i]), Int32(target), Int32(x0), Int32(x1))
                  done[i] = target
                }
                strip = end
              }
            }
          }
        }
      }
      if bands == 1 { perBand(0) } else { DispatchQueue.concurrentPerform(iterations: bands, execute: perBand) }
    } else {
      try executeWholeImage(fixed: fixed, width: width, height: height, columns: columns, values: values, bands: bands)
    }
    withExtendedLifetime((inputs, output)) {}
  }

  /// Every band's rings of intermediate rows, allocated before any runs (an
  /// allocation may throw), and what gives them back. With
  /// ``guardedRings`` the rows end at guard pages, and `layouts` get their stride.
  private func allocateRings(
    bands: Int, ringRows: [Int], layouts: inout [(planeStride: Int, rowBytes: Int)]
  ) throws -> ([[UnsafeMutableRawPointer]], () -> Void) {
    if Self.guardedRings {
      let guarded = try (0..<bands).map { _ in try zip(ringRows, layouts).map { try GuardedRows(rows: $0, rowBytes: $1.rowBytes) } }
      for k in layouts.indices { layouts[k].rowBytes = guarded[0][k].rowStride }
      return (guarded.map { $0.map(\.data) }, { withExtendedLifetime(guarded) {} })
    }
    let blocks = try (0..<bands).map { _ in try zip(ringRows, layouts).map { try BufferPool.shared.allocate(byteCount: $0 * $1.rowBytes) } }
    return (blocks.map { $0.map(\.pointer) }, { for rings in blocks { rings.forEach(BufferPool.shared.release) } })
  }

  /// Whole-image intermediates (or none), each loop nest over every strip of rows before the next.
  private func executeWholeImage(fixed: [BufferDescriptor], width: Int, height: Int, columns: Int, values: [Float], bands: Int) throws {
    let (planeStride, intermediateBytes) = BufferDescriptor.planar(width: columns)
    let buffers = try kernel.intermediates.map { _ in try BufferPool.shared.allocate(byteCount: intermediateBytes * height) }
    defer { buffers.forEach(BufferPool.shared.release) }
    var descriptors = Array(fixed.dropLast())
    for b in buffers {
      descriptors.append(
        BufferDescriptor(
          data: b.pointer, rowBytes: Int64(intermediateBytes), width: Int32(width), height: Int32(height), planeStride: Int32(planeStride)))
    }
    descriptors.append(fixed.last!)
    let strips = Self.strips(height: height, threads: bands)
    descriptors.withUnsafeBytes { d in
      values.withUnsafeBufferPointer { u in
        for pass in loopNests {
          let run = { (strip: Range<Int>) in
            pass(d.baseAddress!, u.baseAddress!, Int32(width), Int32(height), Int32(strip.lowerBound), Int32(strip.upperBound), 0, Int32(columns))
          }
          if bands == 1 {
            run(0..<height)
          } else {
            // Strips handed out one at a time (Halide's `parallel` over
            // strips): a thread that starts late, or runs slower, takes fewer.
            let next = Atomic(0)
            DispatchQueue.concurrentPerform(iterations: bands) { _ in
              while case let k = next.add(1, ordering: .relaxed).oldValue, k < strips.count { run(strips[k]) }
            }
          }
        }
      }
    }
  }

  /// Rows per strip of a multi-threaded whole-image run.
  package static let parallelStripRows = 16

  /// The row ranges a whole-image run of `height` rows on `threads` threads
  /// hands out: strips of ``parallelStripRows`` rows, or fewer and taller
  /// ones so that there are at most 16 per thread.
  package static func strips(height: Int, threads: Int) -> [Range<Int>] {
    let rows = Swift.max(parallelStripRows, (height + 16 * threads - 1) / (16 * threads))
    return stride(from: 0, to: height, by: rows).map { $0..<Swift.min(height, $0 + rows) }
  }

  /// Column tiles of a row `columns` wide: as wide as keeps every ring's
  /// rows of the tile within ``tileCacheBytes``, a multiple of the vector
  /// width; the whole row when columns are read at data-dependent offsets
  /// that no proved bound limits.
  /// A last tile narrower than a vector joins the one before.
  func tiles(columns: Int, ringRows: [Int], cacheBytes: Int = CompiledKernel.tileCacheBytes) -> ColumnTiles {
    let rowsInFlight = ringRows.reduce(0, +)
    var tileWidth = columns
    if plan.run.columnLookahead != nil && rowsInFlight > 0 {
      let fit = cacheBytes / (PixelFormat.rgba32f.bytesPerPixel * rowsInFlight)
      let lanes = self.lanes
      tileWidth = Swift.min(columns, Swift.max(4 * lanes, fit / lanes * lanes))
    }
    var starts = Array(stride(from: 0, to: columns, by: tileWidth))
    if starts.count > 1, columns - starts.last! < lanes { starts.removeLast() }
    guard starts.count > 1, let halos = plan.run.columnLookahead else {
      return ColumnTiles(starts: starts, width: tileWidth, widest: columns, margins: kernel.intermediates.map { _ in 0 })
    }
    // A ring row holds the widest tile, the halo its loop nest computes on either
    // side, and a vector of margin beyond it.
    let margins = kernel.intermediates.indices.map { halos[passWriting(inputCountOffset: $0)] + lanes }
    return ColumnTiles(starts: starts, width: tileWidth, widest: Swift.max(tileWidth, columns - starts.last!), margins: margins)
  }

  /// How intermediates are held at run time, for `fxc dump`.
  public var runtimeSchedule: String { plan.runDescription(tileCacheBytes: Self.tileCacheBytes) }

  /// The most bytes of intermediate rows a tile keeps in flight (its rings);
  /// a wider image is cut into column tiles. Changing it changes speed, never
  /// pixels (tests make it tiny to exercise many tiles).
  ///
  /// Half this CPU's L2 cache (``hostL2Bytes``; 512 KiB where the system does
  /// not say), within 256 KiB…2 MiB: the rings stay in L2 beside the rows
  /// streaming in and out. A loop nest with vertical taps walks down columns
  /// (``KernelEmitter``), so its window of rows stays in L1 whatever the tile
  /// width, while each column tile recomputes only its planar copy's halo.
  /// On the 5640 px wide photo, Zen 4 (1 MiB L2), 1 thread: σ 10 80 Mpix/s
  /// with 2 MiB, 88–95 with 192 KiB…1 MiB; σ 3 + grade 145–159 against
  /// 160–167; unsharp 313–323 against 309–341 (Benchmarks/README.md).
  public nonisolated(unsafe) static var tileCacheBytes: Int = Swift.min(2 << 20, Swift.max(256 << 10, (hostL2Bytes ?? 1 << 20) / 2))

  /// This CPU's L2 cache per core in bytes, as the C library reports it
  /// (`sysconf(_SC_LEVEL2_CACHE_SIZE)`); nil where it reports none.
  public static let hostL2Bytes: Int? = {
    let bytes = sysconf(Int32(_SC_LEVEL2_CACHE_SIZE))
    return bytes > 0 ? bytes : nil
  }()

  /// Test hook: line-buffered runs put every ring row just before an
  /// inaccessible page (``GuardedRows``), so a kernel that reads far past a
  /// tile's columns faults instead of reading another row's bytes.
  package nonisolated(unsafe) static var guardedRings = false

  /// The loop nest that writes intermediate number `i` (buffer `inputCount + i`).
  func passWriting(inputCountOffset i: Int) -> Int {
    kernel.loopNests.firstIndex { $0.output == kernel.inputCount + i }!
  }

  static func descriptor(_ b: ImageBuffer) -> BufferDescriptor {
    BufferDescriptor(data: b.data, rowBytes: Int64(b.rowBytes), width: Int32(b.width), height: Int32(b.height))
  }

}

/// The column tiles of a line-buffered run, and where a tile's columns sit
/// in the rings of intermediate rows.
///
/// With one tile a ring row is the image's row. With several, it holds
/// only the columns a tile computes — its width and its producer's halo on
/// either side — so that a loop nest walking down a column of many rows (a
/// vertical blur of large σ) steps through rows a tile's width apart, not
/// an image's: at σ 100 on a 2000 px wide image its 600 rows spread over
/// 20 MB otherwise, and the taps missed the cache (Benchmarks/README.md).
/// The kernel still addresses rings by image column: a tile's descriptor
/// points `margins[k] − starts[t]` columns into ring `k`'s row.
struct ColumnTiles {
  /// The first image column of each tile.
  let starts: [Int]
  /// Columns per tile (the last tile runs to the row's end).
  let width: Int
  /// Columns of the widest tile.
  let widest: Int
  /// For each intermediate, the columns its ring row holds on either side
  /// of a tile (0 for whole rows).
  let margins: [Int]

  /// Columns a row of intermediate `k`'s ring holds.
  func span(_ k: Int) -> Int { widest + 2 * margins[k] }

  /// The descriptor pointer of tile `t`'s ring of intermediate `k` at
  /// `base`: image column x of a row lies at column `x − starts[t] +
  /// margins[k]` of the ring's row.
  func data(_ base: UnsafeMutableRawPointer, ring k: Int, tile t: Int) -> UnsafeMutableRawPointer {
    base + 4 * (margins[k] - starts[t])
  }
}

/// Rows of a ring, each ending just before a page that may not be touched
/// (``CompiledKernel/guardedRings``, for tests): row `r` starts at
/// `data + r·rowStride` and its `rowBytes` end where its guard page begins.
final class GuardedRows {
  let data: UnsafeMutableRawPointer
  let rowStride: Int
  private let mapping: UnsafeMutableRawPointer, bytes: Int

  init(rows: Int, rowBytes: Int) throws {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    rowStride = (rowBytes + page - 1) / page * page + page
    bytes = page + rows * rowStride
    guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
      throw LLVMError("could not map \(bytes) bytes of guarded rows")
    }
    mapping = p
    mprotect(p, page, PROT_NONE)
    for r in 0..<rows { mprotect(p + page + r * rowStride + rowStride - page, page, PROT_NONE) }
    data = p + page + (rowStride - page - rowBytes)
  }

  deinit { munmap(mapping, bytes) }
}
