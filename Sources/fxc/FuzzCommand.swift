import Dispatch
import FX
import FXTestSupport
import Foundation

/// `fxc fuzz`: differential testing on random graphs (the long mode of
/// Tests/FXTests/Differential/DifferentialTests). Every graph is evaluated by the staged
/// interpreter (the oracle), by the interpreter on the lowered kernel with each
/// schedule, and by the JIT; a disagreement is shrunk to a small reproducer,
/// printed as Swift source. Exit status 1 when any graph disagrees. The
/// options are declared in ``spec`` (`fxc fuzz --help`).
struct FuzzCommand: Command {
  static let spec = CommandSpec(
    name: "fuzz", abstract: "random graphs, interpreter vs lowered vs JIT",
    usage: [
      "[--graphs N] [--seed S] [--no-jit | --jit-only] [--keep-going] [options]", "--case SEED [--print]",
      "--catalogue [--seed S] [--no-jit | --jit-only]", "--shaders FILE.metal… [--seed S] [--no-jit | --jit-only]",
    ],
    discussion: """
      Every graph is evaluated by the staged interpreter (the oracle), by the interpreter on the \
      lowered kernel with each schedule, and by the JIT; a disagreement is shrunk to a small \
      reproducer, printed as Swift source. Exit status 1 when any graph disagrees. A crash prints \
      the seeds being run, for --case. --catalogue instead runs every catalogue effect with its \
      parameters at the ends of their ranges, next to them, at 0, −0 and subnormals, and at random \
      values between, as constants and as uniforms, and also requires a finite output. --shaders \
      instead runs every stitchable function of the Metal files with arguments drawn for each \
      parameter (defaults, 0, 1, random values; constants and uniforms).
      """,
    options: [
      .option("-n", "--graphs", value: "N", help: "how many random graphs", default: "1000"),
      .option("--seed", value: "S", help: "the seed the graphs' own seeds derive from, decimal or 0x hex", default: "1"),
      .option("--case", value: "SEED", help: "check one case by its own seed (as printed) instead: print, check, shrink"),
      .flag("--catalogue", help: "every catalogue effect at the edges of its parameters' ranges, instead of random graphs"),
      .shaders,
      .half,
      .threads(help: "worker threads", default: "all cores"),
      .flag("--no-jit", help: "the interpreters only"),
      .flag("--jit-only", help: "the JIT only, against the staged interpreter"),
      .flag("--keep-going", help: "go on after a disagreement, and report up to --reports of them"),
      .flag("--print", help: "with --case: print the graph"),
      .flag("--no-large-offsets", help: "keep sampling offsets small"),
      .option("--reports", value: "N", help: "with --keep-going: how many disagreements to shrink and print", default: "10"),
      .option("--shrink-attempts", value: "N", help: "how many smaller graphs to try when shrinking", default: "2000"),
      .option("--target", value: "NAME", help: "compile for NAME: host, x86-64-v2, x86-64-v3, x86-64-v4; it must run here", default: "host"),
      .device,
      .option(
        "--schedule", value: "strips|grid",
        help:
          "the JIT's schedule on the CPU: strips of vectors, or grid (a thread per vector of 4 pixels, "
          + "or per pixel in a loop nest with a loop: the code a GPU runs, looped here)",
        default: "strips"),
      .floatMode,
    ])

