// The image fuzz target: any bytes go to the PNG/JPEG decoder, which must
// return an image that matches what it says it decoded, or throw an
// ImageFileError, and never crash (issue 16). libFuzzer's `main` drives it;
// this file is compiled with -parse-as-library (see ../../Package.swift).
import FX

/// One input: decode `count` bytes at `data`. A PNG of even length has its
/// chunk CRCs recomputed first, so that mutations get past libpng's CRC
/// check into the chunks' contents; odd lengths are decoded as they are, so
/// bad CRCs stay tested too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
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

/// What a decoded image promises: the size it reports, the format of its
/// bit depth, a JPEG's layout, and an opaque image where the file has no alpha.
private func check(_ image: ImageBuffer, _ info: ImageFileInfo) {
  precondition(image.width == info.width && image.height == info.height, "size \(image.width)×\(image.height) vs \(info)")
  precondition(image.width >= 1 && image.height >= 1, "an empty image")
  precondition(image.format == (info.bitDepth == 16 ? .rgba16 : .rgba8), "format \(image.format) for \(info)")
  precondition(info.format == .png || [.gray, .rgb].contains(info.layout), "a JPEG reported as \(info.layout)")
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
