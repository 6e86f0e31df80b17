import FXIR
import FXImage
import Foundation

/// Runs reductions (docs/design.md §4, "Reductions") on premultiplied
/// rgba32f rows: one pass counts the histograms (``Histograms``), one maps
/// the pixels (``map(_:width:maps:)``), with the interpreter's arithmetic.
/// The passes are apart so that a streamed run can count the rows as they
/// go by and map them on a second reading of its input (``twoPassBytes``)
/// instead of holding the image.
public enum ReductionExecutor {
  /// A streamed run whose rows at a reduction would take
  /// more than this many bytes (rgba32f) reads its input twice rather than
  /// hold them: once to count, once to map. The default, 512 MiB (33.5 MP),
  /// holds a camera's photo (the 17.9 MP progressive JPEG, autoLevels |
  /// sepia, 1 thread: 1.32 s and 466 MiB held, 1.67 s and 184 MiB read
  /// twice) and reads a panorama or a scan twice (a 400 MP photo held whole
  /// would take 6.4 GB). 0: always twice where the input can be read again.
  public nonisolated(unsafe) static var twoPassBytes = 512 << 20

  /// The three colour channels' histograms of premultiplied rgba32f rows,
  /// each sample unpremultiplied and binned as ``Reduction/bin(_:)`` says
  /// (a transparent pixel counts in bin 0).
  public struct Histograms {
    var counts = [Int](repeating: 0, count: 3 * 256)

    public init() {}

    /// Counts `width` pixels at `row`.
    public mutating func count(_ row: UnsafePointer<SIMD4<Float>>, width: Int) {
      counts.withUnsafeMutableBufferPointer { counts in
        for x in 0..<width {
          let p = row[x]
          if p.w == 1 {  // x / 1 is x: the same bins without the divisions
            counts[Reduction.bin(p.x)] += 1
            counts[256 + Reduction.bin(p.y)] += 1
            counts[512 + Reduction.bin(p.z)] += 1
          } else if p.w > 0 {
            counts[Reduction.bin(p.x / p.w)] += 1
            counts[256 + Reduction.bin(p.y / p.w)] += 1
            counts[512 + Reduction.bin(p.z / p.w)] += 1
          } else {
            counts[0] += 1
            counts[256] += 1
            counts[512] += 1
          }
        }
      }
    }

    /// Each channel's map under `reduction` (levels or equalize); nil keeps the channel.
    public func maps(_ reduction: Reduction) -> [Reduction.ChannelMap?] {
      (0..<3).map { c in reduction.map(histogram: Array(counts[256 * c..<256 * (c + 1)])) }
    }
  }

  /// Maps `width` premultiplied pixels at `row` in place through `maps` (one a channel; nil keeps it).
  public static func map(_ row: UnsafeMutablePointer<SIMD4<Float>>, width: Int, maps: [Reduction.ChannelMap?]) {
    let active = maps.map { $0 != nil }
    func mapped(_ c: Int, _ v: Float) -> Float { maps[c]!.apply(v) }
    for x in 0..<width {
      var p = row[x]
      guard p.w > 0 else { continue }
      if p.w == 1 {  // an opaque pixel: v = c and v·1 = v, the same bits
        if active[0] { p.x = mapped(0, p.x) }
        if active[1] { p.y = mapped(1, p.y) }
        if active[2] { p.z = mapped(2, p.z) }
        row[x] = p
        continue
      }
      if active[0] { p.x = mapped(0, p.x / p.w) * p.w }
      if active[1] { p.y = mapped(1, p.y / p.w) * p.w }
      if active[2] { p.z = mapped(2, p.z / p.w) * p.w }
      row[x] = p
    }
  }

