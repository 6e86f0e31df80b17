import Glibc

/// How one pixel is stored in memory. Every format holds four channels, RGBA.
/// The integer formats hold **straight** (unassociated) alpha, as PNG, TIFF
/// and WebP files store it; `rgba32f` holds **premultiplied** alpha, as
/// kernels compute (DESIGN §1, amended 2026-12-01).
public enum PixelFormat: String, Sendable, CaseIterable, Hashable {
  /// 4 × UInt8, unorm (0…255 ↔ 0…1), straight alpha.
  case rgba8
  /// 4 × UInt16, unorm (0…65535 ↔ 0…1), native byte order, straight alpha.
  case rgba16
  /// 4 × Float32, premultiplied alpha.
  case rgba32f

  /// Whether color is stored straight (not multiplied by alpha): rgba8 and rgba16.
  public var holdsStraightAlpha: Bool { self != .rgba32f }

  /// Bytes of one pixel: 4, 8 or 16.
  public var bytesPerPixel: Int {
    switch self {
    case .rgba8: 4
    case .rgba16: 8
    case .rgba32f: 16
    }
  }
}

/// Errors about image buffers themselves (not files).
public enum ImageBufferError: Error, CustomStringConvertible, Equatable {
  case invalidSize(width: Int, height: Int)
  /// Caller's memory that cannot be wrapped as given (a row stride too short, misaligned channels): why.
  case invalidLayout(String)
  /// The system could not give `bytes` of memory for a buffer.
  case outOfMemory(bytes: Int)

  public var description: String {
    switch self {
    case .invalidLayout(let reason): "cannot wrap this memory as an image: \(reason)"
    case .outOfMemory(let bytes):
      "out of memory: cannot allocate \(bytes >> 20) MiB for an image buffer"
    case .invalidSize(let w, let h):
      "invalid image size \(w)×\(h): width and height must be 1…\(ImageBuffer.maxDimension) and the image at most \(ImageBuffer.maxPixels) pixels"
    }
  }
}

/// A `width × height` raster of RGBA pixels in one of the ``PixelFormat``s
/// (straight alpha in rgba8 and rgba16, premultiplied in rgba32f), rows stored top to bottom, `rowBytes` apart.
/// A buffer made by fxc owns its memory, aligned to 64 bytes, which comes
/// from ``BufferPool/shared`` and goes back to it when the buffer is
/// released, and its rows are packed (`rowBytes == rowDataBytes`); one made
/// by ``init(wrapping:width:height:rowBytes:format:deallocator:)`` reads and
/// writes the caller's memory in place, rows any stride apart.
///
/// Not thread-safe for writes to the same pixel; disjoint rows may be written
/// from different threads (that is how kernels run).
public final class ImageBuffer: @unchecked Sendable {
  /// Largest accepted side, in pixels (kernels index with 32-bit integers).
  public static let maxDimension = 1 << 20
  /// Largest accepted pixel count (2^31, 8 GiB of RGBA8… 32 GiB of RGBA32F).
  public static let maxPixels = 1 << 31

  public let width: Int
  public let height: Int
  public let format: PixelFormat
  /// Distance between the starts of two rows, in bytes: ``rowDataBytes`` for
  /// a buffer fxc made, at least that for one wrapping the caller's memory.
  public let rowBytes: Int
  /// The first byte of the first row.
  public let data: UnsafeMutableRawPointer

  /// A buffer, zero-filled (transparent) unless `zeroFilled` is false — for
  /// a buffer that a kernel or decoder writes entirely, whose memory may then
  /// hold anything until it does (a reused block is not cleared: no cost).
  /// - Throws: ``ImageBufferError/invalidSize(width:height:)`` when a side is
  ///   not in 1…``maxDimension`` or the area exceeds ``maxPixels``;
  ///   ``ImageBufferError/outOfMemory(bytes:)`` when the memory cannot be had.
  public init(width: Int, height: Int, format: PixelFormat, zeroFilled: Bool = true) throws {
    guard width >= 1, height >= 1, width <= Self.maxDimension, height <= Self.maxDimension,
      width * height <= Self.maxPixels
    else { throw ImageBufferError.invalidSize(width: width, height: height) }
    self.width = width
    self.height = height
    self.format = format
    self.rowBytes = width * format.bytesPerPixel
    let count = rowBytes * height
    let block = try BufferPool.shared.allocate(byteCount: count)
    owner = .pool(block)
    data = block.pointer
    if zeroFilled && !block.isZero { data.initializeMemory(as: UInt8.self, repeating: 0, count: count) }
  }

