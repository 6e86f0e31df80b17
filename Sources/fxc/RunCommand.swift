import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `fxc run`: applies a chain to files — one, or thousands in a batch.
///
/// Every destination is decided before any work; an input is never
/// overwritten, an existing output only with `--overwrite`; each output is
/// written atomically. A bad file is reported and the batch goes on; the exit
/// status is 1 when any file failed, 128 + N when signal N stopped it.
struct RunCommand: Command {
  static let spec = CommandSpec(
    name: "run", abstract: "apply a chain to image files",
    usage: ["--chain CHAIN INPUT... (-o OUT | --out-dir DIR) [options]"],
    discussion: """
      Every destination is decided before any work; an input is never overwritten, an existing \
      output only with --overwrite; each output is written atomically. A bad file is reported and \
      the batch goes on; the exit status is 1 when any file failed (or the --shaders file or an image \
      the chain names cannot be used), 2 for a usage error (an option, a chain that does not parse or \
      resolve), 128 + N when signal N stopped it.

      With --shaders, a texture2d<half> parameter takes an image file as a quoted path, relative to \
      the current directory: --chain 'displace(noise: "noise.png", amount: 3)'. Each file is decoded \
      once per run and keeps its own size (a shader samples it in its own coordinates, normalized \
      or in its pixels; outside it, the sampler's address mode applies); a texture given no path \
      reads --to. An array parameter (device const float *, int count) takes a list, \
      weights: [0.1, 0.2, 0.7], or colors [#ff0000, #0000ff]; the count is its length. A loop that \
      may be cut off at its iteration limit is a warning on standard error.
      """,
    groups: [
      OptionGroup(
        title: "chain and inputs",
        options: [
          .option(
            "-c", "--chain", value: "CHAIN", help: "the effects to apply, left to right: 'sepia | vignette(intensity: 0.8)' (see 'fxc effects')"),
          .chainFile,
          .shaders,
          .half,
          .positional(
            "FILE | DIR | 'GLOB'",
            help:
              "files; directories (their PNG/JPEG/TIFF/WebP/GIF/HEIC/AVIF files; all depths with -r); quoted globs, '**' for any depth ('photos/**/*.jpg'); '-': an image on standard input (else a manifest)"
          ),
          .flag("-r", "--recursive", help: "walk directories to any depth"),
          .option("--manifest", value: "FILE|-", help: "one input path per line ('-', or '-' as an input: standard input)"),
          .option(
            "--to", value: "FILE",
            help: "second image for a transition (the same size as each input); without it, a transition goes to a transparent image"),
        ]),
      OptionGroup(
        title: "outputs",
        options: [
          .option("-o", "--output", value: "OUT", help: "the output of a single input ('-': standard output, with --format)"),
          .option(
            "--out-dir", value: "DIR",
            help: "outputs mirror the input tree under DIR (created when missing; a DIR inside an input directory is not read as input)"),
          .option(
            "--name", value: "TEMPLATE", help: "output name: {name} {stem} {ext} {index} ({index:4}: zero-padded to 4) [{frame}]",
            default: "{stem}.{ext}"),
          .option("--format", value: "png|jpeg|tiff|webp|heic|avif", help: "output format", default: "by extension"),
          .option("--quality", value: "1…100", help: "JPEG, WebP, HEIC and AVIF quality", default: "90"),
          .flag("--lossless", help: "WebP, HEIC and AVIF outputs lossless (PNG and TIFF always are; JPEG cannot be)"),
          .option("--compression", value: "0…9", help: "PNG and TIFF zlib level (TIFF: 0 = uncompressed)", default: "6"),
          .option("--depth", value: "8|16", help: "PNG and TIFF bits per channel; JPEG is always 8", default: "the input's"),
          .flag("--overwrite", help: "replace existing outputs (never an input)"),
          .flag("--skip-existing", help: "leave existing outputs as they are: resumes a batch"),
          .flag(
            "--keep-orientation",
            help: "do not apply the EXIF orientation: keep the pixels as stored and record the orientation in JPEG, PNG and TIFF outputs"),
          .flag(
            "--keep-metadata",
            help:
              "carry EXIF and XMP from JPEG, PNG and WebP inputs into JPEG, PNG and WebP outputs (the orientation tag set to what the pixels need); by default they are dropped"
          ),
          .flag(
            "--keep-alpha",
            help: "write an alpha channel also for inputs without one (what an effect or shader made transparent stays so)"),
          .option(
            "--max-pixels", value: "N",
            help: "refuse inputs that declare more pixels, from their header (a decompression bomb)",
            default: "268402689 = 16383²"),
          .option("--page", value: "N", help: "read page N of multi-page TIFFs (0 is the first); other formats have page 0 only", default: "0"),
          .flag(
            "--to-srgb",
            help: "convert inputs from their ICC profile to sRGB (LittleCMS); by default the profile is kept in the output"),
        ]),
      OptionGroup(
        title: "parameters and animation",
        options: [
          .repeatable(
            "--param", value: "NAME=VALUE",
            help: "set a parameter at run time (NAME: effect.parameter, or the parameter alone when one effect has it); repeatable"),
          .option(
            "--frames", value: "N",
            help: "write N frames ({frame} in the name; default frame_0001.png …), sweeping each --param NAME=A...B linearly from A to B"),
        ]),
      OptionGroup(
        title: "running",
        options: [
          .threads(help: "worker threads", default: "all cores"),
          .option(
            "--shard", value: "K/N",
            help: "process only shard K of N (0 ≤ K < N), by a stable hash of each input's path relative to its root: same split on every machine"),
          .flag("--fail-fast", help: "stop at the first failed file"),
          .option("--report", value: "FILE.json", help: "per-file status, sizes and timings, and a summary"),
          .flag("-v", "--verbose", help: "a line per file written"),
          .flag("-q", "--quiet", help: "print errors and warnings only: no progress bar, no per-file or summary lines"),
          .option("--backend", value: "jit|interp", help: "run kernels JIT-compiled by LLVM, or in the interpreter", default: "jit"),
          .floatMode,
          .device,
          .flag("--check", help: "also run the interpreter and print each output's largest difference from it (implies -v)"),
          .option(
            "--check-map", value: "DIR",
            help:
              "--check, and a difference heat-map per output in DIR/NAME.diff.png (black: equal; each level of difference 64 grey levels brighter)"
          ),
          .flag(
            "--no-stream",
            help:
              "decode, run and encode whole images; by default PNG/JPEG/TIFF files whose chain reads rows at fixed offsets stream in bands of rows"
          ),
        ]),
    ])

