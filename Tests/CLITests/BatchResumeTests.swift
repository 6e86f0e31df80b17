// Stopping a batch part-way (a signal, --fail-fast) and resuming it with
// --skip-existing: only complete outputs, each produced exactly once.

import FX
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("fxc run: interrupting and resuming a batch", .serialized)
struct BatchResumeTests {
  static let count = 24
  /// Slow enough per file that a signal lands mid-batch.
  static let chain = "gaussianBlur(sigma: 6) | unsharpMask(sigma: 4, amount: 2) | wave | vignette"

  /// `count` distinct photos-sized images in in/.
  static func inputs(_ dir: BatchScratch) throws -> [String] {
    try (1...count).map { i in
      let name = String(format: "in/img%02d.png", i)
      try dir.image(name, width: 320, height: 240, opaque: i % 2 == 0, seed: UInt32(i))
      return name
    }
  }

  /// Starts the batch, waits until at least `before` outputs exist, then sends `signo`.
  static func interrupt(_ dir: BatchScratch, with signo: Int32, after before: Int = 2, extra: [String] = [])
    throws -> BatchOutcome
  {
    let running = try BatchFXC.Running(
      ["run", "-c", chain, "in", "--out-dir", "out", "-j", "1", "--report", "first.json"] + extra, in: dir.path)
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline && running.process.isRunning {
      if dir.tree("out").filter({ !$0.split(separator: "/").last!.hasPrefix(".") }).count >= before { break }
      usleep(20_000)
    }
    running.signal(signo)
    return try running.wait()
  }

