import Foundation
import Testing

@testable import FXImage

@Suite struct AlphaStorageRules {
  @Test(arguments: [UInt32(255), 65535])
  func compositingAnOpaquePixelOverBlackKeepsIt(max: UInt32) {
    let step: UInt32 = max == 255 ? 1 : 7
    for c in stride(from: 0, through: max, by: Int(step)) { #expect(Alpha.premultiply(c, max, max: max) == c) }
  }

  @Test func worked() {
    #expect(Alpha.premultiply(200, 128, max: 255) == 100)  // 25600 + 127 = 25727 / 255 = 100.9
    #expect(Alpha.premultiply(77, 0, max: 255) == 0)
    #expect(Alpha.premultiply(SIMD4(255, 100, 0, 51), max: 255) == SIMD4(51, 20, 0, 51))
  }

  @Test func aPixelReadsPremultipliedInFloatFromStraightStorage() throws {
    let image = try makeImage(width: 1, height: 1, format: .rgba8) { _, _ in [200, 100, 0, 128] }
    let a = Float(128) * (1 / 255)
    #expect(image[stored: 0, 0] == SIMD4(200, 100, 0, 128) * (1 / 255))
    #expect(image[0, 0] == SIMD4(Float(200) * (1 / 255) * a, Float(100) * (1 / 255) * a, 0, a))
  }

  @Test func settingAPremultipliedPixelStoresItStraight() throws {
    let image = try ImageBuffer(width: 3, height: 1, format: .rgba8)
    image[0, 0] = SIMD4(0.2, 0.1, 0, 0.4)  // straight (0.5, 0.25, 0): 127.5 → 128, 63.75 → 64
    image[1, 0] = SIMD4(0.3, 0.3, 0.3, 0)  // no alpha: no color
    image[2, 0] = SIMD4(0.9, 0.6, 0.3, 1.5)  // c / a = (0.6, 0.4, 0.2); alpha then clamps to 1
    #expect(pixel(image, 0, 0) == [128, 64, 0, 102])
    #expect(pixel(image, 1, 0) == [0, 0, 0, 0])
    #expect(pixel(image, 2, 0) == [153, 102, 51, 255])
  }
}

/// Writes `image` to a temporary file and reads it back.
private func roundTrip(
  _ image: ImageBuffer, ext: String = "png", layout: ChannelLayout = .rgba, bitDepth: Int = 8,
  jpegQuality: Int = 90
) throws -> (ImageBuffer, ImageFileInfo) {
  let dir = try TemporaryDirectory()
  let path = dir.file("image.\(ext)")
  try ImageFile.write(image, to: path, layout: layout, bitDepth: bitDepth, jpegQuality: jpegQuality)
  #expect(try dir.contents() == ["image.\(ext)"])
  return try ImageFile.read(path)
}

/// A random image in `format`; gray when `gray`; opaque, or with random
/// alpha (and any straight color, also at alpha 0) when `translucent`.
private func randomImage(format: PixelFormat, gray: Bool, translucent: Bool, seed: UInt64) throws
  -> ImageBuffer
{
  var rng = SplitMix64(state: seed)
  let max = format == .rgba16 ? 65535 : 255
  return try makeImage(width: 13, height: 7, format: format) { x, _ in
    let a = !translucent ? max : x == 0 ? 0 : x == 1 ? max : rng.below(max + 1)
    let c = (0..<3).map { _ in rng.below(max + 1) }
    return gray ? [c[0], c[0], c[0], a] : c + [a]
  }
}

@Suite struct PNGRoundTrip {
  static let cases: [(ChannelLayout, Int)] = ChannelLayout.allCases.flatMap { [($0, 8), ($0, 16)] }

  @Test(arguments: cases)
  func opaqueImagesAreExact(layout: ChannelLayout, bitDepth: Int) throws {
    let gray = layout == .gray || layout == .grayAlpha
    let image = try randomImage(
      format: bitDepth == 16 ? .rgba16 : .rgba8, gray: gray, translucent: false, seed: 1)
    let (back, info) = try roundTrip(image, layout: layout, bitDepth: bitDepth)
    #expect(
      info == ImageFileInfo(format: .png, layout: layout, bitDepth: bitDepth, width: 13, height: 7))
    #expect(back.format == image.format)
    #expect(pixels(back) == pixels(image))
  }

