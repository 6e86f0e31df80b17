import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A decoded input, turned upright.
struct LoadedImage {
  var image: ImageBuffer
  var info: ImageFileInfo
  /// The EXIF orientation applied (2…8), if any.
  var orientation: Int?
  var fileBytes: Int?

  /// Reads `path` with `read` (pixel limit, sRGB conversion), applying its
  /// EXIF orientation unless `keepOrientation`.
  /// `shrinkFor`: the pipeline whose first resize a WebP or HEIF may be read reduced for (shrink-on-load).
  static func load(_ path: String, read: ImageReadOptions, keepOrientation: Bool, shrinkFor pipeline: Pipeline? = nil) throws
    -> LoadedImage
  {
    let shrink = pipeline?.shrinkOnLoadRule(keepOrientation: keepOrientation)
    // Turned upright as it is read (a JPEG without a second copy of its pixels).
    let (image, info) = try ImageFile.read(path, options: read, shrink: shrink, upright: !keepOrientation)
    var loaded = LoadedImage(image: image, info: info, orientation: nil, fileBytes: nil)
    var s = stat()
    if PathBytes.withCString(path, { stat($0, &s) }) == 0 { loaded.fileBytes = Int(s.st_size) }
    if !keepOrientation, info.orientation != 1 { loaded.orientation = info.orientation }
    return loaded
  }
}

/// Does one job: decode, run the kernel, encode and write atomically. Shared
/// by every worker; the kernel is compiled once per distinct input layout
/// (pixel formats) and reused by all.
final class BatchProcessor: @unchecked Sendable {
  struct Options {
    var backend: Backend = .jit
    /// `--float`: the JIT's float semantics.
    var floatMode: FloatMode = .strict
    /// `--device`: this CPU (the host) or the CUDA device's target.
    var target: Target = .host
    var keepOrientation = false
    /// `--keep-metadata`: EXIF and XMP carried into the outputs (``outputMetadata(_:format:warnings:)``).
    var keepMetadata = false
    /// `--keep-alpha`: an output with an alpha channel also for inputs without one.
    var keepAlpha = false
    /// `--max-pixels` and `--to-srgb`.
    var read = ImageReadOptions()
    var overwrite = false
    var skipExisting = false
    var check = false
    /// `--check-map DIR`: a difference heat-map per output (``DifferenceMap``).
    var checkMap: String? = nil
    var quality = 90
    /// `--lossless`: WebP, HEIC and AVIF outputs lossless (a JPEG output gets a warning).
    var lossless = false
    var compression = 6
    /// `--depth`: PNG bits per channel; `nil` keeps the input's (16-bit stays 16-bit).
    var depth: Int? = nil
    /// Not `--no-stream`: files that can stream in bands do (``StreamedJob``).
    var stream = true
  }

  let pipeline: Pipeline
  let options: Options
  /// Images the graph reads: 1, or 2 for a transition.
  let inputCount: Int
  /// `--to`: the second input, decoded once.
  let second: LoadedImage?
  /// The image files the chain names, inputs 2, 3, …, decoded once.
  let extras: [LoadedImage]
  /// Whether the graph reads input 1 (a transition, a texture given no path).
  let readsInput1: Bool
  /// `--frames`: the one input, decoded once for every frame.
  let shared: LoadedImage?

  private let lock = NSLock()
  private var kernels: [KernelKey: CompiledPipeline] = [:]

  /// One kernel per combination of input formats and opaque inputs.
  struct KernelKey: Hashable {
    var formats: [PixelFormat]
    var opaque: Set<Int>
  }
  /// Output directories known to exist, by their bytes (``PathBytes``):
  /// `é` and `e` + U+0301 are two directories, though equal as `String`s.
  private var directories = Set<[UInt8]>()

  init(pipeline: Pipeline, options: Options, inputCount: Int, second: LoadedImage?, extras: [LoadedImage] = [], shared: LoadedImage?) {
    self.pipeline = pipeline
    self.options = options
    self.inputCount = inputCount
    self.second = second
    self.extras = extras
    readsInput1 = pipeline.graph.reads(input: 1)
    self.shared = shared
  }

  /// The compiled kernel for these inputs' formats and opacity (an opaque
  /// input's alpha folds away: ``LoweringOptions/opaqueInputs``), and whether
  /// this call compiled it.
  func kernel(for inputs: [ImageBuffer]) throws -> (CompiledPipeline, compiled: Bool) {
    try kernel(for: KernelKey(formats: inputs.map(\.format), opaque: Set(inputs.indices.filter { inputs[$0].isOpaque })))
  }

