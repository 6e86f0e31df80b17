import Foundation
import Testing

@testable import FXImage

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 16: ``ImageFile`` reads and writes a file whose name is not UTF-8,
/// given as a ``PathBytes`` string. The files are made and checked here
/// through POSIX calls on the raw bytes.
/// The bytes of the names in `directory`, without `.` and `..`, sorted.
private func rawNames(in directory: String) -> [[UInt8]] {
  guard let stream = opendir(directory) else { return [] }
  defer { closedir(stream) }
  var names: [[UInt8]] = []
  while let entry = readdir(stream) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
    if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
  }
  return names.sorted { $0.lexicographicallyPrecedes($1) }
}

/// `bytes` as a NUL-terminated C path.
private func cPath(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

@Suite struct ImageFileByteNames {
  static let latin1: [UInt8] = Array("lat".utf8) + [0xE9] + Array("n.png".utf8)

  /// A PNG made by `creat` on the raw bytes is read; the error about a
  /// missing one shows the name's display form.
  @Test func readsAFileWhoseNameIsNotUTF8() throws {
    let dir = try TemporaryDirectory()
    let png = try bytes(of: fixture("gray8.png"))
    let fd = creat(cPath(Array(dir.path.utf8) + [0x2F] + Self.latin1), 0o644)
    #expect(fd >= 0)
    #expect(write(fd, png, png.count) == png.count)
    close(fd)

    let path = PathBytes.string(fromBytes: Array(dir.path.utf8) + [0x2F] + Self.latin1)
    let (image, info) = try ImageFile.read(path)
    let (expected, _) = try ImageFile.read(fixture("gray8.png"))
    #expect(info.format == .png)
    #expect(pixels(image) == pixels(expected))

    let missing = PathBytes.string(fromBytes: Array(dir.path.utf8) + [0x2F, 0xFF] + Array(".png".utf8))
    #expect(throws: ImageFileError.self) { try ImageFile.read(missing) }
    do {
      _ = try ImageFile.read(missing)
    } catch let error as ImageFileError {
      #expect(error.path == missing)
      #expect(error.description == "\(dir.path)/\\xFF.png: cannot open the file: no such file or directory")
    }
  }

  /// A write creates exactly the raw name (no U+FFFD, no UTF-8 of the escape),
  /// replaces it atomically the second time, and leaves no temporary file.
  @Test func writesAFileWhoseNameIsNotUTF8() throws {
    let dir = try TemporaryDirectory()
    let path = PathBytes.string(fromBytes: Array(dir.path.utf8) + [0x2F] + Self.latin1)
    let (image, _) = try ImageFile.read(fixture("gray8.png"))
    try ImageFile.write(image, to: path)
    try ImageFile.write(image, to: path)
    #expect(rawNames(in: dir.path) == [Self.latin1])
    var info = stat()
    #expect(stat(cPath(Array(dir.path.utf8) + [0x2F] + Self.latin1), &info) == 0 && info.st_size > 0)
    #expect(pixels(try ImageFile.read(path).0) == pixels(image))
  }
}
