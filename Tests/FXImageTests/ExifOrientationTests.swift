import Foundation
import Testing

@testable import FXImage

/// Issue 16: the EXIF orientation is read by libexif wherever the block is
/// (after any amount of other segments, in a PNG eXIf chunk) and however the
/// tag is stored (SHORT or LONG).
@Suite struct ExifOrientationReading {
  /// A TIFF structure (little- or big-endian) whose IFD0 holds a Software
  /// entry and the Orientation, stored with TIFF type `type` (3 SHORT, 4 LONG).
  static func tiff(orientation: Int, type: Int, littleEndian: Bool) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
    var t: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(2)
    t += u16(0x0131) + u16(2) + u32(4) + [0x66, 0x78, 0x63, 0]  // Software "fxc"
    t += u16(0x0112) + u16(type) + u32(1) + (type == 3 ? u16(orientation) + [0, 0] : u32(orientation))
    return t + u32(0)
  }

  /// A JPEG segment: marker, big-endian length, body.
  static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
    [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
  }

  /// `fixture` with `segments` inserted after SOI.
  static func jpeg(inserting segments: [UInt8]) throws -> [UInt8] {
    let data = try bytes(of: fixture("color_dc.jpg"))
    return Array(data[..<2]) + segments + Array(data[2...])
  }

  func orientation(of file: [UInt8], ext: String = "jpg") throws -> Int {
    let dir = try TemporaryDirectory()
    try writeBytes(file, to: dir.file("a.\(ext)"))
    return try ImageFile.read(dir.file("a.\(ext)")).1.orientation
  }

  @Test(arguments: [3, 4], [true, false])
  func shortAndLongInEitherByteOrder(type: Int, littleEndian: Bool) throws {
    for o in [1, 3, 6, 8] {
      let exif = Self.segment(0xE1, Array("Exif".utf8) + [0, 0] + Self.tiff(orientation: o, type: type, littleEndian: littleEndian))
      #expect(try orientation(of: Self.jpeg(inserting: exif)) == o, "type \(type)")
    }
  }

  @Test func afterMoreThan128KiBOfOtherSegments() throws {
    // Three full comment segments (3 × 65,533 bytes) before the EXIF block.
    let comments = (0..<3).flatMap { _ in Self.segment(0xFE, [UInt8](repeating: 0x20, count: 65_531)) }
    let exif = Self.segment(0xE1, Array("Exif".utf8) + [0, 0] + Self.tiff(orientation: 6, type: 3, littleEndian: false))
    #expect(comments.count > 128 << 10)
    #expect(try orientation(of: Self.jpeg(inserting: comments + exif)) == 6)
  }

  @Test func noneOrInvalidIsUpright() throws {
    #expect(try ImageFile.read(fixture("color_dc.jpg")).1.orientation == 1)
    let nine = Self.segment(0xE1, Array("Exif".utf8) + [0, 0] + Self.tiff(orientation: 9, type: 3, littleEndian: true))
    #expect(try orientation(of: Self.jpeg(inserting: nine)) == 1)
    let garbage = Self.segment(0xE1, Array("Exif".utf8) + [0, 0] + [UInt8](repeating: 0xA7, count: 40))
    #expect(try orientation(of: Self.jpeg(inserting: garbage)) == 1)
  }

  @Test(arguments: [true, false])
  func pngExifChunkBeforeOrAfterTheImageData(before: Bool) throws {
    let data = try bytes(of: fixture("rgb8.png"))
    let chunk = pngChunk("eXIf", Self.tiff(orientation: 8, type: 3, littleEndian: true))
    // After IHDR (8 + 25 bytes), or just before IEND (the last 12 bytes).
    let at = before ? 33 : data.count - 12
    let png = Array(data[..<at]) + chunk + Array(data[at...])
    #expect(try orientation(of: png, ext: "png") == 8)
  }

  @Test func orientedTurnsThePixelsUpright() throws {
    // 3×2: stored rows [a b c] [d e f]; orientation 6 (rotate 90° clockwise to display) gives 2×3.
    let image = try makeImage(width: 3, height: 2, format: .rgba8) { x, y in [10 * (3 * y + x), 0, 0, 255] }
    let upright = try image.oriented(6)
    #expect(upright.width == 2 && upright.height == 3)
    #expect(pixels(upright).map { $0[0] } == [30, 0, 40, 10, 50, 20])
    #expect(try image.oriented(1) === image)
  }
}
