import FX
import Foundation

/// `fxc bench`: the interpreter and the JIT timed on the same chain and image,
/// in one run, so the ratio is honest. Times are the best of repeated runs.
struct BenchCommand: Command {
  static let spec = CommandSpec(
    name: "bench", abstract: "time the interpreter and the JIT on the same chain and image",
    usage: ["[--chain CHAIN]... [--image FILE] [--threads N] [--json] [options]"],
    discussion: """
      Prints, for each chain, the interpreter's and the JIT's Mpixel/s (the best of repeated runs), \
      their ratio, the cold and cached compile times, the JIT on all cores, and the JIT's speed as a \
      share of a memcpy of the same bytes. A chain with a separable convolution is also timed unsplit. \
      Cold is lowering plus LLVM with no cache; LLVM's one-time start-up in the process is paid \
      before the first chain and reported on its own (llvm_startup_ms).
      """,
    options: [
      .repeatable("-c", "--chain", value: "CHAIN", help: "a chain to time; repeatable", default: "five built-in chains"),
      .shaders,
      .half,
      .option("--image", value: "FILE", help: "the image to time on", default: "the bundled examples/rocket.jpg"),
      .threads(help: "threads of the JIT's run; the 'all thr.' column uses every core", default: "1"),
      .flag("--json", help: "one JSON object per chain instead of the table"),
      .option("--clock", value: "wall|cpu", help: "cpu: single-threaded runs timed by the thread's CPU time, for a busy machine", default: "wall"),
      .option("--seconds", value: "S", help: "time budget of each measurement, 0.01…60", default: "0.5"),
      .flag("--no-unsplit", help: "do not time split convolutions unsplit (LLVM may take minutes on a large blur)"),
      .flag("--no-opaque", help: "compile as if the image might have alpha below 1 (by default an opaque image's alpha folds away)"),
      .option(
        "--target", value: "NAME", help: "compile for NAME: host, x86-64-v2 (4 lanes), x86-64-v3 (8), x86-64-v4 (16); it must run here",
        default: "host"),
      .device,
      .option(
        "--float", value: "strict|relaxed",
        help: "the float semantics of the JIT figures; a strict run also times relaxed (fresh outputs) beside them", default: "strict"),
    ])

  static let defaultChains = [
    "sepia | vignette",
    "sepia | brightness(amount: 0.1) | saturation(amount: 1.2) | vignette",
    "wave | pixelate(amount: 1, blockSize: 12)",
    "gaussianBlur(sigma: 2) | contrast(amount: 1.2)",
    "unsharpMask(sigma: 1.5, amount: 0.8)",
  ]

