import Foundation
import Testing

@testable import FXImage

/// Issue 17: TIFF through libtiff — 8- and 16-bit, gray/RGB with and without
/// alpha, striped and tiled, associated alpha divided out, profiles and
/// orientation carried, bad files refused with a message.
@Suite struct TIFFFiles {
  /// A straight-alpha test image: gradients and several alphas (opaque when `opaque`).
  static func image(_ format: PixelFormat, opaque: Bool = false) throws -> ImageBuffer {
    let max = format == .rgba16 ? 65535 : 255
    return try makeImage(width: 37, height: 21, format: format) { x, y in
      let a = opaque ? max : [max, max / 2, max / 5, 0, max][(x + y) % 5]
      return [x * max / 36, y * max / 20, (x * y * 7) % (max + 1), a]
    }
  }

  @Test(arguments: [PixelFormat.rgba8, .rgba16], [ChannelLayout.gray, .grayAlpha, .rgb, .rgba])
  func roundTripsExactly(format: PixelFormat, layout: ChannelLayout) throws {
    let dir = try TemporaryDirectory()
    let image = try Self.image(format, opaque: !layout.hasAlpha)
    let bits = format == .rgba16 ? 16 : 8
    for level in [0, 6] {
      try ImageFile.write(image, to: dir.file("a.tif"), layout: layout, bitDepth: bits, pngCompressionLevel: level)
      let (read, info) = try ImageFile.read(dir.file("a.tif"))
      #expect(info.format == .tiff && info.layout == layout && info.bitDepth == bits)
      // The same file as a PNG is the reference: both store exactly these samples.
      try ImageFile.write(image, to: dir.file("a.png"), layout: layout, bitDepth: bits)
      let (png, _) = try ImageFile.read(dir.file("a.png"))
      #expect(pixels(read) == pixels(png), "\(layout) \(bits)-bit level \(level)")
    }
  }

  @Test func tiledFilesReadAsStripedOnes() throws {
    let dir = try TemporaryDirectory()
    let image = try Self.image(.rgba16)
    let tiled = try TIFFCodec.encode(image, layout: .rgba, bitDepth: 16, level: 6, iccProfile: nil, tile: 16)
    try tiled.withBytes { try FileSystem.writeAtomically($0, to: dir.file("t.tif")) }
    let (read, info) = try ImageFile.read(dir.file("t.tif"))
    #expect(info.width == 37 && info.height == 21 && info.bitDepth == 16)
    #expect(pixels(read) == pixels(image))
  }

  @Test func profileAndOrientationAreCarried() throws {
    let dir = try TemporaryDirectory()
    let profile = try ICCProfile.adobeRGB()
    try ImageFile.write(try Self.image(.rgba8, opaque: true), to: dir.file("p.tiff"), layout: .rgb, iccProfile: profile)
    let (_, info) = try ImageFile.read(dir.file("p.tiff"))
    #expect(info.iccProfile == profile && info.orientation == 1)
    // Orientation 6 in the file's tag (offset of the tag's value patched in place).
    var data = try bytes(of: dir.file("p.tiff"))
    let ifd = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
    let count = Int(data[ifd]) | Int(data[ifd + 1]) << 8
    let entry = try #require((0..<count).map { ifd + 2 + 12 * $0 }.first { data[$0] == 0x12 && data[$0 + 1] == 0x01 })
    data[entry + 8] = 6
    try writeBytes(data, to: dir.file("o.tif"))
    #expect(try ImageFile.read(dir.file("o.tif")).1.orientation == 6)
  }

  @Test func associatedAlphaIsDividedOut() throws {
    let dir = try TemporaryDirectory()
    let image = try Self.image(.rgba8)
    try ImageFile.write(image, to: dir.file("u.tif"), pngCompressionLevel: 0)
    // The ExtraSamples tag (338) says 2, unassociated: make it 1, associated.
    var data = try bytes(of: dir.file("u.tif"))
    let ifd = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
    let count = Int(data[ifd]) | Int(data[ifd + 1]) << 8
    let entry = try #require((0..<count).map { ifd + 2 + 12 * $0 }.first { data[$0] == 0x52 && data[$0 + 1] == 0x01 })
    #expect(data[entry + 8] == 2)
    data[entry + 8] = 1
    try writeBytes(data, to: dir.file("a.tif"))
    let (read, _) = try ImageFile.read(dir.file("a.tif"))
    for (got, stored) in zip(pixels(read), pixels(image)) {
      let a = stored[3]
      let want = stored[0..<3].map { a == 0 ? 0 : min(255, ($0 * 255 + a / 2) / a) } + [a]
      #expect(got == want, "stored \(stored)")
    }
  }

