// Packing buffers into the channel layouts that files store. rgba8 and rgba16
// buffers hold straight alpha, as files do (DESIGN §1), so a layout with alpha
// stores them as they are; a layout without alpha stores the color composited
// over black, premultiplied in integers (max = 255 or 65535):
//   c' = (c·a + max/2) / max           (rounds to nearest)
// rgba32f buffers hold premultiplied color: it is un-premultiplied in float.

enum Alpha {
  /// Premultiplies one straight channel value by `a`; `max` is 255 or 65535.
  @inline(__always)
  static func premultiply(_ c: UInt32, _ a: UInt32, max: UInt32) -> UInt32 {
    (c * a + max / 2) / max
  }

  /// The color of a straight RGBA pixel composited over black, alpha kept.
  @inline(__always)
  static func premultiply(_ v: SIMD4<UInt32>, max: UInt32) -> SIMD4<UInt32> {
    let a = v.w
    if a == max { return v }
    return SIMD4(premultiply(v.x, a, max: max), premultiply(v.y, a, max: max), premultiply(v.z, a, max: max), a)
  }

  /// Converts, in place, an `.rgba16` buffer holding big-endian samples (as
  /// PNG stores them) to native byte order.
  static func nativeEndianRGBA16(fromBigEndian image: ImageBuffer) {
    precondition(image.format == .rgba16)
    nativeEndianRGBA16(fromBigEndian: image.data, rowBytes: image.rowBytes, width: image.width, rows: image.height)
  }

  /// The same for `rows` rows of `width` RGBA16 pixels, `rowBytes` apart.
  static func nativeEndianRGBA16(fromBigEndian data: UnsafeMutableRawPointer, rowBytes: Int, width: Int, rows: Int) {
    for y in 0..<rows {
      let row = (data + y * rowBytes).assumingMemoryBound(to: UInt16.self)
      for i in 0..<4 * width { row[i] = UInt16(bigEndian: row[i]) }
    }
  }
}

