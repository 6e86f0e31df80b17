import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `-` as an input or an output, as vips, ImageMagick and sharp read it:
/// image bytes on standard input or output. Standard input is read once;
/// bytes that begin like an image file are an image, anything else is a
/// manifest (one path per line). The image goes through the batch as a
/// temporary file (removed when the run ends), and an output `-` is written
/// to a temporary file whose bytes then go to standard output — which is
/// then kept for them alone: fxc's own lines go to standard error.
enum StandardStreams {
  /// Standard input's bytes, read on first use.
  static var input: Data { Data(inputBytes) }
  /// Held as an array, not a `Data`: a global `Data`'s storage pointer sits in
  /// an enum payload LeakSanitizer cannot follow, so it reported the bytes as
  /// leaked at exit (scripts/sanitize.sh, the manifest-on-stdin shard test).
  private static let inputBytes: [UInt8] = [UInt8](FileHandle.standardInput.readDataToEndOfFile())

  /// Set while standard output carries an image: ``say(_:)`` writes to standard error.
  nonisolated(unsafe) static var outputIsImage = false

  /// The temporary files standing for `-`, and how messages name them.
  nonisolated(unsafe) static var names: [(path: String, name: String)] = []

  /// `line` with the temporary files' paths replaced by what they stand for.
  static func named(_ line: String) -> String {
    names.reduce(line) { $0.replacingOccurrences(of: $1.path, with: $1.name) }
  }

  /// The file extension for bytes that begin like an image file, or nil.
  static func imageExtension(_ bytes: Data) -> String? {
    let b = [UInt8](bytes.prefix(12))
    func starts(_ s: [UInt8]) -> Bool { b.count >= s.count && Array(b[..<s.count]) == s }
    if starts([0x89, 0x50, 0x4E, 0x47]) { return "png" }
    if starts([0xFF, 0xD8, 0xFF]) { return "jpg" }
    if starts(Array("GIF8".utf8)) { return "gif" }
    if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "tif" }
    if starts(Array("RIFF".utf8)), b.count >= 12, Array(b[8..<12]) == Array("WEBP".utf8) { return "webp" }
    if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) {
      let brand = String(decoding: b[8..<12], as: UTF8.self)
      return brand.hasPrefix("avi") ? "avif" : "heic"
    }
    return nil
  }

  /// A new temporary file's path, `fxc-NAME-PID-XXXXXX.EXT` in `$TMPDIR`,
  /// holding `bytes`.
  /// - Throws: ``CommandFailure`` when it cannot be made.
  static func temporaryFile(_ name: String, extension ext: String, bytes: Data = Data()) throws -> String {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(directory)/fxc-\(name)-\(getpid())-XXXXXX.\(ext)".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(ext.utf8.count + 1)) }
    guard fd >= 0 else {
      throw CommandFailure(description: "error: cannot make a temporary file in \(directory): \(String(cString: strerror(errno)))")
    }
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    try handle.write(contentsOf: bytes)
    return String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
  }

  /// Copies the file at `path` to standard output.
  static func writeToStandardOutput(_ path: String) throws {
    guard let bytes = FileManager.default.contents(atPath: path) else {
      throw CommandFailure(description: "error: cannot read back the output for standard output")
    }
    FileHandle.standardOutput.write(bytes)
  }
}