  struct ParamSetting {
    var name: String
    var from: Double
    var to: Double?
  }

  var chain: String
  var registry: EffectRegistry
  var arguments: [String]
  var manifest: String?
  var recursive: Bool
  var output: String?
  var outDir: String?
  var nameTemplate: String?
  var threads: Int
  var format: ImageFileFormat?
  var options = BatchProcessor.Options()
  var failFast: Bool
  var verbose: Bool
  var shard: Shard?
  var reportPath: String?
  var params: [ParamSetting] = []
  var frames: Int?
  var to: String?
  /// Files this run made for `-` (standard input's image, standard output's), removed when it ends.
  var temporaries: [String] = []
  /// With `-o -`: the file whose bytes go to standard output when the run succeeds.
  var standardOutputFile: String?

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    let chain = try parseChain(&args, command: "run")
    self.chain = chain
    let shaders = try args.options("--shaders")
    registry = try shaderRegistry(shaders, chains: [chain], half: try parseHalf(&args, shaders: shaders))
    output = try args.option("--output")
    outDir = try args.option("--out-dir")
    nameTemplate = try args.option("--name")
    threads = try threadCount(&args)
    let backendName = try args.option("--backend") ?? "jit"
    guard let b = Backend(rawValue: backendName) else {
      throw UsageError("unknown backend '\(backendName)' (valid: jit, interp)")
    }
    options.backend = b
    options.floatMode = try parseFloatMode(&args)
    options.target = try parseDevice(&args, cpu: .host)
    if let f = try args.option("--format") {
      guard let parsed = ImageFileFormat(pathExtension: f), parsed.isWritable else {
        throw UsageError("unknown format '\(f)' (valid: png, jpeg, tiff, webp, heic, avif)")
      }
      format = parsed
    }
    options.quality = try args.intOption("--quality", range: 1...100) ?? 90
    options.lossless = args.flag("--lossless")
    options.compression = try args.intOption("--compression", range: 0...9) ?? 6
    options.depth = try args.intOption("--depth", range: 8...16)
    if let d = options.depth, d != 8 && d != 16 { throw UsageError("option '--depth' expects 8 or 16, got '\(d)'") }
    options.overwrite = args.flag("--overwrite")
    options.skipExisting = args.flag("--skip-existing")
    options.check = args.flag("--check")
    options.checkMap = try args.option("--check-map")
    if options.checkMap != nil { options.check = true }
    options.stream = !args.flag("--no-stream")
    options.keepOrientation = args.flag("--keep-orientation")
    options.keepMetadata = args.flag("--keep-metadata")
    options.keepAlpha = args.flag("--keep-alpha")
    options.read.maxPixels = try args.intOption("--max-pixels", range: 1...ImageBuffer.maxPixels) ?? ImageReadOptions.defaultMaxPixels
    options.read.convertToSRGB = args.flag("--to-srgb")
    options.read.page = try args.intOption("--page", range: 0...65535) ?? 0
    recursive = args.flag("--recursive")
    manifest = try args.option("--manifest")
    failFast = args.flag("--fail-fast")
    verbose = args.flag("--verbose") || options.check
    if args.flag("--quiet") {
      if verbose { throw UsageError("--quiet and --verbose (or --check, which prints a line per file) ask for opposite things: give one") }
      Quiet.isOn = true
    }
    shard = try args.option("--shard").map(Shard.init)
    reportPath = try args.option("--report")
    params = try args.options("--param").map(Self.parseParam)
    frames = try args.intOption("--frames", range: 1...1_000_000)
    to = try args.option("--to")
    arguments = try args.remaining()
    try bindStandardStreams()

