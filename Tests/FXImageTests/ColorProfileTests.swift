import CLCMS
import Foundation
import Testing

@testable import FXImage

/// Issue 16: ICC profiles travel from input to output (PNG iCCP, JPEG APP2,
/// multi-segment), convert to sRGB through LittleCMS when asked, and an
/// unusable or mismatched profile is a warning, the pixels read as sRGB.
@Suite struct ColorProfiles {
  /// A 32×8 gradient through saturated and pale colours, opaque.
  static func gradient(format: PixelFormat = .rgba8) throws -> ImageBuffer {
    let max = format == .rgba16 ? 65535 : 255
    return try makeImage(width: 32, height: 8, format: format) { x, y in
      [x * max / 31, (y * 37 + x * 5) % (max + 1), (31 - x) * max / 31 * (y % 2), max]
    }
  }

  /// LittleCMS's float transform of every pixel, quantised as a reference.
  static func reference(_ image: ImageBuffer, profile: ICCProfile) throws -> [[Int]] {
    let max = Float(image.format == .rgba16 ? 65535 : 255)
    let input = pixels(image).flatMap { $0[0..<3].map { Float($0) / max } }
    var output = [Float](repeating: 0, count: input.count)
    let status = profile.data.withUnsafeBytes { fx_icc_reference_to_srgb($0.baseAddress, $0.count, input, &output, input.count / 3) }
    #expect(status == 0)
    return (0..<input.count / 3).map { i in
      (0..<3).map { Int((Swift.min(Swift.max(output[3 * i + $0], 0), 1) * max).rounded()) } + [Int(max)]
    }
  }

  @Test(arguments: ["png", "jpg"])
  func aProfileIsKeptThroughAWriteAndARead(ext: String) throws {
    let dir = try TemporaryDirectory()
    let profile = try ICCProfile.adobeRGB()
    #expect(profile.colorSpace == .rgb)
    try ImageFile.write(try Self.gradient(), to: dir.file("a.\(ext)"), iccProfile: profile)
    let (_, info) = try ImageFile.read(dir.file("a.\(ext)"))
    #expect(info.iccProfile == profile)
    #expect(info.warnings == [])
    let (_, plain) = try ImageFile.read(fixture(ext == "png" ? "rgb8.png" : "color_dc.jpg"))
    #expect(plain.iccProfile == nil)
  }

  @Test func aProfileLargerThanOneJPEGSegmentIsReassembled() throws {
    // A tabulated curve of 30,000 entries per channel: a profile of ~180 KB,
    // three APP2 segments of at most 65,519 bytes (LittleCMS reads curves of
    // at most 32,767 entries).
    let table = (0..<30_000).map { pow(Double($0) / 29_999, 2.2) }
    let profile = try ICCProfile.makeRGB(
      white: [0.3127, 0.3290], red: [0.64, 0.33], green: [0.30, 0.60], blue: [0.15, 0.06], curveType: 0, curve: table)
    #expect(profile.data.count > 2 * 65_519)
    let dir = try TemporaryDirectory()
    try ImageFile.write(try Self.gradient(), to: dir.file("big.jpg"), iccProfile: profile)
    let file = try bytes(of: dir.file("big.jpg"))
    let segments = file.indices.dropLast(14).filter {
      file[$0] == 0xFF && file[$0 + 1] == 0xE2 && Array(file[($0 + 4)..<($0 + 15)]) == Array("ICC_PROFILE".utf8)
    }
    #expect(segments.count == 3)
    let (_, info) = try ImageFile.read(dir.file("big.jpg"))
    #expect(info.iccProfile == profile)
  }

  @Test(arguments: [PixelFormat.rgba8, .rgba16], ["adobe", "p3"])
  func toSRGBMatchesLittleCMSsOwnTransform(format: PixelFormat, space: String) throws {
    let dir = try TemporaryDirectory()
    let profile = try space == "adobe" ? ICCProfile.adobeRGB() : ICCProfile.displayP3()
    let image = try Self.gradient(format: format)
    try ImageFile.write(image, to: dir.file("a.png"), bitDepth: format == .rgba16 ? 16 : 8, iccProfile: profile)
    let (converted, info) = try ImageFile.read(dir.file("a.png"), options: .init(convertToSRGB: true))
    #expect(info.iccProfile == nil)
    let want = try Self.reference(image, profile: profile)
    let got = pixels(converted)
    let worst = zip(got, want).map { g, w in zip(g, w).map { abs($0 - $1) }.max()! }.max()!
    #expect(worst <= 1, "\(space) \(format): off by \(worst) levels")
    #expect(got != pixels(image), "the conversion changed nothing")
  }

