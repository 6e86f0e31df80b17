// The image fuzz target: any bytes go to the image decoders (PNG, JPEG, TIFF,
// WebP, GIF, HEIC, AVIF, sniffed from the bytes), which must
// return an image that matches what it says it decoded, or throw an
// ImageFileError, and never crash (issue 16). libFuzzer's `main` drives it;
// this file is compiled with -parse-as-library (see ../../Package.swift).
import FX

#if canImport(Glibc)
  import Glibc
#endif

/// One input: decode `count` bytes at `data`. A PNG of even length has its
/// chunk CRCs recomputed first, so that mutations get past libpng's CRC
/// check into the chunks' contents; odd lengths are decoded as they are, so
/// bad CRCs stay tested too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  // No pooled blocks: the RSS libFuzzer limits is then what one input needs.
  BufferPool.shared.capacityBytes = 0
  var bytes = Array(UnsafeBufferPointer(start: data, count: count))
  if count % 2 == 0 { fixChunkCRCs(&bytes) }
  do {
    let (image, info) = try ImageFile.read(bytes: bytes, name: "input")
    check(image, info)
  } catch let error as ImageFileError {
    precondition(error.path == "input" && !error.reason.isEmpty, "an error without a reason: \(error)")
  } catch {
    fatalError("not an ImageFileError: \(type(of: error)): \(error)")
  }
  return 0
}

/// libFuzzer calls this once, before any input: with FXC_FUZZ_SEEDS set (a
/// directory) it writes a small image in every format fxc writes, and a GIF,
/// as seeds for the decoders the repo has no fixtures of.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzImageInitialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
  guard let directory = getenv("FXC_FUZZ_SEEDS").map({ String(cString: $0) }) else { return 0 }
  let image = try! ImageBuffer(width: 24, height: 16, format: .rgba8)
  for y in 0..<16 { for x in 0..<24 { image[x, y] = SIMD4(Float(x) / 24, Float(y) / 16, 0.5, x < 12 ? 1 : 0.5) } }
  for (name, lossless) in [("a.tif", false), ("b.webp", false), ("c.webp", true), ("d.heic", false), ("e.avif", false)] {
    try? ImageFile.write(image, to: "\(directory)/seed-\(name)", jpegQuality: 60, lossless: lossless)
  }
  try? ImageFile.write(image, to: "\(directory)/seed-f.tif", bitDepth: 16)
  // GIF89a, 1×1, two colours, a Graphics Control Extension, LZW codes clear, 0, end.
  let gif: [UInt8] = [
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0, 0, 0, 0, 0,
    0x21, 0xF9, 4, 1, 0, 0, 1, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B,
  ]
  if let file = fopen("\(directory)/seed-g.gif", "wb") {
    _ = gif.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
  }
  return 0
}

/// What a decoded image promises: the size it reports, the format of its
/// bit depth, a JPEG's layout, and an opaque image where the file has no alpha.
private func check(_ image: ImageBuffer, _ info: ImageFileInfo) {
  precondition(image.width == info.width && image.height == info.height, "size \(image.width)×\(image.height) vs \(info)")
  precondition(image.width >= 1 && image.height >= 1, "an empty image")
  precondition(image.format == (info.bitDepth == 16 ? .rgba16 : .rgba8), "format \(image.format) for \(info)")
  precondition(info.format != .jpeg || [.gray, .rgb].contains(info.layout), "a JPEG reported as \(info.layout)")
  precondition(info.layout.hasAlpha || image.isOpaque, "a \(info.layout) file decoded with alpha")
}

/// Recomputes the CRC of every whole chunk of a PNG (length, type, data, CRC
/// after the 8-byte signature), stopping at the first chunk that does not fit.
private func fixChunkCRCs(_ bytes: inout [UInt8]) {
  guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return }
  var at = 8
  while at + 12 <= bytes.count {
    let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    guard length <= bytes.count - at - 12 else { return }
    let crc = crc32(bytes[at + 4..<at + 8 + length])
    for k in 0..<4 { bytes[at + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
    at += 12 + length
  }
}

/// CRC-32 (ISO 3309, as PNG uses it).
private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
  return ~crc
}

private let crcTable: [UInt32] = (0..<256).map { n in
  (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
}
