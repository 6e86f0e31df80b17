import Foundation
import Testing

@testable import FXImage

/// Expects `body` to throw an ImageFileError about `path` whose reason
/// contains `words`.
private func expectFileError(
  _ path: String, mentioning words: String, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record("no error for \(path)", sourceLocation: sourceLocation)
  } catch {
    #expect(
      isFileError(error, path: path, mentioning: words), "got: \(error)",
      sourceLocation: sourceLocation)
  }
}

private func expectReadError(
  _ path: String, mentioning words: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  expectFileError(path, mentioning: words, sourceLocation: sourceLocation) {
    _ = try ImageFile.read(path)
  }
}

private let isRoot = geteuid() == 0

@Suite struct ReadErrors {
  @Test func missingFile() throws {
    let dir = try TemporaryDirectory()
    expectReadError(dir.file("nope.png"), mentioning: "no such file")
  }

  @Test func unreadableFile() throws {
    if isRoot {
      // Permissions do not stop root; /proc/self/mem fails to read at offset 0.
      expectReadError("/proc/self/mem", mentioning: "cannot read")
    } else {
      let dir = try TemporaryDirectory()
      let path = dir.file("secret.png")
      try writeBytes(try bytes(of: fixture("rgb8.png")), to: path)
      chmod(path, 0)
      expectReadError(path, mentioning: "permission denied")
    }
  }

  @Test func directory() throws {
    let dir = try TemporaryDirectory()
    expectReadError(dir.path, mentioning: "directory")
  }

  /// Issue 16: `/dev/zero` or a FIFO named as an input was read until memory
  /// ran out (or, a FIFO without a writer, forever); only regular files are read.
  @Test func notARegularFile() throws {
    expectReadError("/dev/zero", mentioning: "not a regular file (a character device)")
    let dir = try TemporaryDirectory()
    let fifo = dir.file("f.png")
    #expect(mkfifo(fifo, 0o600) == 0)
    expectReadError(fifo, mentioning: "not a regular file (a FIFO)")
  }

