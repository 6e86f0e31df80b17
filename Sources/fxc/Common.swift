import FX
import Foundation

/// Parses and resolves a `--chain` argument into a pipeline.
func pipeline(chain text: String, registry: EffectRegistry = .builtIn) throws -> (Pipeline, Effect) {
  let effect = try resolveChain(text, registry: registry)
  do {
    return (try Pipeline(effect), effect)
  } catch let e as GraphError {
    throw CommandFailure(description: "error: \(e)")
  }
}

/// Seconds of wall time `body` takes.
func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Seconds of this thread's CPU time `body` takes: for single-threaded work,
/// robust to other processes competing for the cores (time descheduled is not counted).
func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
  var a = timespec(), b = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a)
  try body()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b)
  return Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9
}

/// Which clock benchmarks read.
enum BenchClock: String {
  /// Wall time: what a user waits for.
  case wall
  /// The measuring thread's CPU time: single-threaded work only.
  case cpu
}

/// Runs `body` repeatedly for at least `budget` seconds and at least
/// `minRuns` times; the fastest run in seconds.
func bestTime(budget: Double, clock: BenchClock = .wall, minRuns: Int = 1, _ body: () throws -> Void) rethrows -> Double {
  var best = Double.infinity, total = 0.0, runs = 0
  while runs < minRuns || (total < budget && runs < 1000) {
    let t = clock == .wall ? try seconds(body) : try cpuSeconds(body)
    best = min(best, t)
    total += t
    runs += 1
  }
  return best
}

/// Minor page faults of this process per call of `body`, averaged over
/// `runs` calls after one warm-up call (getrusage's `ru_minflt`).
func pageFaults(runs: Int, _ body: () throws -> Void) rethrows -> Double {
  func minor() -> Int {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return u.ru_minflt
  }
  try body()
  let start = minor()
  for _ in 0..<runs { try body() }
  return Double(minor() - start) / Double(runs)
}

func fixed(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }

/// The worker threads to use: `--threads N`, default all cores.
func threadCount(_ args: inout CommandArguments, default d: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> Int {
  try args.intOption("--threads", range: 1...1024) ?? d
}

extension OptionSpec {
  /// `-j, --threads N`, which several commands take.
  static func threads(help: String, default: String) -> OptionSpec {
    .option("-j", "--threads", value: "N", help: help, default: `default`)
  }
}

extension OptionSpec {
  /// `--shaders FILE.metal`, which run, bench, dump and effects take.
  static let shaders = OptionSpec.repeatable(
    "--shaders", value: "FILE.metal",
    help:
      "a Metal file whose [[ stitchable ]] functions join the effects for this run, named by function; a directory, or the option repeated, links its .metal files into one library, as Xcode links a target's"
  )

  /// `--half float|metal`, which run, bench and dump take with `--shaders`.
  static let half = OptionSpec.option(
    "--half", value: "float|metal",
    help: "the --shaders file's half arithmetic: float computes it in fp32; metal rounds every half result to fp16, as an Apple GPU does",
    default: "float")

  /// `--float strict|relaxed`, which run, bench, dump and fuzz take.
  static let floatMode = OptionSpec.option(
    "--float", value: "strict|relaxed",
    help: "strict: bit-identical to the interpreter; relaxed: fma, reciprocals, reassociated sums (within 1e-4)", default: "strict")
  /// `--device cpu|cuda`: where kernels run.
  static let device = OptionSpec.option(
    "--device", value: "cpu|cuda",
    help: "run kernels on this CPU, or on the first NVIDIA GPU through its CUDA driver (libcuda.so.1, opened at run time)",
    default: "cpu")
}

extension OptionSpec {
  /// `--chain-file FILE`, which run and dump take: a chain longer than one
  /// command-line argument may be (128 KiB on Linux).
  static let chainFile = OptionSpec.option(
    "--chain-file", value: "FILE", help: "read the chain from FILE ('-': standard input) instead of --chain; newlines are spaces")
}

/// The chain of `--chain CHAIN` or `--chain-file FILE` (`-` reads standard
/// input); line breaks in a file count as spaces.
/// - Throws: ``UsageError`` when neither or both are given, or the file cannot be read.
func parseChain(_ args: inout CommandArguments, command: String) throws -> String {
  let inline = try args.option("--chain"), file = try args.option("--chain-file")
  switch (inline, file) {
  case (let chain?, nil): return chain
  case (nil, let path?):
    let data: Data
    if path == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      guard let read = FileManager.default.contents(atPath: path) else {
        throw UsageError("option '--chain-file': cannot read \(PathBytes.display(path))")
      }
      data = read
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw UsageError("option '--chain-file': \(path == "-" ? "standard input" : PathBytes.display(path)) is not UTF-8 text")
    }
    return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: " ")
  case (nil, nil): throw UsageError("fxc \(command) needs --chain 'effect | effect …' (or --chain-file FILE)")
  case (_?, _?): throw UsageError("give --chain or --chain-file, not both")
  }
}

/// The `.metal` files of `--shaders` arguments: a file as it is, a directory's
/// `.metal` files at any depth, in path order.
/// - Throws: ``CommandFailure`` for a path that does not exist or a directory without `.metal` files.
func shaderFiles(_ paths: [String]) throws -> [URL] {
  try paths.flatMap { path -> [URL] in
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw CommandFailure(description: "error: \(path): no such file or directory")
    }
    guard isDirectory.boolValue else { return [URL(fileURLWithPath: path)] }
    let found = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
      .filter { $0.hasSuffix(".metal") }.sorted()
    guard !found.isEmpty else { throw CommandFailure(description: "error: \(path): no .metal files in this directory") }
    return found.map { URL(fileURLWithPath: path).appendingPathComponent($0) }
  }
}

