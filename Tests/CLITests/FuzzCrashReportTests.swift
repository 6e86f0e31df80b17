import Foundation
import Testing

/// `fxc fuzz` prints the seed of every case it was running when it crashes —
/// after a trap, and after a stack overflow on a worker thread (the handler
/// runs on an alternate signal stack) — and that seed replays the case.
/// (`FXC_FUZZ_CRASH` crashes only off the main thread; of the 200 cases, two
/// workers share out, the worker thread's first one crashes.)
struct FuzzCrashReportTests {
  /// A Swift trap is SIGILL on x86-64 (ud2) and SIGTRAP on arm64 (brk).
  static let trap: Int32 = {
    #if arch(x86_64)
      SIGILL
    #else
      SIGTRAP
    #endif
  }()

  @Test(arguments: [("trap", trap), ("overflow", SIGSEGV)])
  func crashNamesTheCasesBeingRun(_ mode: String, _ signal: Int32) throws {
    let dir = try BatchScratch()
    let fxc = try #require(BatchFXC.executable)
    let crashed = try BatchFXC.Running(
      ["FXC_FUZZ_CRASH=\(mode)", fxc, "fuzz", "--graphs", "200", "--seed", "3", "-j", "2", "--no-jit"], in: dir.path,
      program: "/usr/bin/env"
    ).wait()
    #expect(crashed.signalled && crashed.status == signal, "\(crashed)")
    #expect(crashed.stderr.contains("fxc fuzz: crashed (signal \(signal)) while running: fxc fuzz --case "), "\(crashed)")
    // The first seed named replays: without the crash, that case runs and agrees.
    let seed = try #require(crashed.stderr.split(separator: "--case ").dropFirst().first?.prefix { $0.isNumber })
    let replay = try BatchFXC.run(["fuzz", "--case", String(seed), "--no-jit"], in: dir.path)
    #expect(replay.status == 0 && replay.stdout.contains("case \(seed): every evaluation agrees"), "\(replay)")
  }
}
