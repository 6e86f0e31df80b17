import Foundation
import Testing

@testable import FXImage

/// Issue 17: WebP through libwebp — lossless round trips exactly (alpha and
/// colour under transparency included), lossy stays close, gray is written as
/// RGB, profiles travel, bad files are refused.
@Suite struct WebPFiles {
  static func image(opaque: Bool) throws -> ImageBuffer {
    try makeImage(width: 41, height: 23, format: .rgba8) { x, y in
      [x * 6, y * 11, (x * y) % 256, opaque ? 255 : [255, 128, 40, 0, 255][(x + 2 * y) % 5]]
    }
  }

  @Test(arguments: [ChannelLayout.rgb, .rgba])
  func losslessRoundTripsExactly(layout: ChannelLayout) throws {
    let dir = try TemporaryDirectory()
    let image = try Self.image(opaque: layout == .rgb)
    try ImageFile.write(image, to: dir.file("a.webp"), layout: layout, lossless: true)
    let (read, info) = try ImageFile.read(dir.file("a.webp"))
    #expect(info.format == .webp && info.layout == layout && info.bitDepth == 8)
    #expect(pixels(read) == pixels(image))
  }

  @Test func grayIsStoredAsEqualRGB() throws {
    let dir = try TemporaryDirectory()
    let image = try Self.image(opaque: true)
    try ImageFile.write(image, to: dir.file("g.webp"), layout: .gray, lossless: true)
    try ImageFile.write(image, to: dir.file("g.png"), layout: .gray)
    let (webp, _) = try ImageFile.read(dir.file("g.webp"))
    let (png, _) = try ImageFile.read(dir.file("g.png"))
    #expect(pixels(webp) == pixels(png))
  }

  @Test func lossyIsClose() throws {
    let dir = try TemporaryDirectory()
    let image = try makeImage(width: 64, height: 48, format: .rgba8) { x, y in [x * 4, y * 5, 128, 255] }
    try ImageFile.write(image, to: dir.file("a.webp"), jpegQuality: 95)
    let (read, info) = try ImageFile.read(dir.file("a.webp"))
    #expect(info.layout == .rgb)
    let worst = zip(pixels(read), pixels(image)).map { a, b in zip(a, b).map { abs($0 - $1) }.max()! }.max()!
    #expect(worst <= 12 && worst > 0, "lossy WebP at quality 95 is off by \(worst)")
  }

  @Test func profileIsCarried() throws {
    let dir = try TemporaryDirectory()
    let profile = try ICCProfile.displayP3()
    try ImageFile.write(try Self.image(opaque: false), to: dir.file("p.webp"), iccProfile: profile, lossless: true)
    #expect(try ImageFile.read(dir.file("p.webp")).1.iccProfile == profile)
  }

  @Test func sixteenBitsAreRefused() throws {
    let dir = try TemporaryDirectory()
    #expect(throws: ImageFileError.self) { try ImageFile.write(try Self.image(opaque: true), to: dir.file("a.webp"), bitDepth: 16) }
    #expect(try dir.contents() == [])
  }

  @Test func aLosslessAlphaHintOfNoAlphaIsOverruledByThePixels() throws {
    // Found by scripts/fuzz.sh image: a VP8L file whose header says "alpha
    // not used" (a hint, by the format's specification) but whose pixels
    // have alpha below 255 was reported as RGB.
    let crash: [UInt8] = [
      0x52, 0x49, 0x46, 0x46, 0x50, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4C,
      0x43, 0x00, 0x00, 0x00, 0x2F, 0x17, 0xC0, 0x03, 0x00, 0x99, 0x32, 0x44, 0xF4, 0x3F, 0x36, 0x11,
      0xD1, 0xFF, 0x80, 0xD9, 0x48, 0x32, 0xB6, 0x03, 0xFA, 0xAF, 0xD7, 0x7C, 0x84, 0x98, 0x4C, 0xDA,
      0x26, 0xF7, 0xEA, 0x7C, 0xAA, 0x05, 0x04, 0x45, 0xCF, 0x99, 0x3E, 0x81, 0x6A, 0xD3, 0x36, 0x60,
      0x92, 0xB5, 0xBF, 0xC1, 0x84, 0x21, 0x84, 0x31, 0x75, 0x5E, 0x48, 0x6C, 0x9C, 0xDA, 0x50, 0x58,
      0xFA, 0x25, 0x32, 0x6F, 0xFB, 0x06, 0x00, 0x00,
    ]
    let (image, info) = try ImageFile.decode(crash)
    #expect(info.layout.hasAlpha || image.isOpaque, "\(info.layout)")
    #expect(info.layout == .rgba && !image.isOpaque)
  }

  @Test func everyPrefixIsRefused() throws {
    let dir = try TemporaryDirectory()
    for lossless in [true, false] {
      try ImageFile.write(try Self.image(opaque: false), to: dir.file("a.webp"), lossless: lossless)
      let data = try bytes(of: dir.file("a.webp"))
      let decoded = decodablePrefixes(of: data, lengths: stride(from: 1, to: data.count, by: 7))
      #expect(decoded == [], "lossless \(lossless): prefixes decoded as images")
    }
  }
}