  /// The images the kernel reads for `loaded` (input 0): `--to` (or a
  /// transparent image) as input 1, then the chain's image files; and
  /// whether the output keeps an alpha channel.
  /// - Throws: ``CommandFailure`` when `--to` is not the input's size.
  private func inputs(for loaded: LoadedImage, path: String) throws -> ([ImageBuffer], hasAlpha: Bool) {
    let image = loaded.image
    var inputs = [image]
    var hasAlpha = loaded.info.layout.hasAlpha
    if inputCount >= 2 {
      if let second {
        guard second.image.width == image.width, second.image.height == image.height else {
          throw CommandFailure(
            description: "\(path): is \(image.width)×\(image.height) but --to \(second.info.width)×\(second.info.height)"
              + " (after orientation: \(second.image.width)×\(second.image.height)); a transition needs two images of the same size")
        }
        inputs.append(second.image)
        hasAlpha = hasAlpha || second.info.layout.hasAlpha
      } else if readsInput1 {
        // No --to: the transition goes to transparent.
        inputs.append(try ImageBuffer(width: image.width, height: image.height, format: image.format))
        hasAlpha = true
      } else {
        // Only the chain's files are read: input 1 is a placeholder nothing samples.
        inputs.append(try ImageBuffer(width: 1, height: 1, format: image.format))
      }
    }
    // The chain's image files keep their own sizes: a shader samples a texture in its own coordinates.
    inputs += extras.map(\.image)
    return (inputs, hasAlpha || extras.contains { $0.info.layout.hasAlpha })
  }

  /// The compiled kernel for `key`, and whether this call compiled it.
  func kernel(for key: KernelKey) throws -> (CompiledPipeline, compiled: Bool) {
    lock.lock()
    defer { lock.unlock() }
    if let k = kernels[key] { return (k, false) }
    var lowering = LoweringOptions()
    lowering.opaqueInputs = key.opaque
    var pipeline = pipeline
    pipeline.floatMode = options.floatMode
    pipeline.target = options.target
    let k = try pipeline.compile(inputFormats: key.formats, outputFormat: key.formats[0], backend: options.backend, options: lowering)
    kernels[key] = k
    return (k, true)
  }

  /// Processes `job` with `threads` threads for its kernel; never throws: a
  /// failure is the result. `stopping` is asked between stages, so a stop
  /// abandons work in progress before anything is written.
  func process(_ job: BatchJob, threads: Int, stopping: () -> Bool, writing: (Bool) -> Void) -> (FileResult, String?) {
    var r = FileResult(job: job, status: .failed)
    switch job.disposition {
    case .skip:
      r.status = .skipped
      return (r, nil)
    case .fail(let reason):
      r.error = reason
      return (r, nil)
    case .process: break
    }
    do {
      var line: String? = nil
      try run(&r, threads: threads, stopping: stopping, writing: writing, line: &line)
      return (r, line)
    } catch let e as ImageFileError {
      r.error = e.path == job.input.path ? e.description : "\(job.input.path): \(e)"
    } catch let e as CommandFailure {
      r.error = e.description
    } catch {
      r.error = "\(job.input.path): \(error)"
    }
    r.status = .failed
    return (r, nil)
  }

