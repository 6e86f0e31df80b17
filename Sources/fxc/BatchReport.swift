import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What became of one job.
struct FileResult {
  enum Status: String {
    /// Written.
    case ok
    /// `--skip-existing` and the output was already there.
    case skipped
    case failed
    /// Started, then abandoned before writing because the batch stopped.
    case cancelled
    /// Never started because the batch stopped.
    case notRun = "not_run"
  }

  var job: BatchJob
  var status: Status
  var error: String? = nil
  var width = 0, height = 0
  var inputBytes: Int? = nil, outputBytes: Int? = nil
  var decodeSeconds = 0.0, kernelSeconds = 0.0, encodeSeconds = 0.0
  /// Orientation applied (2…8), if any.
  var orientation: Int? = nil
  /// What was wrong with the file but did not stop it (``ImageFileInfo/warnings``).
  var warnings: [String] = []
  /// Decoded, run and encoded in bands rather than as whole images.
  var streamed = false
}

/// Running totals of a batch.
struct BatchCounts {
  var written = 0, skipped = 0, failed = 0, cancelled = 0, notRun = 0
  var megapixels = 0.0

  /// Jobs settled one way or the other.
  var finished: Int { written + skipped + failed }

  mutating func add(_ r: FileResult) {
    switch r.status {
    case .ok:
      written += 1
      megapixels += Double(r.width * r.height) / 1e6
    case .skipped: skipped += 1
    case .failed: failed += 1
    case .cancelled: cancelled += 1
    case .notRun: notRun += 1
    }
  }
}

/// `--report out.json`: one entry per file, written as each file finishes (so
/// memory stays flat however long the batch), to a temporary file next to the
/// report that is renamed into place at the end — an interrupted batch still
/// leaves a complete report of what it did.
///
///     {"chain": "...", "shard": "0/4", "threads": 2,
///      "files": [{"input": "a.jpg", "output": "out/a.jpg", "status": "ok", "width": 640, ...}, ...],
///      "summary": {"total": 500, "ok": 498, "failed": 2, ..., "files_per_second": 41.2, "peak_rss_mib": 118.4}}
///
/// The report is UTF-8 JSON, whatever the file names. Every string is the
/// ``PathBytes/display(_:)`` form, which shows a byte that is not UTF-8 as
/// `\xE9`; for an input or output whose bytes the display form does not give
/// back (a name that is not valid UTF-8: ``PathBytes/hasEscapes(_:)``),
/// `input_path_base64` / `output_path_base64` hold the path's exact bytes, in
/// base64 (RFC 4648, with padding):
///
///     {"input": "in/lat\\xE9n.png", "input_path_base64": "aW4vbGF06W4ucG5n", ...}
final class BatchReport {
  let path: String
  /// The temporary file's path, as bytes with a NUL at the end.
  private let temporary: [CChar]
  private let handle: FileHandle
  private var first = true

  init(path: String, chain: String, shard: Shard?, threads: Int) throws {
    self.path = path
    let (directory, name) = BatchPlanner.split(path)
    var template = PathBytes.bytes(of: "\(directory)/\(FileSystem.temporaryName(for: name))").map { CChar(bitPattern: $0) } + [0]
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      throw CommandFailure(description: "error: cannot write the report \(path): \(String(cString: strerror(errno)))")
    }
    fchmod(fd, 0o644)
    temporary = template
    handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    let shardText = shard.map { Self.string($0.description) } ?? "null"
    emit("{\"chain\": \(Self.string(chain)), \"shard\": \(shardText), \"threads\": \(threads),\n\"files\": [\n")
  }

  func add(_ r: FileResult) {
    var fields = Self.path("input", r.job.input.path) + Self.path("output", r.job.destination)
    fields.append(("status", Self.string(r.status.rawValue)))
    if let error = r.error { fields.append(("error", Self.string(error))) }
    if let frame = r.job.frame { fields.append(("frame", String(frame))) }
    if !r.job.uniforms.isEmpty {
      let values = r.job.uniforms.sorted { $0.key.name < $1.key.name }
        .map { "\(Self.string($0.key.name)): \(Self.number(Double($0.value)))" }
      fields.append(("params", "{" + values.joined(separator: ", ") + "}"))
    }
    if r.width > 0 { fields += [("width", String(r.width)), ("height", String(r.height))] }
    if let o = r.orientation { fields.append(("orientation", String(o))) }
    if !r.warnings.isEmpty { fields.append(("warnings", "[" + r.warnings.map(Self.string).joined(separator: ", ") + "]")) }
    if let b = r.inputBytes { fields.append(("input_bytes", String(b))) }
    if let b = r.outputBytes { fields.append(("output_bytes", String(b))) }
    if r.status == .ok {
      fields += [
        ("decode_ms", Self.number(r.decodeSeconds * 1000)), ("kernel_ms", Self.number(r.kernelSeconds * 1000)),
        ("encode_ms", Self.number(r.encodeSeconds * 1000)), ("streamed", r.streamed ? "true" : "false"),
      ]
    }
    let object = "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    emit((first ? "  " : ",\n  ") + object)
    first = false
  }

  /// The process's peak resident set size so far, in MiB: `VmHWM` of
  /// /proc/self/status, this program's own. (getrusage's `ru_maxrss` keeps
  /// the peak of the process before its exec: a large parent that started
  /// fxc would show as fxc's peak.) 0 where /proc is not there.
  static func peakResidentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kib = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return kib / 1024
  }

  /// Writes the summary and moves the report into place.
  func finish(_ c: BatchCounts, total: Int, seconds: Double, interrupted: String?, exitStatus: Int32) throws {
    let summary: [(String, String)] = [
      ("total", String(total)), ("ok", String(c.written)), ("skipped", String(c.skipped)),
      ("failed", String(c.failed)), ("cancelled", String(c.cancelled)), ("not_run", String(c.notRun)),
      ("seconds", Self.number(seconds)), ("files_per_second", Self.number(seconds > 0 ? Double(c.written) / seconds : 0)),
      ("mpixels_per_second", Self.number(seconds > 0 ? c.megapixels / seconds : 0)),
      ("interrupted_by", interrupted.map(Self.string) ?? "null"), ("exit_status", String(exitStatus)),
      ("peak_rss_mib", Self.number(Self.peakResidentMiB())),
    ]
    emit("\n],\n\"summary\": {" + summary.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}}\n")
    try handle.synchronize()
    try handle.close()
    guard PathBytes.withCString(path, { rename(temporary, $0) }) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw CommandFailure(description: "error: cannot write the report \(path): \(reason)")
    }
  }

  /// Removes the unfinished report (a usage error stopped the batch).
  func abandon() {
    try? handle.close()
    unlink(temporary)
  }

  private func emit(_ text: String) { handle.write(Data(text.utf8)) }

  /// A JSON string literal of the display form (``jsonString(_:)``).
  static func string(_ s: String) -> String { jsonString(PathBytes.display(s)) }

  /// The field `name` for a path, and `name_path_base64` with its bytes when
  /// the display form does not name it.
  static func path(_ name: String, _ path: String) -> [(String, String)] {
    guard PathBytes.hasEscapes(path) else { return [(name, string(path))] }
    return [(name, string(path)), (name + "_path_base64", string(Data(PathBytes.bytes(of: path)).base64EncodedString()))]
  }

  static func number(_ v: Double) -> String { v.isFinite ? String(format: "%.3f", v) : "null" }
}
