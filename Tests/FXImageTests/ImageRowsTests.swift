import Foundation
import Testing

@testable import FXImage

/// Issue 17: files read and written a band of rows at a time give the bytes
/// that whole-image reads and writes give; files that cannot stream say so by
/// returning nil; bad files fail with the whole read's message and leave nothing.
@Suite struct ImageRows {
  /// All rows of `reader`, read in pieces of `piece` rows.
  static func readAll(_ reader: ImageRowReader, piece: Int) throws -> [UInt8] {
    let rowBytes = reader.info.width * reader.pixelFormat.bytesPerPixel
    var out = [UInt8](repeating: 0, count: rowBytes * reader.info.height)
    try out.withUnsafeMutableBytes { b in
      while reader.rowsRead < reader.info.height {
        let n = min(piece, reader.info.height - reader.rowsRead)
        try reader.read(into: b.baseAddress! + reader.rowsRead * rowBytes, rowBytes: rowBytes, count: n)
      }
    }
    try reader.finish()
    return out
  }

  static func pixels(_ image: ImageBuffer) -> [UInt8] { Array(UnsafeRawBufferPointer(start: image.data, count: image.byteCount)) }

  /// Streams `path` and compares with ImageFile.read: same pixels, same info.
  static func expectSameAsWholeRead(_ path: String, piece: Int = 7) throws {
    let (image, info) = try ImageFile.read(path)
    let reader = try #require(try ImageRowReader.open(path), "\(path) should stream")
    #expect(reader.info.layout == info.layout && reader.info.bitDepth == info.bitDepth)
    #expect(reader.info.width == info.width && reader.info.height == info.height)
    #expect(reader.info.iccProfile?.data == info.iccProfile?.data && reader.info.orientation == info.orientation)
    #expect(reader.pixelFormat == image.format)
    #expect(try readAll(reader, piece: piece) == pixels(image), "\(path)")
  }

  @Test(arguments: [
    "rgb8.png", "rgba8.png", "gray8.png", "graya8.png", "gray4.png", "palette8.png", "palette_trns.png",
    "gray_trns.png", "basn0g16.png", "basn2c16.png", "basn4a16.png", "basn6a16.png", "gray_dc.jpg", "color_dc.jpg",
  ])
  func fixturesStreamToTheirWholeReadBytes(name: String) throws {
    try Self.expectSameAsWholeRead(fixture(name))
  }

  @Test func theRealPhotoStreamsToItsWholeReadBytes() throws {
    let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/rocket.jpg").path
    try Self.expectSameAsWholeRead(photo, piece: 16)
  }

  /// TIFF: 8 and 16 bits, striped (ImageFile's writer) and tiled (16×16 tiles), with alpha.
  @Test(arguments: [PixelFormat.rgba8, .rgba16], [0, 16])
  func tiffsStreamToTheirWholeReadBytes(format: PixelFormat, tile: Int) throws {
    let dir = try TemporaryDirectory()
    let image = try TIFFFiles.image(format)
    let encoded = try TIFFCodec.encode(image, layout: .rgba, bitDepth: format == .rgba16 ? 16 : 8, level: 6, iccProfile: nil, tile: tile)
    try encoded.withBytes { try FileSystem.writeAtomically($0, to: dir.file("t.tif")) }
    try Self.expectSameAsWholeRead(dir.file("t.tif"), piece: 5)
  }

  /// The rule: interlaced PNG, CMYK JPEG, WebP, a profile to convert are read whole.
  @Test func filesThatAreReadWholeGiveNil() throws {
    for name in ["rgb_interlaced.png", "cmyk_dc.jpg"] {
      #expect(try ImageRowReader.open(fixture(name)) == nil, "\(name)")
      _ = try ImageFile.read(fixture(name))  // and the whole read reads them
    }
    let dir = try TemporaryDirectory()
    let image = try TIFFFiles.image(.rgba8)
    try ImageFile.write(image, to: dir.file("a.webp"), lossless: true)
    #expect(try ImageRowReader.open(dir.file("a.webp")) == nil)
    try ImageFile.write(image, to: dir.file("p.png"), iccProfile: try ICCProfile.displayP3())
    #expect(try ImageRowReader.open(dir.file("p.png"))?.info.iccProfile != nil)
    #expect(try ImageRowReader.open(dir.file("p.png"), options: ImageReadOptions(convertToSRGB: true)) == nil)
  }