  private func run(
    _ r: inout FileResult, threads: Int, stopping: () -> Bool, writing: (Bool) -> Void, line: inout String?
  ) throws {
    let job = r.job
    if options.stream, inputCount == 1, shared == nil, !options.check, options.backend == .jit,
      ImageRowWriter.streams(job.format),
      let reader = try ImageRowReader.open(job.input.path, options: options.read),
      options.keepOrientation || reader.info.orientation == 1
    {
      _ = try reader.shrinkOnLoad(by: pipeline.shrinkOnLoad(width: reader.info.width, height: reader.info.height))
      let key = KernelKey(formats: [reader.pixelFormat], opaque: reader.info.layout.hasAlpha ? [] : [0])
      let (kernel, compiled) = try kernel(for: key)
      // An RGB output of an input without alpha streams only where the result's alpha is
      // proved 1: otherwise the whole image is run, so that dropped transparency is a warning.
      // A pipeline that changes size streams anyway: the writer sees what it drops (ImageRowWriter.droppedTransparency).
      let dropsNothing =
        reader.info.layout.hasAlpha || options.keepAlpha || job.format == .jpeg || Self.isOpaque(kernel) || !kernel.steps.isEmpty
      if kernel.streamingRefusal == nil && reader.info.width >= kernel.target.lanes && dropsNothing {
        try stream(reader, kernel, &r, threads: threads, compiled: compiled, stopping: stopping, writing: writing, line: &line)
        return
      }
    }
    var loaded: LoadedImage!
    r.decodeSeconds = try seconds { loaded = try shared ?? load(job.input.path) }
    let image = loaded.image
    (r.width, r.height, r.orientation, r.inputBytes) = (image.width, image.height, loaded.orientation, loaded.fileBytes)
    r.warnings = loaded.info.warnings
    let (inputs, hasAlpha) = try inputs(for: loaded, path: job.input.path)
    if stopping() {
      r.status = .cancelled
      return
    }
    let (kernel, compiled) = try kernel(for: inputs)
    var result: ImageBuffer!
    r.kernelSeconds = try seconds { result = try kernel.run(inputs, uniforms: job.uniforms, threads: threads) }
    let checked = options.check ? try check(result, inputs: inputs, uniforms: job.uniforms, job: job) : nil
    if stopping() {
      r.status = .cancelled
      return
    }

    guard try prepareDestination(&r) else { return }
    let sixteen = job.format == .png || job.format == .tiff
    let depth = sixteen ? options.depth ?? max(loaded.info.bitDepth, second?.info.bitDepth ?? 8) : 8
    let layout = Self.outputLayout(hasAlpha: hasAlpha, keepAlpha: options.keepAlpha, format: job.format)
    // Never silently: transparency the output drops (JPEG, or an RGB output of an opaque input).
    if layout == .rgb, !result.isOpaque { r.warnings.append(Self.droppedAlphaWarning(job.format)) }
    let profile = outputProfile(loaded.info, layout: layout, format: job.format, warnings: &r.warnings)
    writing(true)
    defer { writing(false) }
    let tag = recordedOrientation(loaded.info, format: job.format, warnings: &r.warnings)
    let metadata = outputMetadata(loaded.info, format: job.format, warnings: &r.warnings)
    let written = try seconds {
      try claimingDestination(&r) {
        try ImageFile.write(
          result, to: job.destination, format: job.format, layout: layout, bitDepth: depth,
          jpegQuality: options.quality, pngCompressionLevel: options.compression, iccProfile: profile,
          lossless: options.lossless, replacing: options.overwrite, orientation: tag, metadata: metadata,
          resolution: loaded.info.resolution)
      }
    }
    guard r.status != .skipped else { return }
    r.encodeSeconds = written
    var s = stat()
    if PathBytes.withCString(job.destination, { stat($0, &s) }) == 0 { r.outputBytes = Int(s.st_size) }
    r.status = .ok

    line =
      Self.report(r, input: image, result: result, info: loaded.info, kernel: kernel, compiled: compiled, threads: threads)
      + (profile != nil ? " [ICC profile kept]" : "") + (checked.map { "\n" + $0 } ?? "")
  }

  /// The line `-v` prints for a file run whole: sizes, rate, times, what was applied.
  static func report(
    _ r: FileResult, input image: ImageBuffer, result: ImageBuffer, info: ImageFileInfo, kernel: CompiledPipeline, compiled: Bool,
    threads: Int
  ) -> String {
    let job = r.job
    // The larger of the input and the output: an upscale's work is its output's.
    let mpix = Double(max(image.width * image.height, result.width * result.height)) / 1e6
    var text = "\(job.input.path) → \(job.destination): \(image.width)×\(image.height)"
    if result.width != image.width || result.height != image.height { text += " → \(result.width)×\(result.height)" }
    text += ", \(kernel.backend.rawValue)"
    text += " \(fixed(mpix / r.kernelSeconds)) Mpixel/s (kernel \(fixed(r.kernelSeconds * 1000, 2)) ms"
    text += kernel.target.kind == .cpu ? " on \(threads) thread\(threads == 1 ? "" : "s")" : " on the CUDA device, copies included"
    if compiled && kernel.compileMilliseconds > 0 { text += ", compile \(fixed(kernel.compileMilliseconds)) ms" }
    text += ", read \(fixed(r.decodeSeconds * 1000)) ms, write \(fixed(r.encodeSeconds * 1000)) ms)"
    if let frame = job.frame { text += " frame \(frame)" }
    if let o = r.orientation { text += " [EXIF orientation \(o) applied]" }
    if info.shrink > 1 { text += " (decoded at 1/\(info.shrink): shrink-on-load)" }
    if info.fromThumbnail { text += " (read from its stored \(info.width)×\(info.height) thumbnail: shrink-on-load)" }
    return text
  }