  var chains: [String]
  var registry: EffectRegistry
  var image: String?
  var threads: Int
  var json: Bool
  var budget: Double
  /// `--clock cpu` times single-threaded runs by thread CPU time (for a busy machine); all-thread runs always use wall time.
  var clock: BenchClock
  /// `--no-unsplit` skips timing split convolutions unsplit (that kernel of
  /// (2r+1)² taps takes LLVM minutes to compile for a large blur).
  var unsplit: Bool
  /// `--no-opaque` compiles as if the image might have alpha below 1 (by
  /// default an opaque image's alpha folds away: ``LoweringOptions/opaqueInputs``).
  var opaque: Bool
  /// `--target`: the CPU the kernels are compiled for.
  var target: Target
  /// `--float`: the float semantics of the JIT figures.
  var floatMode: FloatMode
  let allThreads = ProcessInfo.processInfo.activeProcessorCount

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    chains = try args.options("--chain")
    if chains.isEmpty { chains = Self.defaultChains }
    let shaders = try args.options("--shaders")
    registry = try shaderRegistry(shaders, chains: chains, half: try parseHalf(&args, shaders: shaders))
    image = try args.option("--image")
    threads = try threadCount(&args, default: 1)
    json = args.flag("--json")
    unsplit = !args.flag("--no-unsplit")
    opaque = !args.flag("--no-opaque")
    target = try parseDevice(&args, cpu: try parseTarget(args.option("--target")))
    floatMode = try parseFloatMode(&args)
    budget = try args.doubleOption("--seconds", range: 0.01...60) ?? 0.5
    let clockName = try args.option("--clock") ?? "wall"
    guard let c = BenchClock(rawValue: clockName) else { throw UsageError("unknown clock '\(clockName)' (valid: wall, cpu)") }
    clock = c
    let rest = try args.remaining()
    if !rest.isEmpty { throw UsageError("fxc bench takes no positional arguments (got \(rest.joined(separator: " ")))") }
  }

  /// The staged interpreter's time on the first rows of `input`: the whole
  /// image when that fits the time budget, else a band of rows (doubling from
  /// one row until one run takes a tenth of the budget), so a slow chain (a
  /// large unsplit blur) is measured at the same per-pixel rate without
  /// minutes of waiting. Returns the pixels of the band and its best time.
  func timeInterpreter(_ pipeline: Pipeline, _ inputs: [ImageBuffer]) throws -> (Int, Double) {
    let input = inputs[0]
    var rows = 1
    while true {
      let band = try crop(input, rows: rows)
      let t = try seconds { _ = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: [band] + inputs.dropFirst()) }
      if rows == input.height || t >= budget / 10 {
        return (
          band.width * band.height,
          min(
            t,
            try bestTime(budget: budget, clock: clock) { _ = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: [band] + inputs.dropFirst()) })
        )
      }
      rows = min(input.height, rows * 2)
    }
  }

  /// The images `chain` reads: `input`; for a chain of more inputs also a
  /// transparent image of its size as input 1 (a transition's `--to`) and the
  /// image files the chain names, decoded once per chain.
  func inputs(of chain: String, _ pipeline: Pipeline, _ input: ImageBuffer) throws -> [ImageBuffer] {
    guard pipeline.graph.inputs.count > 1 else { return [input] }
    let files = try ChainSyntax.parse(chain).resolve(registry: registry).images
    let extras = try loadChainImages(files, read: ImageReadOptions(), keepOrientation: false).map(\.image)
    return [input, try ImageBuffer(width: input.width, height: input.height, format: input.format)] + extras
  }

  /// Relaxed floats' rates (one thread, all threads) in Mpix/s, fresh outputs.
  func relaxedRates(_ pipeline: Pipeline, _ inputs: [ImageBuffer], _ options: LoweringOptions) throws -> (Double, Double) {
    var relaxedPipeline = pipeline
    relaxedPipeline.floatMode = .relaxed
    let relaxed = try relaxedPipeline.compile(
      inputFormats: inputs.map(\.format), outputFormat: inputs[0].format, options: options, cache: nil, target: target)
    _ = try relaxed.run(inputs, threads: threads)  // warm-up
    let one = try bestTime(budget: budget, clock: threads == 1 ? clock : .wall, minRuns: 3) { _ = try relaxed.run(inputs, threads: threads) }
    let all = try bestTime(budget: budget, minRuns: 3) { _ = try relaxed.run(inputs, threads: allThreads) }
    let mpix = Double(inputs[0].width * inputs[0].height) / 1e6
    return (mpix / one, mpix / all)
  }

  func crop(_ image: ImageBuffer, rows: Int) throws -> ImageBuffer {
    if rows == image.height { return image }
    let band = try ImageBuffer(width: image.width, height: rows, format: image.format)
    band.data.copyMemory(from: image.data, byteCount: band.byteCount)
    return band
  }

  /// The table's first line: the image, the CPU and the clock.
  func printHeader(_ path: String, _ input: ImageBuffer, opaque: Bool) {
    let alpha = opaque ? ", opaque: alpha folded" : ""
    print(
      "image: \(PathBytes.display(path)) (\(input.width)×\(input.height), \(input.format)\(alpha)); CPU: \(Target.host.summary)\(target.name == "host" ? "" : "; target: " + target.summary); clock: \(clock.rawValue)"
    )
  }

  func execute() throws {
    let path = image ?? bundledPhoto()
    guard FileKind.of(path) != .missing else {
      throw CommandFailure(description: "error: \(path) not found; give an image with --image FILE")
    }
    let (input, _) = try ImageFile.read(path)
    let mpix = Double(input.width * input.height) / 1e6
    var options = LoweringOptions()
    if opaque && input.isOpaque { options.opaqueInputs = [0] }
    let pipelines = try chains.map { try pipeline(chain: $0, registry: registry).0 }  // every chain checked before any timing
    if case .cuda = target.kind {
      if json { throw UsageError("--json is not given for --device cuda yet: its table has other columns") }
      return try benchCUDA(path, input, pipelines, options: options)
    }
    if !json { printHeader(path, input, opaque: !options.opaqueInputs.isEmpty) }
    // LLVM's one-time start-up, reported on its own rather than in the first chain's compile time.
    let startup = Pipeline.warmUpCompiler(target: target)
    // The bandwidth yardstick, measured in this run: a copy of the same bytes
    // (input read + output written), as pixels per second.
    let copy = try ImageBuffer(width: input.width, height: input.height, format: input.format)
    let memcpyRate = mpix / bestTime(budget: budget, clock: clock) { copy.data.copyMemory(from: input.data, byteCount: input.byteCount) }
    if !json {
      print("memcpy of the same bytes: \(fixed(memcpyRate)) Mpix/s; LLVM start-up, once per process: \(fixed(startup)) ms")
      print(
        "chain".padding(toLength: 58, withPad: " ", startingAt: 0)
          + "  interp Mpix/s    JIT Mpix/s   ratio  compile ms  threads  all thr.  %memcpy  cached ms")
    }
    for (chain, var pipeline) in zip(chains, pipelines) {
      pipeline.floatMode = floatMode
      let inputs = try inputs(of: chain, pipeline, input)
      // Cold: lowering + LLVM, no cache. Cached: the same kernel's object loaded from a disk cache.
      let scratch = NSTemporaryDirectory() + "fxc-bench-cache-\(getpid())"
      defer { try? FileManager.default.removeItem(atPath: scratch) }
      let diskOnly = KernelCache(directory: scratch, useMemory: false)
      let compiled = try pipeline.compile(
        inputFormats: inputs.map(\.format), outputFormat: input.format, options: options, cache: diskOnly, target: target)
      let cached = try pipeline.compile(
        inputFormats: inputs.map(\.format), outputFormat: input.format, options: options, cache: diskOnly, target: target)
      guard cached.kernelSource == .diskCache else {
        throw CommandFailure(description: "error: the kernel cache did not return '\(chain)' (\(cached.kernelSource.map(\.rawValue) ?? "none"))")
      }
      let (interpPixels, interp) = try timeInterpreter(pipeline, inputs)
      // A geometry stage's result has a size of its own (Mpix/s counts the input's pixels).
      let size = try compiled.outputSize(width: input.width, height: input.height)
      let output = try ImageBuffer(width: size.width, height: size.height, format: compiled.outputFormat)
      // A warm-up run first: the first run maps its intermediates, and a slow
      // kernel fits one run in the budget.
      try compiled.run(inputs, into: output, threads: threads)
      let jit = try bestTime(budget: budget, clock: threads == 1 ? clock : .wall, minRuns: 3) {
        try compiled.run(inputs, into: output, threads: threads)
      }
      let jitAll = try bestTime(budget: budget, minRuns: 3) { try compiled.run(inputs, into: output, threads: allThreads) }
      // As a library user gets it: a fresh output from every run (from the
      // buffer pool, which the warm-up fills as a batch's first file does).
      _ = try compiled.run(inputs, threads: threads)
      let fresh = try bestTime(budget: budget, clock: threads == 1 ? clock : .wall, minRuns: 3) { _ = try compiled.run(inputs, threads: threads) }
      let freshAll = try bestTime(budget: budget, minRuns: 3) { _ = try compiled.run(inputs, threads: allThreads) }
      let faults = try pageFaults(runs: 5) { _ = try compiled.run(inputs, threads: threads) }
      // Strict and relaxed side by side (DESIGN §4's float modes), fresh outputs.
      let relaxedRates = floatMode == .strict ? try relaxedRates(pipeline, inputs, options) : nil
      let interpRate = Double(interpPixels) / 1e6 / interp, jitRate = mpix / jit, jitAllRate = mpix / jitAll
      // A chain with a split convolution is also timed unsplit, side by side.
      var unsplitRate: Double? = nil
      let hasSplit = compiled.kernel.loopNests.count > (try pipeline.lower(unsplitOptions)).0.loopNests.count
      if unsplit, hasSplit {
        let unsplit = try pipeline.compile(inputFormats: inputs.map(\.format), outputFormat: input.format, options: unsplitOptions, target: target)
        unsplitRate =
          mpix / (try bestTime(budget: budget, clock: threads == 1 ? clock : .wall) { try unsplit.run(inputs, into: output, threads: threads) })
      }
      let row = Row(
        chain: chain, width: input.width, height: input.height, interpRate: interpRate, jitRate: jitRate, jitAllRate: jitAllRate,
        memcpyRate: memcpyRate, llvmStartup: startup, freshRate: mpix / fresh, freshAllRate: mpix / freshAll, pageFaultsPerRun: faults,
        relaxedRates: relaxedRates,
        unsplitRate: unsplitRate, hasSplit: hasSplit, compiled: compiled, cached: cached,
        opaque: !options.opaqueInputs.isEmpty)
      if json { printJSON(row) } else { printRow(row) }
    }
  }
}

