import Foundation
import Testing

@testable import FXImage

/// EXIF and XMP carried byte for byte through JPEG, PNG and WebP (issue 37:
/// `--keep-metadata`), the Orientation tag set in place.
@Suite struct MetadataTests {
  /// A TIFF structure: IFD0 with Software "fxc", Orientation `orientation` and Artist "me", in either byte order.
  static func exif(orientation: Int, little: Bool) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
    var tiff: [UInt8] = (little ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(3)
    tiff += u16(0x0131) + u16(2) + u32(4) + [0x66, 0x78, 0x63, 0]
    tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
    tiff += u16(0x013B) + u16(2) + u32(3) + [0x6D, 0x65, 0, 0]
    return tiff + u32(0)
  }

  static let xmp = Array(
    """
    <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
    xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" \
    dc:format="image/jpeg"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
    """.utf8)

  @Test func theOrientationTagIsSetInPlaceInEitherByteOrder() {
    for little in [true, false] {
      let block = Self.exif(orientation: 6, little: little)
      let set = ImageMetadata.settingOrientation(1, of: block)
      #expect(set == Self.exif(orientation: 1, little: little), "little-endian: \(little)")
    }
    #expect(ImageMetadata.settingOrientation(1, of: Array("not a TIFF structure".utf8)) == nil)
    #expect(ImageMetadata.settingOrientation(1, of: Array(Self.exif(orientation: 6, little: true).prefix(20))) == nil)
  }

  @Test(arguments: [ImageFileFormat.jpeg, .png, .webp])
  func exifAndXMPRoundTrip(format: ImageFileFormat) throws {
    let image = try ImageBuffer(width: 8, height: 4, format: .rgba8)
    for y in 0..<4 { for x in 0..<8 { image[x, y] = SIMD4(Float(x) / 8, Float(y) / 4, 0.5, 1) } }
    let kept = ImageMetadata(exif: Self.exif(orientation: 6, little: true), xmp: Self.xmp)
    // Pixels turned upright: the tag says 1, every other byte as it was.
    let upright = try ImageFile.read(bytes: try ImageFile.encode(image, format: format, layout: .rgb, metadata: kept)).1
    #expect(upright.metadata == ImageMetadata(exif: Self.exif(orientation: 1, little: true), xmp: Self.xmp), "\(upright)")
    #expect(upright.orientation == 1)
    // Pixels as stored: the tag keeps 6, and the reader (libexif) sees it.
    let stored = try ImageFile.read(bytes: try ImageFile.encode(image, format: format, layout: .rgb, orientation: 6, metadata: kept)).1
    #expect(stored.metadata == kept && stored.orientation == 6)
    // Nothing asked: nothing written (and the orientation alone where the format records it).
    let plain = try ImageFile.read(bytes: try ImageFile.encode(image, format: format, layout: .rgb)).1
    #expect(plain.metadata.isEmpty)
    #expect(try ImageFile.read(bytes: try ImageFile.encode(image, format: .tiff, layout: .rgb, metadata: kept)).1.metadata.isEmpty)
  }

  /// The streamed writer writes the bytes the whole-image writer does, metadata included.
  @Test(arguments: [ImageFileFormat.jpeg, .png])
  func theStreamedFileHasTheSameBytes(format: ImageFileFormat) throws {
    let dir = try TemporaryDirectory()
    let image = try ImageBuffer(width: 16, height: 8, format: .rgba8)
    for y in 0..<8 { for x in 0..<16 { image[x, y] = SIMD4(Float(x) / 16, 0.2, Float(y) / 8, 1) } }
    let kept = ImageMetadata(exif: Self.exif(orientation: 3, little: false), xmp: Self.xmp)
    let path = dir.file("streamed.\(format.preferredExtension)")
    var options = ImageWriteOptions(format: format, layout: .rgb)
    options.metadata = kept
    let writer = try ImageRowWriter(path: path, width: 16, height: 8, options: options)
    try writer.write(image.data, rowBytes: image.rowBytes, format: .rgba8, count: 8)
    try writer.finish()
    let whole = try ImageFile.encode(image, format: format, layout: .rgb, metadata: kept)
    #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == whole)
    #expect(try ImageRowReader.open(path)?.info.metadata.xmp == Self.xmp)
  }

  @Test func describedBySizesNotBytes() {
    let m = ImageMetadata(exif: [UInt8](repeating: 0, count: 1234), xmp: Self.xmp)
    #expect(m.description == "EXIF 1234 bytes, XMP \(Self.xmp.count) bytes")
  }
}

/// The pixel density survives a read and a write (JPEG's JFIF header, PNG's
/// pHYs): a 300-dpi scan stays 300 dpi (issue 37's new-user trial found it lost).
@Suite struct ResolutionTests {
  static func image() throws -> ImageBuffer {
    let image = try ImageBuffer(width: 9, height: 5, format: .rgba8)
    for y in 0..<5 { for x in 0..<9 { image[x, y] = SIMD4(Float(x) / 9, Float(y) / 5, 0.3, 1) } }
    return image
  }

  @Test func densityRoundTripsThroughJPEGAndPNG() throws {
    let dpi = ImageResolution(x: 300, y: 150)
    let jpeg = try ImageFile.read(bytes: try ImageFile.encode(try Self.image(), format: .jpeg, layout: .rgb, resolution: dpi)).1
    #expect(jpeg.resolution == dpi, "\(jpeg)")
    let png = try ImageFile.read(bytes: try ImageFile.encode(try Self.image(), format: .png, layout: .rgb, resolution: dpi)).1
    // pHYs holds whole pixels per metre: 11811 and 5906 (300 and 150 dpi, rounded).
    let r = try #require(png.resolution)
    #expect(Swift.abs(r.x - 300) < 0.01 && Swift.abs(r.y - 150) < 0.02, "\(r)")
    // Back to JPEG: whole dots per inch again.
    let again = try ImageFile.read(bytes: try ImageFile.encode(try Self.image(), format: .jpeg, layout: .rgb, resolution: r)).1
    #expect(again.resolution == dpi)
    #expect(try ImageFile.read(bytes: try ImageFile.encode(try Self.image(), format: .png, layout: .rgb)).1.resolution == nil)
    #expect(jpeg.description.contains("300×150 dpi"))
    let tiff = try ImageFile.read(bytes: try ImageFile.encode(try Self.image(), format: .tiff, layout: .rgb, resolution: dpi)).1
    #expect(tiff.resolution == dpi, "\(tiff)")
  }

  /// A JFIF density in dots per centimetre reads as inches (× 2.54); JFIF's default, unit 0, as none.
  @Test func jfifUnitsAreRead() throws {
    var bytes = try ImageFile.encode(try Self.image(), format: .jpeg, layout: .rgb)
    // SOI, then APP0: FF E0, length, "JFIF\0", version (2), units (1), X density (2), Y density (2).
    #expect(Array(bytes[6..<11]) == Array("JFIF\0".utf8))
    #expect(try ImageFile.read(bytes: bytes).1.resolution == nil, "unit 0: an aspect ratio only")
    bytes[13] = 2
    (bytes[14], bytes[15], bytes[16], bytes[17]) = (0, 118, 0, 118)
    let r = try #require(try ImageFile.read(bytes: bytes).1.resolution)
    #expect(Swift.abs(r.x - 299.72) < 1e-9 && r.x == r.y, "\(r)")
  }
}