  @Test func everyPrefixIsRefused() throws {
    let dir = try TemporaryDirectory()
    try ImageFile.write(try Self.image(.rgba8), to: dir.file("a.tif"), pngCompressionLevel: 0)
    let data = try bytes(of: dir.file("a.tif"))
    #expect(decodablePrefixes(of: data, lengths: stride(from: 1, to: data.count, by: 97)) == [])
  }

  @Test func garbageAfterTheHeaderIsACorruptFile() throws {
    let dir = try TemporaryDirectory()
    try writeBytes([0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0xFF, 0x7F] + [UInt8](repeating: 0x33, count: 100), to: dir.file("bad.tif"))
    do {
      _ = try ImageFile.read(dir.file("bad.tif"))
      Issue.record("read a corrupt TIFF")
    } catch let e as ImageFileError {
      #expect(e.reason.hasPrefix("corrupt or truncated TIFF data"), "\(e)")
    }
  }
}

/// Issue 17: the page of a multi-page TIFF that the caller asks for (the
/// first by default), whole or streamed; a page the file lacks is an error.
@Suite struct TIFFPages {
  /// A little-endian TIFF of 8-bit gray, uncompressed pages, one strip each,
  /// written field by field (TIFF 6.0, §2 and §8): page k is `sizes[k]`, pixel
  /// (x, y) = 10·k + x + y.
  static func multiPage(_ sizes: [(Int, Int)]) -> [UInt8] {
    var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    func u32(_ v: Int) {
      u16(v & 0xFFFF)
      u16(v >> 16)
    }
    for (k, (w, h)) in sizes.enumerated() {
      let entries = 9
      let ifdEnd = out.count + 2 + entries * 12 + 4
      let pixels = ifdEnd
      let next = k == sizes.count - 1 ? 0 : pixels + w * h
      u16(entries)
      for (tag, type, value) in [
        (256, 3, w), (257, 3, h), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, pixels), (277, 3, 1), (278, 3, h),
        (279, 4, w * h),
      ] {
        u16(tag)
        u16(type)
        u32(1)
        if type == 3 {
          u16(value)
          u16(0)
        } else {
          u32(value)
        }
      }
      u32(next)
      for y in 0..<h { for x in 0..<w { out.append(UInt8(10 * k + x + y)) } }
    }
    return out
  }

  @Test func thePageAskedForIsRead() throws {
    let dir = try TemporaryDirectory()
    try writeBytes(Self.multiPage([(3, 2), (5, 4)]), to: dir.file("m.tif"))
    let (first, info) = try ImageFile.read(dir.file("m.tif"))
    func rgba(_ image: ImageBuffer, _ x: Int, _ y: Int) -> [UInt8] {
      (0..<4).map { image.data.load(fromByteOffset: y * image.rowBytes + 4 * x + $0, as: UInt8.self) }
    }
    #expect(info.pageCount == 2 && first.width == 3 && first.height == 2 && rgba(first, 2, 1) == [3, 3, 3, 255])
    let (second, _) = try ImageFile.read(dir.file("m.tif"), options: ImageReadOptions(page: 1))
    #expect(second.width == 5 && second.height == 4)
    #expect(rgba(second, 4, 3) == [17, 17, 17, 255])
    #expect(throws: ImageFileError(path: dir.file("m.tif"), reason: "page 2 was asked for, but the file has 2 pages (0…1)")) {
      try ImageFile.read(dir.file("m.tif"), options: ImageReadOptions(page: 2))
    }
    // Streamed: the same page.
    let reader = try #require(try ImageRowReader.open(dir.file("m.tif"), options: ImageReadOptions(page: 1)))
    #expect(reader.info.width == 5 && reader.info.pageCount == 2)
    #expect(try ImageRows.readAll(reader, piece: 3) == ImageRows.pixels(second))
  }

  @Test func otherFormatsHaveOnePage() throws {
    #expect(throws: ImageFileError(path: fixture("rgb8.png"), reason: "page 1 was asked for, but a PNG file has one page (0)")) {
      try ImageFile.read(fixture("rgb8.png"), options: ImageReadOptions(page: 1))
    }
    #expect(throws: ImageFileError.self) { try ImageRowReader.open(fixture("color_dc.jpg"), options: ImageReadOptions(page: 1)) }
  }
}
