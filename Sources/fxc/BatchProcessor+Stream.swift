import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension BatchProcessor {
  /// Processes a job in bands: `reader`'s rows through `kernel` into the
  /// output's rows (``CompiledPipeline/stream(from:to:uniforms:threads:stop:)``),
  /// so a file of any size takes a few bands of memory. The output is chosen
  /// as for whole images (the input's layout, depth and profile). Its output
  /// is being written from the first band on, so a stop (the first Ctrl-C)
  /// lets it finish, as it lets a whole image's write finish; a second
  /// signal quits at once and removes its temporary file (``BatchRunner``).
  func stream(
    _ reader: ImageRowReader, _ kernel: CompiledPipeline, _ r: inout FileResult, threads: Int, compiled: Bool,
    stopping: () -> Bool, writing: (Bool) -> Void, line: inout String?
  ) throws {
    let job = r.job, info = reader.info
    (r.width, r.height, r.warnings) = (info.width, info.height, info.warnings)
    var s = stat()
    if PathBytes.withCString(job.input.path, { stat($0, &s) }) == 0 { r.inputBytes = Int(s.st_size) }
    if stopping() {
      r.status = .cancelled
      return
    }
    guard try prepareDestination(&r) else { return }
    let sixteen = job.format == .png || job.format == .tiff
    let layout = Self.outputLayout(hasAlpha: info.layout.hasAlpha, keepAlpha: options.keepAlpha, format: job.format)
    let profile = outputProfile(info, layout: layout, format: job.format, warnings: &r.warnings)
    var write = ImageWriteOptions(
      format: job.format, layout: layout, bitDepth: sixteen ? options.depth ?? info.bitDepth : 8, quality: options.quality,
      compressionLevel: options.compression, lossless: options.lossless, iccProfile: profile)
    write.replacing = options.overwrite
    write.orientation = recordedOrientation(info, format: job.format, warnings: &r.warnings)
    write.metadata = outputMetadata(info, format: job.format, warnings: &r.warnings)
    write.resolution = info.resolution
    writing(true)
    defer { writing(false) }
    let size = try kernel.outputSize(width: info.width, height: info.height)
    let writer = try ImageRowWriter(path: job.destination, width: size.width, height: size.height, options: write)
    var streamed: StreamTimes?
    try claimingDestination(&r) {
      streamed = try kernel.stream(from: reader, again: reader.reopened, to: writer, uniforms: job.uniforms, threads: threads)
    }
    guard let times = streamed else { return }
    if writer.droppedTransparency { r.warnings.append(Self.droppedAlphaWarning(job.format)) }
    // With threads, reading and writing overlap the kernel; the kernel's share is what the wall time leaves.
    (r.decodeSeconds, r.encodeSeconds) = (times.read, times.write)
    r.kernelSeconds = threads > 1 ? times.total : max(times.total - times.read - times.write, 1e-9)
    if PathBytes.withCString(job.destination, { stat($0, &s) }) == 0 { r.outputBytes = Int(s.st_size) }
    r.status = .ok
    r.streamed = true

    // The larger of the input and the output: an upscale's work is its output's.
    let mpix = Double(max(info.width * info.height, size.width * size.height)) / 1e6
    var text = "\(job.input.path) → \(job.destination): \(info.width)×\(info.height)"
    if reader.shrink > 1 { text += " (decoded at 1/\(reader.shrink): shrink-on-load)" }
    if size.width != info.width || size.height != info.height { text += " → \(size.width)×\(size.height)" }
    text += ", \(kernel.backend.rawValue)"
    let plan = Self.streaming(kernel, width: info.width, height: info.height)
    var held = plan.held.map { ", the image held whole for the \($0)" } ?? ""
    if !plan.readTwice.isEmpty {
      held += ", the file read \(plan.readTwice.count + 1) times for the \(plan.readTwice.joined(separator: ", "))"
    }
    text += " \(fixed(mpix / times.total)) Mpixel/s from decode to encode (streamed in bands\(held): \(fixed(times.total * 1000)) ms"
    text += " on \(threads) thread\(threads == 1 ? "" : "s, reading and writing on threads of their own")"
    if compiled && kernel.compileMilliseconds > 0 { text += ", compile \(fixed(kernel.compileMilliseconds)) ms" }
    text += ", read \(fixed(times.read * 1000)) ms, write \(fixed(times.write * 1000)) ms)"
    if let frame = job.frame { text += " frame \(frame)" }
    if profile != nil { text += " [ICC profile kept]" }
    line = text
  }

  /// How a streamed run of a `width × height` input runs `kernel`'s cuts:
  /// the first that holds the whole image (a quarter turn, an affine map, a
  /// mirrored margin, a vertical scan, a reduction of rows too few to read
  /// twice), or nil when every stage streams; and the reductions counted on a
  /// first reading of the file and mapped on a second.
  static func streaming(_ kernel: CompiledPipeline, width: Int, height: Int) -> (held: String?, readTwice: [String]) {
    var size = (width: width, height: height), held: String?, twice: [String] = []
    for step in kernel.steps {
      switch step.cut {
      case .geometry(.crop), .geometry(.orient(.identity)), .geometry(.orient(.flop)), .geometry(.resize): break
      case .geometry(.extend(let e)) where e.background.description.hasPrefix("color"): break
      case .scan(let s) where s.axis == .x: break
      case .reduction(let r) where ReductionExecutor.readsTwice(width: size.width, height: size.height): twice.append("\(r)")
      default: held = held ?? "\(step.cut)"
      }
      guard let next = try? step.cut.outputSize(width: size.width, height: size.height) else { break }
      size = next
    }
    return (held, twice)
  }
}
