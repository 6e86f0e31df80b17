// Straight ↔ premultiplied alpha, and packing buffers into the channel layouts
// that files store. Integer rules (max = 255 or 65535):
//   premultiply:   c' = (c·a + max/2) / max           (rounds to nearest)
//   unpremultiply: c  = a == 0 ? 0 : min(max, (c'·max + a/2) / a)
// For every valid premultiplied value (c' ≤ a) unpremultiply then premultiply
// gives c' back, so a premultiplied buffer survives a straight-alpha file exactly.

enum Alpha {
  /// Premultiplies one straight channel value by `a`; `max` is 255 or 65535.
  @inline(__always)
  static func premultiply(_ c: UInt32, _ a: UInt32, max: UInt32) -> UInt32 {
    (c * a + max / 2) / max
  }

  /// Un-premultiplies one channel value by `a`; `max` is 255 or 65535.
  @inline(__always)
  static func unpremultiply(_ c: UInt32, _ a: UInt32, max: UInt32) -> UInt32 {
    a == 0 ? 0 : Swift.min(max, (c * max + a / 2) / a)
  }

  /// Un-premultiplies the color of an RGBA pixel, keeping its alpha.
  @inline(__always)
  static func unpremultiply(_ v: SIMD4<UInt32>, max: UInt32) -> SIMD4<UInt32> {
    let a = v.w
    if a == max { return v }
    return SIMD4(
      unpremultiply(v.x, a, max: max), unpremultiply(v.y, a, max: max),
      unpremultiply(v.z, a, max: max), a)
  }

  /// Premultiplies, in place, an `.rgba8` buffer that holds straight alpha.
  static func premultiplyRGBA8(_ image: ImageBuffer) {
    precondition(image.format == .rgba8)
    for y in 0..<image.height {
      let row = image.data + y * image.rowBytes
      for x in 0..<image.width {
        let p = row + 4 * x
        let a = UInt32(p.load(fromByteOffset: 3, as: UInt8.self))
        if a == 255 { continue }
        for k in 0..<3 {
          let c = UInt32(p.load(fromByteOffset: k, as: UInt8.self))
          p.storeBytes(of: UInt8(premultiply(c, a, max: 255)), toByteOffset: k, as: UInt8.self)
        }
      }
    }
  }

  /// Converts, in place, an `.rgba16` buffer holding big-endian samples with
  /// straight alpha (as PNG stores them) to native-endian premultiplied.
  static func premultiplyRGBA16FromBigEndian(_ image: ImageBuffer) {
    precondition(image.format == .rgba16)
    for y in 0..<image.height {
      let row = image.data + y * image.rowBytes
      for x in 0..<image.width {
        let p = row + 8 * x
        let a = UInt32(UInt16(bigEndian: p.loadUnaligned(fromByteOffset: 6, as: UInt16.self)))
        for k in 0..<4 {
          let raw = UInt32(
            UInt16(bigEndian: p.loadUnaligned(fromByteOffset: 2 * k, as: UInt16.self)))
          let c = k == 3 || a == 65535 ? raw : premultiply(raw, a, max: 65535)
          p.storeBytes(of: UInt16(c), toByteOffset: 2 * k, as: UInt16.self)
        }
      }
    }
  }
}

enum Packing {
  /// The pixel at (`x`, `y`) as integers of `bitDepth` 8 or 16 bits: straight
  /// alpha when `straight`, otherwise premultiplied (the color composited
  /// over black). rgba32f is quantised per DESIGN §1 (NaN → 0, clamp to 0…1,
  /// round to nearest); it is un-premultiplied in float, before quantising.
  @inline(__always)
  static func sample(_ image: ImageBuffer, _ x: Int, _ y: Int, bitDepth: Int, straight: Bool)
    -> SIMD4<UInt32>
  {
    let p = image.data + y * image.rowBytes + x * image.format.bytesPerPixel
    switch image.format {
    case .rgba8:
      var v = SIMD4<UInt32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD4<UInt8>.self))
      if straight { v = Alpha.unpremultiply(v, max: 255) }
      return bitDepth == 16 ? v &* 257 : v
    case .rgba16:
      var v = SIMD4<UInt32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD4<UInt16>.self))
      if straight { v = Alpha.unpremultiply(v, max: 65535) }
      return bitDepth == 8 ? (v &* 255 &+ 32767) / 65535 : v
    case .rgba32f:
      var f = p.loadUnaligned(as: SIMD4<Float>.self)
      if straight {
        let a = f.w.isNaN ? 0 : Swift.min(Swift.max(f.w, 0), 1)
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
  /// 16 bits (big-endian) per sample. Layouts with alpha store straight
  /// alpha; layouts without store the premultiplied color, i.e. the image
  /// composited over black.
  static func pack(_ image: ImageBuffer, layout: ChannelLayout, bitDepth: Int) -> (
    bytes: [UInt8], rowBytes: Int
  ) {
    let channels = layout.channelCount
    let sampleBytes = bitDepth / 8
    let rowBytes = image.width * channels * sampleBytes
    var bytes = [UInt8](repeating: 0, count: rowBytes * image.height)
    bytes.withUnsafeMutableBytes { out in
      let base = out.baseAddress!
      for y in 0..<image.height {
        var o = base + y * rowBytes
        for x in 0..<image.width {
          let v = sample(image, x, y, bitDepth: bitDepth, straight: layout.hasAlpha)
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
              o.storeBytes(
                of: UInt16(truncatingIfNeeded: s[k]).bigEndian, toByteOffset: 0, as: UInt16.self)
            }
            o += sampleBytes
          }
        }
      }
    }
    return (bytes, rowBytes)
  }
}
