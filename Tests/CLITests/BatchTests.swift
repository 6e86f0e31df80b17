// End-to-end tests of `fxc run` on batches: inputs (files, directories, globs,
// manifests), the output tree and names, bad files, and read-only outputs.
// The helpers here (running fxc, scratch directories, test images) are shared
// by the other Batch*Tests files; they copy the few of CommandLineTests.swift's
// that they need, under their own names.

import FX
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// MARK: - Running fxc

/// What one run of `fxc` did.
struct BatchOutcome: CustomStringConvertible {
  var status: Int32
  var stdout: String
  var stderr: String
  /// Whether it ended by a signal (then `status` is the signal).
  var signalled = false

  var description: String { "exit status \(status)\n--- stdout:\n\(stdout)--- stderr:\n\(stderr)---" }
}

enum BatchFXC {
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  static var rocket: String { packageRoot + "/examples/rocket.jpg" }

  /// The `fxc` built with the tests (next to the test binary), or $FXC_EXECUTABLE.
  static let executable: String? = {
    if let path = ProcessInfo.processInfo.environment["FXC_EXECUTABLE"] { return path }
    var bases: [URL] = []
    if let url = Bundle.main.executableURL { bases.append(url) }
    bases.append(URL(fileURLWithPath: CommandLine.arguments[0]))
    bases.append(URL(fileURLWithPath: "/proc/self/exe"))
    for base in bases {
      var directory = base.resolvingSymlinksInPath().deletingLastPathComponent()
      for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("fxc").path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
          FileManager.default.isExecutableFile(atPath: candidate)
        {
          return candidate
        }
        directory = directory.deletingLastPathComponent()
      }
    }
    return nil
  }()

  /// A started `fxc`, its output going to files.
  final class Running {
    let process = Process()
    let outPath: String, errPath: String
    private let out: FileHandle, err: FileHandle

    /// Runs fxc, after `prefix` when given (`setpriv …`), or `program` instead of fxc.
    init(_ arguments: [String], in directory: String, stdin: String? = nil, prefix: [String] = [], program: String? = nil) throws {
      let executable = try #require(BatchFXC.executable, "no fxc executable next to the test binary; build it or set FXC_EXECUTABLE")
      let scratch = NSTemporaryDirectory() + "/fxc-batch-output-" + UUID().uuidString
      outPath = scratch + ".out"
      errPath = scratch + ".err"
      _ = FileManager.default.createFile(atPath: outPath, contents: nil)
      _ = FileManager.default.createFile(atPath: errPath, contents: nil)
      out = try #require(FileHandle(forWritingAtPath: outPath))
      err = try #require(FileHandle(forWritingAtPath: errPath))
      if let program {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
      } else if prefix.isEmpty {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
      } else {
        process.executableURL = URL(fileURLWithPath: prefix[0])
        process.arguments = Array(prefix.dropFirst()) + [executable] + arguments
      }
      process.currentDirectoryURL = URL(fileURLWithPath: directory)
      process.standardOutput = out
      process.standardError = err
      let pipe = Pipe()
      process.standardInput = stdin == nil ? FileHandle.nullDevice : pipe
      try process.run()
      if let stdin {
        pipe.fileHandleForWriting.write(Data(stdin.utf8))
        try pipe.fileHandleForWriting.close()
      }
    }

    func signal(_ signo: Int32) { kill(process.processIdentifier, signo) }

    /// Waits for the end (killing it after `timeout` seconds).
    func wait(timeout: Double = 180) throws -> BatchOutcome {
      let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
      process.waitUntilExit()
      watchdog.cancel()
      try out.close()
      try err.close()
      defer {
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
      }
      let stdout = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self)
      let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self)
      return BatchOutcome(
        status: process.terminationStatus, stdout: stdout, stderr: stderr,
        signalled: process.terminationReason == .uncaughtSignal)
    }
  }

  /// Runs `fxc arguments…` in `directory` and waits for it.
  static func run(
    _ arguments: [String], in directory: String, stdin: String? = nil, prefix: [String] = [], program: String? = nil
  ) throws -> BatchOutcome {
    let result = try Running(arguments, in: directory, stdin: stdin, prefix: prefix, program: program).wait()
    if result.signalled { Issue.record("fxc \(arguments) was killed by signal \(result.status)") }
    return result
  }
}

// MARK: - Files

/// A fresh directory, readable by everyone (tests run fxc as `nobody` too),
/// removed with everything in it when released.
final class BatchScratch {
  let path: String