  /// Makes the output's directory and checks, at the last moment, that the
  /// destination may be written (another process may have written it since
  /// the plan); false when `--skip-existing` skips it.
  func prepareDestination(_ r: inout FileResult) throws -> Bool {
    let job = r.job
    try makeDirectory(BatchDestinations.split(job.destination).directory)
    if !options.overwrite, FileIdentity(job.destination) != nil {
      if options.skipExisting {
        r.status = .skipped
        return false
      }
      throw CommandFailure(description: "\(job.input.path): \(job.destination) exists (use --overwrite to replace it)")
    }
    if options.lossless && job.format == .jpeg {
      r.warnings.append("--lossless cannot apply to the JPEG output \(job.destination), which is lossy")
    }
    return true
  }

  /// The EXIF orientation the output records: with `--keep-orientation`, the
  /// input's (the pixels are as stored, so the tag must go with them), where
  /// the format can record one; else a warning that the output shows as stored.
  func recordedOrientation(_ info: ImageFileInfo, format: ImageFileFormat, warnings: inout [String]) -> Int {
    guard options.keepOrientation, info.orientation != 1 else { return 1 }
    guard ImageFile.recordsOrientation(format) else {
      warnings.append(
        "its EXIF orientation \(info.orientation) is not recorded in the \(format.name) output (JPEG, PNG and TIFF record it): "
          + "viewers show the pixels as stored")
      return 1
    }
    return info.orientation
  }

  /// The EXIF and XMP the output carries: none unless `--keep-metadata`;
  /// then the input's, where both formats carry them (JPEG, PNG, WebP), and
  /// a warning for what is not kept (never silently).
  func outputMetadata(_ info: ImageFileInfo, format: ImageFileFormat, warnings: inout [String]) -> ImageMetadata {
    guard options.keepMetadata else { return ImageMetadata() }
    guard ImageMetadata.carried(by: info.format) else {
      warnings.append("--keep-metadata: EXIF and XMP are read from JPEG, PNG and WebP files; this \(info.format.name)'s are not kept")
      return ImageMetadata()
    }
    guard !info.metadata.isEmpty else { return ImageMetadata() }
    guard ImageMetadata.carried(by: format) else {
      warnings.append("--keep-metadata: a \(format.name) output does not carry EXIF and XMP (JPEG, PNG and WebP do): \(info.metadata) dropped")
      return ImageMetadata()
    }
    var kept = info.metadata
    if format == .jpeg, let exif = kept.exif, exif.count > ImageMetadata.jpegMaxEXIF {
      warnings.append("--keep-metadata: its EXIF (\(exif.count) bytes) is larger than a JPEG APP1 segment holds: dropped")
      kept.exif = nil
    }
    if format == .jpeg, let xmp = kept.xmp, xmp.count > ImageMetadata.jpegMaxXMP {
      warnings.append("--keep-metadata: its XMP (\(xmp.count) bytes) is larger than a JPEG APP1 segment holds (extended XMP is not written): dropped")
      kept.xmp = nil
    }
    return kept
  }

  /// Whether the kernel's output alpha is the constant 1 (an opaque input's
  /// kernel folds it so unless an effect computes alpha).
  /// What a result's transparent pixels become in an output of `format`
  /// without alpha (composited over black).
  static func droppedAlphaWarning(_ format: ImageFileFormat) -> String {
    format == .jpeg
      ? "the result has transparent pixels, which JPEG cannot store: they are composited over black (PNG, WebP and TIFF keep them)"
      : "the result has transparent pixels, which the RGB output (the input has no alpha) drops; --keep-alpha keeps them"
  }

  /// The output's channels: JPEG has no alpha; the others keep the input's
  /// alpha, or add one with `--keep-alpha`.
  static func outputLayout(hasAlpha: Bool, keepAlpha: Bool, format: ImageFileFormat) -> ChannelLayout {
    format != .jpeg && (hasAlpha || keepAlpha) ? .rgba : .rgb
  }

