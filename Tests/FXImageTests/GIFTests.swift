import Foundation
import Testing

@testable import FXImage

/// A GIF89a file, written here (LZW without compression: a Clear code every
/// 254 literal codes keeps the codes 9 bits wide), for the decoder's tests.
struct GIFWriter {
  var width: Int, height: Int
  /// The global colour table (padded to 256 entries).
  var palette: [[UInt8]]
  var frames: [Frame] = []

  struct Frame {
    var left = 0, top = 0, width: Int, height: Int
    /// Palette indices, row by row as displayed.
    var indices: [UInt8]
    var transparent: UInt8? = nil
    var interlaced = false
  }

  /// Rows in the order an interlaced frame stores them (GIF89a, appendix E).
  static func storedOrder(height: Int, interlaced: Bool) -> [Int] {
    guard interlaced else { return Array(0..<height) }
    return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
  }

  static func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

  /// LZW codes of `indices` (minimum code size 8), packed LSB first into sub-blocks.
  static func lzw(_ indices: [UInt8]) -> [UInt8] {
    var codes: [Int] = [256]
    for (i, v) in indices.enumerated() {
      if i > 0 && i % 254 == 0 { codes.append(256) }
      codes.append(Int(v))
    }
    codes.append(257)
    var bytes: [UInt8] = [], acc = 0, bits = 0
    for c in codes {
      acc |= c << bits
      bits += 9
      while bits >= 8 {
        bytes.append(UInt8(acc & 0xFF))
        acc >>= 8
        bits -= 8
      }
    }
    if bits > 0 { bytes.append(UInt8(acc & 0xFF)) }
    var out: [UInt8] = [8]
    for start in stride(from: 0, to: bytes.count, by: 255) {
      let block = bytes[start..<min(start + 255, bytes.count)]
      out += [UInt8(block.count)] + block
    }
    return out + [0]
  }

  var bytes: [UInt8] {
    var out: [UInt8] = Array("GIF89a".utf8)
    out += Self.u16(width) + Self.u16(height)
    out += [0xF7, 0, 0]  // a global table of 256 colours
    for i in 0..<256 { out += i < palette.count ? palette[i] : [0, 0, 0] }
    for f in frames {
      let flags: UInt8 = f.transparent == nil ? 0 : 1
      let gce: [UInt8] = [0x21, 0xF9, 4, flags, 0, 0, f.transparent ?? 0, 0]
      out += gce
      out.append(0x2C)
      out += Self.u16(f.left) + Self.u16(f.top)
      out += Self.u16(f.width) + Self.u16(f.height)
      out.append(f.interlaced ? 0x40 : 0)
      let rows = Self.storedOrder(height: f.height, interlaced: f.interlaced)
      out += Self.lzw(rows.flatMap { Array(f.indices[($0 * f.width)..<(($0 + 1) * f.width)]) })
    }
    return out + [0x3B]
  }
}

/// Issue 17: GIF read through giflib — the first frame on its canvas, its
/// transparent colour as alpha, interlacing undone, bad files refused.
@Suite struct GIFFiles {
  static let palette: [[UInt8]] = (0..<256).map { (i: Int) -> [UInt8] in
    let r = UInt8(i), g = UInt8(255 - i), b = UInt8((i * 7) & 0xFF)
    return [r, g, b]
  }

  func read(_ gif: GIFWriter) throws -> (ImageBuffer, ImageFileInfo) {
    let dir = try TemporaryDirectory()
    try writeBytes(gif.bytes, to: dir.file("a.gif"))
    return try ImageFile.read(dir.file("a.gif"))
  }

