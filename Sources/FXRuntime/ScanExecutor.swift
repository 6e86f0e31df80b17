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
