import Foundation
import Testing

@testable import FXImage

/// Path of a file in Tests/FXImageTests/Fixtures (a `.copy` resource).
func fixture(_ name: String) -> String {
  guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")
  else { fatalError("missing fixture \(name)") }
  return url.path
}

/// A fresh empty directory, removed again by `cleanUp()`.
final class TemporaryDirectory {
  let path: String

  init() throws {
    var template = Array((NSTemporaryDirectory() + "/fximage-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }

  /// The names in the directory, sorted (hidden temporary files included).
  func contents() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }
}

/// Raw bytes of a file.
func bytes(of path: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Writes raw bytes to a file (test inputs, not through ImageFile).
func writeBytes(_ bytes: [UInt8], to path: String) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The pixel at (x, y) as integers in the buffer's own format.
func pixel(_ image: ImageBuffer, _ x: Int, _ y: Int) -> [Int] {
  let p = image.data + y * image.rowBytes + x * image.format.bytesPerPixel
  switch image.format {
  case .rgba8: return (0..<4).map { Int(p.load(fromByteOffset: $0, as: UInt8.self)) }
  case .rgba16: return (0..<4).map { Int(p.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
  case .rgba32f: return (0..<4).map { Int(p.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self)) }
  }
}

/// All pixels, row by row.
func pixels(_ image: ImageBuffer) -> [[Int]] {
  (0..<image.height).flatMap { y in (0..<image.width).map { x in pixel(image, x, y) } }
}

/// A buffer of `format` filled from integer RGBA values (already premultiplied).
func makeImage(width: Int, height: Int, format: PixelFormat, _ value: (Int, Int) -> [Int]) throws
  -> ImageBuffer
{
  let image = try ImageBuffer(width: width, height: height, format: format)
  for y in 0..<height {
    for x in 0..<width {
      let v = value(x, y)
      let p = image.data + y * image.rowBytes + x * format.bytesPerPixel
      for k in 0..<4 {
        switch format {
        case .rgba8: p.storeBytes(of: UInt8(v[k]), toByteOffset: k, as: UInt8.self)
        case .rgba16: p.storeBytes(of: UInt16(v[k]), toByteOffset: 2 * k, as: UInt16.self)
        case .rgba32f: p.storeBytes(of: Float(v[k]) / 255, toByteOffset: 4 * k, as: Float.self)
        }
      }
    }
  }
  return image
}

/// A small deterministic pseudo-random generator (tests must be repeatable).
struct SplitMix64 {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// CRC-32 as PNG chunks use it (to forge chunks whose checksum is right).
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
  var crc: UInt32 = 0xFFFF_FFFF
  for b in bytes {
    crc ^= UInt32(b)
    for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
  }
  return ~crc
}

/// A PNG chunk: length, type, body, CRC.
func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
  let typed = Array(type.utf8) + body
  return bigEndian32(UInt32(body.count)) + typed + bigEndian32(crc32(typed))
}

func bigEndian32(_ v: UInt32) -> [UInt8] {
  [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) }
}

/// Whether `error` is an ImageFileError about `path` whose reason contains `words`.
func isFileError(_ error: any Error, path: String, mentioning words: String) -> Bool {
  guard let e = error as? ImageFileError else { return false }
  return e.path == path && e.description.hasPrefix(path + ": ")
    && e.reason.localizedCaseInsensitiveContains(words)
}

/// The lengths among `lengths` at which the first bytes of `data` decode as
/// an image — none, for a decoder that never returns a partial file. A
/// prefix that fails with anything but an ``ImageFileFailure`` is an issue.
func decodablePrefixes(of data: [UInt8], lengths: some Sequence<Int>, sourceLocation: SourceLocation = #_sourceLocation)
  -> [Int]
{
  lengths.filter { length in
    do {
      _ = try ImageFile.decode(Array(data[..<length]))
      return true
    } catch {
      #expect(error is ImageFileFailure, "\(length) bytes: \(error)", sourceLocation: sourceLocation)
      return false
    }
  }
}
