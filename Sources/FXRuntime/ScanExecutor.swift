internal import CScan
import Dispatch
import FXIR
import FXImage
import FXLLVM
import FXPasses

/// Runs scans (docs/design.md §4, "Scans") on premultiplied rgba32f images,
/// in place, with the interpreter's bits: along x, four rows a vector and
/// rows split across threads; along y, columns four pixels a vector, in
/// strips split across threads (``ScanPlan``). The inner loops are CScan's,
/// at the widest vectors the target allows.
public enum ScanExecutor {
  /// `scan` applied to `image` in place.
  /// - Parameters:
  ///   - image: rgba32f, premultiplied; overwritten with the result.
  ///   - threads: rows (x) or column strips (y) are split across this many.
  ///   - target: decides the vector width (never the result).
  public static func apply(_ scan: Scan, inPlace image: ImageBuffer, threads: Int = 1, target: Target = .host) {
    precondition(image.format == .rgba32f, "scans run on premultiplied rgba32f images")
    let plan = ScanPlan(scan, width: image.width, height: image.height, threads: threads)
    let level = Self.level(target)
    let base = image.data.assumingMemoryBound(to: Float.self)
    let rowFloats = image.rowBytes / 4
    let length = scan.axis == .x ? image.width : image.height
    let chunks = plan.chunks
    let run = { (c: Int) in
      let range = chunks[c]
      let temp = UnsafeMutablePointer<Float>.allocate(capacity: 32 * max(length, 1))
      defer { temp.deallocate() }
      let (a, b) = (Int64(range.lowerBound), Int64(range.upperBound))
      switch (scan.filter, scan.axis) {
      case (.gaussian(let g), let axis):
        var c = g.coefficients
        if axis == .x {
          fx_scan_gaussian_x(base, rowFloats, Int64(image.width), a, b, &c, temp, level)
        } else {
          fx_scan_gaussian_y(base, rowFloats, Int64(image.height), a, b, &c, temp, level)
        }
      case (.box(let r), .x): fx_scan_box_x(base, rowFloats, Int64(image.width), a, b, Int64(r), temp, level)
      case (.box(let r), .y): fx_scan_box_y(base, rowFloats, Int64(image.height), a, b, Int64(r), temp, level)
      }
    }
    if chunks.count == 1 {
      run(0)
    } else {
      DispatchQueue.concurrentPerform(iterations: chunks.count, execute: run)
    }
  }

  /// `scan` applied to a copy of `image`.
  public static func apply(_ scan: Scan, to image: ImageBuffer, threads: Int = 1, target: Target = .host) throws -> ImageBuffer {
    let out = try copy(image)
    apply(scan, inPlace: out, threads: threads, target: target)
    return out
  }

  /// A copy of an rgba32f image.
  static func copy(_ image: ImageBuffer) throws -> ImageBuffer {
    let out = try ImageBuffer(width: image.width, height: image.height, format: .rgba32f, zeroFilled: false)
    for y in 0..<image.height {
      (out.data + y * out.rowBytes).copyMemory(from: image.data + y * image.rowBytes, byteCount: image.width * 16)
    }
    return out
  }

  /// CScan's level for `target`: 4 with AVX-512F, 3 with AVX2, else 2.
  static func level(_ target: Target) -> fx_scan_level {
    target.has("avx512f") ? 4 : target.has("avx2") ? 3 : 2
  }
}

extension RecursiveGaussian {
  /// The coefficients as CScan takes them.
  var coefficients: fx_scan_gaussian {
    var c = fx_scan_gaussian()
    (c.n.0, c.n.1, c.n.2, c.n.3) = (n[0], n[1], n[2], n[3])
    (c.m.0, c.m.1, c.m.2, c.m.3) = (m[0], m[1], m[2], m[3])
    (c.d.0, c.d.1, c.d.2, c.d.3) = (d[0], d[1], d[2], d[3])
    c.causal_gain = causalGain
    c.anticausal_gain = anticausalGain
    return c
  }
}

/// How a scan is scheduled (`fxc dump` prints it): along x, rows in groups
/// of four split across threads; along y, column strips of four pixels
/// split across threads; each line's state in registers, its causal half in
/// a line buffer.
public struct ScanPlan: CustomStringConvertible, Sendable {
  public let axis: Scan.Axis
  /// The rows (x) or columns (y) each thread takes.
  public let chunks: [Range<Int>]

  public init(_ scan: Scan, width: Int, height: Int, threads: Int) {
    axis = scan.axis
    let lines = scan.axis == .x ? height : width
    // Whole groups of four lines per chunk, so that only the last has a remainder.
    let groups = (lines + 3) / 4
    let count = max(1, min(threads, groups))
    chunks = (0..<count).map { i in
      min(lines, groups * i / count * 4)..<min(lines, groups * (i + 1) / count * 4)
    }
  }

  public var description: String {
    let what = axis == .x ? "rows, 4 a vector" : "column strips of 4 px a vector"
    return "scan along \(axis.rawValue): \(what), \(chunks.count) chunk(s) across threads; state in registers, the causal half in a line buffer"
  }
}

