/// The metadata blocks fxc carries from a file to its output when asked
/// (`fxc run --keep-metadata`, ``ImageWriteOptions/metadata``): EXIF and XMP,
/// byte for byte, as the file held them.
///
/// Read from JPEG (APP1 segments), PNG (eXIf, and the iTXt chunk
/// "XML:com.adobe.xmp") and WebP (EXIF and "XMP " chunks); written into the
/// same three formats. TIFF, HEIC, AVIF and GIF are neither read nor written
/// (``carried(by:)``), and a caller that asked to keep them says so.
public struct ImageMetadata: Equatable, Sendable, CustomStringConvertible {
  /// The EXIF block: a TIFF structure (byte-order mark, IFDs), without JPEG's "Exif\0\0" prefix.
  public var exif: [UInt8]?
  /// The XMP packet (UTF-8 XML).
  public var xmp: [UInt8]?

  public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
    self.exif = exif
    self.xmp = xmp
  }

  /// The largest EXIF block and XMP packet a JPEG holds (one APP1 segment each, less its signature).
  public static let jpegMaxEXIF = 65533 - 6
  public static let jpegMaxXMP = 65533 - 29

  /// Whether there is nothing to carry.
  public var isEmpty: Bool { exif == nil && xmp == nil }

  /// `EXIF 1,234 bytes, XMP 5,678 bytes`, or `none`; never the bytes.
  public var description: String {
    let parts = [exif.map { "EXIF \($0.count) bytes" }, xmp.map { "XMP \($0.count) bytes" }].compactMap { $0 }
    return parts.isEmpty ? "none" : parts.joined(separator: ", ")
  }

  /// Whether files of `format` carry EXIF and XMP through fxc: JPEG, PNG, WebP.
  public static func carried(by format: ImageFileFormat) -> Bool { format == .jpeg || format == .png || format == .webp }

  /// The EXIF block to write with pixels whose EXIF orientation is
  /// `orientation` (1…8) into a `format` file: the kept block with its
  /// Orientation tag set to `orientation` (``settingOrientation(_:of:)``);
  /// with no kept block (or none with the tag to set), a block holding the
  /// tag alone when `orientation` is 2…8 and the format records it
  /// (JPEG, PNG); else nil.
  func exifBlock(orientation: Int, format: ImageFileFormat) -> [UInt8]? {
    if let exif, Self.carried(by: format), let patched = Self.settingOrientation(orientation, of: exif) { return patched }
    if let exif, Self.carried(by: format), orientation == 1 { return exif }  // no tag: upright already
    guard (2...8).contains(orientation), format == .jpeg || format == .png else { return nil }
    // A big-endian TIFF structure whose IFD0 holds the Orientation tag (0x0112, SHORT, count 1) alone.
    return [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0, 0, 0, 0, 0]
  }

  /// `exif` (a TIFF structure) with the value of IFD0's Orientation tag
  /// (0x0112, SHORT) replaced by `orientation`, in the block's own byte
  /// order; every other byte as it was (maker notes and offsets untouched).
  /// Nil when the block is not a TIFF structure or IFD0 holds no such tag.
  /// TIFF 6.0 §2 (header, IFD entries: tag, type, count, value in place when it fits 4 bytes).
  static func settingOrientation(_ orientation: Int, of exif: [UInt8]) -> [UInt8]? {
    guard exif.count >= 8 else { return nil }
    let little: Bool
    switch (exif[0], exif[1]) {
    case (0x49, 0x49): little = true
    case (0x4D, 0x4D): little = false
    default: return nil
    }
    func u16(_ i: Int) -> Int { little ? Int(exif[i]) | Int(exif[i + 1]) << 8 : Int(exif[i]) << 8 | Int(exif[i + 1]) }
    func u32(_ i: Int) -> Int { little ? u16(i) | u16(i + 2) << 16 : u16(i) << 16 | u16(i + 2) }
    guard u16(2) == 42 else { return nil }
    let ifd = u32(4)
    guard ifd >= 8, ifd + 2 <= exif.count else { return nil }
    let entries = u16(ifd)
    for k in 0..<entries {
      let e = ifd + 2 + 12 * k
      guard e + 12 <= exif.count else { return nil }
      guard u16(e) == 0x0112, u16(e + 2) == 3, u32(e + 4) >= 1 else { continue }
      var out = exif
      out[e + 8] = little ? UInt8(orientation) : 0
      out[e + 9] = little ? 0 : UInt8(orientation)
      return out
    }
    return nil
  }
}

extension ImageMetadata {
  /// What an encoder of `format` writes for pixels whose EXIF orientation is
  /// `orientation`: ``exifBlock(orientation:format:)`` and the XMP packet
  /// where the format carries it.
  func blocks(orientation: Int, format: ImageFileFormat, resolution: ImageResolution? = nil) -> MetadataBlocks {
    MetadataBlocks(
      exif: exifBlock(orientation: orientation, format: format), xmp: Self.carried(by: format) ? xmp : nil, resolution: resolution)
  }
}

/// A file's pixel density, in pixels per inch along x and y: what a print or
/// layout program sizes the image by. Read from a JPEG's JFIF header (dots
/// per inch or per centimetre, × 2.54), a PNG's pHYs chunk (per metre,
/// × 0.0254) and a TIFF's XResolution/YResolution (per inch or centimetre);
/// written to the same three (JPEG: whole dots per inch; PNG: whole pixels
/// per metre; TIFF: per inch, a float). WebP, HEIC and AVIF neither.
public struct ImageResolution: Hashable, Sendable, CustomStringConvertible {
  public var x: Double, y: Double

  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// `300 dpi`, or `300×150 dpi`.
  public var description: String {
    func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : "\((v * 100).rounded() / 100)" }
    return x == y ? "\(n(x)) dpi" : "\(n(x))×\(n(y)) dpi"
  }

  /// From a JFIF density (unit 1: per inch, 2: per centimetre); nil for unit 0 (an aspect ratio only) or a zero.
  static func jfif(unit: Int32, x: Int32, y: Int32) -> ImageResolution? {
    guard x > 0, y > 0 else { return nil }
    switch unit {
    case 1: return ImageResolution(x: Double(x), y: Double(y))
    case 2: return ImageResolution(x: Double(x) * 2.54, y: Double(y) * 2.54)
    default: return nil
    }
  }

  /// From a pHYs chunk in pixels per metre; nil for zeros.
  static func perMetre(_ x: UInt32, _ y: UInt32) -> ImageResolution? {
    x > 0 && y > 0 ? ImageResolution(x: Double(x) * 0.0254, y: Double(y) * 0.0254) : nil
  }

  /// Whole dots per inch for a JFIF header (1…65535).
  var jfifDensity: (x: Int32, y: Int32) {
    func d(_ v: Double) -> Int32 { Int32(min(max(v.rounded(), 1), 65535)) }
    return (d(x), d(y))
  }

  /// Whole pixels per metre for a pHYs chunk.
  var pixelsPerMetre: (x: UInt32, y: UInt32) {
    func m(_ v: Double) -> UInt32 { UInt32(min(max((v / 0.0254).rounded(), 1), Double(Int32.max))) }
    return (m(x), m(y))
  }
}