  static func isOpaque(_ kernel: CompiledPipeline) -> Bool {
    guard let p = (kernel.steps.last?.next ?? kernel).kernel.loopNests.last?.program, p.outputs.count == 4,
      case .float(bits: let bits)? = p.constantValue(p.outputs[3])
    else { return false }
    return Float(bitPattern: bits) == 1
  }

  /// Runs `write`, which puts the output in place without replacing a file
  /// (unless `--overwrite`): where another process wrote the destination
  /// since ``prepareDestination(_:)`` looked, `--skip-existing` counts the
  /// job skipped (the other run wrote it), and otherwise it fails as an
  /// existing destination does.
  func claimingDestination(_ r: inout FileResult, _ write: () throws -> Void) throws {
    do { try write() } catch let error as ImageFileError where error.destinationExists {
      guard options.skipExisting else {
        throw CommandFailure(
          description: "\(r.job.input.path): \(r.job.destination) exists (use --overwrite to replace it)")
      }
      r.status = .skipped
    }
  }

  /// Reads one input as the options say.
  func load(_ path: String) throws -> LoadedImage {
    try LoadedImage.load(path, read: options.read, keepOrientation: options.keepOrientation, shrinkFor: pipeline)
  }

  /// The input's ICC profile, to embed in the output: the output's numbers
  /// are in the input's colour space. A gray profile cannot describe the RGB
  /// file a batch writes: it is dropped with a warning.
  func outputProfile(_ info: ImageFileInfo, layout: ChannelLayout, format: ImageFileFormat, warnings: inout [String])
    -> ICCProfile?
  {
    guard let profile = info.iccProfile else { return nil }
    guard profile.fits(layout) else {
      warnings.append(
        "its \(profile.colorSpace.rawValue) ICC profile cannot describe the \(layout.rawValue) output and is not embedded "
          + "(use --to-srgb to convert instead)")
      return nil
    }
    if let refusal = profile.embeddingRefusal(in: format, layout: layout) {
      warnings.append("its ICC profile is not embedded in the \(format.name) output: \(refusal) (use --to-srgb to convert instead)")
      return nil
    }
    return profile
  }

  private func makeDirectory(_ directory: String) throws {
    lock.lock()
    defer { lock.unlock() }
    let key = PathBytes.bytes(of: directory)
    guard !directories.contains(key) else { return }
    if FileKind.of(directory) != .directory { try Self.createDirectories(directory) }
    directories.insert(key)
  }

  /// `mkdir -p` through ``PathBytes`` (so the directories of any input name
  /// are mirrored): makes each missing directory along `directory`, and names
  /// the part of the path in the way when one is not a directory.
  private static func createDirectories(_ directory: String) throws {
    var prefix = InputListing.isAbsolute(directory) ? "" : "."
    for part in InputListing.components(directory) {
      prefix += "/" + part
      switch FileKind.of(prefix) {
      case .directory: continue
      case .missing:
        // EEXIST: another shard made it meanwhile.
        if PathBytes.withCString(prefix, { mkdir($0, 0o777) }) == 0 || errno == EEXIST { continue }
        let reason = String(cString: strerror(errno)).lowercased()
        throw ImageFileError(path: directory, reason: "cannot create the output directory \"\(prefix)\": \(reason)")
      default:
        throw ImageFileError(path: directory, reason: "cannot create the output directory: \"\(prefix)\" is a file, not a directory")
      }
    }
  }

  /// `--check`: the largest difference from the staged interpreter, within one step of the output format.
  private func check(_ result: ImageBuffer, inputs: [ImageBuffer], uniforms: [Param: Float], job: BatchJob) throws -> String {
    let input = job.input.path
    let reference = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: inputs, uniforms: uniforms).copy(as: result.format)
    let map = try DifferenceMap(result, reference)
    let worst = map.largest
    let lsb = DifferenceMap.level(result.format)
    if let directory = options.checkMap {
      // Written before the verdict: a map matters most where the check fails.
      try makeDirectory(directory)
      try map.write(to: directory + "/" + DifferenceMap.name(for: job.destination), format: result.format)
    }
    let tolerance = lsb + 1e-6  // one level, and the float noise of computing one
    let ok = worst <= tolerance
    if !ok { throw CommandFailure(description: "\(input): output differs from the interpreter by \(worst) (tolerance \(tolerance))") }
    return "  check: \(input): max difference from the staged interpreter \(worst) (tolerance \(tolerance)): ok"
  }
}