  /// What frees the memory of a buffer that wraps the caller's (``init(wrapping:width:height:rowBytes:format:deallocator:)``).
  public enum Deallocator: Sendable {
    /// Nothing: the caller keeps the memory alive while the buffer lives, and frees it after.
    case none
    /// C's `free`, for memory from `malloc` or `posix_memalign`.
    case free
    /// The caller's function, called once with the pointer when the buffer is released.
    case custom(@Sendable (UnsafeMutableRawPointer) -> Void)
  }

  /// A buffer over the caller's pixels, read and written in place (no copy):
  /// `height` rows of `width` pixels of `format` (RGBA, straight alpha in
  /// rgba8 and rgba16, premultiplied in rgba32f), the rows `rowBytes` apart
  /// from `data` (the last row needs only ``rowDataBytes``). `deallocator`
  /// runs when the buffer is released. Kernels read and write such a buffer
  /// like any other; the memory must stay valid, and not be written by anyone
  /// else while a kernel runs.
  ///
  ///     let pixels = UnsafeMutableRawPointer.allocate(byteCount: 4096 * 480, alignment: 64)
  ///     let image = try ImageBuffer(wrapping: pixels, width: 1000, height: 480, rowBytes: 4096, format: .rgba8,
  ///                                 deallocator: .custom { $0.deallocate() })
  ///
  /// - Throws: ``ImageBufferError/invalidSize(width:height:)`` for a side
  ///   outside 1…``maxDimension`` or more than ``maxPixels`` pixels;
  ///   ``ImageBufferError/invalidLayout(_:)`` when `rowBytes` is less than
  ///   `width × bytesPerPixel`, or `data` or `rowBytes` is not a multiple of
  ///   the channel size (2 bytes for rgba16, 4 for rgba32f: kernels load
  ///   channels aligned). Nothing is freed when it throws.
  public init(
    wrapping data: UnsafeMutableRawPointer, width: Int, height: Int, rowBytes: Int, format: PixelFormat,
    deallocator: Deallocator = .none
  ) throws {
    guard width >= 1, height >= 1, width <= Self.maxDimension, height <= Self.maxDimension, width * height <= Self.maxPixels
    else { throw ImageBufferError.invalidSize(width: width, height: height) }
    let packed = width * format.bytesPerPixel
    guard rowBytes >= packed else {
      throw ImageBufferError.invalidLayout("row stride \(rowBytes) bytes is less than a row of \(width) \(format) pixels (\(packed) bytes)")
    }
    let channel = format.bytesPerPixel / 4
    guard Int(bitPattern: data) % channel == 0, rowBytes % channel == 0 else {
      throw ImageBufferError.invalidLayout("\(format) pixels need the address and the row stride to be multiples of \(channel) bytes")
    }
    self.width = width
    self.height = height
    self.format = format
    self.rowBytes = rowBytes
    self.data = data
    owner = .caller(deallocator)
  }

  private enum Owner {
    case pool(BufferPool.Block)
    case caller(Deallocator)
  }
  private let owner: Owner

  deinit {
    switch owner {
    case .pool(let block): BufferPool.shared.release(block)
    case .caller(.none): break
    case .caller(.free): Glibc.free(data)
    case .caller(.custom(let release)): release(data)
    }
  }

  /// The bytes of one row's pixels, `width × bytesPerPixel` (``rowBytes`` may be more).
  public var rowDataBytes: Int { width * format.bytesPerPixel }

  /// Whether the rows follow each other with no gap (`rowBytes == rowDataBytes`): always for a buffer fxc made.
  public var isPacked: Bool { rowBytes == rowDataBytes }

  /// The bytes from the first pixel to the last: `rowBytes × (height − 1) + rowDataBytes`
  /// (`rowBytes × height` for a packed buffer).
  public var byteCount: Int { rowBytes * (height - 1) + rowDataBytes }

  /// Copies `source`'s pixels into this buffer: one copy when both are
  /// packed, else row by row. Precondition: the same size and format.
  public func copyPixels(from source: ImageBuffer) {
    precondition(source.width == width && source.height == height && source.format == format, "copyPixels: another size or format")
    if isPacked && source.isPacked {
      data.copyMemory(from: source.data, byteCount: byteCount)
    } else {
      for y in 0..<height { (data + y * rowBytes).copyMemory(from: source.data + y * source.rowBytes, byteCount: rowDataBytes) }
    }
  }