  init() throws {
    var template = Array((NSTemporaryDirectory() + "/fxc-batch-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    path = String(cString: made)
    chmod(path, 0o755)
  }

  deinit {
    // Read-only directories made by a test would stop the removal.
    if let all = FileManager.default.enumerator(atPath: path) {
      for case let name as String in all { chmod(file(name), 0o755) }
    }
    try? FileManager.default.removeItem(atPath: path)
  }

  func file(_ name: String) -> String { path + "/" + name }
  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }
  func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file(name))) }
  func write(_ bytes: Data, to name: String) throws { try bytes.write(to: URL(fileURLWithPath: file(name))) }
  func mkdir(_ name: String) throws {
    try FileManager.default.createDirectory(atPath: file(name), withIntermediateDirectories: true)
  }

  /// Every file below `directory`, as relative paths, sorted; hidden ones included.
  func tree(_ directory: String = ".") -> [String] {
    var found: [String] = []
    let root = file(directory)
    guard let all = FileManager.default.enumerator(atPath: root) else { return [] }
    for case let name as String in all {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
        found.append(name)
      }
    }
    return found.sorted()
  }

  /// Writes a test image (the directory is made first).
  @discardableResult
  func image(_ name: String, width: Int = 37, height: Int = 23, bitDepth: Int = 8, opaque: Bool = false, seed: UInt32 = 1)
    throws -> String
  {
    try mkdir((name as NSString).deletingLastPathComponent.isEmpty ? "." : (name as NSString).deletingLastPathComponent)
    try ImageFile.write(batchTestImage(width: width, height: height, opaque: opaque, seed: seed), to: file(name), bitDepth: bitDepth)
    return file(name)
  }

  /// Copies the bundled photo in as `name`.
  func rocket(_ name: String) throws {
    try mkdir((name as NSString).deletingLastPathComponent.isEmpty ? "." : (name as NSString).deletingLastPathComponent)
    try FileManager.default.copyItem(atPath: BatchFXC.rocket, toPath: file(name))
  }
}

/// A deterministic premultiplied image: gradients, noise, and several alphas (or opaque).
func batchTestImage(width: Int, height: Int, opaque: Bool = false, seed: UInt32 = 1) -> ImageBuffer {
  let image = try! ImageBuffer(width: width, height: height, format: .rgba16)
  var state: UInt32 = 12345 &+ seed
  for y in 0..<height {
    for x in 0..<width {
      state = state &* 1_664_525 &+ 1_013_904_223
      let noise = Float(state >> 8) / Float(1 << 24)
      let alphas: [Float] = [1, 1, 1, 0.5, 0, 1.0 / 255]
      let a = opaque ? 1 : alphas[(x / 3 + y) % alphas.count]
      let rgb = SIMD3<Float>(Float(x) / Float(max(width - 1, 1)), Float(y) / Float(max(height - 1, 1)), noise)
      image[x, y] = SIMD4(rgb * a, a)
    }
  }
  return image
}

func batchMaxDifference(_ a: ImageBuffer, _ b: ImageBuffer) -> Float {
  var worst: Float = 0
  for y in 0..<a.height {
    for x in 0..<a.width {
      let d = a[x, y] - b[x, y]
      for c in 0..<4 { worst = max(worst, abs(d[c])) }
    }
  }
  return worst
}

/// A `--report` file: its entries by status, and the summary.
struct BatchReportFile {
  var files: [[String: Any]]
  var summary: [String: Any]

  init(_ path: String) throws {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    let top = try #require(object as? [String: Any])
    files = try #require(top["files"] as? [[String: Any]])
    summary = try #require(top["summary"] as? [String: Any])
  }

  /// The inputs whose status is `status`.
  func inputs(_ status: String) -> [String] {
    files.filter { $0["status"] as? String == status }.compactMap { $0["input"] as? String }.sorted()
  }

  func outputs(_ status: String) -> [String] {
    files.filter { $0["status"] as? String == status }.compactMap { $0["output"] as? String }.sorted()
  }
}

/// Whether a root process could write in a read-only directory (then tests run fxc as nobody).
let batchRunsAsRoot = geteuid() == 0
let batchCanDropPrivileges = FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

// MARK: - Tests

@Suite("fxc run: batches of files")
struct BatchInputsTests {
  /// Good files of each kind, a corrupt, a truncated and an empty file, and a
  /// directory named like an image, walked with -r: the bad three are reported
  /// by name, everything else is written, mirrored, and the batch fails.
  @Test func mixedBatchGoesOnAndMirrorsTheTree() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.image("in/deep.png", bitDepth: 16)
    try dir.image("in/sub/b.jpg", opaque: true)
    try dir.image("in/holiday.jpg/inside.png", width: 12, height: 9)  // a directory named like an image
    try dir.write(Data("definitely not an image".utf8), to: "in/corrupt.png")
    try dir.write(Data(), to: "in/sub/empty.jpg")
    let whole = try dir.bytes("in/sub/b.jpg")
    try dir.write(whole.prefix(whole.count / 2), to: "in/sub/truncated.jpg")
    try dir.write(Data("notes".utf8), to: "in/README.txt")  // not an image by name: not listed