  /// Issue 16: a 30 GB sparse file named like a PNG was read whole before its
  /// format was checked; the signature is checked on the first bytes.
  @Test func hugeFileThatIsNotAnImage() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("a.png")
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.truncate(atOffset: 30 << 30)
    try handle.close()
    expectReadError(path, mentioning: "unsupported format")
  }

  @Test func emptyFile() throws {
    let dir = try TemporaryDirectory()
    try writeBytes([], to: dir.file("empty.png"))
    expectReadError(dir.file("empty.png"), mentioning: "empty file")
  }

  @Test func notAnImage() throws {
    let dir = try TemporaryDirectory()
    try writeBytes(Array("P6, a PPM, or rather plain text".utf8), to: dir.file("text.png"))
    expectReadError(dir.file("text.png"), mentioning: "unsupported format")
    try writeBytes([0x89, 0x50], to: dir.file("short.png"))  // half a signature
    expectReadError(dir.file("short.png"), mentioning: "unsupported format")
  }

  @Test func pngWithBadChecksum() throws {
    let dir = try TemporaryDirectory()
    var data = try bytes(of: fixture("rgb8.png"))
    data[17] ^= 0x01  // a byte of IHDR's width: the CRC no longer matches
    try writeBytes(data, to: dir.file("crc.png"))
    expectReadError(dir.file("crc.png"), mentioning: "corrupt PNG")
  }

  @Test func pngWithBadCompressedDataButGoodChecksum() throws {
    let dir = try TemporaryDirectory()
    let ihdr: [UInt8] = bigEndian32(2) + bigEndian32(2) + [8, 2, 0, 0, 0]
    let forged =
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
      + pngChunk("IDAT", [0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]) + pngChunk("IEND", [])
    try writeBytes(forged, to: dir.file("zlib.png"))
    expectReadError(dir.file("zlib.png"), mentioning: "corrupt PNG data")
  }

  @Test func jpegWithGarbageAfterTheMarker() throws {
    let dir = try TemporaryDirectory()
    try writeBytes(
      [0xFF, 0xD8, 0xFF] + Array(repeating: 0x42, count: 64), to: dir.file("junk.jpg"))
    expectReadError(dir.file("junk.jpg"), mentioning: "corrupt JPEG")
  }

  @Test func jpegWithBrokenFrameHeader() throws {
    let dir = try TemporaryDirectory()
    var data = try bytes(of: fixture("color_dc.jpg"))
    let sof = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
    data[sof + 9] = 0  // number of components
    try writeBytes(data, to: dir.file("sof.jpg"))
    expectReadError(dir.file("sof.jpg"), mentioning: "corrupt JPEG")
  }

  @Test(arguments: [
    "rgb8.png", "palette_trns.png", "rgb_interlaced.png", "basn6a16.png", "gray_dc.jpg",
    "color_dc.jpg",
  ])
  func everyPrefixOfAFileIsRefused(name: String) throws {
    // In memory (the file path is tested by halfAFileIsTruncated), to keep it fast.
    let data = try bytes(of: fixture(name))
    _ = try ImageFile.decode(data)
    #expect(decodablePrefixes(of: data, lengths: 1..<data.count) == [], "prefixes decoded as images")
  }

  @Test(arguments: ["png", "jpg"])
  func halfAFileIsTruncated(ext: String) throws {
    let dir = try TemporaryDirectory()
    var rng = SplitMix64(state: 9)
    let noise = try makeImage(width: 64, height: 64, format: .rgba8) { _, _ in
      [rng.below(256), rng.below(256), rng.below(256), 255]
    }
    let whole = dir.file("whole.\(ext)")
    try ImageFile.write(noise, to: whole)
    let data = try bytes(of: whole)
    let half = dir.file("half.\(ext)")
    try writeBytes(Array(data[..<(data.count / 2)]), to: half)
    expectReadError(half, mentioning: "truncated")
  }

  /// A PNG that declares `width × height` but has no pixel data.
  private func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
      + pngChunk("IHDR", bigEndian32(width) + bigEndian32(height) + [8, 6, 0, 0, 0])
      + pngChunk("IEND", [])
  }

  @Test func pngTooLarge() throws {
    let dir = try TemporaryDirectory()
    try writeBytes(pngHeader(width: 1 << 21, height: 1), to: dir.file("wide.png"))
    expectReadError(dir.file("wide.png"), mentioning: "too large")
    try writeBytes(pngHeader(width: 1 << 20, height: 1 << 12), to: dir.file("huge.png"))
    expectReadError(dir.file("huge.png"), mentioning: "too large")
  }

  @Test func jpegTooLarge() throws {
    let dir = try TemporaryDirectory()
    var data = try bytes(of: fixture("gray_dc.jpg"))
    let sof = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
    for k in 5..<9 { data[sof + k] = k.isMultiple(of: 2) ? 0xDC : 0xFF }  // 65500 × 65500
    try writeBytes(data, to: dir.file("huge.jpg"))
    expectReadError(dir.file("huge.jpg"), mentioning: "too large")
  }
}

@Suite struct WriteErrors {
  let image = try! makeImage(width: 4, height: 3, format: .rgba8) { x, y in
    [x * 60, y * 80, 7, 255]
  }