  /// `reduction` applied to `image` (rgba32f, premultiplied) in place; returns `image`.
  /// `threads`: CLAHE equalises its three channels on up to three threads (the same bits).
  @discardableResult
  public static func apply(_ reduction: Reduction, inPlace image: ImageBuffer, threads: Int = 1) -> ImageBuffer {
    precondition(image.format == .rgba32f, "reductions run on premultiplied rgba32f images")
    let rows = { (y: Int) in (image.data + y * image.rowBytes).assumingMemoryBound(to: SIMD4<Float>.self) }
    if case .clahe(let clahe) = reduction { return apply(clahe, inPlace: image, rows: rows, threads: threads) }
    var histograms = Histograms()
    for y in 0..<image.height { histograms.count(rows(y), width: image.width) }
    let maps = histograms.maps(reduction)
    guard maps.contains(where: { $0 != nil }) else { return image }
    for y in 0..<image.height { map(rows(y), width: image.width, maps: maps) }
    return image
  }

  /// Whether a streamed run reads its input twice for a reduction over rows
  /// of `width × height` (``twoPassBytes``); every kind of reduction can.
  public static func readsTwice(width: Int, height: Int) -> Bool {
    width * height * 16 > twoPassBytes
  }

  /// What the first reading of a two-pass reduction decides: each channel's
  /// map (levels, equalize), or every tile's tables of each channel (CLAHE).
  public enum Decided {
    case maps([Reduction.ChannelMap?])
    case clahe(Clahe.Layout, [[Float]])
  }

  /// CLAHE (``Clahe``) in place: each channel's unpremultiplied samples
  /// gathered, equalised by ``Clahe/apply(_:width:height:)`` — the
  /// interpreter's definition, the same bits — and premultiplied again.
  static func apply(
    _ clahe: Clahe, inPlace image: ImageBuffer, rows: (Int) -> UnsafeMutablePointer<SIMD4<Float>>, threads: Int
  ) -> ImageBuffer {
    let (w, h) = (image.width, image.height)
    var r = [Float](repeating: 0, count: w * h), g = r, b = r
    r.withUnsafeMutableBufferPointer { r in
      g.withUnsafeMutableBufferPointer { g in
        b.withUnsafeMutableBufferPointer { b in
          for y in 0..<h {
            let row = rows(y)
            for x in 0..<w {
              let p = row[x], i = y * w + x
              let s = p.w == 1 ? p : p.w > 0 ? p / p.w : .zero  // x / 1 is x: the same bits without the divisions
              (r[i], g[i], b[i]) = (s.x, s.y, s.z)
            }
          }
        }
      }
    }
    // The channels are independent: one a thread, each in an array of its own.
    let channels = UnsafeMutablePointer<[Float]>.allocate(capacity: 3)
    channels.initialize(from: [r, g, b], count: 3)
    (r, g, b) = ([], [], [])
    if threads > 1 {
      DispatchQueue.concurrentPerform(iterations: 3) { c in clahe.apply(&channels[c], width: w, height: h) }
    } else {
      for c in 0..<3 { clahe.apply(&channels[c], width: w, height: h) }
    }
    (r, g, b) = (channels[0], channels[1], channels[2])
    channels.deinitialize(count: 3)
    channels.deallocate()
    for y in 0..<h {
      let row = rows(y)
      for x in 0..<w where row[x].w > 0 {
        let i = y * w + x, a = row[x].w
        row[x] = a == 1 ? SIMD4(r[i], g[i], b[i], 1) : SIMD4(r[i] * a, g[i] * a, b[i] * a, a)
      }
    }
    return image
  }
}