    guard !arguments.isEmpty || manifest != nil else { throw UsageError("fxc run needs at least one input file") }
    guard (output == nil) != (outDir == nil) else { throw UsageError("give exactly one of -o OUT (one input) or --out-dir DIR") }
    if output != nil && arguments.count > 1 && frames == nil {
      throw UsageError("-o takes one input; use --out-dir DIR for \(arguments.count) inputs")
    }
    if output != nil && nameTemplate != nil { throw UsageError("--name names the files in --out-dir; -o names the one output itself") }
    if options.overwrite && options.skipExisting { throw UsageError("--overwrite and --skip-existing contradict each other; give one") }
    if frames == nil, let sweep = params.first(where: { $0.to != nil }) {
      throw UsageError("'--param \(sweep.name)=A...B' sweeps a value across frames: add --frames N")
    }
  }

  /// `-` among the inputs (an image, its bytes beginning like one, else a
  /// manifest, on standard input) and `-o -` (the image's bytes to standard
  /// output, in the --format given): temporary files stand for them.
  private mutating func bindStandardStreams() throws {
    // `-` among the inputs: an image (its bytes begin like one) or a manifest on standard input.
    if arguments.contains("-") {
      if manifest != "-", let ext = StandardStreams.imageExtension(StandardStreams.input) {
        let path = try StandardStreams.temporaryFile("stdin", extension: ext, bytes: StandardStreams.input)
        temporaries.append(path)
        StandardStreams.names.append((path, "(standard input)"))
        arguments = arguments.map { $0 == "-" ? path : $0 }
      } else {
        guard manifest == nil || manifest == "-" else { throw UsageError("'-' reads the manifest from standard input; --manifest gives another") }
        manifest = "-"
        arguments.removeAll { $0 == "-" }
      }
    }
    // `-o -`: the image's bytes to standard output, in the --format given.
    if output == "-" {
      guard let format else { throw UsageError("-o - writes to standard output: give its format with --format") }
      let path = try StandardStreams.temporaryFile("stdout", extension: format.preferredExtension)
      unlink(path)  // the batch makes it atomically, as any output
      temporaries.append(path)
      StandardStreams.names.append((path, "(standard output)"))
      standardOutputFile = path
      output = path
      StandardStreams.outputIsImage = true
    }
  }

  /// `NAME=VALUE` or `NAME=A...B`.
  static func parseParam(_ text: String) throws -> ParamSetting {
    guard let equals = text.firstIndex(of: "="), equals > text.startIndex else {
      throw UsageError("--param expects NAME=VALUE or NAME=A...B, like vignette.intensity=0.5, got '\(text)'")
    }
    let name = String(text[..<equals]), value = String(text[text.index(after: equals)...])
    // NaN and ±∞ parse here and are refused with the parameter's range, as
    // in a chain, when the chain is resolved.
    func number(_ s: String) throws -> Double {
      guard let v = Double(s.trimmingCharacters(in: .whitespaces)) else {
        throw UsageError("--param \(name): '\(s)' is not a number")
      }
      return v
    }
    if let dots = value.range(of: "...") {
      return ParamSetting(
        name: name, from: try number(String(value[..<dots.lowerBound])), to: try number(String(value[dots.upperBound...])))
    }
    return ParamSetting(name: name, from: try number(value), to: nil)
  }

  func execute() throws {
    defer { for path in temporaries { PathBytes.withCString(path) { _ = unlink($0) } } }
    try run()
    if let standardOutputFile { try StandardStreams.writeToStandardOutput(standardOutputFile) }
  }

  private func run() throws {
    let resolved = try resolve()
    let pipeline: Pipeline
    do {
      pipeline = try Pipeline(resolved.effect)
    } catch let e as GraphError {
      throw CommandFailure(description: "error: \(e)")
    }
    let inputCount = max(pipeline.graph.inputs.count, 1)
    guard inputCount <= 2 || inputCount == 2 + resolved.images.count else {
      throw CommandFailure(
        description: "error: the chain reads \(inputCount) images; fxc run gives the input, --to and the files the chain names")
    }
    if to != nil && inputCount == 1 {
      throw UsageError("--to gives the second image of a transition, but this chain reads one image")
    }

    let listing = try InputListing(recursive: recursive, skipping: outDir).list(arguments, manifest: manifest)
    guard !listing.isEmpty else {
      throw CommandFailure(description: "error: no input files found (directories are read one level deep unless -r is given)")
    }
    let destinations = try makeDestinations()
    let second = try to.map { try LoadedImage.load($0, read: options.read, keepOrientation: options.keepOrientation) }
    let extras = try loadChainImages(resolved.images, read: options.read, keepOrientation: options.keepOrientation)
    var shared: LoadedImage? = nil
    var all: [BatchJob]
    if let frames {
      guard listing.count == 1 else { throw UsageError("--frames animates one input; \(listing.count) were given") }
      shared = try LoadedImage.load(listing[0].path, read: options.read, keepOrientation: options.keepOrientation)
      all = try frameJobs(listing[0], frames: frames, destinations, resolved)
    } else {
      if output != nil && listing.count != 1 { throw UsageError("-o takes one input; use --out-dir DIR for \(listing.count) inputs") }
      all = try batchJobs(listing, destinations, resolved)
    }
    try BatchDestinations.checkClashes(all)
    if let reportPath {
      try Self.checkReport(
        reportPath, inputs: listing.map(\.path) + (to.map { [$0] } ?? []) + resolved.images.map(\.path),
        outputs: all.map(\.destination),
        overwrite: options.overwrite)
    }

    var jobs = shard.map { s in all.filter { s.contains($0.input.relativePath) } } ?? all
    let named = ((to.map { [$0] } ?? []) + resolved.images.map(\.path)).map { BatchInput(path: $0, relativePath: "") }
    destinations.decide(&jobs, allInputs: listing + named)
    // Every run, not only --skip-existing/--overwrite: a hard-killed run's
    // temporaries next to this run's outputs are garbage whatever the flags.
    BatchDestinations.removeStaleTemporaries(of: jobs)
    try checkWritable(jobs, destinations)

    say("chain: \(resolved.effect.name)")
    let processor = BatchProcessor(
      pipeline: pipeline, options: options, inputCount: inputCount, second: second, extras: extras, shared: shared)
    let report = try reportPath.map { try BatchReport(path: $0, chain: chain, shard: shard, threads: threads) }
    let settings = BatchRunner.Settings(
      threads: threads, failFast: failFast, verbose: verbose, progress: ProgressBar.isTerminal && jobs.count > 1 && !Quiet.isOn)
    let outcome = BatchRunner(jobs: jobs, settings: settings, processor: processor, report: report).run()
    try finish(outcome, total: jobs.count, report: report)
  }

  /// The chain with the `--param` parameters made uniform, and the image files it names.
  typealias Resolved = (
    effect: Effect, uniforms: [String: (ResolvedChain.Uniform, ParamSetting)], images: [ResolvedChain.ImageFile]
  )

  func resolve() throws -> Resolved {
    let syntax = try ChainSyntax.parse(chain)
    var settings: [String: ParamSetting] = [:]
    for var p in params {
      p.name = try Self.fullName(p.name, in: syntax, registry: registry)
      if settings[p.name] != nil { throw UsageError("--param \(p.name) is given twice") }
      settings[p.name] = p
    }
    let resolved = try syntax.resolve(uniforms: Set(settings.keys), registry: registry)
    var uniforms: [String: (ResolvedChain.Uniform, ParamSetting)] = [:]
    for (name, setting) in settings {
      let uniform = resolved.uniform(named: name)!
      for v in [setting.from] + (setting.to.map { [$0] } ?? []) {
        if let message = uniform.parameter.rejection(of: v, in: uniform.effect.name) {
          throw UsageError("--param \(name): \(message)")
        }
      }
      uniforms[name] = (uniform, setting)
    }
    try checkChainCalls(resolved)
    return (resolved.effect, uniforms, resolved.images)
  }

  /// `effect.parameter` for a `--param` name; a bare parameter name must belong to exactly one effect of the chain.
  static func fullName(_ name: String, in syntax: ChainSyntax, registry: EffectRegistry = .builtIn) throws -> String {
    if name.contains(".") { return name }
    let specs = syntax.calls.compactMap { registry.spec(named: $0.name) }
    var owners: [String] = []
    for spec in specs where spec.parameter(named: name) != nil && !owners.contains(spec.name) { owners.append(spec.name) }
    switch owners.count {
    case 1: return owners[0] + "." + name
    case 0:
      var all: [String] = []
      for spec in specs { for p in spec.parameters where !all.contains("\(spec.name).\(p.name)") { all.append("\(spec.name).\(p.name)") } }
      throw UsageError("--param \(name): no effect in the chain has a parameter '\(name)' (parameters: \(all.joined(separator: ", ")))")
    default:
      throw UsageError("--param \(name): several effects have it (\(owners.map { "\($0).\(name)" }.joined(separator: ", "))); name one")
    }
  }

  /// Where outputs go. With --frames, `-o dir/f_{frame}.png` is a name template in its directory.
  func makeDestinations() throws -> BatchDestinations {
    var outDir = outDir, output = output, template = nameTemplate
    if frames != nil, let o = output {
      guard o.contains("{frame") else {
        throw UsageError("with --frames, -o needs '{frame}' in its name (like -o frames/f_{frame}.png), or use --out-dir")
      }
      let (directory, name) = BatchDestinations.split(o)
      (outDir, output, template) = (directory, nil, name)
    }
    let text = template ?? (frames != nil ? NameTemplate.framesDefault : NameTemplate.batchDefault)
    return BatchDestinations(
      outDir: outDir, output: output, template: try NameTemplate(text, frames: frames != nil), format: format,
      overwrite: options.overwrite, skipExisting: options.skipExisting)
  }

  private func batchJobs(_ listing: [BatchInput], _ destinations: BatchDestinations, _ resolved: Resolved) throws -> [BatchJob] {
    let uniforms = Dictionary(uniqueKeysWithValues: resolved.uniforms.values.map { ($0.0.param, Float($0.1.from)) })
    return try listing.enumerated().map { i, input in
      let (destination, format) = try destinations.destination(of: input, number: i + 1)
      return BatchJob(number: i + 1, input: input, destination: destination, format: format, uniforms: uniforms)
    }
  }

  private func frameJobs(_ input: BatchInput, frames: Int, _ destinations: BatchDestinations, _ resolved: Resolved) throws -> [BatchJob] {
    return try (1...frames).map { frame in
      let t = frames == 1 ? 0 : Double(frame - 1) / Double(frames - 1)
      let uniforms = Dictionary(
        uniqueKeysWithValues: resolved.uniforms.values.map { u, s in (u.param, Float(s.from + ((s.to ?? s.from) - s.from) * t)) })
      let (destination, format) = try destinations.destination(of: input, number: 1, frame: frame, frameCount: frames)
      // A frame's place in the tree is its own name, so --shard splits frames too.
      let relative = InputListing.components(destination).last ?? ""
      return BatchJob(
        number: frame, input: BatchInput(path: input.path, relativePath: relative), destination: destination, format: format,
        frame: frame, uniforms: uniforms)
    }
  }

  /// Fails before any work when the output directory cannot be written at all
  /// (rather than once per file); a read-only directory deeper in the tree
  /// fails its files one by one.
  private func checkWritable(_ jobs: [BatchJob], _ destinations: BatchDestinations) throws {
    guard jobs.contains(where: { $0.disposition == .process }) else { return }
    let directory = destinations.outDir ?? BatchDestinations.split(destinations.output ?? ".").directory
    guard FileKind.of(directory) == .directory, PathBytes.withCString(directory, { access($0, W_OK | X_OK) }) != 0 else { return }
    let reason = errno == EROFS ? "read-only file system" : "permission denied"
    throw CommandFailure(description: "error: cannot write to the output directory \(directory): \(reason); nothing was written")
  }

  private func finish(_ o: BatchRunner.Outcome, total: Int, report: BatchReport?) throws {
    let c = o.counts
    var status: Int32 = 0
    if let signal = o.signal { status = 128 + signal } else if c.failed > 0 { status = 1 }
    try report?.finish(c, total: total, seconds: o.seconds, interrupted: o.stoppedBy, exitStatus: status)
    // A shard's line always, even an empty one's: a job script's log shows every shard.
    if total > 1 || o.stoppedBy != nil || shard != nil {
      var line = shard.map { "shard \($0): " } ?? ""
      line += "\(c.written) written, \(c.skipped) skipped, \(c.failed) failed"
      if c.cancelled + c.notRun > 0 { line += ", \(c.cancelled + c.notRun) not done" }
      line += " of \(total) file\(total == 1 ? "" : "s") in \(fixed(o.seconds, 2)) s"
      line += " (\(fixed(Double(c.written) / max(o.seconds, 1e-9), 2)) files/s, \(fixed(c.megapixels / max(o.seconds, 1e-9))) Mpixel/s"
      line += ", \(threads) thread\(threads == 1 ? "" : "s"))"
      say(line)
    }
    if let stoppedBy = o.stoppedBy, o.signal != nil {
      throw CommandFailure(
        description: "fxc: stopped by \(stoppedBy): \(c.written) written, \(c.cancelled + c.notRun) not done;"
          + " run the same command with --skip-existing to finish",
        status: status)
    }
    if c.failed > 0 {
      var text = "error: \(c.failed) of \(total) file(s) failed"
      if o.stoppedBy == "--fail-fast" { text += "; stopped at the first (--fail-fast): \(c.cancelled + c.notRun) not done" }
      throw CommandFailure(description: text)
    }
  }
}

