import FX
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 16: every file name, UTF-8 or not, is processed or reported. Names
/// are built and checked here as raw bytes, through POSIX calls, not through
/// the code under test.
@Suite("fxc run: file names that are not UTF-8")
struct FileNameTests {
  /// `lat\xE9n.png`: an `é` in Latin-1, not valid UTF-8.
  static let latin1: [UInt8] = bytes("lat") + [0xE9] + bytes("n.png")

  /// Runs fxc on a directory holding `lat\xE9n.png` and `ok.png` (the same
  /// picture): both are written, the first to the same raw bytes, the lines
  /// show its name as `lat\xE9n.png`, and a killed run's temporary file next
  /// to its output is removed.
  @Test func aDirectoryWalkFindsEveryName() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    try dir.rawCopy("in/ok.png", to: bytes("in/") + Self.latin1)
    try dir.mkdir("out")
    try dir.rawWrite(bytes("partial"), to: bytes("out/.") + Self.latin1 + bytes(".tmp-AbC123"))
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out", "-v"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("2 written, 0 skipped, 0 failed of 2 files"), "\(result)")
    #expect(result.stdout.contains("in/lat\\xE9n.png → out/lat\\xE9n.png: 37×23"), "\(result)")
    #expect(rawNames(in: dir.file("out")) == [Self.latin1, bytes("ok.png")])
    #expect(try dir.rawBytes(bytes("out/") + Self.latin1) == [UInt8](try dir.bytes("out/ok.png")))
  }

  /// Names that would make a message lie (issue 39): a newline followed by
  /// `error:` cannot start a line of its own, and a literal backslash is
  /// told from an escaped byte (`\x5C` against `\xE9`). Both files are
  /// processed, the forged one failing as the not-an-image it is.
  @Test func namesCannotForgeLinesOrEscapes() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    let forged = bytes("a\nerror: b.png")
    try dir.rawWrite(bytes("not an image"), to: bytes("in/") + forged)
    let backslash = bytes("lat\\xE9n.png")  // the four characters \, x, E, 9
    try dir.rawCopy("in/ok.png", to: bytes("in/") + backslash)
    try dir.rawCopy("in/ok.png", to: bytes("in/") + Self.latin1)
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out", "-v"], in: dir.path)
    #expect(result.status == 1, "\(result)")
    let lines = (result.stdout + result.stderr).split(separator: "\n")
    #expect(!lines.contains { $0.hasPrefix("error: b.png") }, "\(result)")
    #expect(result.stderr.contains("error: in/a\\x0Aerror: b.png: "), "\(result)")
    #expect(result.stdout.contains("in/lat\\x5CxE9n.png → out/lat\\x5CxE9n.png"), "\(result)")
    #expect(result.stdout.contains("in/lat\\xE9n.png → out/lat\\xE9n.png"), "\(result)")
    #expect(rawNames(in: dir.file("out")).contains(backslash) && rawNames(in: dir.file("out")).contains(Self.latin1))
  }

  /// The name given on the command line as raw bytes (Foundation's Process
  /// cannot pass them): read, and written to a raw output name; a missing
  /// one is reported with the name's display form.
  @Test func aNameOnTheCommandLine() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    try dir.rawCopy("in/ok.png", to: bytes("in/") + Self.latin1)
    let output = bytes("sepia-") + Self.latin1
    let result = try rawRun([bytes("run"), bytes("-c"), bytes("sepia"), bytes("in/") + Self.latin1, bytes("-o"), output], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("in/lat\\xE9n.png → sepia-lat\\xE9n.png"), "\(result)")
    #expect(rawNames(in: dir.path).contains(output))

    let missing = try rawRun(
      [bytes("run"), bytes("-c"), bytes("sepia"), bytes("in/gone") + [0xFF] + bytes(".png"), bytes("-o"), bytes("x.png")],
      in: dir.path)
    #expect(missing.status == 1, "\(missing)")
    #expect(missing.stderr.contains("error: in/gone\\xFF.png: cannot open the file: no such file or directory"), "\(missing)")
  }

  /// A glob matches such a name, by a plain wildcard and by a pattern with
  /// the raw byte in it; `**` mirrors a directory whose name is not UTF-8.
  @Test func globsMatchEveryName() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    try dir.rawCopy("in/ok.png", to: bytes("in/") + Self.latin1)
    #expect(mkdir(cPath(dir.path, bytes("in/d") + [0xFF]), 0o755) == 0)
    try dir.rawCopy("in/ok.png", to: bytes("in/d") + [0xFF] + bytes("/deep.png"))

    let plain = try BatchFXC.run(["run", "-c", "sepia", "in/*.png", "--out-dir", "out"], in: dir.path)
    #expect(plain.status == 0, "\(plain)")
    #expect(rawNames(in: dir.file("out")) == [Self.latin1, bytes("ok.png")])

    let raw = try rawRun(
      [bytes("run"), bytes("-c"), bytes("sepia"), bytes("in/*") + [0xE9] + bytes("*"), bytes("--out-dir"), bytes("out2")],
      in: dir.path)
    #expect(raw.status == 0, "\(raw)")
    #expect(rawNames(in: dir.file("out2")) == [Self.latin1])

    let deep = try BatchFXC.run(["run", "-c", "sepia", "in/**/deep.png", "--out-dir", "out3"], in: dir.path)
    #expect(deep.status == 0, "\(deep)")
    #expect(rawNames(in: dir.file("out3")) == [bytes("d") + [0xFF]])
    #expect(try dir.rawBytes(bytes("out3/d") + [0xFF] + bytes("/deep.png")) == [UInt8](try dir.bytes("out/ok.png")))
  }

  /// A manifest, in a file whose own name is not UTF-8 and on standard
  /// input, lists such a name; its directories are kept in the output.
  @Test func manifestsListEveryName() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    try dir.rawCopy("in/ok.png", to: bytes("in/") + Self.latin1)
    let manifest = bytes("in/") + Self.latin1 + bytes("\r\n\nin/ok.png\n")
    let list = bytes("list") + [0xE9] + bytes(".txt")
    try dir.rawWrite(manifest, to: list)

    let fromFile = try rawRun(
      [bytes("run"), bytes("-c"), bytes("sepia"), bytes("--manifest"), list, bytes("--out-dir"), bytes("out")], in: dir.path)
    #expect(fromFile.status == 0, "\(fromFile)")
    #expect(fromFile.stdout.contains("2 written, 0 skipped, 0 failed of 2 files"), "\(fromFile)")
    #expect(rawNames(in: dir.file("out/in")) == [Self.latin1, bytes("ok.png")])

    let fromInput = try rawRun(
      [bytes("run"), bytes("-c"), bytes("sepia"), bytes("-"), bytes("--out-dir"), bytes("out2")], in: dir.path, stdin: manifest)
    #expect(fromInput.status == 0, "\(fromInput)")
    #expect(rawNames(in: dir.file("out2/in")) == [Self.latin1, bytes("ok.png")])
  }

  /// The report (itself named in Latin-1) is UTF-8 JSON: the names in their
  /// display form, and the exact bytes in base64 for the one that is not UTF-8.
  @Test func theReportHoldsTheBytes() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    try dir.rawCopy("in/ok.png", to: bytes("in/") + Self.latin1)
    let report = bytes("r") + [0xE9] + bytes(".json")
    let result = try rawRun(
      [bytes("run"), bytes("-c"), bytes("sepia"), bytes("in"), bytes("--out-dir"), bytes("out"), bytes("--report"), report], in: dir.path)
    #expect(result.status == 0, "\(result)")
    let text = try dir.rawBytes(report)
    #expect(String(validating: text, as: UTF8.self) != nil)
    let top = try #require(try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
    let files = try #require(top["files"] as? [[String: Any]])
    #expect((top["summary"] as? [String: Any])?["ok"] as? Int == 2)
    let odd = try #require(files.first { $0["input"] as? String == "in/lat\\xE9n.png" })
    #expect(odd["output"] as? String == "out/lat\\xE9n.png")
    #expect((odd["input_path_base64"] as? String).flatMap { Data(base64Encoded: $0) }.map([UInt8].init) == bytes("in/") + Self.latin1)
    #expect((odd["output_path_base64"] as? String).flatMap { Data(base64Encoded: $0) }.map([UInt8].init) == bytes("out/") + Self.latin1)
    let ok = try #require(files.first { $0["input"] as? String == "in/ok.png" })
    #expect(ok["input_path_base64"] == nil && ok["output_path_base64"] == nil)
  }

  /// Valid UTF-8 that Swift's `String` would merge or mis-split: `é` and
  /// `e` + U+0301 are two files, and a name that starts with a combining mark
  /// is still a name after a `/`.
  @Test func namesThatStringEqualityWouldMerge() throws {
    let dir = try BatchScratch()
    try dir.image("in/ok.png")
    let names = [bytes("caf\u{E9}.png"), bytes("cafe\u{301}.png"), bytes("\u{301}x.png")]
    for name in names { try dir.rawCopy("in/ok.png", to: bytes("in/") + name) }
    try FileManager.default.removeItem(atPath: dir.file("in/ok.png"))
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("3 written, 0 skipped, 0 failed of 3 files"), "\(result)")
    #expect(rawNames(in: dir.file("out")) == names.sorted { $0.lexicographicallyPrecedes($1) })
  }
}

