import FXImage
import Foundation
import Testing

/// Wrapping the caller's pixel memory and encoding to bytes in memory (issue 37, item 2).
@Suite struct CallerMemoryTests {
  /// `height` rows of `width` RGBA8 pixels `stride` bytes apart, every padding byte 0xAB.
  static func padded(_ w: Int, _ h: Int, stride: Int) -> UnsafeMutableRawPointer {
    let p = UnsafeMutableRawPointer.allocate(byteCount: stride * h, alignment: 16)
    p.initializeMemory(as: UInt8.self, repeating: 0xAB, count: stride * h)
    for y in 0..<h {
      for x in 0..<w {
        (p + y * stride + 4 * x).storeBytes(of: SIMD4<UInt8>(UInt8(x * 7 & 255), UInt8(y * 13 & 255), 99, 255), as: SIMD4<UInt8>.self)
      }
    }
    return p
  }

  @Test func aWrappedBufferReadsTheCallersRowsInPlace() throws {
    let p = Self.padded(5, 3, stride: 28)
    let image = try ImageBuffer(wrapping: p, width: 5, height: 3, rowBytes: 28, format: .rgba8, deallocator: .custom { $0.deallocate() })
    #expect(image.data == p && image.rowBytes == 28 && image.rowDataBytes == 20 && !image.isPacked)
    #expect(image.byteCount == 28 * 2 + 20, "the last row's padding need not exist")
    #expect(image[stored: 4, 2] == SIMD4<Float>(28, 26, 99, 255) * (1 / 255))
    #expect(image.isOpaque, "the padding (alpha 0xAB) is not read")
    let copy = try image.copy()
    #expect(copy.isPacked && copy[stored: 4, 2] == image[stored: 4, 2])
    image[stored: 0, 1] = SIMD4(1, 0, 0, 1)
    #expect((p + 28).load(as: SIMD4<UInt8>.self) == SIMD4(255, 0, 0, 255), "writes go to the caller's memory")
  }

  @Test func theDeallocatorRunsOnceWhenTheBufferGoes() throws {
    final class Count: @unchecked Sendable { var n = 0 }
    let count = Count()
    do {
      let p = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
      _ = try ImageBuffer(
        wrapping: p, width: 4, height: 4, rowBytes: 16, format: .rgba8,
        deallocator: .custom {
          count.n += 1
          $0.deallocate()
        })
    }
    #expect(count.n == 1)
    // .free for malloc'ed memory (LeakSanitizer in scripts/sanitize.sh would see a leak); .none frees nothing.
    _ = try ImageBuffer(wrapping: malloc(64)!, width: 4, height: 4, rowBytes: 16, format: .rgba8, deallocator: .free)
    let kept = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
    defer { kept.deallocate() }
    _ = try ImageBuffer(wrapping: kept, width: 4, height: 4, rowBytes: 16, format: .rgba8)
  }

  @Test func memoryThatCannotBeWrappedIsAnError() throws {
    let p = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 16)
    defer { p.deallocate() }
    #expect(throws: ImageBufferError.self) { try ImageBuffer(wrapping: p, width: 8, height: 2, rowBytes: 31, format: .rgba8) }
    #expect(throws: ImageBufferError.self) { try ImageBuffer(wrapping: p + 2, width: 2, height: 2, rowBytes: 32, format: .rgba32f) }
    #expect(throws: ImageBufferError.self) { try ImageBuffer(wrapping: p, width: 2, height: 2, rowBytes: 34, format: .rgba32f) }
    #expect(throws: ImageBufferError.self) { try ImageBuffer(wrapping: p, width: 0, height: 2, rowBytes: 32, format: .rgba8) }
    do {
      _ = try ImageBuffer(wrapping: p, width: 8, height: 2, rowBytes: 31, format: .rgba8)
    } catch {
      #expect("\(error)".contains("row stride 31 bytes is less than a row of 8 rgba8 pixels (32 bytes)"), "\(error)")
    }
  }

  /// Encoding in memory gives the bytes a file would hold, and they decode to the same pixels.
  @Test(arguments: [ImageFileFormat.png, .jpeg, .webp, .tiff])
  func encodedBytesAreTheFilesBytes(format: ImageFileFormat) throws {
    let p = Self.padded(23, 9, stride: 23 * 4 + 12)
    let image = try ImageBuffer(wrapping: p, width: 23, height: 9, rowBytes: 23 * 4 + 12, format: .rgba8, deallocator: .custom { $0.deallocate() })
    let profile = try ICCProfile.adobeRGB()
    let bytes = try ImageFile.encode(image, format: format, layout: .rgb, iccProfile: profile)
    let dir = try TemporaryDirectory()
    let path = dir.file("a.\(format.preferredExtension)")
    try ImageFile.write(image, to: path, format: format, layout: .rgb, iccProfile: profile)
    #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    let (decoded, info) = try ImageFile.read(bytes: bytes)
    #expect(info.format == format && info.iccProfile == profile && info.width == 23)
    if format == .png || format == .tiff { #expect(pixels(decoded) == pixels(try image.copy())) }
    #expect(throws: ImageFileError.self) { try ImageFile.encode(image, format: .jpeg, bitDepth: 16) }
  }

  /// A picture encoded in memory keeps what it was read with, as its write does.
  @Test func aPictureEncodesWithItsProfileLayoutAndDepth() throws {
    let dir = try TemporaryDirectory()
    try ImageFile.write(
      try ColorProfiles.gradient(format: .rgba16), to: dir.file("in.png"), layout: .rgb, bitDepth: 16, iccProfile: try ICCProfile.adobeRGB())
    let picture = try Picture(contentsOf: dir.file("in.png"))
    let (_, info) = try ImageFile.read(bytes: try picture.encoded(as: .png))
    #expect(info.iccProfile == picture.info.iccProfile && info.bitDepth == 16 && info.layout == .rgb)
  }
}
