import FXIR
import FXImage

extension RowSource {
  /// `geometry` applied to this source's rows (rgba32f): crops, left–right
  /// mirrors, colour margins and resizes stream, a band of rows at a time
  /// (a resize keeps a window of its filter's rows); a map that reads rows
  /// out of order (a flip, a quarter turn, an affine map, an edge or mirror
  /// margin) makes the whole input first (``GeometryExecutor``).
  /// - Throws: ``GeometryError`` when the stage cannot apply to this size.
  public func through(_ geometry: Geometry) throws -> RowSource {
    precondition(format == .rgba32f, "geometry reads premultiplied rgba32f rows")
    let (w, h) = try geometry.outputSize(width: width, height: height)
    switch geometry {
    case .crop(let c):
      let r = try c.rectangle(width: width, height: height)
      return CropSource(self, x: r.x, y: r.y, width: w, height: h)
    case .orient(.identity): return self
    case .orient(.flop): return FlopSource(self)
    case .extend(let e):
      if case .color(let colour) = e.background {
        let m = e.margins(width: width, height: height)
        return ExtendSource(self, top: m.top, left: m.left, width: w, height: h, colour: colour)
      }
      return WholeImageSource(try GeometryExecutor.apply(geometry, to: materialise()))
    case .resize(let r): return ResizeSource(self, width: w, height: h, filter: r.filter)
    default:
      return WholeImageSource(try GeometryExecutor.apply(geometry, to: materialise()))
    }
  }
}

/// The rows of a rectangle of the upstream's rows.
final class CropSource: RowSource {
  let upstream: RowSource
  let x: Int, y: Int
  private let row: BufferPool.Block

  init(_ upstream: RowSource, x: Int, y: Int, width: Int, height: Int) {
    self.upstream = upstream
    (self.x, self.y) = (x, y)
    row = try! BufferPool.shared.allocate(byteCount: upstream.rowBytes)
    super.init(width: width, height: height, format: .rgba32f)
  }
  deinit { BufferPool.shared.release(row) }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    while upstream.delivered < y { try upstream.read(into: row.pointer, rowBytes: upstream.rowBytes, count: 1) }
    for k in 0..<count {
      try upstream.read(into: row.pointer, rowBytes: upstream.rowBytes, count: 1)
      (pointer + k * rowBytes).copyMemory(from: row.pointer + x * 16, byteCount: width * 16)
    }
  }
  override func finishUpstream() throws { try upstream.finish() }
}

/// The upstream's rows mirrored left to right.
final class FlopSource: RowSource {
  let upstream: RowSource

  init(_ upstream: RowSource) {
    self.upstream = upstream
    super.init(width: upstream.width, height: upstream.height, format: .rgba32f)
  }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    try upstream.read(into: pointer, rowBytes: rowBytes, count: count)
    for k in 0..<count {
      let p = (pointer + k * rowBytes).assumingMemoryBound(to: SIMD4<Float>.self)
      var (i, j) = (0, width - 1)
      while i < j {
        p.swapAt(i, j)
        (i, j) = (i + 1, j - 1)
      }
    }
  }
  override func finishUpstream() throws { try upstream.finish() }
}

extension UnsafeMutablePointer {
  fileprivate func swapAt(_ i: Int, _ j: Int) {
    let t = self[i]
    self[i] = self[j]
    self[j] = t
  }
}

/// The upstream's rows in a larger canvas of one colour.
final class ExtendSource: RowSource {
  let upstream: RowSource
  let top: Int, left: Int
  let colour: SIMD4<Float>

  init(_ upstream: RowSource, top: Int, left: Int, width: Int, height: Int, colour: SIMD4<Float>) {
    self.upstream = upstream
    (self.top, self.left, self.colour) = (top, left, colour)
    super.init(width: width, height: height, format: .rgba32f)
  }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    for k in 0..<count {
      let y = delivered + k
      let row = (pointer + k * rowBytes).assumingMemoryBound(to: SIMD4<Float>.self)
      row.update(repeating: colour, count: width)
      if y >= top && y < top + upstream.height {
        try upstream.read(into: UnsafeMutableRawPointer(row + left), rowBytes: rowBytes, count: 1)
      }
    }
  }
  override func finishUpstream() throws { try upstream.finish() }
}

/// Separable resampling in a band: each input row is resampled along x as
/// it arrives, into a ring as tall as the widest vertical window; each
/// output row is the weighted sum of its window of those rows. The same
/// tables and sums as ``Resampler``: the pixels equal the whole-image resize.
final class ResizeSource: RowSource {
  let upstream: RowSource
  let xs: ResampleAxis, ys: ResampleAxis
  private let ring: BufferPool.Block
  private let ringRows: Int
  private let ringRowBytes: Int
  private let scratch: BufferPool.Block
  private var arrived = 0

  init(_ upstream: RowSource, width: Int, height: Int, filter: ResampleFilter) {
    self.upstream = upstream
    xs = ResampleAxis(filter, inSize: upstream.width, outSize: width)
    ys = ResampleAxis(filter, inSize: upstream.height, outSize: height)
    ringRows = ys.taps
    ringRowBytes = width * 16
    ring = try! BufferPool.shared.allocate(byteCount: ringRows * ringRowBytes)
    scratch = try! BufferPool.shared.allocate(byteCount: upstream.rowBytes)
    super.init(width: width, height: height, format: .rgba32f)
  }
  deinit {
    BufferPool.shared.release(ring)
    BufferPool.shared.release(scratch)
  }

  private func slot(_ y: Int) -> UnsafeMutableRawPointer { ring.pointer + (y % ringRows) * ringRowBytes }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    for k in 0..<count {
      let j = delivered + k, first = ys.first[j], n = ys.count[j]
      while arrived < first + n {
        try upstream.read(into: scratch.pointer, rowBytes: upstream.rowBytes, count: 1)
        Resampler.horizontal(
          UnsafeRawPointer(scratch.pointer).assumingMemoryBound(to: SIMD4<Float>.self),
          slot(arrived).assumingMemoryBound(to: SIMD4<Float>.self), xs)
        arrived += 1
      }
      let sources = (0..<n).map { t in UnsafeRawPointer(slot(first + t)).assumingMemoryBound(to: Float.self) }
      ys.weights.withUnsafeBufferPointer { w in
        Resampler.vertical(sources, w.baseAddress! + j * ys.taps, (pointer + k * rowBytes).assumingMemoryBound(to: Float.self), floats: width * 4)
      }
    }
  }
  override func finishUpstream() throws { try upstream.finish() }
}
