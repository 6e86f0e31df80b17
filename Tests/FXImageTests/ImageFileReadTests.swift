import Testing

@testable import FXImage

// Expected values are worked out by hand from make_fixtures.py with
// c' = (c·a + 127) / 255 (8-bit) or (c·a + 32767) / 65535 (16-bit).

@Suite struct ReadEightBitPNG {
  @Test func gray() throws {
    let (image, info) = try ImageFile.read(fixture("gray8.png"))
    #expect(info == ImageFileInfo(format: .png, layout: .gray, bitDepth: 8, width: 3, height: 2))
    #expect(image.format == .rgba8)
    #expect(
      pixels(image) == [
        [0, 0, 0, 255], [128, 128, 128, 255], [255, 255, 255, 255],
        [10, 10, 10, 255], [20, 20, 20, 255], [30, 30, 30, 255],
      ])
  }

  @Test func fourBitGrayIsScaledToEightBits() throws {
    let (image, info) = try ImageFile.read(fixture("gray4.png"))
    #expect(info.bitDepth == 8 && info.layout == .gray)
    // 4-bit v → 17 v.
    #expect(
      pixels(image) == [
        [0, 0, 0, 255], [85, 85, 85, 255], [170, 170, 170, 255], [255, 255, 255, 255],
      ])
  }

  @Test func grayAlpha() throws {
    let (image, info) = try ImageFile.read(fixture("graya8.png"))
    #expect(info.layout == .grayAlpha)
    // Straight, as the file holds it: (200, 128), (200, 0) keeps its gray, (51, 64).
    #expect(
      pixels(image) == [
        [200, 200, 200, 255], [200, 200, 200, 128], [200, 200, 200, 0], [51, 51, 51, 64],
      ])
  }

  @Test func rgb() throws {
    let (image, info) = try ImageFile.read(fixture("rgb8.png"))
    #expect(info == ImageFileInfo(format: .png, layout: .rgb, bitDepth: 8, width: 2, height: 2))
    #expect(
      pixels(image) == [
        [255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [12, 34, 56, 255],
      ])
  }

  @Test func rgbaIsStraightAsInTheFile() throws {
    let (image, info) = try ImageFile.read(fixture("rgba8.png"))
    #expect(info.layout == .rgba)
    // (200, 100, 50) at 128, (10, 20, 30) at 0 (its color kept), (255, 128, 0) at 51.
    #expect(
      pixels(image) == [
        [255, 255, 255, 255], [200, 100, 50, 128], [10, 20, 30, 0], [255, 128, 0, 51],
      ])
    // A kernel sees it premultiplied, in fp32, after the unorm conversion (× the float nearest 1/255).
    let k: Float = 1 / 255, a = 128 * k
    #expect(image[1, 0] == SIMD4(200 * k * a, 100 * k * a, 50 * k * a, a))
  }

  @Test func paletteWithTransparency() throws {
    let (image, info) = try ImageFile.read(fixture("palette_trns.png"))
    #expect(info == ImageFileInfo(format: .png, layout: .rgba, bitDepth: 8, width: 3, height: 2))
    // Entry 0 (200, 100, 50) alpha 128; entry 1 (0, 0, 255) alpha 0;
    // entries 2 and 3 have no tRNS value: opaque.
    let e0 = [200, 100, 50, 128]
    let e3 = [9, 8, 7, 255]
    #expect(pixels(image) == [e0, [0, 0, 255, 0], [255, 255, 0, 255], e3, e0, e3])
  }

  @Test func paletteWithoutTransparencyIsRGB() throws {
    let (image, info) = try ImageFile.read(fixture("palette8.png"))
    #expect(info.layout == .rgb && info.bitDepth == 8)
    #expect(pixels(image) == [[4, 5, 6, 255], [1, 2, 3, 255]])
  }

  @Test func grayWithTransparentValue() throws {
    let (image, info) = try ImageFile.read(fixture("gray_trns.png"))
    #expect(info.layout == .grayAlpha)
    #expect(pixels(image) == [[50, 50, 50, 0], [51, 51, 51, 255]])  // gray 50 is the transparent value
  }

  @Test func interlaced() throws {
    let (image, info) = try ImageFile.read(fixture("rgb_interlaced.png"))
    #expect(info.width == 9 && info.height == 7)
    var expected: [[Int]] = []
    for y in 0..<7 { for x in 0..<9 { expected.append([20 * x, 30 * y, 7 * (x + y), 255]) } }
    #expect(pixels(image) == expected)
  }
}