/// Runs a cut stage: geometry through ``GeometryExecutor``, a scan through ``ScanExecutor``.
public enum CutExecutor {
  /// `cut` applied to `image` (rgba32f, premultiplied).
  /// - Throws: ``GeometryError`` when a geometry stage cannot apply to this
  ///   size; ``ImageBufferError`` when memory runs out.
  public static func apply(_ cut: Cut, to image: ImageBuffer, threads: Int = 1) throws -> ImageBuffer {
    switch cut {
    case .geometry(let g): try GeometryExecutor.apply(g, to: image, threads: threads)
    case .scan(let s): try ScanExecutor.apply(s, to: image, threads: threads)
    case .reduction(let r): try ReductionExecutor.apply(r, inPlace: ScanExecutor.copy(image), threads: threads)
    }
  }
}

extension RowSource {
  /// `cut` applied to this source's rows (rgba32f): geometry as
  /// ``through(_:)`` runs it; a scan along x streams (each band filtered as
  /// it is read); a scan along y makes the whole input first and runs on it
  /// in place, its column strips across `threads`.
  /// - Throws: ``GeometryError`` when a geometry stage cannot apply to this size.
  public func through(_ cut: Cut, threads: Int, target: Target = .host) throws -> RowSource {
    switch cut {
    case .geometry(let g): return try through(g)
    case .scan(let s) where s.axis == .x: return ScanRowSource(self, s, target: target)
    case .scan(let s):
      let image = try materialise()
      ScanExecutor.apply(s, inPlace: image, threads: threads, target: target)
      return WholeImageSource(image)
    case .reduction(let r):
      return WholeImageSource(ReductionExecutor.apply(r, inPlace: try materialise(), threads: threads))
    }
  }
}

/// The upstream's rows, each filtered along x as it passes.
final class ScanRowSource: RowSource {
  let upstream: RowSource
  let scan: Scan
  let level: fx_scan_level
  private let temp: UnsafeMutablePointer<Float>

  init(_ upstream: RowSource, _ scan: Scan, target: Target) {
    self.upstream = upstream
    self.scan = scan
    level = ScanExecutor.level(target)
    temp = .allocate(capacity: 32 * max(upstream.width, 1))
    super.init(width: upstream.width, height: upstream.height, format: .rgba32f)
  }

  deinit { temp.deallocate() }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    try upstream.read(into: pointer, rowBytes: rowBytes, count: count)
    let base = pointer.assumingMemoryBound(to: Float.self)
    switch scan.filter {
    case .gaussian(let g):
      var c = g.coefficients
      fx_scan_gaussian_x(base, rowBytes / 4, Int64(width), 0, Int64(count), &c, temp, level)
    case .box(let r): fx_scan_box_x(base, rowBytes / 4, Int64(width), 0, Int64(count), Int64(r), temp, level)
    }
  }
  override func finishUpstream() throws { try upstream.finish() }
}

/// Runs reductions (docs/design.md §4, "Reductions") on premultiplied
/// rgba32f images in place: one pass for the histograms, one for the maps,
/// with the interpreter's arithmetic.
public enum ReductionExecutor {
  /// `reduction` applied to `image` (rgba32f, premultiplied) in place; returns `image`.
  @discardableResult
  /// `threads`: CLAHE equalises its three channels on up to three threads (the same bits).
  public static func apply(_ reduction: Reduction, inPlace image: ImageBuffer, threads: Int = 1) -> ImageBuffer {
    precondition(image.format == .rgba32f, "reductions run on premultiplied rgba32f images")
    let rows = { (y: Int) in (image.data + y * image.rowBytes).assumingMemoryBound(to: SIMD4<Float>.self) }
    if case .clahe(let clahe) = reduction { return apply(clahe, inPlace: image, rows: rows, threads: threads) }
    let counts = UnsafeMutablePointer<Int>.allocate(capacity: 3 * 256)
    defer { counts.deallocate() }
    counts.initialize(repeating: 0, count: 3 * 256)
    for y in 0..<image.height {
      let row = rows(y)
      for x in 0..<image.width {
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
    let maps = (0..<3).map { c in reduction.map(histogram: Array(UnsafeBufferPointer(start: counts + 256 * c, count: 256))) }
    guard maps.contains(where: { $0 != nil }) else { return image }
    // Each channel's map as flat data: a table of 256, or a line (scale, offset); nil keeps the channel.
    let tables = maps.map { m -> [Float]? in if case .table(let t) = m { t } else { nil } }
    let lines = maps.map { m -> (Float, Float)? in if case .linear(let a, let b) = m { (a, b) } else { nil } }
    func mapped(_ c: Int, _ v: Float) -> Float {
      if let (a, b) = lines[c] { return Swift.min(Swift.max(v * a + b, 0), 1) }
      return tables[c]![Reduction.bin(v)]
    }
    let active = maps.map { $0 != nil }
    for y in 0..<image.height {
      let row = rows(y)
      for x in 0..<image.width {
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
    return image
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