  @Test(arguments: [(ChannelLayout.rgba, 8), (.rgba, 16), (.grayAlpha, 8), (.grayAlpha, 16)])
  func translucentStraightImagesAreExact(layout: ChannelLayout, bitDepth: Int) throws {
    let image = try randomImage(
      format: bitDepth == 16 ? .rgba16 : .rgba8, gray: layout == .grayAlpha, translucent: true,
      seed: 2)
    let (back, _) = try roundTrip(image, layout: layout, bitDepth: bitDepth)
    #expect(pixels(back) == pixels(image))
  }

  @Test func straightFileSurvivesReadAndWrite() throws {
    // The buffer holds what the file holds.
    let dir = try TemporaryDirectory()
    let (image, _) = try ImageFile.read(fixture("rgb8.png"))
    try ImageFile.write(image, to: dir.file("copy.png"), layout: .rgb)
    #expect(pixels(try ImageFile.read(dir.file("copy.png")).0) == pixels(image))
  }

  @Test func eightBitWrittenAtSixteenBitsIsScaledBy257() throws {
    let image = try makeImage(width: 2, height: 1, format: .rgba8) { x, _ in
      x == 0 ? [0, 1, 254, 255] : [10, 20, 30, 40]
    }
    let (back, info) = try roundTrip(image, layout: .rgba, bitDepth: 16)
    #expect(info.bitDepth == 16 && back.format == .rgba16)
    #expect(pixel(back, 0, 0) == [0, 257, 65278, 65535])
    // Straight in the buffer and in the file: each sample ·257.
    #expect(pixel(back, 1, 0) == [2570, 5140, 7710, 10280])
  }

  @Test func sixteenBitWrittenAtEightBitsRounds() throws {
    let image = try makeImage(width: 1, height: 1, format: .rgba16) { _, _ in
      [128, 32896, 65535, 65535]
    }
    let (back, _) = try roundTrip(image, layout: .rgba, bitDepth: 8)
    #expect(back.format == .rgba8)
    #expect(pixel(back, 0, 0) == [0, 128, 255, 255])  // 128/257 = 0.5 → 0; 32896/257 = 128
  }

  @Test func floatImagesAreQuantisedPerDesign() throws {
    let image = try ImageBuffer(width: 2, height: 1, format: .rgba32f)
    image[0, 0] = SIMD4(.nan, -0.5, 1.5, 1)
    image[1, 0] = SIMD4(0.5, 0.25, 1.0 / 255, 1)
    let (back, _) = try roundTrip(image, layout: .rgba)
    #expect(pixel(back, 0, 0) == [0, 0, 255, 255])
    #expect(pixel(back, 1, 0) == [128, 64, 1, 255])  // 127.5 → 128, 63.75 → 64
    let (back16, _) = try roundTrip(image, layout: .rgb, bitDepth: 16)
    #expect(pixel(back16, 1, 0) == [32768, 16384, 257, 65535])
  }

  @Test func translucentFloatIsUnpremultipliedBeforeQuantising() throws {
    let image = try ImageBuffer(width: 1, height: 1, format: .rgba32f)
    image[0, 0] = SIMD4(0.2, 0.1, 0, 0.4)  // straight (0.5, 0.25, 0) at 0.4
    let (back, _) = try roundTrip(image, layout: .rgba)
    // Stored straight: 127.5 → 128, 63.75 → 64, 0.4·255 = 102.
    #expect(pixel(back, 0, 0) == [128, 64, 0, 102])
  }

  @Test func layoutsWithoutAlphaCompositeOverBlack() throws {
    let image = try makeImage(width: 1, height: 1, format: .rgba8) { _, _ in [200, 100, 50, 128] }
    // (200·128 + 127)/255 = 100.9 → 100, 50.7 → 50, 25.6 → 25
    #expect(pixels(try roundTrip(image, layout: .rgb).0) == [[100, 50, 25, 255]])
  }

