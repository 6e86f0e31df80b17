import Dispatch
import Foundation

/// What ``Pipeline/apply(from:to:options:read:uniforms:threads:)`` did with one file.
public struct FileApplication: Sendable {
  /// What the input file stores.
  public var info: ImageFileInfo
  /// Whether it ran in bands (decode → kernel → encode, a few rows in memory)
  /// rather than on whole images.
  public var streamed: Bool
  /// Why it ran on whole images, when it did (``ImageRowReader``'s rule, the
  /// output format, the orientation, the kernel: ``CompiledKernel/streamingRefusal``).
  public var wholeImageReason: String?
}

extension CompiledPipeline {
  /// Why this compiled pipeline cannot run streamed, or nil when it can: the
  /// JIT is needed, and a kernel that reads one image at rows `y + k`
  /// (``CompiledKernel/streamingRefusal``).
  public var streamingRefusal: String? {
    guard let compiled else {
      return executor == nil ? "the interpreter runs on whole images" : "a CUDA device runs whole images (copied there and back)"
    }
    if layout.inputs.count != 1 { return "the graph reads \(layout.inputs.count) images" }
    if !steps.isEmpty { return nil }  // kernels that cannot stream run whole inside the bands (KernelRowSource)
    return compiled.streamingRefusal
  }

  /// Runs the pipeline from `reader`'s rows to `writer`'s, a band at a time
  /// (``CompiledKernel/stream(width:height:uniforms:threads:read:write:)``):
  /// peak memory is a few bands, the pixels those of ``run(_:uniforms:threads:)``
  /// on the whole image. Then checks the input's end (``ImageRowReader/finish()``)
  /// and, only if that passes, finishes the output (``ImageRowWriter/finish()``):
  /// on any error the output file is not created. `stop` is asked before each
  /// band is read; when it answers true the run ends with ``StreamStopped``,
  /// leaving no output.
  /// - Parameter threads: 1 decodes, runs and encodes on this thread; 2 or
  ///   more decode and encode on threads of their own, overlapping all three.
  /// - Returns: the seconds spent reading, writing and in all (reading and
  ///   writing overlap the kernel with 2 or more threads).
  /// - Throws: ``RunError`` when the pipeline cannot stream, the reader's
  ///   pixels are not the compiled input format, or the sizes differ;
  ///   ``ImageFileError`` from the reader or writer.
  @discardableResult
  public func stream(
    from reader: ImageRowReader, again: (() throws -> ImageRowReader)? = nil, to writer: ImageRowWriter,
    uniforms: [Param: Float] = [:], threads: Int = 1, stop: @escaping () -> Bool = { false }
  ) throws -> StreamTimes {
    if let streamingRefusal { throw RunError("cannot stream: \(streamingRefusal)") }
    guard reader.pixelFormat == layout.inputs[0] else {
      throw RunError("the rows are \(reader.pixelFormat), the pipeline was compiled for \(layout.inputs[0])")
    }
    let size = try outputSize(width: reader.info.width, height: reader.info.height)
    guard writer.width == size.width, writer.height == size.height else {
      throw RunError("the output is \(writer.width)×\(writer.height), the result \(size.width)×\(size.height)")
    }
    for (p, v) in uniforms where !v.isFinite {
      throw RunError("uniform '\(p.name)' must be finite, got \(v)")
    }
    let values = graph.uniforms.map { uniforms[$0] ?? $0.value }
    let output = outputFormat
    let times = StreamTimes()
    let start = DispatchTime.now().uptimeNanoseconds
    if !steps.isEmpty {
      let rows = { (reader: ImageRowReader) in
        ClosureRowSource(
          width: reader.info.width, height: reader.info.height, format: reader.pixelFormat,
          read: { pointer, rowBytes, count in
            if stop() { throw StreamStopped() }
            try times.timing(\.read) { try reader.read(into: pointer, rowBytes: rowBytes, count: count) }
          }, finish: { try times.timing(\.read) { try reader.finish() } })
      }
      let second = again.map { again in { () throws -> RowSource in rows(try times.timing(\.read) { try again() }) } }
      try streamSteps(from: rows(reader), again: second, others: [], uniforms: uniforms, threads: threads) { pointer, rowBytes, count in
        try times.timing(\.write) { try writer.write(pointer, rowBytes: rowBytes, format: output, count: count) }
      }
      try times.timing(\.write) { try writer.finish() }
      times.total = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
      return times
    }
    do {
      try compiled!.stream(
        width: reader.info.width, height: reader.info.height, uniforms: values, threads: threads,
        read: { pointer, rowBytes, count in
          if stop() { throw StreamStopped() }
          try times.timing(\.read) { try reader.read(into: pointer, rowBytes: rowBytes, count: count) }
        },
        write: { pointer, rowBytes, count in
          try times.timing(\.write) { try writer.write(pointer, rowBytes: rowBytes, format: output, count: count) }
        })
    } catch let e as LLVMError {
      throw RunError(e.message)
    }
    try times.timing(\.read) { try reader.finish() }
    try times.timing(\.write) { try writer.finish() }
    times.total = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return times
  }
}

/// Where a streamed run's time went, in seconds: in the decoder's calls, in
/// the encoder's (finishing and flushing the file included), and in all.
/// Each of `read` and `write` is written by one thread only.
public final class StreamTimes: @unchecked Sendable {
  /// Seconds in ``ImageRowReader/read(into:rowBytes:count:)`` and ``ImageRowReader/finish()``.
  public internal(set) var read = 0.0
  /// Seconds in ``ImageRowWriter/write(_:rowBytes:format:count:)`` and ``ImageRowWriter/finish()``.
  public internal(set) var write = 0.0
  /// Seconds from the first band to the renamed output.
  public internal(set) var total = 0.0