  /// Every layout and depth of PNG and TIFF, and JPEG: the streamed file is
  /// the whole-image writer's file, byte for byte, written in pieces of 3 rows.
  @Test(arguments: [ImageFileFormat.png, .tiff, .jpeg], [ChannelLayout.gray, .grayAlpha, .rgb, .rgba])
  func writtenRowsAreTheWholeWritersFile(format: ImageFileFormat, layout: ChannelLayout) throws {
    let dir = try TemporaryDirectory()
    for source in [PixelFormat.rgba8, .rgba16, .rgba32f] {
      let image = try TIFFFiles.image(source == .rgba32f ? .rgba8 : source).copy(as: source)
      for depth in format == .jpeg ? [8] : [8, 16] {
        let whole = dir.file("whole.\(format.preferredExtension)"), rows = dir.file("rows.\(format.preferredExtension)")
        try ImageFile.write(image, to: whole, layout: layout, bitDepth: depth, iccProfile: nil)
        try? FileManager.default.removeItem(atPath: rows)
        let writer = try ImageRowWriter(
          path: rows, width: image.width, height: image.height, options: ImageWriteOptions(layout: layout, bitDepth: depth))
        var y = 0
        while y < image.height {
          let n = min(3, image.height - y)
          try writer.write(image.data + y * image.rowBytes, rowBytes: image.rowBytes, format: source, count: n)
          y += n
        }
        #expect(try dir.contents().contains { $0.hasPrefix(".rows.\(format.preferredExtension).tmp-") })
        #expect(!FileManager.default.fileExists(atPath: rows), "nothing at the destination before finish")
        try writer.finish()
        #expect(try bytes(of: rows) == bytes(of: whole), "\(format) \(layout) \(source) \(depth)-bit")
      }
    }
  }

  /// An opaque RGBA8 image goes to libjpeg as RGBX, unpacked (whole or in
  /// rows); the same pixels as RGBA16 are packed to RGB first: the files are
  /// the same bytes.
  @Test func rgbxAndPackedRGBGiveTheSameJPEG() throws {
    let dir = try TemporaryDirectory()
    let opaque = try TIFFFiles.image(.rgba8, opaque: true)
    #expect(opaque.isOpaque)
    try ImageFile.write(opaque, to: dir.file("rgbx.jpg"))
    try ImageFile.write(try opaque.copy(as: .rgba16), to: dir.file("rgb.jpg"))
    let writer = try ImageRowWriter(path: dir.file("rows.jpg"), width: opaque.width, height: opaque.height, options: ImageWriteOptions())
    try writer.write(opaque.data, rowBytes: opaque.rowBytes, format: .rgba8, count: opaque.height)
    try writer.finish()
    #expect(try bytes(of: dir.file("rgbx.jpg")) == bytes(of: dir.file("rgb.jpg")))
    #expect(try bytes(of: dir.file("rows.jpg")) == bytes(of: dir.file("rgb.jpg")))
  }

  /// A writer dropped before finish (an error upstream, a stop) leaves no file and no temporary.
  @Test func anUnfinishedWriterLeavesNothing() throws {
    let dir = try TemporaryDirectory()
    let image = try TIFFFiles.image(.rgba8)
    do {
      let writer = try ImageRowWriter(path: dir.file("out.png"), width: image.width, height: image.height, options: ImageWriteOptions())
      try writer.write(image.data, rowBytes: image.rowBytes, format: .rgba8, count: 4)
      #expect(throws: ImageFileError.self) { try writer.finish() }  // rows missing
    }
    #expect(try dir.contents().isEmpty)
    #expect(throws: ImageFileError.self) {
      try ImageRowWriter(path: dir.file("out.webp"), width: 4, height: 4, options: ImageWriteOptions())
    }
    #expect(throws: ImageFileError.self) {
      try ImageRowWriter(path: dir.file("out.jpg"), width: 4, height: 4, options: ImageWriteOptions(quality: 0))
    }
    #expect(try dir.contents().isEmpty)
  }

  /// A file cut short fails with the whole read's message, on the row where the data ends or at finish.
  @Test(arguments: ["rgb8.png", "color_dc.jpg", "tiff"])
  func aTruncatedFileFailsLikeTheWholeRead(name: String) throws {
    let dir = try TemporaryDirectory()
    var data: [UInt8]
    if name == "tiff" {
      let big = try makeImage(width: 300, height: 200, format: .rgba8) { x, y in [x % 256, y % 256, (x * y) % 256, 255] }
      data = try TIFFCodec.encode(big, layout: .rgb, bitDepth: 8, level: 0, iccProfile: nil).array
      // The directory is written last: keep it, cut the pixels in the middle
      // of the file by overwriting them with nothing valid (a shorter file).
      data = Array(data.prefix(data.count / 2))
    } else {
      data = try bytes(of: fixture(name))
      data.removeLast(name.hasSuffix("png") ? 30 : data.count / 3)
    }
    let path = dir.file("cut." + (name == "tiff" ? "tif" : String(name.split(separator: ".")[1])))
    try writeBytes(data, to: path)
    var wholeError: ImageFileError?
    do { _ = try ImageFile.read(path) } catch let e as ImageFileError { wholeError = e }
    let whole = try #require(wholeError)
    do {
      guard let reader = try ImageRowReader.open(path) else { return }  // refused from its header: the whole read's job
      _ = try Self.readAll(reader, piece: 4)
      Issue.record("\(name): a truncated file streamed without an error (whole read: \(whole))")
    } catch let e as ImageFileError {
      #expect(e.path == path)
      #expect(e.reason.contains("truncated") || e.reason.contains("corrupt"), "\(e) (whole read: \(whole))")
    }
  }
}