/// The `--half MODE` option: float when absent.
/// - Throws: ``UsageError`` naming the valid modes, or when it is given without `--shaders`.
func parseHalf(_ args: inout CommandArguments, shaders: [String]) throws -> HalfPrecision {
  guard let name = try args.option("--half") else { return .float }
  guard let mode = HalfPrecision(rawValue: name) else {
    throw UsageError("option '--half': unknown mode '\(name)' (valid: \(HalfPrecision.allCases.map(\.rawValue).joined(separator: ", ")))")
  }
  guard !shaders.isEmpty else { throw UsageError("option '--half' applies to a --shaders file; none is given") }
  return mode
}

/// The `--float MODE` option: strict when absent.
/// - Throws: ``UsageError`` naming the valid modes.
func parseFloatMode(_ args: inout CommandArguments) throws -> FloatMode {
  guard let name = try args.option("--float") else { return .strict }
  guard let mode = FloatMode(rawValue: name) else {
    throw UsageError("option '--float': unknown mode '\(name)' (valid: \(FloatMode.allCases.map(\.rawValue).joined(separator: ", ")))")
  }
  return mode
}

/// The `--device` option: `cpu` (or absent) gives `cpu`; `cuda` the first
/// CUDA device's target (``CUDADevice/open()``).
/// - Throws: ``UsageError`` for another name; ``RunError`` naming why there
///   is no CUDA device (no driver, no device, too old a device).
func parseDevice(_ args: inout CommandArguments, cpu: Target) throws -> Target {
  guard let name = try args.option("--device"), name != "cpu" else { return cpu }
  guard name == "cuda" else { throw UsageError("option '--device': unknown device '\(name)' (valid: cpu, cuda)") }
  if cpu != .host { throw UsageError("--target names a CPU; it does not go with --device cuda") }
  do { return try CUDADevice.open().target } catch { throw RunError("--device cuda: \(error)") }
}

/// The `--target NAME` of dump and bench: the host when absent; a CUDA
/// compute capability (`sm_90`) for dump's PTX.
/// - Throws: ``UsageError`` naming the valid targets, or why this machine cannot run the one named.
func parseTarget(_ name: String?) throws -> Target {
  guard let name else { return .host }
  do {
    return name.hasPrefix("sm_") ? try Target.cuda(name) : try Target.named(name)
  } catch { throw UsageError("option '--target': \(error)") }
}

/// The effects chains may name: the catalogue, plus the stitchable functions
/// of the `--shaders` file when one is given (each standing for any built-in
/// effect of its name).
/// - Throws: ``MetalDiagnostic`` for a file that does not parse, or the
///   diagnostic of a function that does not compile when one of `chains`
///   calls it; ``CommandFailure`` for two functions of one name.
func shaderRegistry(_ paths: [String], chains: [String] = [], half: HalfPrecision = .float) throws -> EffectRegistry {
  guard !paths.isEmpty else { return .builtIn }
  let path = paths.joined(separator: ", ")
  let library = try ShaderLibrary(urls: try shaderFiles(paths), half: half)
  let called = Set(chains.flatMap { (try? ChainSyntax.parse($0))?.calls.map(\.name) ?? [] })
  let working = Set(library.functions.map(\.name))
  if let failing = library.unavailable.first(where: { called.contains($0.name) && !working.contains($0.name) }) {
    throw failing.diagnostic
  }
  // Xcode would refuse the whole file; here the others still run, but say so.
  for failing in library.unavailable where !working.contains(failing.name) {
    let first = "\(failing.diagnostic)".split(separator: "\n").first.map(String.init) ?? ""
    FileHandle.standardError.write(Data("warning: '\(failing.name)' of \(path) does not compile (this chain does not use it): \(first)\n".utf8))
  }
  do {
    return try EffectRegistry.builtIn.adding(library)
  } catch let e as CatalogueError {
    throw CommandFailure(description: "error: \(e)")
  }
}

/// Decodes the image files a chain names (`displace(noise: "noise.png")`),
/// once each, in input order (inputs 2, 3, …), turned upright like inputs.
/// - Throws: ``CommandFailure`` naming the parameter and the file when one
///   cannot be read or decoded.
func loadChainImages(_ files: [ResolvedChain.ImageFile], read: ImageReadOptions, keepOrientation: Bool) throws -> [LoadedImage] {
  try files.map { file in
    do {
      return try LoadedImage.load(file.path, read: read, keepOrientation: keepOrientation)
    } catch {
      throw CommandFailure(description: "error: cannot read the image for \(file.parameter): \(error)")
    }
  }
}

/// Checks the chain's effects with their values (``EffectSpec/check``) and
/// prints on standard error the warnings they give (a Metal loop that may be
/// cut off), each once.
/// - Throws: the first error a check throws (``MetalDiagnostic`` for a Metal
///   function that does not compile with the chain's arguments).
func checkChainCalls(_ resolved: ResolvedChain) throws {
  var seen = Set<String>()
  for call in resolved.calls {
    for warning in try call.spec.check?(call.arguments) ?? [] where seen.insert(warning).inserted {
      FileHandle.standardError.write(Data((warning + "\n").utf8))
    }
  }
}

extension EffectGraph {
  /// Whether a stage samples input `k` or reads its size (loop bodies included).
  func reads(input k: Int) -> Bool {
    func reads(_ p: Program) -> Bool {
      p.nodes.contains { node in
        switch node.op {
        case .sample(.input(k), _, _), .inputWidth(k), .inputHeight(k): return true
        case .fold(let loop, _): return reads(loop.body)
        default: return false
        }
      }
    }
    return stages.contains { reads($0.program) }
  }
}