  @Test(arguments: [false, true])
  func firstFrameWithTransparency(interlaced: Bool) throws {
    let (w, h) = (23, 13)
    let indices = (0..<(w * h)).map { UInt8(($0 * 37) % 256) }
    var gif = GIFWriter(width: w, height: h, palette: Self.palette)
    gif.frames = [.init(width: w, height: h, indices: indices, transparent: 74, interlaced: interlaced)]
    gif.frames.append(.init(width: w, height: h, indices: [UInt8](repeating: 9, count: w * h)))
    let (image, info) = try read(gif)
    #expect(info.format == .gif && info.layout == .rgba && info.width == w && info.height == h)
    let want = indices.map { i in i == 74 ? [0, 0, 0, 0] : Self.palette[Int(i)].map(Int.init) + [255] }
    #expect(pixels(image) == want)
  }

  @Test func aFrameSmallerThanTheCanvas() throws {
    var gif = GIFWriter(width: 8, height: 6, palette: Self.palette)
    gif.frames = [.init(left: 3, top: 2, width: 4, height: 3, indices: Array(0..<12).map(UInt8.init))]
    let (image, info) = try read(gif)
    #expect(info.layout == .rgba)  // the canvas around the frame is transparent
    for y in 0..<6 {
      for x in 0..<8 {
        let inside = (3..<7).contains(x) && (2..<5).contains(y)
        let want = inside ? Self.palette[(y - 2) * 4 + (x - 3)].map(Int.init) + [255] : [0, 0, 0, 0]
        #expect(pixel(image, x, y) == want, "(\(x), \(y))")
      }
    }
  }

  @Test func aFrameOutsideTheCanvasLeavesItTransparent() throws {
    // Found by scripts/fuzz.sh image: a 1×1 canvas whose only frame starts at
    // x = 251 was reported as RGB (no alpha) with a transparent pixel.
    let crash: [UInt8] = [
      0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0x00, 0x2B,
      0x04, 0x00, 0x00, 0x21, 0xF9, 0x04, 0xA8, 0x00, 0x00, 0x01, 0x00, 0x2C, 0xFB, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
    ]
    let (image, info) = try ImageFile.decode(crash)
    #expect(info.layout == .rgba && pixels(image) == [[0, 0, 0, 0]])
    var gif = GIFWriter(width: 4, height: 4, palette: Self.palette)
    gif.frames = [.init(width: 4, height: 4, indices: [UInt8](repeating: 3, count: 16))]
    #expect(try read(gif).1.layout == .rgb)  // a frame that covers the canvas, no transparent colour
  }

  @Test func aLargeCanvasWithoutAFrameIsRefusedUntouched() throws {
    // Found by scripts/fuzz.sh image (out of memory): 50 bytes declaring an
    // 11051×11051 canvas (122 MP, inside the pixel limit) and no frame. The
    // decoder cleared the whole 488 MB canvas before finding that out; the
    // canvas now comes zero from the pool (free for fresh memory).
    let oom: [UInt8] =
      Array("GIF89a".utf8) + [UInt8](repeating: 0x2B, count: 6) + [0x2A] + [UInt8](repeating: 0x2B, count: 24)
      + [0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x01, 0x00]
    #expect(oom.count == 50)
    do {
      _ = try ImageFile.decode(oom)
      Issue.record("decoded a GIF without a frame")
    } catch let failure as ImageFileFailure {
      #expect(failure.reason.hasPrefix("corrupt or truncated GIF data"), "\(failure.reason)")
    }
  }

  @Test func everyPrefixIsRefused() throws {
    var gif = GIFWriter(width: 30, height: 20, palette: Self.palette)
    gif.frames = [.init(width: 30, height: 20, indices: (0..<600).map { UInt8($0 % 200) })]
    let data = gif.bytes
    _ = try ImageFile.decode(data)
    // The trailer (the last byte) is not needed for the first frame.
    #expect(decodablePrefixes(of: data, lengths: stride(from: 1, to: data.count - 2, by: 5)) == [])
  }

  @Test func gifIsNotWritten() throws {
    let dir = try TemporaryDirectory()
    let image = try makeImage(width: 2, height: 2, format: .rgba8) { _, _ in [1, 2, 3, 255] }
    #expect(throws: ImageFileError.self) { try ImageFile.write(image, to: dir.file("a.gif")) }
    #expect(try dir.contents() == [])
  }
}