    let result = try BatchFXC.run(
      ["run", "-c", "sepia | vignette", "in", "-r", "--out-dir", "out", "-j", "2", "--report", "report.json"], in: dir.path)
    #expect(result.status == 1, "\(result)")
    for bad in ["in/corrupt.png: ", "in/sub/empty.jpg: empty", "in/sub/truncated.jpg: "] {
      #expect(result.stderr.contains("error: " + bad), "missing \(bad) in \(result)")
    }
    #expect(result.stderr.contains("error: 3 of 7 file(s) failed"), "\(result)")
    #expect(!result.stderr.contains("in/a.png") && !result.stderr.contains("holiday"), "\(result)")
    #expect(result.stdout.contains("4 written, 0 skipped, 3 failed of 7 files"), "\(result)")
    #expect(dir.tree("out") == ["a.png", "deep.png", "holiday.jpg/inside.png", "sub/b.jpg"])
    #expect(try ImageFile.read(dir.file("out/deep.png")).1.bitDepth == 16, "16-bit PNG stays 16-bit")
    #expect(try ImageFile.read(dir.file("out/a.png")).1.bitDepth == 8)
    #expect(try ImageFile.read(dir.file("out/sub/b.jpg")).1.format == .jpeg)

    let report = try BatchReportFile(dir.file("report.json"))
    #expect(report.inputs("ok") == ["in/a.png", "in/deep.png", "in/holiday.jpg/inside.png", "in/sub/b.jpg"])
    #expect(report.inputs("failed") == ["in/corrupt.png", "in/sub/empty.jpg", "in/sub/truncated.jpg"])
    #expect((report.summary["exit_status"] as? NSNumber)?.intValue == 1)
    let ok = try #require(report.files.first { $0["input"] as? String == "in/a.png" })
    #expect((ok["width"] as? NSNumber)?.intValue == 37 && (ok["height"] as? NSNumber)?.intValue == 23)
    #expect(((ok["output_bytes"] as? NSNumber)?.intValue ?? 0) > 0)
    #expect(ok["kernel_ms"] != nil && ok["decode_ms"] != nil && ok["encode_ms"] != nil)
    let failed = try #require(report.files.first { $0["input"] as? String == "in/sub/empty.jpg" })
    #expect((failed["error"] as? String)?.contains("empty") == true)
  }

  @Test func withoutRecursionOnlyTheTopLevel() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.image("in/sub/b.png")
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.tree("out") == ["a.png"])
  }

  /// An output directory inside a recursively walked input directory is not
  /// walked: a second run sees the same inputs (its outputs are not re-read).
  @Test func outputDirectoryInsideTheInputIsNotAnInput() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.image("in/sub/b.png")
    for _ in 0..<2 {
      let result = try BatchFXC.run(["run", "-c", "sepia", "-r", "in", "--out-dir", "in/out", "--overwrite"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      #expect(!result.stderr.contains("refusing"), "\(result)")
    }
    #expect(dir.tree("in/out") == ["a.png", "sub/b.png"])
  }

  /// A quoted glob: `**` crosses directories, the tree below the fixed part is kept,
  /// and a directory that matches the pattern is not an input.
  @Test func globKeepsTheTreeBelowItsFixedPart() throws {
    let dir = try BatchScratch()
    try dir.image("photos/a.png")
    try dir.image("photos/x/b.png")
    try dir.image("photos/x/y/c.png")
    try dir.image("photos/x/y/c.jpg", opaque: true)
    try dir.image("photos/odd.png/d.jpg", opaque: true)
    let result = try BatchFXC.run(["run", "-c", "sepia", "photos/**/*.png", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.tree("out") == ["a.png", "x/b.png", "x/y/c.png"])

    let none = try BatchFXC.run(["run", "-c", "sepia", "photos/*.gif", "--out-dir", "out2"], in: dir.path)
    #expect(none.status == 2, "\(none)")
    #expect(none.stderr.contains("no file matches 'photos/*.gif'"), "\(none)")
  }

  /// A manifest on standard input: relative paths keep their directories, a
  /// directory listed in it is a bad input, and the batch goes on.
  @Test func manifestFromStandardInput() throws {
    let dir = try BatchScratch()
    try dir.image("data/a.png")
    try dir.image("data/sub/b.png")
    try dir.image("elsewhere/c.png")
    try dir.mkdir("data/dir.png")
    let manifest = "data/a.png\n\ndata/sub/b.png\r\n\(dir.file("elsewhere/c.png"))\ndata/dir.png\n"
    let result = try BatchFXC.run(["run", "-c", "sepia", "--manifest", "-", "--out-dir", "out"], in: dir.path, stdin: manifest)
    #expect(result.status == 1, "\(result)")
    #expect(result.stderr.contains("error: data/dir.png: is a directory"), "\(result)")
    #expect(dir.tree("out") == ["c.png", "data/a.png", "data/sub/b.png"])

    try dir.write(Data("data/a.png\n".utf8), to: "list.txt")
    let fromFile = try BatchFXC.run(["run", "-c", "sepia", "--manifest", "list.txt", "--out-dir", "out2"], in: dir.path)
    #expect(fromFile.status == 0, "\(fromFile)")
    #expect(dir.tree("out2") == ["data/a.png"])
  }

  @Test func nameTemplateFormatAndQuality() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png", width: 64, height: 48, opaque: true)
    try dir.image("in/b.jpeg", width: 64, height: 48, opaque: true)
    let result = try BatchFXC.run(
      [
        "run", "-c", "sepia", "in", "--out-dir", "out", "--name", "{index:3}-{stem}-graded.{ext}", "--format", "jpeg",
        "--quality", "40",
      ],
      in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.tree("out") == ["001-a-graded.jpg", "002-b-graded.jpeg"])
    #expect(try ImageFile.read(dir.file("out/001-a-graded.jpg")).1.format == .jpeg)
    let high = try BatchFXC.run(
      ["run", "-c", "sepia", "in/a.png", "--out-dir", "hq", "--format", "jpeg", "--quality", "98"], in: dir.path)
    #expect(high.status == 0, "\(high)")
    #expect(try dir.bytes("hq/a.jpg").count > dir.bytes("out/001-a-graded.jpg").count, "quality 98 should be larger than 40")

    let png0 = try BatchFXC.run(["run", "-c", "sepia", "in/a.png", "--out-dir", "c0", "--compression", "0"], in: dir.path)
    let png9 = try BatchFXC.run(["run", "-c", "sepia", "in/a.png", "--out-dir", "c9", "--compression", "9"], in: dir.path)
    #expect(png0.status == 0 && png9.status == 0, "\(png0)\n\(png9)")
    #expect(try dir.bytes("c0/a.png").count > dir.bytes("c9/a.png").count)
  }

  struct UsageCase: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var fragment: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let usageCases = [
    UsageCase(arguments: ["--name", "{stem}.{extension}"], fragment: "unknown field '{extension}'"),
    UsageCase(arguments: ["--name", "../{name}"], fragment: "must stay inside the output directory"),
    UsageCase(arguments: ["--name", "{stem}.png", "--format", "jpeg"], fragment: "--format asks for jpeg"),
    UsageCase(arguments: ["--overwrite", "--skip-existing"], fragment: "contradict"),
    UsageCase(arguments: ["--shard", "4/4"], fragment: "0 ≤ K < N"),
    UsageCase(arguments: ["--shard", "1of4"], fragment: "K/N"),
    UsageCase(arguments: ["--compression", "10"], fragment: "'--compression'"),
  ]

  @Test(arguments: usageCases)
  func usageErrorsWriteNothing(_ c: UsageCase) throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out"] + c.arguments, in: dir.path)
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains(c.fragment), "missing '\(c.fragment)' in \(result)")
    #expect(!dir.exists("out"))
  }

  /// A read-only output directory: one clear error before any work, nothing written.
  /// (As root, which may write anywhere, fxc runs as `nobody`.)
  @Test(.enabled(if: !batchRunsAsRoot || batchCanDropPrivileges))
  func readOnlyOutputDirectory() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.image("in/b.png")
    try dir.mkdir("out")
    chmod(dir.file("in"), 0o755)
    chmod(dir.file("out"), 0o555)
    let prefix = batchRunsAsRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out"], in: dir.path, prefix: prefix)
    #expect(result.status == 1, "\(result)")
    #expect(result.stderr.contains("cannot write to the output directory out: permission denied"), "\(result)")
    #expect(dir.tree("out").isEmpty)

    // A read-only subdirectory of the tree: those files fail one by one, the rest is written.
    chmod(dir.file("out"), 0o777)
    try dir.image("in/sub/c.png")
    try dir.mkdir("out/sub")
    chmod(dir.file("in/sub"), 0o755)
    chmod(dir.file("out/sub"), 0o555)
    let partial = try BatchFXC.run(["run", "-c", "sepia", "in", "-r", "--out-dir", "out"], in: dir.path, prefix: prefix)
    #expect(partial.status == 1, "\(partial)")
    #expect(partial.stderr.contains("in/sub/c.png: ") && partial.stderr.contains("permission denied"), "\(partial)")
    #expect(dir.tree("out") == ["a.png", "b.png"])
  }
}