let unsplitOptions: LoweringOptions = {
  var o = LoweringOptions()
  o.splitSeparable = false
  return o
}()

/// The photo bundled with fxc, found from any directory: `examples/rocket.jpg`
/// in the working directory, else beside the running executable (found by
/// /proc/self/exe, not by `argv[0]`, which is a bare name when fxc is on the
/// path) — `PREFIX/share/fxc/examples/` where scripts/install.sh or the .deb
/// put it, or the repository of a `swift build`.
func bundledPhoto() -> String {
  let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
  let candidates = [
    "examples/rocket.jpg",
    exe.appendingPathComponent("../share/fxc/examples/rocket.jpg").standardized.path,
    exe.appendingPathComponent("../../../examples/rocket.jpg").standardized.path,
    exe.appendingPathComponent("../../../../examples/rocket.jpg").standardized.path,
  ]
  return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? "examples/rocket.jpg"
}

extension BenchCommand {
  /// One chain's figures, for the table or the JSON line.
  struct Row {
    var chain: String
    var width: Int, height: Int
    var interpRate: Double, jitRate: Double, jitAllRate: Double, memcpyRate: Double
    /// LLVM's one-time start-up in this process (``Pipeline/warmUpCompiler(target:)``), before any chain's compile.
    var llvmStartup: Double
    /// The JIT with a fresh output buffer per run (`CompiledPipeline.run(_:)`), 1 and all threads.
    var freshRate: Double, freshAllRate: Double
    /// Minor page faults per fresh-output run, after warm-up.
    var pageFaultsPerRun: Double
    /// With `--float strict`: the relaxed kernel's fresh-output rates, 1 and all threads.
    var relaxedRates: (Double, Double)?
    var unsplitRate: Double?
    var hasSplit: Bool
    var compiled: CompiledPipeline, cached: CompiledPipeline
    var opaque: Bool
  }