  func timing<T>(_ field: ReferenceWritableKeyPath<StreamTimes, Double>, _ body: () throws -> T) rethrows -> T {
    let start = DispatchTime.now().uptimeNanoseconds
    defer { self[keyPath: field] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    return try body()
  }
}

/// Thrown by ``CompiledPipeline/stream(from:to:uniforms:threads:stop:)`` when its `stop` said to stop.
public struct StreamStopped: Error, CustomStringConvertible {
  public var description: String { "stopped before the last band" }
}

extension Pipeline {
  /// Applies the pipeline to the image file `input`, writing `output` —
  /// streamed in bands when the files and the kernel allow it (peak memory a
  /// few bands of rows, whatever the image's size), else through whole images.
  ///
  /// The rule: a file streams when ``ImageRowReader/open(_:options:)``
  /// streams it (non-interlaced PNG, JPEG but CMYK, 8/16-bit TIFF), it needs
  /// no EXIF rotation, the output format is PNG, JPEG or TIFF
  /// (``ImageRowWriter/streams(_:)``), the image is at least a vector wide,
  /// and the compiled kernel reads its input at rows `y + k`
  /// (``CompiledPipeline/streamingRefusal``; a distortion needs whole
  /// images). Either way, as the `fxc` batch does: the EXIF orientation is
  /// applied (the output is upright), and the output keeps the input's
  /// channels (RGB or RGBA), bit depth (PNG and TIFF) and ICC profile unless
  /// `options` says otherwise. A streamed file of an input with alpha runs
  /// the kernel compiled for any alpha (the whole-image path first looks at
  /// every pixel to see whether it is opaque): the results agree within the
  /// interpreter's tolerance (DESIGN §4), not always bit for bit.
  ///
  /// - Parameters:
  ///   - options: how to write; nil: the format from `output`'s extension and
  ///     the input's layout, depth and profile.
  ///   - read: the pixel limit and sRGB conversion for `input`.
  ///   - threads: for a streamed file, 2 or more overlap decoding, the
  ///     kernel and encoding (``CompiledPipeline/stream(from:to:uniforms:threads:stop:)``);
  ///     for whole images, rows are split across threads.
  /// - Returns: what the input stores and whether it was streamed.
  /// - Throws: ``ImageFileError`` for the input or output file (nothing is
  ///   written then); ``RunError`` as ``apply(to:uniforms:threads:)``.
  @discardableResult
  public func apply(
    from input: URL, to output: URL, options: ImageWriteOptions? = nil, read: ImageReadOptions = ImageReadOptions(),
    uniforms: [Param: Float] = [:], threads: Int = Pipeline.allCores
  ) throws -> FileApplication {
    var reason: String
    if let reader = try ImageRowReader.open(input.path, options: read) {
      if reader.info.orientation == 1 {
        _ = try reader.shrinkOnLoad(by: shrinkOnLoad(width: reader.info.width, height: reader.info.height))
      }
      let write = options ?? Self.writeOptions(for: reader.info, output: output.path)
      let format = try write.format ?? ImageFile.format(ofPath: output.path)
      if reader.info.orientation != 1 {
        reason = "its EXIF orientation \(reader.info.orientation) is applied to the whole image"
      } else if !ImageRowWriter.streams(format) {
        reason = "\(format.name) files are encoded whole"
      } else {
        let compiled = try compiledForFile(format: reader.pixelFormat, opaque: !reader.info.layout.hasAlpha)
        let narrow = reader.info.width < compiled.lanes ? "the image is narrower than a vector" : nil
        if let refusal = compiled.streamingRefusal ?? narrow {
          reason = refusal
        } else {
          let size = try compiled.outputSize(width: reader.info.width, height: reader.info.height)
          let writer = try ImageRowWriter(path: output.path, width: size.width, height: size.height, options: write)
          try compiled.stream(from: reader, again: reader.reopened, to: writer, uniforms: uniforms, threads: threads)
          return FileApplication(info: reader.info, streamed: true, wholeImageReason: nil)
        }
      }
    } else {
      reason = "the input file is decoded whole (ImageRowReader's rule)"
    }
    let (image, info) = try ImageFile.read(input.path, options: read, shrink: shrinkOnLoadRule(), upright: true)
    let result = try apply(to: image, uniforms: uniforms, threads: threads)
    let write = options ?? Self.writeOptions(for: info, output: output.path)
    try ImageFile.write(
      result, to: output.path, format: write.format, layout: write.layout, bitDepth: write.bitDepth,
      jpegQuality: write.quality, pngCompressionLevel: write.compressionLevel, iccProfile: write.iccProfile,
      lossless: write.lossless)
    return FileApplication(info: info, streamed: false, wholeImageReason: reason)
  }

  /// The output's options as the batch chooses them: the input's layout
  /// (RGB or RGBA), its depth where the format holds 16 bits, its profile.
  /// A profile that cannot go into the output (``ICCProfile/embeddingRefusal(in:layout:)``) is left out.
  static func writeOptions(for info: ImageFileInfo, output: String) -> ImageWriteOptions {
    Picture.writeOptions(for: info, format: ImageFileFormat(pathExtension: URL(fileURLWithPath: output).pathExtension))
  }

  /// The pipeline compiled for files of `format`, opaque or not, kept as ``apply(to:uniforms:threads:)`` keeps it.
  func compiledForFile(format: PixelFormat, opaque: Bool) throws -> CompiledPipeline {
    try applied.compiled(for: AppliedKernels.Key(format: format, opaque: opaque, floatMode: floatMode, target: target)) {
      var options = LoweringOptions()
      if opaque { options.opaqueInputs = [0] }
      return try compile(inputFormats: [format], outputFormat: format, options: options)
    }
  }
}