enum Packing {
  /// The pixel at (`x`, `y`) as integers of `bitDepth` 8 or 16 bits: straight
  /// alpha when `straight`, otherwise premultiplied (the color composited
  /// over black). rgba32f is quantised per DESIGN §1 (NaN → 0, clamp to 0…1,
  /// round to nearest); for straight alpha it is un-premultiplied in float first.
  @inline(__always)
  static func sample(_ p: UnsafeRawPointer, _ format: PixelFormat, bitDepth: Int, straight: Bool)
    -> SIMD4<UInt32>
  {
    switch format {
    case .rgba8:
      var v = SIMD4<UInt32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD4<UInt8>.self))
      if !straight { v = Alpha.premultiply(v, max: 255) }
      return bitDepth == 16 ? v &* 257 : v
    case .rgba16:
      var v = SIMD4<UInt32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD4<UInt16>.self))
      if !straight { v = Alpha.premultiply(v, max: 65535) }
      return bitDepth == 8 ? (v &* 255 &+ 32767) / 65535 : v
    case .rgba32f:
      var f = p.loadUnaligned(as: SIMD4<Float>.self)
      if straight {
        // DESIGN §1: c / a where a > 0, else 0 (NaN alpha included), as a kernel's store does.
        let a = f.w
        f = a > 0 ? SIMD4(f.x / a, f.y / a, f.z / a, a) : .zero
      }
      let q =
        bitDepth == 16
        ? SIMD4<UInt32>(truncatingIfNeeded: ImageBuffer.quantize(f, max: 65535, as: UInt16.self))
        : SIMD4<UInt32>(truncatingIfNeeded: ImageBuffer.quantize(f, max: 255, as: UInt8.self))
      return straight && q.w == 0 ? .zero : q
    }
  }

  /// Rec. 601 luma, `(299 R + 587 G + 114 B) / 1000` rounded; exact for gray
  /// pixels (R = G = B).
  @inline(__always)
  static func luma(_ v: SIMD4<UInt32>) -> UInt32 {
    (299 * v.x + 587 * v.y + 114 * v.z + 500) / 1000
  }

  /// The whole image as tightly packed rows of `layout`'s channels, 8 bits or
  /// 16 bits (big-endian, as PNG stores them, unless `bigEndian` is false)
  /// per sample. Layouts with alpha store straight alpha; layouts without
  /// store the premultiplied color, i.e. the image composited over black.
  /// - Throws: ``ImageFileFailure`` when there is no memory for the rows.
  static func pack(_ image: ImageBuffer, layout: ChannelLayout, bitDepth: Int, bigEndian: Bool = true) throws -> (
    bytes: MallocBytes, rowBytes: Int
  ) {
    let rowBytes = packedRowBytes(width: image.width, layout: layout, bitDepth: bitDepth)
    let bytes = try MallocBytes(capacity: rowBytes * image.height)
    bytes.count = rowBytes * image.height
    packRows(
      image.data, rowBytes: image.rowBytes, width: image.width, rows: image.height, format: image.format,
      layout: layout, bitDepth: bitDepth, bigEndian: bigEndian, into: bytes.pointer)
    return (bytes, rowBytes)
  }

  /// Bytes of one packed row.
  static func packedRowBytes(width: Int, layout: ChannelLayout, bitDepth: Int) -> Int {
    width * layout.channelCount * bitDepth / 8
  }

  /// ``pack(_:layout:bitDepth:bigEndian:)`` for `rows` rows of `width`
  /// pixels of `format`, `rowBytes` apart, into rows of
  /// ``packedRowBytes(width:layout:bitDepth:)`` at `output`.
  static func packRows(
    _ data: UnsafeRawPointer, rowBytes: Int, width: Int, rows: Int, format: PixelFormat, layout: ChannelLayout,
    bitDepth: Int, bigEndian: Bool, into output: UnsafeMutableRawPointer
  ) {
    let channels = layout.channelCount
    let sampleBytes = bitDepth / 8
    let packed = packedRowBytes(width: width, layout: layout, bitDepth: bitDepth)
    let pixelBytes = format.bytesPerPixel
    if format == .rgba8 && bitDepth == 8 && (layout == .rgba || layout == .rgb) {
      packRGBA8(data, rowBytes: rowBytes, width: width, rows: rows, alpha: layout == .rgba, into: output, packedRowBytes: packed)
      return
    }
    for y in 0..<rows {
      var o = output + y * packed
      let row = data + y * rowBytes
      for x in 0..<width {
        let v = sample(row + x * pixelBytes, format, bitDepth: bitDepth, straight: layout.hasAlpha)
        let s: SIMD4<UInt32> =
          switch layout {
          case .gray: SIMD4(luma(v), 0, 0, 0)
          case .grayAlpha: SIMD4(luma(v), v.w, 0, 0)
          case .rgb, .rgba: v
          }
        for k in 0..<channels {
          if sampleBytes == 1 {
            o.storeBytes(of: UInt8(truncatingIfNeeded: s[k]), as: UInt8.self)
          } else {
            let sample = UInt16(truncatingIfNeeded: s[k])
            o.storeBytes(of: bigEndian ? sample.bigEndian : sample, toByteOffset: 0, as: UInt16.self)
          }
          o += sampleBytes
        }
      }
    }
  }

  /// The common case of ``packRows(_:rowBytes:width:rows:format:layout:bitDepth:bigEndian:into:)``,
  /// the same bytes faster: RGBA8 to 8-bit RGBA (the stored bytes) or RGB
  /// (opaque pixels copied, others composited over black).
  private static func packRGBA8(
    _ data: UnsafeRawPointer, rowBytes: Int, width: Int, rows: Int, alpha: Bool, into output: UnsafeMutableRawPointer,
    packedRowBytes: Int
  ) {
    for y in 0..<rows {
      let source = (data + y * rowBytes).assumingMemoryBound(to: UInt8.self)
      let target = (output + y * packedRowBytes).assumingMemoryBound(to: UInt8.self)
      if alpha {
        target.update(from: source, count: 4 * width)
        continue
      }
      for x in 0..<width {
        let a = UInt32(source[4 * x + 3])
        for c in 0..<3 {
          let v = UInt32(source[4 * x + c])
          target[3 * x + c] = a == 255 ? UInt8(truncatingIfNeeded: v) : UInt8(truncatingIfNeeded: Alpha.premultiply(v, a, max: 255))
        }
      }
    }
  }

  /// Whether every pixel of `rows` RGBA8 rows has alpha 255.
  static func isOpaque(_ data: UnsafeRawPointer, rowBytes: Int, width: Int, rows: Int) -> Bool {
    for y in 0..<rows {
      let row = (data + y * rowBytes).assumingMemoryBound(to: UInt8.self)
      var all: UInt8 = 255
      for x in 0..<width { all &= row[4 * x + 3] }
      if all != 255 { return false }
    }
    return true
  }

  /// Whether every pixel of `rows` rows of `format` has alpha 1 (255, 65535, 1.0).
  static func isOpaque(_ data: UnsafeRawPointer, rowBytes: Int, width: Int, rows: Int, format: PixelFormat) -> Bool {
    if format == .rgba8 { return isOpaque(data, rowBytes: rowBytes, width: width, rows: rows) }
    for y in 0..<rows {
      let row = data + y * rowBytes
      for x in 0..<width {
        let opaque =
          format == .rgba16
          ? row.load(fromByteOffset: 8 * x + 6, as: UInt16.self) == 65535 : row.load(fromByteOffset: 16 * x + 12, as: Float.self) == 1
        if !opaque { return false }
      }
    }
    return true
  }

  /// Rows as 8-bit RGBX: the colour composited over black, as
  /// ``packRows(_:rowBytes:width:rows:format:layout:bitDepth:bigEndian:into:)``
  /// stores RGB, then a 255.
  static func packRGBX(
    _ data: UnsafeRawPointer, rowBytes: Int, width: Int, rows: Int, format: PixelFormat, into output: UnsafeMutableRawPointer
  ) {
    let pixelBytes = format.bytesPerPixel
    for y in 0..<rows {
      let row = data + y * rowBytes
      let target = (output + y * 4 * width).assumingMemoryBound(to: UInt8.self)
      for x in 0..<width {
        let v = sample(row + x * pixelBytes, format, bitDepth: 8, straight: false)
        target[4 * x] = UInt8(truncatingIfNeeded: v.x)
        target[4 * x + 1] = UInt8(truncatingIfNeeded: v.y)
        target[4 * x + 2] = UInt8(truncatingIfNeeded: v.z)
        target[4 * x + 3] = 255
      }
    }
  }
}