  /// Every output decodes completely (a truncated file would not) at the input's size, and no temporary file is left.
  static func checkComplete(_ dir: BatchScratch, expected: Set<String>? = nil) throws {
    let files = dir.tree("out")
    #expect(files.filter { $0.hasPrefix(".") || $0.contains("/.") }.isEmpty, "temporary files left: \(files)")
    for name in files where !name.hasPrefix(".") {
      let (image, _) = try ImageFile.read(dir.file("out/" + name))
      #expect(image.width == 320 && image.height == 240, "\(name)")
    }
    if let expected { #expect(Set(files) == expected) }
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func signalStopsCleanlyAndSkipExistingResumes(signo: Int32) throws {
    let dir = try BatchScratch()
    let names = try Self.inputs(dir)
    let all = Set(names.map { "out/" + $0.dropFirst(3) })

    let first = try Self.interrupt(dir, with: signo)
    #expect(!first.signalled, "fxc should catch the signal and exit: \(first)")
    #expect(first.status == 128 + signo, "\(first)")
    #expect(first.stderr.contains("--skip-existing"), "\(first)")
    try Self.checkComplete(dir)
    let done = Set(dir.tree("out").map { "out/" + $0 })
    #expect(!done.isEmpty && done.count < names.count, "the signal should land mid-batch: \(done.count) done")
    let firstReport = try BatchReportFile(dir.file("first.json"))
    #expect(Set(firstReport.outputs("ok")) == done, "the report lists exactly the outputs written")
    #expect(firstReport.summary["interrupted_by"] as? String == (signo == SIGINT ? "SIGINT" : "SIGTERM"))

    let second = try BatchFXC.run(
      ["run", "-c", Self.chain, "in", "--out-dir", "out", "-j", "2", "--skip-existing", "--report", "second.json"],
      in: dir.path)
    #expect(second.status == 0, "\(second)")
    try Self.checkComplete(dir, expected: Set(all.map { String($0.dropFirst(4)) }))
    let secondReport = try BatchReportFile(dir.file("second.json"))
    // Exactly once: what the first run wrote is skipped, everything else written now.
    #expect(Set(secondReport.outputs("skipped")) == done)
    #expect(Set(secondReport.outputs("ok")).isDisjoint(with: done))
    #expect(Set(secondReport.outputs("ok")).union(done) == all)
  }

  /// SIGKILL cannot be caught: a temporary file may be left; the resumed run
  /// removes it and still produces every output exactly once.
  @Test func killedHardThenResumed() throws {
    let dir = try BatchScratch()
    let names = try Self.inputs(dir)
    // A stale temporary file as a killed writer leaves it.
    try dir.mkdir("out")
    try dir.write(Data("half a PNG".utf8), to: "out/.img05.png.tmp-AbC123")
    let first = try Self.interrupt(dir, with: SIGKILL)
    #expect(first.signalled && first.status == SIGKILL, "\(first)")
    let done = Set(dir.tree("out").filter { !$0.hasPrefix(".") })
    let second = try BatchFXC.run(
      ["run", "-c", Self.chain, "in", "--out-dir", "out", "-j", "2", "--skip-existing", "--report", "second.json"],
      in: dir.path)
    #expect(second.status == 0, "\(second)")
    try Self.checkComplete(dir, expected: Set(names.map { String($0.dropFirst(3)) }))
    let report = try BatchReportFile(dir.file("second.json"))
    #expect(Set(report.outputs("skipped").map { String($0.dropFirst(4)) }) == done)
  }

  /// A plain re-run, without --skip-existing or --overwrite, also removes the
  /// temporaries a killed run left next to its outputs (issue 16), and only those.
  @Test func plainRunRemovesStaleTemporaries() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.mkdir("out")
    try dir.write(Data("half a PNG".utf8), to: "out/.a.png.tmp-AbC123")
    try dir.write(Data("someone else's".utf8), to: "out/.b.png.tmp-XyZ789")
    let result = try BatchFXC.run(["run", "-c", Self.chain, "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(!dir.exists("out/.a.png.tmp-AbC123"), "the stale temporary of an output of this run is removed")
    #expect(dir.exists("out/.b.png.tmp-XyZ789"), "a temporary of a file this run does not write is left")
    #expect(dir.exists("out/a.png"))
  }

  /// A temporary named by a live process (`.NAME.tmp-PID-XXXXXX`) belongs to
  /// a run still writing it: a run beside it leaves it alone; one named by a
  /// process that has ended is removed.
  @Test func aLiveRunsTemporaryIsLeftAlone() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.image("in/b.png", seed: 2)
    try dir.mkdir("out")
    let live = Process()
    live.executableURL = URL(fileURLWithPath: "/bin/sleep")
    live.arguments = ["30"]
    try live.run()
    defer { live.terminate() }
    let dead = Process()
    dead.executableURL = URL(fileURLWithPath: "/bin/true")
    try dead.run()
    dead.waitUntilExit()
    try dir.write(Data("being written".utf8), to: "out/.a.png.tmp-\(live.processIdentifier)-AbC123")
    try dir.write(Data("abandoned".utf8), to: "out/.b.png.tmp-\(dead.processIdentifier)-XyZ789")
    let result = try BatchFXC.run(["run", "-c", Self.chain, "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.exists("out/.a.png.tmp-\(live.processIdentifier)-AbC123"), "a live writer's temporary is kept")
    #expect(!dir.exists("out/.b.png.tmp-\(dead.processIdentifier)-XyZ789"), "an ended writer's temporary is removed")
  }

  /// Two overlapping `--skip-existing` runs into one directory (issue 39):
  /// neither removes the other's file in progress, both exit 0, and every
  /// output is put in place once (a hard link that fails on a taken name),
  /// the other run counting it skipped.
  @Test func overlappingRunsBothSucceedAndWriteEachFileOnce() throws {
    let dir = try BatchScratch()
    let names = try Self.inputs(dir)
    let arguments = ["run", "-c", Self.chain, "in", "--out-dir", "out", "-j", "1", "--skip-existing"]
    let first = try BatchFXC.Running(arguments + ["--report", "first.json"], in: dir.path)
    let second = try BatchFXC.Running(arguments + ["--report", "second.json"], in: dir.path)
    let (a, b) = (try first.wait(), try second.wait())
    #expect(a.status == 0 && b.status == 0, "\(a)\n\(b)")
    try Self.checkComplete(dir, expected: Set(names.map { String($0.dropFirst(3)) }))
    let reports = [try BatchReportFile(dir.file("first.json")), try BatchReportFile(dir.file("second.json"))]
    let written = reports.flatMap { $0.outputs("ok") }
    #expect(written.count == names.count && Set(written).count == names.count, "each output written once: \(written)")
  }

  @Test func failFastStopsAtTheFirstFailure() throws {
    let dir = try BatchScratch()
    try dir.mkdir("in")
    try dir.write(Data("bad".utf8), to: "in/a-bad.png")
    _ = try Self.inputs(dir)
    let result = try BatchFXC.run(
      ["run", "-c", Self.chain, "in", "--out-dir", "out", "-j", "1", "--fail-fast", "--report", "r.json"], in: dir.path)
    #expect(result.status == 1, "\(result)")
    #expect(result.stderr.contains("error: in/a-bad.png: "), "\(result)")
    #expect(result.stderr.contains("--fail-fast"), "\(result)")
    #expect(dir.tree("out").isEmpty, "the bad file is first; nothing after it should start")
    let report = try BatchReportFile(dir.file("r.json"))
    #expect(report.inputs("not_run").count == Self.count)
  }
}