  /// One chain's figures as `bench --json` prints them (``JSONText``): rates in Mpix/s, times in ms.
  struct Record: Encodable {
    var chain: String
    var width: Int, height: Int
    var interpMpixS: Double?, jitMpixS: Double?, ratio: Double?
    var compileMs: Double?, compileMsCold: Double?, compileMsCached: Double?
    var llvmMs: Double?, llvmOptimiseMs: Double?, llvmStartupMs: Double?
    var threads: Int, allThreads: Int, jitMpixSAllThreads: Double?
    var jitFreshMpixS: Double?, jitFreshMpixSAllThreads: Double?
    var pageFaultsPerRun: Double?
    var memcpyMpixS: Double?, percentOfMemcpy: Double?
    var cpu: String, target: String, vectorWidth: Int, clock: String, float: String
    var splitConvolution: Bool, opaqueInput: Bool
    var jitRelaxedMpixS: Double?, jitRelaxedMpixSAllThreads: Double?
    var unsplitMpixS: Double?, splitSpeedup: Double?
  }

  func printJSON(_ r: Row) {
    let round = { (v: Double) in JSONText.rounded(v) }
    let record = Record(
      chain: r.chain, width: r.width, height: r.height,
      interpMpixS: round(r.interpRate), jitMpixS: round(r.jitRate), ratio: JSONText.rounded(r.jitRate / r.interpRate, 2),
      compileMs: round(r.compiled.compileMilliseconds), compileMsCold: round(r.compiled.compileMilliseconds),
      compileMsCached: round(r.cached.compileMilliseconds), llvmMs: round(r.compiled.llvmMilliseconds),
      llvmOptimiseMs: round(r.compiled.llvmPhases["optimise"] ?? 0), llvmStartupMs: round(r.llvmStartup),
      threads: threads, allThreads: allThreads, jitMpixSAllThreads: round(r.jitAllRate),
      jitFreshMpixS: round(r.freshRate), jitFreshMpixSAllThreads: round(r.freshAllRate),
      pageFaultsPerRun: JSONText.rounded(r.pageFaultsPerRun, 1),
      memcpyMpixS: round(r.memcpyRate), percentOfMemcpy: JSONText.rounded(100 * r.jitRate / r.memcpyRate, 1),
      cpu: Target.host.summary, target: target.name, vectorWidth: target.lanes, clock: clock.rawValue, float: floatMode.rawValue,
      splitConvolution: r.hasSplit, opaqueInput: r.opaque,
      jitRelaxedMpixS: r.relaxedRates.flatMap { round($0.0) }, jitRelaxedMpixSAllThreads: r.relaxedRates.flatMap { round($0.1) },
      unsplitMpixS: r.unsplitRate.flatMap(round), splitSpeedup: r.unsplitRate.flatMap { JSONText.rounded(r.jitRate / $0, 2) })
    print(JSONText.encode(record))
  }

  func printRow(_ r: Row) {
    let name: String =
      r.chain.count < 58 ? r.chain.padding(toLength: 58, withPad: " ", startingAt: 0) : r.chain + "\n" + String(repeating: " ", count: 58)
    var line = name
    line += String(
      format: "  %13.2f  %12.1f  %5.0f×  %10.1f  %7d", r.interpRate, r.jitRate, r.jitRate / r.interpRate, r.compiled.compileMilliseconds, threads)
    line += String(format: "  %9.1f  %6.1f%%  %9.1f", r.jitAllRate, 100 * r.jitRate / r.memcpyRate, r.cached.compileMilliseconds)
    if let (one, _) = r.relaxedRates { line += String(format: "   (relaxed %.1f Mpix/s, fresh output)", one) }
    if let u = r.unsplitRate { line += String(format: "   (unsplit %.1f Mpix/s: split %.1f× faster)", u, r.jitRate / u) }
    // The interpreter evaluates the staged graph, so its blur is the 2-D,
    // unsplit one: for such a chain the ratio is mostly the split's gain.
    if r.hasSplit { line += "   [ratio: JIT split vs interpreter unsplit]" }
    print(line)
  }
}