// MARK: - Raw bytes

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// `directory/relative` as a NUL-terminated C path.
private func cPath(_ directory: String, _ relative: [UInt8]) -> [CChar] {
  (bytes(directory + "/") + relative).map { CChar(bitPattern: $0) } + [0]
}

/// The bytes of the names in `directory`, without `.` and `..`, sorted by bytes.
private func rawNames(in directory: String) -> [[UInt8]] {
  guard let stream = opendir(directory) else { return [] }
  defer { closedir(stream) }
  var names: [[UInt8]] = []
  while let entry = readdir(stream) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
    if name != bytes(".") && name != bytes("..") { names.append(name) }
  }
  return names.sorted { $0.lexicographicallyPrecedes($1) }
}

extension BatchScratch {
  /// Writes `contents` to the file at the raw path `relative`.
  fileprivate func rawWrite(_ contents: [UInt8], to relative: [UInt8]) throws {
    let fd = open(cPath(path, relative), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0, "cannot create \(relative)")
    defer { close(fd) }
    #expect(Glibc.write(fd, contents, contents.count) == contents.count)
  }

  /// Copies the file `source` to the raw path `relative`.
  fileprivate func rawCopy(_ source: String, to relative: [UInt8]) throws {
    try rawWrite([UInt8](bytes(source)), to: relative)
  }

