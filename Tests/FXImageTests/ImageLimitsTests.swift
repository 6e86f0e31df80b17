import Foundation
import Testing

@testable import FXImage

/// Issue 16: memory as a checked resource — the pixel limit from the header,
/// libpng's chunk limit, files too large for any image within the limit —
/// and truncation after the image data named as what it is.
@Suite struct ImageLimits {
  /// A PNG that declares `width × height` (RGBA8) with an empty IDAT.
  private func bomb(width: UInt32, height: UInt32) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
      + pngChunk("IHDR", bigEndian32(width) + bigEndian32(height) + [8, 6, 0, 0, 0])
      + pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + pngChunk("IEND", [])
  }

  private func readError(_ bytes: [UInt8], options: ImageReadOptions = ImageReadOptions()) throws -> String {
    let dir = try TemporaryDirectory()
    try writeBytes(bytes, to: dir.file("f.png"))
    do {
      _ = try ImageFile.read(dir.file("f.png"), options: options)
      return "read"
    } catch let e as ImageFileError {
      return e.reason
    }
  }

  @Test func decompressionBombIsRefusedFromItsHeader() throws {
    // 46340² px: 8.6 GB of RGBA8 from a 65-byte file, under the 2³¹ hard limit.
    let reason = try readError(bomb(width: 46340, height: 46340))
    #expect(reason.contains("46340×46340 px is 2147395600 pixels, over the limit of 268402689"), "\(reason)")
  }

  @Test func theLimitIsAnOption() throws {
    let dir = try TemporaryDirectory()
    let image = try makeImage(width: 40, height: 25, format: .rgba8) { x, y in [x, y, 0, 255] }
    try ImageFile.write(image, to: dir.file("a.png"))
    try ImageFile.write(image, to: dir.file("a.jpg"))
    for name in ["a.png", "a.jpg"] {
      #expect(throws: ImageFileError.self) { try ImageFile.read(dir.file(name), options: .init(maxPixels: 999)) }
      let (read, _) = try ImageFile.read(dir.file(name), options: .init(maxPixels: 1000))
      #expect(read.width == 40 && read.height == 25)
    }
  }

  @Test func jpegBombIsRefusedFromItsHeader() throws {
    var data = try bytes(of: fixture("gray_dc.jpg"))
    let sof = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
    for k in 5..<9 { data[sof + k] = k.isMultiple(of: 2) ? 0xB0 : 0xB3 }  // 46000 × 46000
    let dir = try TemporaryDirectory()
    try writeBytes(data, to: dir.file("bomb.jpg"))
    #expect(throws: ImageFileError.self) { try ImageFile.read(dir.file("bomb.jpg")) }
    do { _ = try ImageFile.read(dir.file("bomb.jpg")) } catch let e as ImageFileError {
      #expect(e.reason.contains("46000×46000 px"), "\(e)")
    }
  }

  @Test func aHugeTextChunkIsRefusedByLibpngsChunkLimit() throws {
    // A 1×1 PNG whose tEXt chunk claims 2³¹ − 1 bytes: libpng would allocate
    // them all without png_set_chunk_malloc_max.
    let header = pngChunk("IHDR", bigEndian32(1) + bigEndian32(1) + [8, 2, 0, 0, 0])
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + header + bigEndian32(0x7FFF_FFFF) + Array("tEXtabcd".utf8)
    let reason = try readError(png)
    #expect(reason.contains("chunk data is too large"), "\(reason)")
  }

  @Test func aFileTooLargeForAnyImageWithinTheLimitIsRefusedUnread() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("big.png")
    try writeBytes(Array(bomb(width: 1, height: 1)), to: path)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.truncate(atOffset: 200 << 20)  // sparse: 200 MiB of zeros after the image
    try handle.close()
    let options = ImageReadOptions(maxPixels: 1000)
    #expect(ImageFile.maxFileBytes(1000) < 200 << 20)
    do {
      _ = try ImageFile.read(path, options: options)
      Issue.record("read a 200 MiB file under a 1000-pixel limit")
    } catch let e as ImageFileError {
      #expect(e.reason.contains("the file is too large (200 MiB)"), "\(e)")
    }
  }

  @Test func truncationAfterCompleteImageDataSaysSo() throws {
    let data = try bytes(of: fixture("rgb8.png"))
    #expect(Array(data.suffix(8)) == Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
    let reason = try readError(Array(data.dropLast(12)))
    #expect(reason == "truncated PNG file: the image data is complete, but the file ends before its IEND chunk")
    let half = try readError(Array(data.prefix(data.count / 2)))
    #expect(half.hasPrefix("truncated PNG file: the data ends before the image does"), "\(half)")
  }

  @Test func outOfMemoryNamesTheSize() throws {
    // More than any machine has: the pool's mmap fails and the decoder says how much it needed.
    #expect(throws: ImageFileFailure.self) { try decodeBuffer(width: 1 << 20, height: 1 << 11, format: .rgba32f) }
    do { _ = try decodeBuffer(width: 1 << 20, height: 1 << 11, format: .rgba32f) } catch let f as ImageFileFailure {
      #expect(f.reason == "not enough memory for 1048576×2048 px (34.4 GB)")
    }
  }
}
