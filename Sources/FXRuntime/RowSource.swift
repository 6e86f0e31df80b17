import FXIR
import FXImage
import Foundation

/// Rows of an image, produced top to bottom on demand: how a pipeline that
/// changes size runs in bands (docs/design.md §4). A decoder, a kernel, a
/// crop or a resampler each is one; a consumer pulls the next rows with
/// ``read(into:rowBytes:count:)`` and, at the end, calls ``finish()``.
public class RowSource {
  public let width: Int
  public let height: Int
  /// How the rows are stored: the file's format for a decoder, rgba32f
  /// (premultiplied) for everything after the first kernel.
  public let format: PixelFormat
  /// Rows handed out so far.
  public internal(set) var delivered = 0
  private var finished = false

  init(width: Int, height: Int, format: PixelFormat) {
    self.width = width
    self.height = height
    self.format = format
  }

  /// Bytes of one row.
  public var rowBytes: Int { width * format.bytesPerPixel }

  /// Fills the next `count` rows into `pointer`, `rowBytes` apart.
  /// - Throws: what producing them throws; ``RowSourceError`` past the last row.
  public final func read(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    guard count >= 0, delivered + count <= height else {
      throw RowSourceError("\(delivered + count) rows asked of a \(height)-row image")
    }
    try produce(into: pointer, rowBytes: rowBytes, count: count)
    delivered += count
  }

  /// Reads and drops the rows not yet read, then checks the end of what
  /// this source reads from (a decoder checks the file's end).
  public func finish() throws {
    guard !finished else { return }
    finished = true
    if delivered < height { try discard(count: height - delivered) }
    try finishUpstream()
  }

  /// Produces and drops the next `count` rows (subclasses whose rows cost
  /// nothing to skip skip them).
  func discard(count: Int) throws {
    let scratch = try BufferPool.shared.allocate(byteCount: rowBytes)
    defer { BufferPool.shared.release(scratch) }
    for _ in 0..<count { try read(into: scratch.pointer, rowBytes: rowBytes, count: 1) }
  }

  /// The rows themselves (subclasses).
  func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws { fatalError("abstract") }
  /// What ``finish()`` checks after the last row (subclasses).
  func finishUpstream() throws {}

  /// Every row, as one image.
  public func materialise() throws -> ImageBuffer {
    let image = try ImageBuffer(width: width, height: height, format: format, zeroFilled: false)
    try read(into: image.data, rowBytes: image.rowBytes, count: height - delivered)
    try finish()
    return image
  }
}

/// A row source that is not what it was asked to be.
public struct RowSourceError: Error, CustomStringConvertible {
  public var message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Rows from closures: a decoder's, or an image's.
public final class ClosureRowSource: RowSource {
  private let reader: (UnsafeMutableRawPointer, Int, Int) throws -> Void
  private let end: () throws -> Void

  /// Rows that `read(pointer, rowBytes, count)` gives in order; `finish` checks the end.
  public init(
    width: Int, height: Int, format: PixelFormat, read: @escaping (UnsafeMutableRawPointer, Int, Int) throws -> Void,
    finish: @escaping () throws -> Void = {}
  ) {
    reader = read
    end = finish
    super.init(width: width, height: height, format: format)
  }

  /// The rows of `image`.
  public convenience init(_ image: ImageBuffer) {
    var y = 0
    self.init(width: image.width, height: image.height, format: image.format) { pointer, rowBytes, count in
      for k in 0..<count {
        (pointer + k * rowBytes).copyMemory(from: image.data + (y + k) * image.rowBytes, byteCount: image.rowDataBytes)
      }
      y += count
    }
  }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    try reader(pointer, rowBytes, count)
  }
  override func finishUpstream() throws { try end() }
}

/// A whole image made from its upstream's rows, then handed out row by row:
/// for a stage that reads rows out of order (a quarter turn, an affine map,
/// a distortion).
public final class WholeImageSource: RowSource {
  /// The image, for a consumer that can read it in place (rows not yet
  /// delivered are its rows `delivered…`).
  public let image: ImageBuffer

  init(_ image: ImageBuffer) {
    self.image = image
    super.init(width: image.width, height: image.height, format: image.format)
  }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    for k in 0..<count {
      (pointer + k * rowBytes).copyMemory(from: image.data + (delivered + k) * image.rowBytes, byteCount: image.rowDataBytes)
    }
  }
  override func discard(count: Int) throws { delivered += count }
}

/// An upstream's rows of a straight-alpha format (rgba8, rgba16) as
/// premultiplied rgba32f, converted as a kernel loads them (DESIGN §1: each
/// channel times the float nearest 1/255 or 1/65535, colour times alpha in
/// fp32; ``ImageBuffer/subscript(_:_:)``): the same bits as the identity
/// kernel, without a kernel, a thread or a copy through a ring.
public final class PremultiplyingSource: RowSource {
  private let upstream: RowSource
  private var scratch: BufferPool.Block?
  private var scratchRows = 0

  public init(_ upstream: RowSource) {
    precondition(upstream.format.holdsStraightAlpha)
    self.upstream = upstream
    super.init(width: upstream.width, height: upstream.height, format: .rgba32f)
  }
  deinit { scratch.map(BufferPool.shared.release) }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    if scratchRows < count {
      scratch.map(BufferPool.shared.release)
      scratch = try BufferPool.shared.allocate(byteCount: count * upstream.rowBytes)
      scratchRows = count
    }
    let source = scratch!.pointer
    try upstream.read(into: source, rowBytes: upstream.rowBytes, count: count)
    let n = width * 4
    for k in 0..<count {
      let out = (pointer + k * rowBytes).assumingMemoryBound(to: Float.self)
      let row = UnsafeRawPointer(source + k * upstream.rowBytes)
      // Two plain loops the compiler vectorises: scale every channel, then colour times alpha.
      if upstream.format == .rgba8 {
        let c = row.assumingMemoryBound(to: UInt8.self)
        var i = 0
        while i < n {
          out[i] = Float(c[i]) * (1 / 255)
          i &+= 1
        }
      } else {
        let c = row.assumingMemoryBound(to: UInt16.self)
        var i = 0
        while i < n {
          out[i] = Float(c[i]) * (1 / 65535)
          i &+= 1
        }
      }
      let pixels = UnsafeMutableRawPointer(out).assumingMemoryBound(to: SIMD4<Float>.self)
      var x = 0
      while x < width {
        let v = pixels[x]
        pixels[x] = v * SIMD4(v.w, v.w, v.w, 1)
        x &+= 1
      }
    }
  }

  override func finishUpstream() throws { try upstream.finish() }
}