  /// The contents of the file at the raw path `relative`.
  fileprivate func rawBytes(_ relative: [UInt8]) throws -> [UInt8] {
    let fd = open(cPath(path, relative), O_RDONLY)
    try #require(fd >= 0, "cannot open \(relative)")
    return [UInt8](try FileHandle(fileDescriptor: fd, closeOnDealloc: true).readToEnd() ?? Data())
  }
}

/// Runs fxc in `directory` with raw-byte arguments, through `posix_spawn`
/// (Foundation's Process takes Strings, which cannot hold a byte that is not
/// UTF-8): `/bin/sh -c 'cd "$0" && exec "$@"'` passes the bytes on untouched.
private func rawRun(_ arguments: [[UInt8]], in directory: String, stdin: [UInt8] = []) throws -> BatchOutcome {
  let executable = try #require(BatchFXC.executable, "no fxc executable next to the test binary; build it or set FXC_EXECUTABLE")
  let scratch = NSTemporaryDirectory() + "/fxc-raw-" + UUID().uuidString
  let (inPath, outPath, errPath) = (scratch + ".in", scratch + ".out", scratch + ".err")
  defer { for path in [inPath, outPath, errPath] { unlink(path) } }
  try Data(stdin).write(to: URL(fileURLWithPath: inPath))
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  let argv = [bytes("/bin/sh"), bytes("-c"), bytes("cd \"$0\" && exec \"$@\""), bytes(directory), bytes(executable)] + arguments
  var cStrings: [UnsafeMutablePointer<CChar>?] = argv.map { argument in
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: argument.count + 1)
    for (i, byte) in argument.enumerated() { pointer[i] = CChar(bitPattern: byte) }
    pointer[argument.count] = 0
    return pointer
  }
  cStrings.append(nil)
  defer { for pointer in cStrings { pointer?.deallocate() } }
  var pid = pid_t()
  let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, cStrings, environ)
  try #require(spawned == 0, "posix_spawn failed: \(spawned)")
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  let stdout = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self)
  let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self)
  let signalled = status & 0x7F != 0
  return BatchOutcome(status: signalled ? status & 0x7F : (status >> 8) & 0xFF, stdout: stdout, stderr: stderr, signalled: signalled)
}