/// `run -q`: ``say(_:)`` prints nothing (errors and warnings still go to standard error).
enum Quiet {
  /// Set once, while the command line is read, before any thread starts.
  nonisolated(unsafe) static var isOn = false
}

/// A line on standard output, unbuffered like the workers' lines, so that the order holds in a pipe.
/// Paths in it show escaped bytes as `\xE9` (``PathBytes/display(_:)``).
func say(_ line: String) {
  if Quiet.isOn { return }
  let stream = StandardStreams.outputIsImage ? FileHandle.standardError : FileHandle.standardOutput
  stream.write(Data((PathBytes.display(StandardStreams.named(line)) + "\n").utf8))
}

extension RunCommand {
  /// Refuses a `--report` path that names an input or an output of the run
  /// (compared as real paths, so `./a/../in.png` is `in.png`), or an existing
  /// file that is not an earlier fxc report, unless `--overwrite` (which
  /// never allows an input or output).
  /// - Throws: ``UsageError`` naming the path and what it would replace.
  static func checkReport(_ report: String, inputs: [String], outputs: [String], overwrite: Bool) throws {
    // By bytes: `String` equality would take `é` and `e` + U+0301 for one file.
    func resolved(_ path: String) -> [UInt8] { PathBytes.bytes(of: realPath(path)) }
    let target = resolved(report)
    if inputs.contains(where: { resolved($0) == target }) {
      throw UsageError("the report \(report) is an input of this run; fxc never overwrites an input")
    }
    if outputs.contains(where: { resolved($0) == target }) {
      throw UsageError("the report \(report) would overwrite an output of this run")
    }
    switch FileKind.of(report) {
    case .missing: return
    case .directory: throw UsageError("the report \(report) is a directory")
    default: break
    }
    guard !overwrite else { return }
    let fd = PathBytes.withCString(report) { open($0, O_RDONLY | O_CLOEXEC) }
    let head = fd < 0 ? Data() : (try? FileHandle(fileDescriptor: fd, closeOnDealloc: true).read(upToCount: 10)) ?? Data()
    // A report starts `{"chain":` (Foundation's encoder; `{"chain": ` before it).
    if !head.starts(with: Data("{\"chain\":".utf8)) {
      throw UsageError("the report \(report) exists and is not an fxc report; give --overwrite to replace it")
    }
  }

  /// The path with symbolic links and `.`/`..` resolved; for a file that
  /// does not exist yet, its resolved directory and its name.
  static func realPath(_ path: String) -> String {
    if let resolved = PathBytes.withCString(path, { realpath($0, nil) }) {
      defer { free(resolved) }
      return PathBytes.string(fromCString: resolved)
    }
    let (directory, name) = BatchDestinations.split(path)
    guard let resolved = PathBytes.withCString(directory, { realpath($0, nil) }) else { return InputListing.normalized(path) }
    defer { free(resolved) }
    return PathBytes.string(fromCString: resolved) + "/" + name
  }
}