  @Test func grayIsRec601Luma() throws {
    let image = try makeImage(width: 3, height: 1, format: .rgba8) { x, _ in
      [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]][x]
    }
    // 0.299·255 = 76.2, 0.587·255 = 149.7, 0.114·255 = 29.1
    let (back, info) = try roundTrip(image, layout: .gray)
    #expect(info.layout == .gray)
    #expect(pixels(back) == [[76, 76, 76, 255], [150, 150, 150, 255], [29, 29, 29, 255]])
  }

  @Test func compressionLevelsAllDecode() throws {
    let image = try randomImage(format: .rgba8, gray: false, translucent: true, seed: 3)
    let dir = try TemporaryDirectory()
    for level in [0, 9] {
      let path = dir.file("level\(level).png")
      try ImageFile.write(image, to: path, pngCompressionLevel: level)
      #expect(pixels(try ImageFile.read(path).0) == pixels(image))
    }
  }
}

@Suite struct JPEGRoundTrip {
  /// A smooth 64×48 test card (JPEG is meant for photographs, not noise).
  private func card() throws -> ImageBuffer {
    try makeImage(width: 64, height: 48, format: .rgba8) { x, y in
      let r = 128 + Int(100 * sin(Double(x) / 9))
      return [r, 40 + 4 * y, 30 + 2 * x + y, 255]
    }
  }

  private func meanAbsoluteError(_ a: ImageBuffer, _ b: ImageBuffer, channels: Int) -> Double {
    var sum = 0
    for y in 0..<a.height {
      for x in 0..<a.width {
        let p = pixel(a, x, y)
        let q = pixel(b, x, y)
        for k in 0..<channels { sum += abs(p[k] - q[k]) }
      }
    }
    return Double(sum) / Double(a.width * a.height * channels)
  }

  @Test func colorAtQuality95IsClose() throws {
    let image = try card()
    let (back, info) = try roundTrip(image, ext: "jpg", jpegQuality: 95)
    #expect(info == ImageFileInfo(format: .jpeg, layout: .rgb, bitDepth: 8, width: 64, height: 48))
    let error = meanAbsoluteError(back, image, channels: 3)
    #expect(error < 3, "mean absolute error \(error) / 255")
    #expect(pixels(back).allSatisfy { $0[3] == 255 })
  }

  @Test func grayAtQuality95IsClose() throws {
    let image = try card()
    let gray = try makeImage(width: 64, height: 48, format: .rgba8) { x, y in
      let p = pixel(image, x, y)
      let l = (299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000
      return [l, l, l, 255]
    }
    let (back, info) = try roundTrip(image, ext: "jpeg", layout: .gray, jpegQuality: 95)
    #expect(info.layout == .gray)
    #expect(meanAbsoluteError(back, gray, channels: 3) < 3)
  }

  @Test func alphaIsDroppedByCompositingOverBlack() throws {
    let image = try makeImage(width: 16, height: 16, format: .rgba8) { _, _ in [200, 100, 50, 128] }
    let (back, info) = try roundTrip(image, ext: "jpg", layout: .rgba, jpegQuality: 100)
    #expect(info.layout == .rgb)
    let p = pixel(back, 8, 8)
    #expect(
      abs(p[0] - 100) <= 2 && abs(p[1] - 50) <= 2 && abs(p[2] - 25) <= 2 && p[3] == 255, "\(p)")
  }

  @Test func lowQualityIsSmaller() throws {
    let dir = try TemporaryDirectory()
    let image = try card()
    try ImageFile.write(image, to: dir.file("q10.jpg"), jpegQuality: 10)
    try ImageFile.write(image, to: dir.file("q100.jpg"), jpegQuality: 100)
    #expect(try bytes(of: dir.file("q10.jpg")).count < bytes(of: dir.file("q100.jpg")).count)
  }
}
