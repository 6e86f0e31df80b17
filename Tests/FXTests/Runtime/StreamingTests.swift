import FX
import Foundation
import Testing

/// Issue 17, streaming in bands: the kernel runs from rings of input rows to
/// rings of output rows, and every pixel is the one the whole-image run
/// computes — byte for byte, for every chain, one thread or three.
@Suite("streaming in bands")
struct StreamingTests {
  /// x86-64-v3 (AVX2, 8 lanes) when the host runs it (every machine here),
  /// else the baseline: never the host's own width.
  static let target = Target.x86Level(1).cannotRun(on: .host) == nil ? Target.x86Level(1) : Target.x86Level(0)

  /// Runs `compiled` over `image` streamed, the rows handed over in the
  /// odd-sized pieces the kernel asks for, and returns the output rows.
  static func streamed(_ compiled: CompiledKernel, _ image: ImageBuffer, uniforms: [Float] = [], threads: Int) throws
    -> ImageBuffer
  {
    let output = try ImageBuffer(width: image.width, height: image.height, format: compiled.layout.output)
    let next = Counter()
    let written = Counter()
    try compiled.stream(
      width: image.width, height: image.height, uniforms: uniforms, threads: threads,
      read: { pointer, rowBytes, count in
        for k in 0..<count {
          (pointer + k * rowBytes).copyMemory(from: image.data + (next.value + k) * image.rowBytes, byteCount: image.rowBytes)
        }
        next.value += count
      },
      write: { pointer, rowBytes, count in
        for k in 0..<count {
          (output.data + (written.value + k) * output.rowBytes).copyMemory(from: pointer + k * rowBytes, byteCount: output.rowBytes)
        }
        written.value += count
      })
    #expect(next.value == image.height && written.value == image.height)
    return output
  }

  final class Counter: @unchecked Sendable { var value = 0 }

  static func bytes(_ b: ImageBuffer) -> [UInt8] { Array(UnsafeRawBufferPointer(start: b.data, count: b.byteCount)) }

  /// Every catalogue example whose kernel streams, on an image with
  /// transparency 53 px wide (not a multiple of any vector) and 70 tall.
  @Test(arguments: Catalogue.names)
  func everyCatalogueExampleStreamsToTheWholeImageBytes(name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    let pipeline = try Pipeline(try ChainSyntax.parse(spec.example).resolve().effect)
    let image = try irregularImage(53, 70, seed: 3).copy(as: .rgba8)
    let inputs = max(1, pipeline.graph.inputs.count)
    let formats = Array(repeating: PixelFormat.rgba8, count: inputs)
    let compiled = try pipeline.compile(inputFormats: formats, outputFormat: .rgba8, cache: nil, target: Self.target)
    if compiled.hasCuts {
      // In bands (a kernel per segment on a thread of its own, the cut stages between) = on whole images.
      let whole = try compiled.runStepsWhole([image], uniforms: [:], threads: 1)
      for threads in [1, 3] {
        #expect(Self.bytes(try compiled.run([image], threads: threads)) == Self.bytes(whole), "\(spec.example), \(threads) threads")
      }
      return
    }
    guard let kernel = compiled.compiledKernel, compiled.streamingRefusal == nil else {
      // A transition reads two images; a distortion or lookup rows that depend on the pixel: it says so.
      let reason = try #require(compiled.streamingRefusal)
      #expect(reason.contains(inputs >= 2 ? "reads \(inputs) images" : "data-dependent rows"), "\(name): \(reason)")
      return
    }
    let whole = try compiled.run([image])
    for threads in [1, 3] {
      let streamed = try Self.streamed(kernel, image, uniforms: pipeline.graph.uniforms.map(\.value), threads: threads)
      #expect(Self.bytes(streamed) == Self.bytes(whole), "\(spec.example), \(threads) threads")
    }
  }

  /// Colour effects and blurs stream; a distortion does not, and says why.
  @Test func whichKernelsStream() throws {
    func refusal(_ chain: String) throws -> String? {
      let pipeline = try Pipeline(try ChainSyntax.parse(chain).resolve().effect)
      return try pipeline.compile(cache: nil, target: Self.target).streamingRefusal
    }
    for chain in ["sepia | vignette", "gaussianBlur(sigma: 3) | sepia", "unsharpMask", "boxBlur(radius: 5)"] {
      #expect(try refusal(chain) == nil, "\(chain)")
    }
    #expect(try refusal("wave")?.contains("data-dependent rows") == true)
    #expect(try refusal("pixelate(blockSize: 16)")?.contains("data-dependent rows") == true)
  }