  var graphs: Int
  var seed: UInt64
  var jobs: Int
  var jit: Bool
  var jitOnly: Bool
  var keepGoing: Bool
  var single: UInt64?
  var showCase: Bool
  var shrinkAttempts: Int
  var largeOffsets: Bool
  var maxReports: Int
  /// `--catalogue`: the catalogue's effects at their parameters' edges.
  var catalogue: Bool
  /// `--shaders`: the stitchable functions of these Metal files, instead of random graphs.
  var shaders: [String]
  var half: HalfPrecision
  /// `--target` or `--device`: the CPU or CUDA device the JIT compiles for.
  var target: Target
  /// `--schedule grid`: the GPU's per-pixel code on the CPU; nil: the target's own.
  var schedule: KernelSchedule?
  /// `--float`: the JIT's float semantics (relaxed: checked within DESIGN §4's tolerance, as strict is).
  var floatMode: FloatMode

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    graphs = try args.intOption("--graphs", range: 1...100_000_000) ?? 1000
    seed = try Self.seed(args.option("--seed"), "--seed") ?? 1
    single = try Self.seed(args.option("--case"), "--case")
    jobs = try threadCount(&args)
    jit = !args.flag("--no-jit")
    jitOnly = args.flag("--jit-only")
    keepGoing = args.flag("--keep-going")
    showCase = args.flag("--print")
    catalogue = args.flag("--catalogue")
    shaders = try args.options("--shaders")
    half = try parseHalf(&args, shaders: shaders)
    if catalogue && !shaders.isEmpty { throw UsageError("--catalogue and --shaders are two different runs: give one") }
    largeOffsets = !args.flag("--no-large-offsets")
    target = try parseDevice(&args, cpu: try parseTarget(args.option("--target")))
    switch try args.option("--schedule") {
    case nil, "strips": schedule = nil
    case "grid":
      guard target.kind == .cpu else { throw UsageError("--schedule grid runs a GPU's code on the CPU: it does not go with --device cuda") }
      schedule = .grid
    case let other?: throw UsageError("option '--schedule': unknown schedule '\(other)' (valid: strips, grid)")
    }
    floatMode = try parseFloatMode(&args)
    if catalogue && (floatMode != .strict || schedule != nil) {
      throw UsageError(
        "--catalogue checks strict floats on the target's own schedule: --float relaxed and --schedule go with random graphs or --shaders")
    }
    maxReports = try args.intOption("--reports", range: 1...100_000) ?? 10
    shrinkAttempts = try args.intOption("--shrink-attempts", range: 0...1_000_000) ?? 2000
    let rest = try args.remaining()
    if !rest.isEmpty { throw UsageError("fxc fuzz takes no positional arguments (got \(rest.joined(separator: " ")))") }
  }

  static func seed(_ text: String?, _ name: String) throws -> UInt64? {
    guard let text else { return nil }
    let value = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    guard let value else { throw UsageError("option '\(name)' expects an unsigned 64-bit integer, got '\(text)'") }
    return value
  }

  func generator(_ seed: UInt64) -> RandomGraph {
    var g = RandomGraph(seed: seed)
    g.largeOffsets = largeOffsets
    return g
  }

  var evaluations: [Differential.Evaluation] {
    jitOnly ? [.jit] : Differential.Evaluation.interpreted + (jit ? [.jit] : [])
  }

  func execute() throws {
    CrashReport.install()
    // Reductions read their input twice in the JIT's runs, however small (the held
    // path is what the staged pipelines' whole-image runs check in the tests).
    ReductionExecutor.twoPassBytes = 0
    if let single { return try runSingle(single) }
    if catalogue { return try runCatalogue() }
    if !shaders.isEmpty { return try runShaders() }
    let grid = schedule == .grid ? ", grid schedule (a thread per vector of \(KernelPlan.gridLanes) pixels, or per pixel with a loop)" : ""
    print(
      "fxc fuzz: \(graphs) graphs, seed \(seed), \(jobs) job\(jobs == 1 ? "" : "s"), "
        + (jit ? "JIT on \(target.summary)\(grid)" : "interpreter only"))
    let lock = NSLock()
    var next = 0, done = 0
    var failures: [(index: Int, c: FuzzCase, d: Differential.Disagreement)] = []
    var stop = false
    var slowest: [(Double, UInt64)] = []
    let start = DispatchTime.now().uptimeNanoseconds
    func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    let step = Swift.max(1, Swift.min(1000, graphs / 20))
    CrashReport.slots(jobs)
    DispatchQueue.concurrentPerform(iterations: jobs) { worker in
      CrashReport.useAlternateStack()
      while true {
        let index: Int? = lock.withLock {
          guard !stop, next < graphs else { return nil }
          next += 1
          return next - 1
        }
        guard let index else { return }
        let caseSeed = SplitMix64.derive(seed, index)
        CrashReport.running(caseSeed, worker: worker)
        CrashReport.crashIfAsked()
        let c = generator(caseSeed).make()
        let t0 = DispatchTime.now().uptimeNanoseconds
        let d = Differential.check(c, evaluations: evaluations, target: target, floatMode: floatMode, schedule: schedule)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        CrashReport.running(0, worker: worker)
        lock.withLock {
          done += 1
          slowest.append((ms, caseSeed))
          if slowest.count > 20 {
            slowest.sort { $0.0 > $1.0 }
            slowest.removeLast(slowest.count - 5)
          }
          if let d {
            failures.append((index, c, d))
            print("graph \(index) (--case \(caseSeed)): \(d)")
            fflush(stdout)
            if !keepGoing { stop = true }
          }
          if done % step == 0 {
            print("[\(done)/\(graphs)] \(failures.count) disagreeing, \(fixed(elapsed()))s, \(fixed(Double(done) / elapsed())) graphs/s")
            fflush(stdout)
          }
        }
      }
    }
    let total = elapsed()
    print(
      "fxc fuzz: \(done) graphs in \(fixed(total))s (\(fixed(1000 * total / Double(Swift.max(done, 1)))) ms per graph), "
        + "\(failures.count) disagreeing")
    print("slowest: " + slowest.sorted { $0.0 > $1.0 }.prefix(5).map { "--case \($0.1) (\(fixed($0.0, 0)) ms)" }.joined(separator: ", "))
    guard !failures.isEmpty else { return }
    let cache = Differential.PipelineCache()
    for f in failures.sorted(by: { $0.index < $1.index }).prefix(keepGoing ? maxReports : 1) {
      let seed = SplitMix64.derive(self.seed, f.index)
      report(seed, f.c, f.d, cache)
    }
    fflush(stdout)
    throw CommandFailure(description: "fxc fuzz: \(failures.count) of \(done) graphs disagree with the staged interpreter")
  }

  /// `--catalogue`: every case of ``CatalogueFuzz/cases(seed:random:effects:)``, on all threads.
  func runCatalogue() throws {
    let cases = CatalogueFuzz.cases(seed: seed)
    let inputs = CatalogueFuzz.inputs(seed: seed)
    print("fxc fuzz --catalogue: \(cases.count) cases of \(Catalogue.effects.count) effects, seed \(seed), \(jobs) jobs")
    let lock = NSLock()
    var findings: [(Int, String)] = []
    let start = DispatchTime.now().uptimeNanoseconds
    DispatchQueue.concurrentPerform(iterations: cases.count) { i in
      guard let problem = CatalogueFuzz.check(cases[i], inputs: inputs, evaluations: evaluations, target: target) else { return }
      lock.withLock { findings.append((i, "\(cases[i]): \(problem)")) }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    for (_, text) in findings.sorted(by: { $0.0 < $1.0 }) { print(text) }
    print("fxc fuzz --catalogue: \(cases.count) cases in \(fixed(seconds))s, \(findings.count) failing")
    if !findings.isEmpty { throw CommandFailure(description: "fxc fuzz: \(findings.count) catalogue cases fail") }
  }

  /// `--shaders`: every case of ``ShaderFuzz/cases(_:seed:random:)``, on all
  /// threads; the functions that do not compile are listed, and fail the run.
  func runShaders() throws {
    let library = try ShaderLibrary(urls: try shaderFiles(shaders), half: half)
    let cases = ShaderFuzz.cases(library, seed: seed)
    let inputs = CatalogueFuzz.inputs(seed: seed)
    print(
      "fxc fuzz --shaders: \(cases.count) cases of \(library.functions.count) functions, seed \(seed), "
        + (jit ? "JIT on \(target.summary), \(floatMode) floats" : "interpreter only"))
    for failing in library.unavailable {
      print("\(failing.name): does not compile: \("\(failing.diagnostic)".split(separator: "\n").first ?? "")")
    }
    let lock = NSLock()
    var findings: [(Int, String)] = []
    let start = DispatchTime.now().uptimeNanoseconds
    DispatchQueue.concurrentPerform(iterations: cases.count) { i in
      guard
        let problem = ShaderFuzz.check(
          cases[i], library: library, inputs: inputs, evaluations: evaluations, target: target, floatMode: floatMode, schedule: schedule
        )
      else { return }
      lock.withLock { findings.append((i, "\(cases[i]): \(problem)")) }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    for (_, text) in findings.sorted(by: { $0.0 < $1.0 }) { print(text) }
    print(
      "fxc fuzz --shaders: \(cases.count) cases in \(fixed(seconds))s, \(findings.count) failing, "
        + "\(library.unavailable.count) function\(library.unavailable.count == 1 ? "" : "s") not compiling")
    let failed = findings.count + library.unavailable.count
    guard failed == 0 else {
      throw CommandFailure(description: "fxc fuzz: \(findings.count) shader cases fail, \(library.unavailable.count) functions do not compile")
    }
  }

  func runSingle(_ caseSeed: UInt64) throws {
    CrashReport.slots(1)
    CrashReport.useAlternateStack()
    CrashReport.running(caseSeed, worker: 0)
    CrashReport.crashIfAsked()
    let c = generator(caseSeed).make()
    if showCase { print(c, "\n") }
    guard let d = Differential.check(c, evaluations: evaluations, target: target, floatMode: floatMode, schedule: schedule) else {
      print("case \(caseSeed): every evaluation agrees with the staged interpreter")
      return
    }
    report(caseSeed, c, d, Differential.PipelineCache())
    fflush(stdout)
    throw CommandFailure(description: "fxc fuzz: case \(caseSeed) disagrees with the staged interpreter")
  }

  func report(_ caseSeed: UInt64, _ c: FuzzCase, _ d: Differential.Disagreement, _ cache: Differential.PipelineCache) {
    print("\n=== case \(caseSeed): \(d)")
    let start = DispatchTime.now().uptimeNanoseconds
    let (small, failure) = Differential.shrink(
      c, failing: d, maxAttempts: shrinkAttempts, cache: cache, target: target, floatMode: floatMode, schedule: schedule)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("shrunk in \(fixed(seconds))s to:\n\n\(small)\n\n\(failure)\n")
  }
}

/// On a trap (a failed precondition in the compiler) or a crash, a stack
/// overflow included, the seeds of the cases being run are printed, so that
/// `fxc fuzz --case SEED` reproduces it.
enum CrashReport {
  nonisolated(unsafe) static var seeds = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
  nonisolated(unsafe) static var count = 0
  nonisolated(unsafe) static var digits = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)

  /// One seed slot per worker, before any worker starts. The slots it
  /// replaces are freed (LeakSanitizer found them lost, issue 16).
  static func slots(_ n: Int) {
    let p = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
    p.initialize(repeating: 0, count: n)
    let old = seeds
    seeds = p
    count = n
    old.deallocate()
  }

  static func running(_ seed: UInt64, worker: Int) { seeds[worker] = seed }

  /// Handlers for the crash signals, run on the thread's alternate stack
  /// (``useAlternateStack()``) when it has one.
  static func install() {
    for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT] {
      var action = sigaction()
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_ONSTACK
      action.__sigaction_handler.sa_handler = { s in
        CrashReport.write("\nfxc fuzz: crashed (signal ")
        CrashReport.write(UInt64(s))
        CrashReport.write(") while running:")
        for i in 0..<CrashReport.count where CrashReport.seeds[i] != 0 {
          CrashReport.write(" fxc fuzz --case ")
          CrashReport.write(CrashReport.seeds[i])
          CrashReport.write(";")
        }
        CrashReport.write("\n")
        signal(s, SIG_DFL)
        raise(s)
      }
      sigaction(sig, &action, nil)
    }
  }

  /// Gives the calling thread a stack for signal handlers: a stack overflow
  /// leaves none on the thread's own stack, and the report would be lost.
  static func useAlternateStack() {
    var current = stack_t()
    guard sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 else { return }
    let size: Int = 1 << 16
    // Kept for the life of the thread (the workers live as long as the run).
    let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
    sigaltstack(&stack, nil)
  }

  /// `FXC_FUZZ_CRASH=trap` or `=overflow` makes every case run off the main
  /// thread crash that way, to check this report on worker threads (CLITests;
  /// the Swift runtime gives the main thread an alternate stack of its own).
  static func crashIfAsked() {
    guard !Thread.isMainThread else { return }
    switch ProcessInfo.processInfo.environment["FXC_FUZZ_CRASH"] {
    case "trap": preconditionFailure("FXC_FUZZ_CRASH=trap")
    case "overflow": _ = overflow(1)
    default: break
    }
  }

  @inline(never) static func overflow(_ depth: Int) -> Int {
    var frame = (depth, depth, depth, depth, depth, depth, depth, depth)
    return withUnsafeMutablePointer(to: &frame) { p in depth == 0 ? 0 : overflow(p.pointee.0 &+ 1) &+ p.pointee.7 }
  }

  /// Async-signal-safe writes (no allocation).
  static func write(_ s: StaticString) {
    _ = Foundation.write(2, s.utf8Start, s.utf8CodeUnitCount)
  }

  static func write(_ v: UInt64) {
    var n = v, i = 32
    repeat {
      i -= 1
      digits[i] = UInt8(48 + n % 10)
      n /= 10
    } while n > 0
    _ = Foundation.write(2, digits + i, 32 - i)
  }
}
