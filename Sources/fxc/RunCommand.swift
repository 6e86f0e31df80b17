import FX
import Foundation

/// `fxc run`: applies a chain to files. One bad file is reported and the batch
/// goes on; the exit status is 1 when any file failed. Inputs are never
/// overwritten; existing outputs only with `--overwrite`.
struct RunCommand {
  var chain: String
  var inputs: [String]
  var output: String?
  var outDir: String?
  var threads: Int
  var backend: Backend
  var format: ImageFileFormat?
  var quality: Int
  var overwrite: Bool
  var check: Bool

  init(_ argv: [String]) throws {
    var args = CommandLineArguments(argv)
    guard let chain = try args.option("--chain", "-c") else { throw UsageError("fxc run needs --chain 'effect | effect …'") }
    self.chain = chain
    output = try args.option("-o", "--output")
    outDir = try args.option("--out-dir")
    threads = try threadCount(&args)
    let backendName = try args.option("--backend") ?? "jit"
    guard let b = Backend(rawValue: backendName) else {
      throw UsageError("unknown backend '\(backendName)' (valid: jit, interp)")
    }
    backend = b
    if let f = try args.option("--format") {
      guard let parsed = ImageFileFormat(pathExtension: f) else { throw UsageError("unknown format '\(f)' (valid: png, jpeg)") }
      format = parsed
    }
    quality = try args.intOption("--quality", range: 1...100) ?? 90
    overwrite = args.flag("--overwrite")
    check = args.flag("--check")
    inputs = try args.remaining()
    guard !inputs.isEmpty else { throw UsageError("fxc run needs at least one input file") }
    guard (output == nil) != (outDir == nil) else { throw UsageError("give exactly one of -o OUT (one input) or --out-dir DIR") }
    if output != nil && inputs.count > 1 { throw UsageError("-o takes one input; use --out-dir DIR for \(inputs.count) inputs") }
  }

  func destination(for input: String) -> String {
    if let output { return output }
    let url = URL(fileURLWithPath: input)
    let ext = format.map { $0 == .png ? "png" : "jpg" } ?? url.pathExtension
    return URL(fileURLWithPath: outDir!).appendingPathComponent(url.deletingPathExtension().lastPathComponent + "." + ext).path
  }

  /// A path with `.`/`..` and symlinks resolved, to compare files.
  static func canonical(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
  }

  func execute() throws {
    let (pipeline, effect) = try pipeline(chain: chain)
    // Decide every destination before any work: an output may never be an
    // input of this batch, nor the output of another of its files.
    var destinations: [String] = []
    let inputSet = Set(inputs.map(Self.canonical))
    var claimed: [String: String] = [:]
    for input in inputs {
      let path = destination(for: input)
      let ext = URL(fileURLWithPath: path).pathExtension
      guard format != nil || ImageFileFormat(pathExtension: ext) != nil else {
        throw UsageError("cannot tell the output format of '\(path)' from its extension; use .png, .jpg or --format png|jpeg")
      }
      if let other = claimed[Self.canonical(path)] {
        throw UsageError("'\(other)' and '\(input)' would both be written to \(path)")
      }
      claimed[Self.canonical(path)] = input
      destinations.append(path)
    }
    print("chain: \(effect.name)")
    var compiled: [PixelFormat: CompiledPipeline] = [:]
    var failures = 0
    for (input, path) in zip(inputs, destinations) {
      do {
        if inputSet.contains(Self.canonical(path)) {
          throw CommandFailure(description: "\(input): refusing to overwrite the input \(path)")
        }
        try process(input, to: path, pipeline, &compiled)
      } catch let e as ImageFileError where e.path == input {
        failures += 1
        FileHandle.standardError.write("error: \(e)\n".data(using: .utf8)!)
      } catch let e as CommandFailure {
        failures += 1
        FileHandle.standardError.write("error: \(e)\n".data(using: .utf8)!)
      } catch {
        failures += 1
        FileHandle.standardError.write("error: \(input): \(error)\n".data(using: .utf8)!)
      }
    }
    if failures > 0 {
      throw CommandFailure(description: "error: \(failures) of \(inputs.count) file(s) failed")
    }
  }

  func process(_ input: String, to path: String, _ pipeline: Pipeline, _ cache: inout [PixelFormat: CompiledPipeline]) throws {
    if !overwrite && FileManager.default.fileExists(atPath: path) {
      throw CommandFailure(description: "\(input): \(path) exists (use --overwrite to replace it)")
    }
    var image: ImageBuffer!, info: ImageFileInfo!
    let readTime = try seconds { (image, info) = try ImageFile.read(input) }
    var compileMs = 0.0
    if cache[image.format] == nil {
      let c = try pipeline.compile(inputFormats: [image.format], outputFormat: image.format, backend: backend)
      compileMs = c.compileMilliseconds
      cache[image.format] = c
    }
    let kernel = cache[image.format]!
    var result: ImageBuffer!
    let runTime = try seconds { result = try kernel.run([image], threads: threads) }
    let layout: ChannelLayout = [.grayAlpha, .rgba].contains(info.layout) ? .rgba : .rgb
    let outFormat = format ?? ImageFileFormat(pathExtension: URL(fileURLWithPath: path).pathExtension)
    let depth = outFormat == .png ? info.bitDepth : 8
    let writeTime = try seconds {
      try ImageFile.write(result, to: path, format: outFormat, layout: layout, bitDepth: depth, jpegQuality: quality)
    }
    let mpix = Double(image.width * image.height) / 1e6
    var line = "\(input) → \(path): \(image.width)×\(image.height), \(kernel.backend.rawValue) \(fixed(mpix / runTime)) Mpixel/s"
    line += " (kernel \(fixed(runTime * 1000, 2)) ms on \(threads) thread\(threads == 1 ? "" : "s")"
    if compileMs > 0 { line += ", compile \(fixed(compileMs)) ms" }
    line += ", read \(fixed(readTime * 1000)) ms, write \(fixed(writeTime * 1000)) ms)"
    print(line)
    if check {
      let reference = try Interpreter.runStaged(pipeline.graph, inputs: [image]).copy(as: result.format)
      var worst: Float = 0
      for y in 0..<image.height {
        for x in 0..<image.width {
          let diff = reference[x, y] - result[x, y]
          let d = Swift.max(Swift.max(Swift.abs(diff.x), Swift.abs(diff.y)), Swift.max(Swift.abs(diff.z), Swift.abs(diff.w)))
          worst = max(worst, d)
        }
      }
      let lsb: Float = result.format == .rgba8 ? 1.0 / 255 : result.format == .rgba16 ? 1.0 / 65535 : 1e-4
      print("  check: max difference from the staged interpreter \(worst) (tolerance \(lsb)): \(worst <= lsb + 1e-6 ? "ok" : "MISMATCH")")
      if worst > lsb + 1e-6 { throw CommandFailure(description: "\(input): output differs from the interpreter by \(worst)") }
    }
  }
}