  @Test func missingDirectory() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("no/such/dir/out.png")
    expectFileError(path, mentioning: "does not exist") { try ImageFile.write(image, to: path) }
    #expect(try dir.contents() == [])
  }

  @Test func readOnlyDirectory() throws {
    if isRoot {
      // Permissions do not stop root; sysfs refuses new files.
      let path = "/sys/fximage-test.png"
      expectFileError(path, mentioning: "cannot write") { try ImageFile.write(image, to: path) }
      #expect(access(path, F_OK) != 0)
    } else {
      let dir = try TemporaryDirectory()
      chmod(dir.path, 0o555)
      defer { chmod(dir.path, 0o755) }
      let path = dir.file("out.png")
      expectFileError(path, mentioning: "permission denied") {
        try ImageFile.write(image, to: path)
      }
      #expect(try dir.contents() == [])
    }
  }

  @Test func unknownOrMissingExtension() throws {
    let dir = try TemporaryDirectory()
    expectFileError(dir.file("out.bmp"), mentioning: "unknown file extension \".bmp\"") {
      try ImageFile.write(image, to: dir.file("out.bmp"))
    }
    expectFileError(dir.file("out"), mentioning: "no file extension") {
      try ImageFile.write(image, to: dir.file("out"))
    }
    try ImageFile.write(image, to: dir.file("explicit.bmp"), format: .png)  // format wins
    #expect(try ImageFile.read(dir.file("explicit.bmp")).1.format == .png)
    #expect(try dir.contents() == ["explicit.bmp"])
  }

  @Test func argumentsOutOfRange() throws {
    let dir = try TemporaryDirectory()
    let png = dir.file("out.png")
    let jpg = dir.file("out.jpg")
    expectFileError(png, mentioning: "bit depth 12") {
      try ImageFile.write(image, to: png, bitDepth: 12)
    }
    expectFileError(jpg, mentioning: "8-bit only") {
      try ImageFile.write(image, to: jpg, bitDepth: 16)
    }
    expectFileError(jpg, mentioning: "quality 0") {
      try ImageFile.write(image, to: jpg, jpegQuality: 0)
    }
    expectFileError(png, mentioning: "level 10") {
      try ImageFile.write(image, to: png, pngCompressionLevel: 10)
    }
    #expect(try dir.contents() == [])
  }

  @Test func failedWriteLeavesTheOldFileAndNoTemporary() throws {
    struct Interrupted: Error {}
    let dir = try TemporaryDirectory()
    let path = dir.file("keep.png")
    let old = try bytes(of: fixture("rgb8.png"))
    try writeBytes(old, to: path)
    expectFileError(path, mentioning: "Interrupted") {
      try ImageFile.write(
        image, to: path, format: nil, layout: .rgba, bitDepth: 8, jpegQuality: 90,
        pngCompressionLevel: 6, beforeRename: { throw Interrupted() })
    }
    expectFileError(path, mentioning: "bit depth") {
      try ImageFile.write(image, to: path, bitDepth: 4)
    }
    #expect(try bytes(of: path) == old)
    #expect(try dir.contents() == ["keep.png"])
  }

  @Test func directoryInTheWay() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("taken.png")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    try writeBytes([1, 2, 3], to: path + "/inside")
    expectFileError(path, mentioning: "directory exists") { try ImageFile.write(image, to: path) }
    #expect(try dir.contents() == ["taken.png"])
    #expect(try bytes(of: path + "/inside") == [1, 2, 3])
  }

  @Test func successfulWriteReplacesAndKeepsTheMode() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("replace.png")
    try writeBytes(try bytes(of: fixture("rgb8.png")), to: path)
    chmod(path, 0o640)
    try ImageFile.write(image, to: path)
    #expect(pixels(try ImageFile.read(path).0) == pixels(image))
    #expect(try dir.contents() == ["replace.png"])
    var info = stat()
    stat(path, &info)
    #expect(info.st_mode & 0o777 == 0o640)
    try ImageFile.write(image, to: dir.file("new.png"))
    stat(dir.file("new.png"), &info)
    #expect(info.st_mode & 0o777 == 0o644)
  }
}

@Test func errorDescriptionNamesTheFile() {
  let error = ImageFileError(path: "/tmp/a.png", reason: "empty file (0 bytes)")
  #expect(error.description == "/tmp/a.png: empty file (0 bytes)")
}

/// `replacing: false` puts the new file in place only where none exists:
/// a taken name is an error marked `destinationExists`, the file there is
/// untouched and no temporary file is left; a free name is written.
@Suite struct NoClobberWrites {
  @Test func aTakenNameIsNotReplaced() throws {
    let dir = try TemporaryDirectory()
    let image = try ImageBuffer(width: 3, height: 2, format: .rgba8)
    let path = dir.file("taken.png")
    try Data("someone's file".utf8).write(to: URL(fileURLWithPath: path))
    do {
      try ImageFile.write(image, to: path, replacing: false)
      Issue.record("an existing file was replaced")
    } catch let error as ImageFileError {
      #expect(error.destinationExists, "\(error)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("someone's file".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["taken.png"])
    try ImageFile.write(image, to: dir.file("free.png"), replacing: false)
    #expect(try ImageFile.read(dir.file("free.png")).0.width == 3)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["free.png", "taken.png"])
  }
}
