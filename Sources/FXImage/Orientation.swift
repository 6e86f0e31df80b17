/// EXIF orientation applied to decoded pixels, so effects see the picture
/// upright, as a viewer shows it. The tag itself is read by libexif
/// (``ImageFileInfo/orientation``).
extension ImageBuffer {
  /// The image turned upright for an EXIF `orientation`
  /// (``ImageFileInfo/orientation``): a new buffer (width and height swapped
  /// for 5–8), or the image itself for 1 or a value outside 1…8.
  ///
  /// Values, as the EXIF specification (CIPA DC-008, tag 0x0112) numbers
  /// them — where row 0 / column 0 of the stored image is: 1 top-left (as
  /// stored), 2 mirrored, 3 rotated 180°, 4 flipped, 5 transposed, 6 rotated
  /// 90° clockwise to display, 7 transversed, 8 rotated 90° counter-clockwise
  /// to display.
  /// - Throws: ``ImageBufferError/outOfMemory(bytes:)``.
  public func oriented(_ orientation: Int) throws -> ImageBuffer {
    let image = self
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
    case 4: Self.remap(image, out, UInt32.self, source)
    case 8: Self.remap(image, out, UInt64.self, source)
    default: Self.remap(image, out, SIMD4<Float>.self, source)
    }
    return out
  }

  /// Where stored pixel `(x, y)` of a `w × h` image goes in the image
  /// ``oriented(_:)`` makes of it for `orientation` (2…8): the inverse of
  /// its map, for a decoder that stores pixels turned as it decodes them.
  static func turnedPosition(_ orientation: Int, width w: Int, height h: Int) -> (Int, Int) -> (Int, Int) {
    switch orientation {
    case 2: { x, y in (w - 1 - x, y) }
    case 3: { x, y in (w - 1 - x, h - 1 - y) }
    case 4: { x, y in (x, h - 1 - y) }
    case 5: { x, y in (y, x) }
    case 6: { x, y in (h - 1 - y, x) }
    case 7: { x, y in (h - 1 - y, w - 1 - x) }
    default: { x, y in (y, w - 1 - x) }
    }
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
