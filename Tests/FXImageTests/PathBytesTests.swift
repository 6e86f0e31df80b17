import Foundation
import Testing

@testable import FXImage

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 16: file names are bytes. The escape of ``PathBytes`` is lossless
/// for every byte string, and shows escaped bytes as `\xE9`.
@Suite struct PathBytesEscape {
  /// Byte strings built from the pieces that matter: ASCII, valid UTF-8 of
  /// 2, 3 and 4 bytes, the UTF-8 of reserved code points, lone continuation
  /// and lead bytes, truncated sequences, overlongs and encoded surrogates.
  static func randomBytes(_ generator: inout some RandomNumberGenerator) -> [UInt8] {
    let pieces: [[UInt8]] = [
      Array("a".utf8), Array("/".utf8), Array(".png".utf8), Array("é".utf8), Array("€".utf8), Array("😀".utf8),
      Array("e\u{301}".utf8), [0xE9], [0xFF], [0x80], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0xAF],
      [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBB, 0xA9], [0xF4, 0x8F, 0xBA, 0x80],
      [0xF4, 0x8F, 0xBB, 0xBF], [0xF4, 0x8F, 0xB9, 0x80], [0xF4, 0x8F, 0xBB],
    ]
    var bytes: [UInt8] = []
    for _ in 0..<Int.random(in: 0...12, using: &generator) {
      if Bool.random(using: &generator) {
        bytes += pieces.randomElement(using: &generator)!
      } else {
        bytes.append(UInt8.random(in: 1...255, using: &generator))
      }
    }
    return bytes
  }

  @Test func bytesToStringToBytesIsTheIdentity() {
    var generator = SplitMix64(state: 16)
    for _ in 0..<20_000 {
      let bytes = Self.randomBytes(&generator)
      let text = PathBytes.string(fromBytes: bytes)
      #expect(PathBytes.bytes(of: text) == bytes, "\(bytes) → \(text.unicodeScalars.map { $0.value })")
      // And back again: the String a name decodes to is the one its bytes give.
      #expect(Array(PathBytes.string(fromBytes: PathBytes.bytes(of: text)).unicodeScalars) == Array(text.unicodeScalars))
    }
  }

  @Test func everyByteAloneAndEveryPairRoundTrips() {
    for a in 0...255 {
      #expect(PathBytes.bytes(of: PathBytes.string(fromBytes: [UInt8(a)])) == [UInt8(a)])
      for b in 0...255 {
        let pair = [UInt8(a), UInt8(b)]
        #expect(PathBytes.bytes(of: PathBytes.string(fromBytes: pair)) == pair)
      }
    }
  }

  /// Different names stay different, even where Swift's `String` equality
  /// (canonical equivalence) would take them for one.
  @Test func distinctBytesGiveDistinctStrings() {
    let names: [[UInt8]] = [[0xE9], [0xC3, 0xA9], Array("e\u{301}".utf8), [0xF4, 0x8F, 0xBB, 0xA9], [0x65, 0xCC]]
    let strings = names.map { PathBytes.string(fromBytes: $0) }
    #expect(Set(strings.map { PathBytes.bytes(of: $0) }).count == names.count)
    #expect(Set(strings.map { Array($0.unicodeScalars) }).count == names.count)
  }

  @Test func validUTF8IsDecodedAsSwiftDecodesIt() {
    for name in ["ok.png", "latén.png", "cafe\u{301}", "日本語/写真.jpg", "😀", ""] {
      let text = PathBytes.string(fromBytes: Array(name.utf8))
      #expect(Array(text.unicodeScalars) == Array(name.unicodeScalars))
      #expect(!PathBytes.hasEscapes(text))
      #expect(PathBytes.display(text) == name)
    }
  }

  @Test func invalidBytesAndReservedCodePointsAreEscapedByteByByte() {
    let latin1 = PathBytes.string(fromBytes: Array("lat".utf8) + [0xE9] + Array("n.png".utf8))
    #expect(latin1.unicodeScalars.map(\.value) == [0x6C, 0x61, 0x74, 0x10FEE9, 0x6E, 0x2E, 0x70, 0x6E, 0x67])
    #expect(PathBytes.hasEscapes(latin1))
    #expect(PathBytes.display(latin1) == "lat\\xE9n.png")

    // U+10FEE9 really in a name: its four UTF-8 bytes are escaped, so that it cannot be taken for byte 0xE9.
    let reserved = PathBytes.string(fromBytes: Array("a\u{10FEE9}".utf8))
    #expect(reserved.unicodeScalars.map(\.value) == [0x61, 0x10FEF4, 0x10FE8F, 0x10FEBB, 0x10FEA9])
    #expect(PathBytes.display(reserved) == "a\\xF4\\x8F\\xBB\\xA9")
    #expect(PathBytes.bytes(of: reserved) == Array("a\u{10FEE9}".utf8))

    // A truncated sequence: each of its bytes, then the valid rest.
    #expect(PathBytes.display(PathBytes.string(fromBytes: [0xE2, 0x82, 0x41, 0xC3, 0xA9])) == "\\xE2\\x82Aé")
  }

  @Test func cStringsInAndOut() {
    let bytes: [UInt8] = Array("dir/lat".utf8) + [0xE9, 0xFF] + Array("n.png".utf8)
    let text = PathBytes.string(fromBytes: bytes)
    let passed = PathBytes.withCString(text) { pointer in
      (0..<strlen(pointer)).map { UInt8(bitPattern: pointer[$0]) }
    }
    #expect(passed == bytes)
    let cString = bytes.map { CChar(bitPattern: $0) } + [0]
    #expect(cString.withUnsafeBufferPointer { PathBytes.string(fromCString: $0.baseAddress!) } == text)
    #expect(PathBytes.withCString("plain.png") { String(cString: $0) } == "plain.png")
  }
}

/// Support.swift's seeded generator, for `randomElement(using:)` and the like.
extension SplitMix64: RandomNumberGenerator {}
