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
    let (directory, name) = BatchDestinations.split(path)
    // As for outputs: a missing directory is made (a failure shows as mkstemp's below).
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var template = PathBytes.bytes(of: "\(directory)/\(FileSystem.temporaryName(for: name))").map { CChar(bitPattern: $0) } + [0]
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      throw CommandFailure(description: "error: cannot write the report \(path): \(String(cString: strerror(errno)))")
    }
    fchmod(fd, 0o644)
    temporary = template
    handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    // The report is streamed: the header object is left open for "files".
    let header = JSONText.encode(Header(chain: Self.display(chain), shard: shard.map { $0.description }, threads: threads))
    emit(header.dropLast() + ",\n\"files\": [\n")
  }

  /// The report's first fields.
  private struct Header: Encodable {
    var chain: String, shard: String?, threads: Int
    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(chain, forKey: .chain)
      try c.encode(shard, forKey: .shard)  // null when the batch is not sharded
      try c.encode(threads, forKey: .threads)
    }
    enum CodingKeys: String, CodingKey { case chain, shard, threads }
  }

  /// One file's entry (absent fields are omitted); times in ms.
  private struct Entry: Encodable {
    var input: String, inputPathBase64: String?
    var output: String, outputPathBase64: String?
    var status: String, error: String?
    var frame: Int?, params: [String: Double?]?
    var width: Int?, height: Int?, orientation: Int?
    var warnings: [String]?
    var inputBytes: Int?, outputBytes: Int?
    var decodeMs: Double?, kernelMs: Double?, encodeMs: Double?, streamed: Bool?
  }

  func add(_ r: FileResult) {
    let ok = r.status == .ok
    let entry = Entry(
      input: Self.display(r.job.input.path), inputPathBase64: Self.base64(r.job.input.path),
      output: Self.display(r.job.destination), outputPathBase64: Self.base64(r.job.destination),
      status: r.status.rawValue, error: r.error.map(Self.display), frame: r.job.frame,
      params: r.job.uniforms.isEmpty
        // A Float's shortest spelling (0.3, not 0.30000001192092896); null where not finite.
        ? nil
        : Dictionary(uniqueKeysWithValues: r.job.uniforms.map { (Self.display($0.key.name), $0.value.isFinite ? Double("\($0.value)") : nil) }),
      width: r.width > 0 ? r.width : nil, height: r.width > 0 ? r.height : nil, orientation: r.orientation,
      warnings: r.warnings.isEmpty ? nil : r.warnings.map(Self.display),
      inputBytes: r.inputBytes, outputBytes: r.outputBytes,
      decodeMs: ok ? JSONText.rounded(r.decodeSeconds * 1000) : nil, kernelMs: ok ? JSONText.rounded(r.kernelSeconds * 1000) : nil,
      encodeMs: ok ? JSONText.rounded(r.encodeSeconds * 1000) : nil, streamed: ok ? r.streamed : nil)
    emit((first ? "  " : ",\n  ") + JSONText.encode(entry))
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
    let summary = Summary(
      total: total, ok: c.written, skipped: c.skipped, failed: c.failed, cancelled: c.cancelled, notRun: c.notRun,
      seconds: JSONText.rounded(seconds), filesPerSecond: JSONText.rounded(seconds > 0 ? Double(c.written) / seconds : 0),
      mpixelsPerSecond: JSONText.rounded(seconds > 0 ? c.megapixels / seconds : 0),
      interruptedBy: interrupted, exitStatus: Int(exitStatus), peakRssMib: JSONText.rounded(Self.peakResidentMiB()))
    emit("\n],\n\"summary\": " + JSONText.encode(summary) + "}\n")
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

  /// The batch's totals: counts, seconds, rates, and why it stopped (null when it ran to the end).
  private struct Summary: Encodable {
    var total, ok, skipped, failed, cancelled, notRun: Int
    var seconds, filesPerSecond, mpixelsPerSecond: Double?
    var interruptedBy: String?
    var exitStatus: Int
    var peakRssMib: Double?
    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(total, forKey: .total)
      try c.encode(ok, forKey: .ok)
      try c.encode(skipped, forKey: .skipped)
      try c.encode(failed, forKey: .failed)
      try c.encode(cancelled, forKey: .cancelled)
      try c.encode(notRun, forKey: .notRun)
      try c.encode(seconds, forKey: .seconds)  // an optional: null when not finite
      try c.encode(filesPerSecond, forKey: .filesPerSecond)
      try c.encode(mpixelsPerSecond, forKey: .mpixelsPerSecond)
      try c.encode(interruptedBy, forKey: .interruptedBy)  // null when the batch ran to the end
      try c.encode(exitStatus, forKey: .exitStatus)
      try c.encode(peakRssMib, forKey: .peakRssMib)
    }
    enum CodingKeys: CodingKey {
      case total, ok, skipped, failed, cancelled, notRun, seconds, filesPerSecond, mpixelsPerSecond, interruptedBy, exitStatus
      case peakRssMib
    }
  }

  /// A string as the report shows it: ``PathBytes/display(_:)``.
  static func display(_ s: String) -> String { PathBytes.display(s) }

  /// A path's exact bytes in base64 (RFC 4648, with padding) when the display form does not name it.
  static func base64(_ path: String) -> String? {
    PathBytes.hasEscapes(path) ? Data(PathBytes.bytes(of: path)).base64EncodedString() : nil
  }
}
