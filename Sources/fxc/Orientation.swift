import FX

#if canImport(Glibc)
  import Glibc
#endif

/// EXIF orientation (tag 0x0112), read from a JPEG's APP1 segment by walking
/// the file's markers ourselves — libjpeg-turbo does not interpret it and
/// FXImage does not expose markers — and applied to the decoded pixels so the
/// effects see the picture upright, as a viewer shows it.
///
/// Values, as the EXIF specification numbers them (row 0 / column 0 of the
/// stored image is at …): 1 top-left (as stored), 2 mirrored, 3 rotated 180°,
/// 4 flipped, 5 transposed, 6 rotated 90° clockwise to display, 7 transversed,
/// 8 rotated 90° counter-clockwise to display.
enum ExifOrientation {
  /// How much of the file to look at: EXIF sits in the first segments, and one
  /// segment is at most 64 KiB.
  static let headBytes: Int = 1 << 17

  /// The orientation recorded in the JPEG at `path`, or `nil` when there is
  /// none (not a JPEG, no EXIF, no tag, or an invalid value).
  static func read(path: String) -> Int? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var head = [UInt8](repeating: 0, count: headBytes)
    var count = 0
    while count < head.count {
      let n = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      count += n
    }
    return parse(jpeg: head[..<count])
  }

  /// The orientation in a JPEG file's first bytes.
  static func parse(jpeg bytes: ArraySlice<UInt8>) -> Int? {
    let b = Array(bytes)
    guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
    var i = 2
    while i + 4 <= b.count {
      guard b[i] == 0xFF else { return nil }
      let marker = b[i + 1]
      if marker == 0xFF {
        i += 1
        continue
      }  // fill byte
      if marker == 0xDA || marker == 0xD9 { return nil }  // image data begins: no EXIF before it
      if (0xD0...0xD7).contains(marker) || marker == 0x01 {
        i += 2
        continue
      }
      let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
      guard length >= 2 else { return nil }
      let start = i + 4, end = min(b.count, i + 2 + length)
      let exif: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
      if marker == 0xE1, end - start >= 6, Array(b[start..<start + 6]) == exif {
        return parse(tiff: b[(start + 6)..<end])
      }
      i += 2 + length
    }
    return nil
  }

  /// The Orientation entry of IFD0 in a TIFF structure (the EXIF payload).
  static func parse(tiff slice: ArraySlice<UInt8>) -> Int? {
    let t = Array(slice)
    guard t.count >= 8 else { return nil }
    let little: Bool
    switch (t[0], t[1]) {
    case (0x49, 0x49): little = true
    case (0x4D, 0x4D): little = false
    default: return nil
    }
    func u16(_ at: Int) -> Int? {
      guard at >= 0, at + 2 <= t.count else { return nil }
      return little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1])
    }
    func u32(_ at: Int) -> Int? {
      guard let a = u16(at), let b = u16(at + 2) else { return nil }
      return little ? a | b << 16 : a << 16 | b
    }
    guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
    for e in 0..<entries {
      let entry = ifd + 2 + 12 * e
      guard let tag = u16(entry) else { return nil }
      guard tag == 0x0112 else { continue }
      // Type SHORT, one value, stored in the first two bytes of the value field.
      guard u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
      return value
    }
    return nil
  }

  /// `image` turned upright for `orientation`: a new buffer (width and height
  /// swapped for 5–8), or `image` itself for 1.
  static func apply(_ orientation: Int, to image: ImageBuffer) throws -> ImageBuffer {
    guard (2...8).contains(orientation) else { return image }
    let w = image.width, h = image.height
    let swaps = orientation >= 5
    let out = try ImageBuffer(width: swaps ? h : w, height: swaps ? w : h, format: image.format, zeroFilled: false)
    // Where the source pixel of output (x, y) is.
    let source: (Int, Int) -> (Int, Int) =
      switch orientation {
      case 2: { x, y in (w - 1 - x, y) }
      case 3: { x, y in (w - 1 - x, h - 1 - y) }
      case 4: { x, y in (x, h - 1 - y) }
      case 5: { x, y in (y, x) }
      case 6: { x, y in (y, h - 1 - x) }
      case 7: { x, y in (w - 1 - y, h - 1 - x) }
      default: { x, y in (w - 1 - y, x) }
      }
    switch image.format.bytesPerPixel {
    case 4: remap(image, out, UInt32.self, source)
    case 8: remap(image, out, UInt64.self, source)
    default: remap(image, out, SIMD4<Float>.self, source)
    }
    return out
  }

  private static func remap<P>(_ src: ImageBuffer, _ dst: ImageBuffer, _: P.Type, _ source: (Int, Int) -> (Int, Int)) {
    for y in 0..<dst.height {
      let row = (dst.data + y * dst.rowBytes).assumingMemoryBound(to: P.self)
      for x in 0..<dst.width {
        let (sx, sy) = source(x, y)
        row[x] = (src.data + sy * src.rowBytes).assumingMemoryBound(to: P.self)[sx]
      }
    }
  }
}