extension RowSource {
  /// Reads every row left of this source (rgba32f), counting it for
  /// `reduction`, then finishes it: the first reading of a two-pass reduction.
  /// - Throws: what reading or finishing the source throws.
  public func decide(_ reduction: Reduction) throws -> ReductionExecutor.Decided {
    precondition(format == .rgba32f, "reductions count premultiplied rgba32f rows")
    var histograms = ReductionExecutor.Histograms()
    var clahe: (Clahe, Clahe.Layout)?
    var counts: [[Int]] = [], bins: [[UInt8]] = []
    if case .clahe(let c) = reduction {
      clahe = (c, Clahe.Layout(c, width: width, height: height))
      counts = Array(repeating: Array(repeating: 0, count: 256 * c.tilesX * c.tilesY), count: 3)
      bins = Array(repeating: Array(repeating: 0, count: width), count: 3)
    }
    let band = Swift.max(1, Swift.min(height, 64))
    let scratch = try BufferPool.shared.allocate(byteCount: band * rowBytes)
    defer { BufferPool.shared.release(scratch) }
    while delivered < height {
      let (first, count) = (delivered, Swift.min(band, height - delivered))
      try read(into: scratch.pointer, rowBytes: rowBytes, count: count)
      for k in 0..<count {
        let row = (scratch.pointer + k * rowBytes).assumingMemoryBound(to: SIMD4<Float>.self)
        guard let (_, layout) = clahe else {
          histograms.count(row, width: width)
          continue
        }
        ReductionExecutor.bins(row, width: width, into: &bins)
        for c in 0..<3 { bins[c].withUnsafeBufferPointer { layout.count($0.baseAddress!, row: first + k, into: &counts[c]) } }
      }
    }
    try finish()
    if let (c, layout) = clahe { return .clahe(layout, counts.map { c.tables($0, layout: layout) }) }
    return .maps(histograms.maps(reduction))
  }

  /// This source's rows (rgba32f) mapped as `decided` says as they pass: the
  /// second reading of a two-pass reduction.
  public func mapped(_ decided: ReductionExecutor.Decided) -> RowSource { MappedRowSource(self, decided) }
}

extension ReductionExecutor {
  /// The bins (``Reduction/bin(_:)``) of `width` premultiplied pixels'
  /// unpremultiplied colour, one array a channel (a transparent pixel's: 0).
  static func bins(_ row: UnsafePointer<SIMD4<Float>>, width: Int, into bins: inout [[UInt8]]) {
    for x in 0..<width {
      let p = row[x]
      let s = p.w == 1 ? p : p.w > 0 ? p / p.w : .zero  // x / 1 is x: the same bits without the divisions
      bins[0][x] = UInt8(Reduction.bin(s.x))
      bins[1][x] = UInt8(Reduction.bin(s.y))
      bins[2][x] = UInt8(Reduction.bin(s.z))
    }
  }
}

/// The upstream's rows mapped through what a reduction's first reading decided.
final class MappedRowSource: RowSource {
  let upstream: RowSource
  let decided: ReductionExecutor.Decided
  private var bins: [[UInt8]] = []
  private var levels: [[Float]] = []

  init(_ upstream: RowSource, _ decided: ReductionExecutor.Decided) {
    precondition(upstream.format == .rgba32f, "reductions map premultiplied rgba32f rows")
    self.upstream = upstream
    self.decided = decided
    super.init(width: upstream.width, height: upstream.height, format: .rgba32f)
    if case .clahe = decided {
      bins = Array(repeating: Array(repeating: 0, count: width), count: 3)
      levels = Array(repeating: Array(repeating: 0, count: width), count: 3)
    }
  }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    let first = upstream.delivered
    try upstream.read(into: pointer, rowBytes: rowBytes, count: count)
    for k in 0..<count {
      let row = (pointer + k * rowBytes).assumingMemoryBound(to: SIMD4<Float>.self)
      switch decided {
      case .maps(let maps):
        if maps.contains(where: { $0 != nil }) { ReductionExecutor.map(row, width: width, maps: maps) }
      case .clahe(let layout, let tables):
        ReductionExecutor.bins(row, width: width, into: &bins)
        for c in 0..<3 {
          bins[c].withUnsafeBufferPointer { b in
            levels[c].withUnsafeMutableBufferPointer { layout.map(b.baseAddress!, row: first + k, tables: tables[c], into: $0.baseAddress!) }
          }
        }
        for x in 0..<width where row[x].w > 0 {  // CLAHE's colour, premultiplied again; alpha kept
          let a = row[x].w
          row[x] = a == 1 ? SIMD4(levels[0][x], levels[1][x], levels[2][x], 1) : SIMD4(levels[0][x] * a, levels[1][x] * a, levels[2][x] * a, a)
        }
      }
    }
  }
  override func finishUpstream() throws { try upstream.finish() }
}