  /// Chains with intermediates (separable blurs, a DAG, a loop-based blur
  /// wider than the image) and 16-bit and float buffers.
  @Test(arguments: [
    "gaussianBlur(sigma: 3) | sepia", "unsharpMask(sigma: 4, amount: 1.5)", "gaussianBlur(sigma: 30, method: exact)",
    "boxBlur(radius: 2) | contrast(amount: 1.3) | gaussianBlur(sigma: 1.5)",
    // A wave reading a blur at rows within its amplitude (its rings, not whole images).
    "gaussianBlur(sigma: 2) | wave(amplitude: 10, wavelength: 30)",
  ])
  func chainsWithIntermediatesStreamToTheWholeImageBytes(chain: String) throws {
    let pipeline = try Pipeline(try ChainSyntax.parse(chain).resolve().effect)
    for format in [PixelFormat.rgba8, .rgba16, .rgba32f] {
      let image = try irregularImage(61, 97, seed: 5).copy(as: format)
      let compiled = try pipeline.compile(inputFormats: [format], outputFormat: format, cache: nil, target: Self.target)
      let kernel = try #require(compiled.compiledKernel)
      #expect(kernel.streamingRefusal == nil, "\(chain)")
      let whole = try compiled.run([image])
      for threads in [1, 2] {
        let streamed = try Self.streamed(kernel, image, threads: threads)
        #expect(Self.bytes(streamed) == Self.bytes(whole), "\(chain) \(format) \(threads) threads")
      }
    }
  }

  /// Column tiles a vector wide (a tiny tile budget): every tile computes
  /// each strip before the next, halos overlapping, and the bytes stay the same.
  @Test func narrowColumnTilesGiveTheSameBytes() throws {
    let saved = CompiledKernel.streamTileCacheBytes
    CompiledKernel.streamTileCacheBytes = 1
    defer { CompiledKernel.streamTileCacheBytes = saved }
    for chain in ["gaussianBlur(sigma: 3) | sepia", "unsharpMask(sigma: 2, amount: 1)", "boxBlur(radius: 4) | gaussianBlur(sigma: 1)"] {
      let pipeline = try Pipeline(try ChainSyntax.parse(chain).resolve().effect)
      let image = try irregularImage(77, 40, seed: 9).copy(as: .rgba8)
      let compiled = try pipeline.compile(cache: nil, target: Self.target)
      let kernel = try #require(compiled.compiledKernel)
      #expect(kernel.plan.run.columnLookahead != nil, "\(chain) should tile")
      let whole = try compiled.run([image])
      for threads in [1, 2] {
        #expect(Self.bytes(try Self.streamed(kernel, image, threads: threads)) == Self.bytes(whole), "\(chain)")
      }
    }
  }

  /// A failing reader stops the run with its error, on either schedule; no row after it is written.
  @Test(arguments: [1, 2])
  func aReadErrorStopsTheRun(threads: Int) throws {
    struct Broken: Error {}
    let pipeline = try Pipeline(try ChainSyntax.parse("gaussianBlur(sigma: 2)").resolve().effect)
    let compiled = try pipeline.compile(cache: nil, target: Self.target)
    let kernel = try #require(compiled.compiledKernel)
    let read = Counter(), written = Counter()
    #expect(throws: Broken.self) {
      try kernel.stream(
        width: 40, height: 200, threads: threads,
        read: { pointer, rowBytes, count in
          if read.value + count > 100 { throw Broken() }
          pointer.initializeMemory(as: UInt8.self, repeating: 128, count: rowBytes * count)
          read.value += count
        },
        write: { _, _, count in written.value += count })
    }
    #expect(written.value < 100)
  }
}

/// `Pipeline.apply(from:to:)`: streamed where the rule allows, the same file
/// as applying to the whole image and writing it; whole images otherwise, saying why.
@Suite("Pipeline.apply(from:to:)")
struct ApplyFileTests {
  static let rocket = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../examples/rocket.jpg").standardized

  static func scratch() throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fxc-apply-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test(arguments: ["png", "jpg", "tif"])
  func aJPEGStreamsToTheWholeImageFile(ext: String) throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let pipeline = try Pipeline(try ChainSyntax.parse("gaussianBlur(sigma: 2) | sepia").resolve().effect)
    let out = dir.appendingPathComponent("out.\(ext)")
    let done = try pipeline.apply(from: Self.rocket, to: out)
    #expect(done.streamed && done.wholeImageReason == nil, "\(done)")
    let (photo, info) = try ImageFile.read(Self.rocket.path)
    let whole = dir.appendingPathComponent("whole.\(ext)").path
    try ImageFile.write(
      try pipeline.apply(to: photo), to: whole, layout: .rgb, iccProfile: info.iccProfile, resolution: info.resolution)
    #expect(try Data(contentsOf: out) == Data(contentsOf: URL(fileURLWithPath: whole)))
  }

  @Test func otherwiseWholeImagesAndWhy() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let wave = try Pipeline(try ChainSyntax.parse("wave | sepia").resolve().effect)
    let distorted = try wave.apply(from: Self.rocket, to: dir.appendingPathComponent("w.png"))
    #expect(!distorted.streamed && distorted.wholeImageReason?.contains("data-dependent rows") == true, "\(distorted)")
    let sepia = try Pipeline(sepia())
    let webp = try sepia.apply(from: Self.rocket, to: dir.appendingPathComponent("s.webp"))
    #expect(!webp.streamed && webp.wholeImageReason?.contains("encoded whole") == true, "\(webp)")
    let (image, _) = try ImageFile.read(dir.appendingPathComponent("s.webp").path)
    #expect(image.width == 640 && image.height == 427)
    #expect(throws: ImageFileError.self) { try sepia.apply(from: Self.rocket, to: dir.appendingPathComponent("x.bmp")) }
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.bmp").path))
  }
}
