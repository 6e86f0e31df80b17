// Metadata in a batch: JPEG EXIF orientation applied on load (or kept with
// --keep-orientation), 16-bit PNGs kept at 16 bits.

import FX
import Foundation
import Testing

@Suite("fxc run: EXIF orientation and bit depth")
struct BatchMetadataTests {
  static let red = SIMD3<Float>(1, 0, 0), green = SIMD3<Float>(0, 1, 0)
  static let blue = SIMD3<Float>(0, 0, 1), white = SIMD3<Float>(1, 1, 1)

  /// A 64×32 JPEG whose quadrants are red, green (top) and blue, white (bottom),
  /// with an EXIF APP1 segment giving `orientation` (in either byte order).
  static func orientedJPEG(_ orientation: Int, littleEndian: Bool, in dir: BatchScratch, name: String) throws {
    let image = try ImageBuffer(width: 64, height: 32, format: .rgba8)
    for y in 0..<32 {
      for x in 0..<64 {
        let c = y < 16 ? (x < 32 ? red : green) : (x < 32 ? blue : white)
        image[x, y] = SIMD4(c, 1)
      }
    }
    let plain = dir.file("plain-" + name.replacingOccurrences(of: "/", with: "-"))
    try ImageFile.write(image, to: plain, jpegQuality: 95)
    let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
    try FileManager.default.removeItem(atPath: plain)
    func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
    // A TIFF header, IFD0 with a software tag first (to be skipped) and the orientation, no next IFD.
    var tiff: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(2)
    tiff += u16(0x0131) + u16(2) + u32(4) + [0x66, 0x78, 0x63, 0]  // Software "fxc"
    tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
    tiff += u32(0)
    let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
    let length = payload.count + 2
    let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    // After SOI and the JFIF APP0 segment, where cameras put it.
    let app0Length = Int(jpeg[4]) << 8 | Int(jpeg[5])
    let split = 4 + app0Length
    try dir.write(Data(Array(jpeg[..<split]) + app1 + Array(jpeg[split...])), to: name)
  }

  /// Top-left, top-right, bottom-left, bottom-right as displayed, and whether width and height swap.
  static let expected: [Int: ([SIMD3<Float>], Bool)] = [
    1: ([red, green, blue, white], false), 2: ([green, red, white, blue], false),
    3: ([white, blue, green, red], false), 4: ([blue, white, red, green], false),
    5: ([red, blue, green, white], true), 6: ([blue, red, white, green], true),
    7: ([white, green, blue, red], true), 8: ([green, white, red, blue], true),
  ]

  static func distance(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
    let d = a - b
    return max(Swift.abs(d.x), Swift.abs(d.y), Swift.abs(d.z))
  }

  static func corners(_ image: ImageBuffer) -> [SIMD3<Float>] {
    let (w, h) = (image.width, image.height)
    return [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)].map { x, y in
      let p = image[x, y]
      return SIMD3(p.x, p.y, p.z)
    }
  }

  @Test func everyOrientationIsAppliedUnlessKept() throws {
    let dir = try BatchScratch()
    try dir.mkdir("in")
    for o in 1...8 { try Self.orientedJPEG(o, littleEndian: o % 2 == 0, in: dir, name: "in/o\(o).jpg") }
    let result = try BatchFXC.run(
      ["run", "-c", "sepia(amount: 0)", "in", "--out-dir", "out", "--format", "png", "-v"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    for o in 1...8 {
      let (image, _) = try ImageFile.read(dir.file("out/o\(o).png"))
      let (colors, swaps) = Self.expected[o]!
      #expect(swaps ? (image.width == 32 && image.height == 64) : (image.width == 64 && image.height == 32), "orientation \(o)")
      for (got, want) in zip(Self.corners(image), colors) {
        #expect(Self.distance(got, want) < 0.2, "orientation \(o): \(got) ≠ \(want)")
      }
    }
    #expect(result.stdout.contains("o6.jpg → out/o6.png: 32×64") && result.stdout.contains("EXIF orientation 6"), "\(result)")

    let kept = try BatchFXC.run(
      ["run", "-c", "sepia(amount: 0)", "in", "--out-dir", "kept", "--format", "png", "--keep-orientation"], in: dir.path)
    #expect(kept.status == 0, "\(kept)")
    for o in 1...8 {
      let (image, _) = try ImageFile.read(dir.file("kept/o\(o).png"))
      #expect(image.width == 64 && image.height == 32)
      for (got, want) in zip(Self.corners(image), Self.expected[1]!.0) { #expect(Self.distance(got, want) < 0.2) }
    }
  }

  /// 16-bit PNGs stay 16-bit unless --depth says otherwise; written as JPEG they are 8-bit, as JPEG must be.
  @Test func sixteenBitPNGsStaySixteenBit() throws {
    let dir = try BatchScratch()
    try dir.image("in/deep.png", bitDepth: 16)
    try dir.image("in/shallow.png", bitDepth: 8)
    let result = try BatchFXC.run(["run", "-c", "vignette", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(try ImageFile.read(dir.file("out/deep.png")).1.bitDepth == 16)
    #expect(try ImageFile.read(dir.file("out/shallow.png")).1.bitDepth == 8)
    let jpeg = try BatchFXC.run(["run", "-c", "vignette", "in/deep.png", "--out-dir", "jpeg", "--format", "jpeg"], in: dir.path)
    #expect(jpeg.status == 0, "\(jpeg)")
    #expect(try ImageFile.read(dir.file("jpeg/deep.jpg")).1.bitDepth == 8)
    let asked = try BatchFXC.run(["run", "-c", "vignette", "in", "--out-dir", "asked", "--depth", "8"], in: dir.path)
    let deeper = try BatchFXC.run(["run", "-c", "vignette", "in", "--out-dir", "deeper", "--depth", "16"], in: dir.path)
    #expect(asked.status == 0 && deeper.status == 0, "\(asked)\n\(deeper)")
    #expect(try ImageFile.read(dir.file("asked/deep.png")).1.bitDepth == 8, "--depth 8 asks otherwise")
    #expect(try ImageFile.read(dir.file("deeper/shallow.png")).1.bitDepth == 16)
  }
}