  @Test func adobeRGBToSRGBByHand() throws {
    // Adobe RGB (1998) → XYZ (its §4.3.4.3 matrix) → linear sRGB (IEC 61966-2-1's
    // inverse matrix) → the sRGB curve; both white points D65, so no adaptation.
    let toXYZ: [[Double]] = [[0.57667, 0.18556, 0.18823], [0.29734, 0.62736, 0.07529], [0.02703, 0.07069, 0.99134]]
    let toSRGB: [[Double]] = [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]]
    func encode(_ v: Double) -> Int {
      let c = Swift.min(Swift.max(v, 0), 1)
      return Int(((c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055) * 255).rounded())
    }
    let colors: [[Int]] = [[128, 128, 128], [200, 60, 40], [30, 150, 90], [90, 90, 220], [250, 240, 200]]
    let image = try makeImage(width: colors.count, height: 1, format: .rgba8) { x, _ in colors[x] + [255] }
    let dir = try TemporaryDirectory()
    try ImageFile.write(image, to: dir.file("a.png"), iccProfile: try .adobeRGB())
    let (converted, _) = try ImageFile.read(dir.file("a.png"), options: .init(convertToSRGB: true))
    for (x, c) in colors.enumerated() {
      let linear = c.map { pow(Double($0) / 255, 563.0 / 256) }
      let xyz = toXYZ.map { row in zip(row, linear).map(*).reduce(0, +) }
      let want = toSRGB.map { row in encode(zip(row, xyz).map(*).reduce(0, +)) }
      let got = Array(pixel(converted, x, 0)[0..<3])
      #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 2 }, "\(c): \(got) ≠ \(want)")
    }
  }

  @Test func alphaIsKeptByTheConversion() throws {
    let image = try makeImage(width: 4, height: 1, format: .rgba8) { x, _ in [200, 100, 50, x * 80] }
    let dir = try TemporaryDirectory()
    try ImageFile.write(image, to: dir.file("a.png"), iccProfile: try .displayP3())
    let (converted, _) = try ImageFile.read(dir.file("a.png"), options: .init(convertToSRGB: true))
    #expect((0..<4).map { pixel(converted, $0, 0)[3] } == [0, 80, 160, 240])
  }

  /// A JPEG with one APP2 ICC_PROFILE segment holding `profile`, after SOI.
  private func jpeg(_ name: String, withProfile profile: [UInt8]) throws -> [UInt8] {
    let data = try bytes(of: fixture(name))
    let body = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
    let segment: [UInt8] = [0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    return Array(data[..<2]) + segment + Array(data[2...])
  }

  @Test func aCorruptProfileIsAWarningAndThePixelsAreRead() throws {
    let dir = try TemporaryDirectory()
    try writeBytes(try jpeg("color_dc.jpg", withProfile: [UInt8](repeating: 0x5A, count: 600)), to: dir.file("bad.jpg"))
    let (image, info) = try ImageFile.read(dir.file("bad.jpg"))
    let (plain, _) = try ImageFile.read(fixture("color_dc.jpg"))
    #expect(info.iccProfile == nil)
    #expect(info.warnings.count == 1 && info.warnings[0].contains("ICC profile is corrupt"), "\(info.warnings)")
    #expect(pixels(image) == pixels(plain))
  }

  @Test func anRGBProfileOnAGrayJPEGIsAWarning() throws {
    let dir = try TemporaryDirectory()
    try writeBytes(try jpeg("gray_dc.jpg", withProfile: try ICCProfile.adobeRGB().data), to: dir.file("g.jpg"))
    let (_, info) = try ImageFile.read(dir.file("g.jpg"))
    #expect(info.iccProfile == nil)
    #expect(info.warnings.count == 1 && info.warnings[0].contains("rgb profile, which cannot describe a gray image"), "\(info.warnings)")
  }

  @Test func aProfileThatDoesNotFitTheStoredLayoutIsNotWritten() throws {
    let dir = try TemporaryDirectory()
    #expect(throws: ImageFileError.self) {
      try ImageFile.write(try Self.gradient(), to: dir.file("g.png"), layout: .gray, iccProfile: try .adobeRGB())
    }
    #expect(try dir.contents() == [])
  }

  @Test func cmykJPEGWithoutAProfileIsConvertedByThePostScriptFormula() throws {
    // cmyk_dc.jpg stores 10, 20, 30, 40 with no Adobe marker: read as Adobe's
    // inverted CMYK all the same (255 − ink), as Pillow and ImageMagick read
    // it (both give (2, 3, 5)): R = C·K/255 = 10·40/255 = 1.6, G = 3.1, B = 4.7.
    let (image, info) = try ImageFile.read(fixture("cmyk_dc.jpg"))
    #expect(info.layout == .rgb && info.iccProfile == nil)
    #expect(Set(pixels(image)) == [[2, 3, 5, 255]])
  }

  /// CMYK JPEGs written by Pillow, ImageMagick and libvips, with their APP14
  /// marker and with it cut out (Fixtures/cmyk/make.sh): each decodes within
  /// 2 levels of what Pillow 13.0.0 and ImageMagick 6.9.11 decode (they
  /// agree). libvips 8.14 converts a CMYK file without a profile through a
  /// CMYK profile of its own — (213, 84, 126) for the first three — which
  /// neither Pillow nor ImageMagick does; fxc follows those two.
  @Test(arguments: [
    ("pil-app14.jpg", [226, 53, 187]), ("pil-noapp14.jpg", [226, 53, 187]), ("im-app14.jpg", [225, 54, 186]),
    ("im-noapp14.jpg", [125, 86, 48]), ("vips-app14.jpg", [226, 53, 187]), ("vips-noapp14.jpg", [226, 53, 187]),
  ])
  func cmykJPEGsOfTheFieldDecodeAsTheFieldDoes(_ name: String, _ expected: [Int]) throws {
    let (image, _) = try ImageFile.read(fixture("cmyk/" + name))
    for p in Set(pixels(image)) {
      #expect(zip(p, expected + [255]).allSatisfy { abs($0 - $1) <= 2 }, "\(name): \(p)")
    }
  }

  @Test func adobeInvertedCMYKWithoutAProfile() throws {
    // An Adobe APP14 segment (transform 0: CMYK as is) makes libjpeg report
    // inverted samples: the stored 10, 20, 30, 40 are 255 − ink, so
    // R = C·K/255 = 10·40/255 = 1.6, G = 3.1, B = 4.7.
    let data = try bytes(of: fixture("cmyk_dc.jpg"))
    let body = Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0]
    let app14: [UInt8] = [0xFF, 0xEE, 0, UInt8(body.count + 2)] + body
    let dir = try TemporaryDirectory()
    try writeBytes(Array(data[..<2]) + app14 + Array(data[2...]), to: dir.file("adobe.jpg"))
    let (image, _) = try ImageFile.read(dir.file("adobe.jpg"))
    #expect(Set(pixels(image)) == [[2, 3, 5, 255]])
  }

  @Test func cmykJPEGIsConvertedThroughItsProfile() throws {
    // A test profile whose table swaps red and blue against the formula, on
    // the inverted samples (ink = 255 − stored 10, 20, 30, 40):
    // R = (255 − Y)(255 − K)/255 = 30·40/255 = 4.7, G = 3.1, B = (255 − C)(255 − K)/255 = 1.6.
    var out: UnsafeMutableRawPointer?
    var size = 0
    #expect(fx_icc_make_test_cmyk(9, &out, &size) == 0)
    let icc = Array(UnsafeRawBufferPointer(start: try #require(out), count: size))
    free(out)
    #expect(try ICCProfile(data: icc).colorSpace == .cmyk)
    let dir = try TemporaryDirectory()
    try writeBytes(try jpeg("cmyk_dc.jpg", withProfile: icc), to: dir.file("p.jpg"))
    let (image, info) = try ImageFile.read(dir.file("p.jpg"))
    #expect(info.iccProfile == nil && info.warnings == [] && info.layout == .rgb)
    for p in Set(pixels(image)) {
      #expect(zip(p, [5, 3, 2, 255]).allSatisfy { abs($0 - $1) <= 2 }, "\(p)")
    }
  }
}

/// A PNG whose iCCP chunk libpng calls a "known incorrect sRGB profile" (a
/// 32×20 crop of scikit-image's public-domain astronaut.png, which carries
/// it): the profile is dropped with a warning, read whole or streamed, and
/// the image can be written again — libpng refuses to write that profile.
@Suite struct KnownIncorrectProfile {
  @Test func isDroppedWithAWarningAndTheImageWritesAgain() throws {
    let path = fixture("incorrect_srgb.png")
    let (image, info) = try ImageFile.read(path)
    #expect(info.iccProfile == nil)
    #expect(info.warnings.contains { $0.contains("known incorrect sRGB profile") }, "\(info.warnings)")
    let reader = try #require(try ImageRowReader.open(path))
    #expect(reader.info.iccProfile == nil && reader.info.warnings == info.warnings)
    let dir = try TemporaryDirectory()
    try ImageFile.write(image, to: dir.file("again.png"), iccProfile: info.iccProfile)
    let (again, _) = try ImageFile.read(dir.file("again.png"))
    #expect(again.width == 32 && again.height == 20)
  }
}

/// The same profile in a JPEG, where it reads without trouble: it may be
/// embedded in a JPEG or TIFF, and `embeddingRefusal` says why not in a PNG
/// (libpng refuses to write it), so that callers can leave it out.
@Suite struct KnownIncorrectProfileInAJPEG {
  @Test func isRefusedForPNGOnly() throws {
    let (image, info) = try ImageFile.read(fixture("incorrect_srgb.jpg"))
    let profile = try #require(info.iccProfile)
    #expect(profile.embeddingRefusal(in: .png, layout: .rgb)?.contains("known incorrect sRGB profile") == true)
    #expect(profile.embeddingRefusal(in: .jpeg, layout: .rgba) == nil && profile.embeddingRefusal(in: .tiff, layout: .rgb) == nil)
    #expect(profile.embeddingRefusal(in: .tiff, layout: .gray)?.contains("cannot describe") == true)
    let dir = try TemporaryDirectory()
    #expect(throws: ImageFileError.self) { try ImageFile.write(image, to: dir.file("a.png"), layout: .rgb, iccProfile: profile) }
    try ImageFile.write(image, to: dir.file("a.tif"), layout: .rgb, iccProfile: profile)
    #expect(try ImageFile.read(dir.file("a.tif")).1.iccProfile?.data == profile.data)
  }
}