  /// The pixel at column `x`, row `y` as premultiplied floats in 0…1, as a
  /// kernel sees it: the stored values (``subscript(stored:_:)``), with the
  /// color of the straight-alpha formats multiplied by alpha in fp32. Setting
  /// it stores the premultiplied value `v`: for rgba8 and rgba16 the color is
  /// un-premultiplied in fp32 first (`c / a` where `a > 0`, else 0),
  /// then every channel quantised (DESIGN §1) — exactly as a compiled kernel's
  /// store does. Precondition: in bounds.
  public subscript(x: Int, y: Int) -> SIMD4<Float> {
    get {
      let v = self[stored: x, y]
      return format.holdsStraightAlpha ? SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w) : v
    }
    set {
      guard format.holdsStraightAlpha else {
        self[stored: x, y] = newValue
        return
      }
      let a = newValue.w
      guard a > 0 else {
        self[stored: x, y] = SIMD4(0, 0, 0, a)
        return
      }
      self[stored: x, y] = SIMD4(newValue.x / a, newValue.y / a, newValue.z / a, a)
    }
  }

  /// The stored values of the pixel at column `x`, row `y`, as floats: unorm
  /// channels multiplied by the float nearest 1/255 or 1/65535, exactly as
  /// compiled kernels convert a load (straight alpha in rgba8 and rgba16).
  /// Setting it quantises per DESIGN §1 (NaN → 0, clamp to 0…1, round to
  /// nearest) with no alpha step. Precondition: in bounds.
  public subscript(stored x: Int, y: Int) -> SIMD4<Float> {
    get {
      precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
      let p = data + y * rowBytes + x * format.bytesPerPixel
      switch format {
      case .rgba8:
        let v = p.loadUnaligned(as: SIMD4<UInt8>.self)
        return SIMD4<Float>(v) * (1 / 255)
      case .rgba16:
        let v = p.loadUnaligned(as: SIMD4<UInt16>.self)
        return SIMD4<Float>(v) * (1 / 65535)
      case .rgba32f:
        return p.loadUnaligned(as: SIMD4<Float>.self)
      }
    }
    set {
      precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
      let p = data + y * rowBytes + x * format.bytesPerPixel
      switch format {
      case .rgba8: p.storeBytes(of: Self.quantize(newValue, max: 255, as: UInt8.self), as: SIMD4<UInt8>.self)
      case .rgba16:
        p.storeBytes(of: Self.quantize(newValue, max: 65535, as: UInt16.self), as: SIMD4<UInt16>.self)
      case .rgba32f: p.storeBytes(of: newValue, as: SIMD4<Float>.self)
      }
    }
  }

  /// DESIGN §1: NaN → 0, clamp to 0…1, round to nearest (ties away from zero).
  @inline(__always)
  static func quantize<T: FixedWidthInteger & UnsignedInteger>(_ v: SIMD4<Float>, max: Float, as: T.Type)
    -> SIMD4<T>
  {
    var r = SIMD4<T>()
    for i in 0..<4 {
      let c = v[i].isNaN ? 0 : Swift.min(Swift.max(v[i], 0), 1)
      r[i] = T((c * max).rounded(.toNearestOrAwayFromZero))
    }
    return r
  }

  /// Whether every pixel's alpha is 1 (255, 65535 or exactly 1.0): an image
  /// a kernel may treat as opaque (``LoweringOptions/opaqueInputs``). Reads
  /// the whole alpha channel once — for RGBA8 about as long as a copy of the
  /// image, far less than decoding it.
  public var isOpaque: Bool {
    (0..<height).allSatisfy { isOpaque(row: $0) }
  }

  private func isOpaque(row y: Int) -> Bool {
    let row = data + y * rowBytes
    switch format {
    case .rgba8:
      var all: UInt32 = 0xFFFF_FFFF
      for x in 0..<width { all &= row.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self) }
      return all >> 24 == 0xFF  // alpha is the fourth byte: the top one, little-endian
    case .rgba16:
      var all: UInt64 = ~0
      for x in 0..<width { all &= row.loadUnaligned(fromByteOffset: 8 * x, as: UInt64.self) }
      return all >> 48 == 0xFFFF
    case .rgba32f:
      let floats = row.assumingMemoryBound(to: Float.self)
      for x in 0..<width where floats[4 * x + 3] != 1 { return false }
      return true
    }
  }

  /// A deep copy, optionally converted to another format (through the
  /// premultiplied pixel values, ``subscript(_:_:)``).
  /// - Throws: ``ImageBufferError/outOfMemory(bytes:)``.
  public func copy(as newFormat: PixelFormat? = nil) throws -> ImageBuffer {
    let f = newFormat ?? format
    let out = try ImageBuffer(width: width, height: height, format: f, zeroFilled: false)
    if f == format {
      out.copyPixels(from: self)
    } else {
      for y in 0..<height { for x in 0..<width { out[x, y] = self[x, y] } }
    }
    return out
  }
}