@Suite struct ReadSixteenBitPNG {
  // Reference samples decoded from the files with an independent decoder.
  @Test func gray16() throws {
    let (image, info) = try ImageFile.read(fixture("basn0g16.png"))
    #expect(info == ImageFileInfo(format: .png, layout: .gray, bitDepth: 16, width: 32, height: 32))
    #expect(image.format == .rgba16)
    #expect(pixel(image, 0, 0) == [0, 0, 0, 65535])
    #expect(pixel(image, 31, 0) == [47871, 47871, 47871, 65535])
    #expect(pixel(image, 5, 7) == [15104, 15104, 15104, 65535])
    #expect(pixel(image, 31, 31) == [255, 255, 255, 65535])
  }

  @Test func rgb16() throws {
    let (image, info) = try ImageFile.read(fixture("basn2c16.png"))
    #expect(info.layout == .rgb && info.bitDepth == 16 && image.format == .rgba16)
    #expect(pixel(image, 0, 0) == [65535, 65535, 0, 65535])
    #expect(pixel(image, 5, 7) == [54965, 50737, 0, 65535])
    #expect(pixel(image, 20, 25) == [23254, 12684, 29596, 65535])
  }

  @Test func grayAlpha16() throws {
    let (image, info) = try ImageFile.read(fixture("basn4a16.png"))
    #expect(info.layout == .grayAlpha && info.bitDepth == 16 && image.format == .rgba16)
    // Straight, as the file holds it (PngSuite basn4a16).
    #expect(pixel(image, 5, 7) == [12482, 12482, 12482, 21141])
    #expect(pixel(image, 20, 25) == [34492, 34492, 34492, 25369])
    #expect(pixel(image, 0, 0)[3] == 0)
  }

  @Test func rgba16() throws {
    let (image, info) = try ImageFile.read(fixture("basn6a16.png"))
    #expect(info.layout == .rgba && info.bitDepth == 16 && image.format == .rgba16)
    // Straight, as the file holds it (PngSuite basn6a16).
    #expect(pixel(image, 5, 7) == [65535, 59293, 0, 21141])
    #expect(pixel(image, 20, 25) == [17246, 0, 48288, 25369])
    #expect(pixel(image, 31, 31) == [0, 0, 65535, 0])
  }
}

@Suite struct ReadJPEG {
  @Test func grayBlocksDecodeExactly() throws {
    // Flat 8×8 blocks, DC only, quantiser 1: lossless by construction.
    let (image, info) = try ImageFile.read(fixture("gray_dc.jpg"))
    #expect(info == ImageFileInfo(format: .jpeg, layout: .gray, bitDepth: 8, width: 16, height: 16))
    #expect(image.format == .rgba8)
    #expect(pixel(image, 0, 0) == [16, 16, 16, 255])
    #expect(pixel(image, 15, 7) == [64, 64, 64, 255])
    #expect(pixel(image, 3, 12) == [192, 192, 192, 255])
    #expect(pixel(image, 15, 15) == [240, 240, 240, 255])
  }

  @Test func colorBlocksDecodeCloseToTheirRGB() throws {
    // The blocks hold YCbCr rounded from (200, 100, 50) and (30, 160, 220).
    let (image, info) = try ImageFile.read(fixture("color_dc.jpg"))
    #expect(info == ImageFileInfo(format: .jpeg, layout: .rgb, bitDepth: 8, width: 16, height: 8))
    for (x, rgb) in [(2, [200, 100, 50]), (12, [30, 160, 220])] {
      let p = pixel(image, x, 4)
      #expect(p[3] == 255)
      #expect(zip(p, rgb).allSatisfy { abs($0 - $1) <= 2 }, "pixel \(p) vs \(rgb)")
    }
  }

  @Test func formatIsSniffedNotTakenFromTheExtension() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("actually-a-jpeg.png")
    try writeBytes(try bytes(of: fixture("gray_dc.jpg")), to: path)
    #expect(try ImageFile.read(path).1.format == .jpeg)
  }
}

@Test func pathExtensions() {
  #expect(ImageFileFormat(pathExtension: "png") == .png)
  #expect(ImageFileFormat(pathExtension: "PNG") == .png)
  #expect(ImageFileFormat(pathExtension: "jpg") == .jpeg)
  #expect(ImageFileFormat(pathExtension: "JPeG") == .jpeg)
  #expect(ImageFileFormat(pathExtension: "TIF") == .tiff && ImageFileFormat(pathExtension: "tiff") == .tiff)
  #expect(ImageFileFormat(pathExtension: "webp") == .webp && ImageFileFormat(pathExtension: "gif") == .gif)
  #expect(ImageFileFormat(pathExtension: "HEIF") == .heic && ImageFileFormat(pathExtension: "avif") == .avif)
  #expect(ImageFileFormat(pathExtension: "bmp") == nil)
  #expect(ImageFileFormat(pathExtension: "") == nil)
}
