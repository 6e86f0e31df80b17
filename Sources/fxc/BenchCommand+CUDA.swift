import FX
import Foundation
import Synchronization

extension BenchCommand {
  /// `fxc bench --device cuda`: each chain on the CUDA device beside the
  /// CPU's JIT on all cores, on the same image: the device's rate with the
  /// copies to it and back (what a caller with host images gets), its
  /// launches alone (CUDA events), the CPU's rate, whether the two
  /// outputs are the same bytes (strict floats: they must be), and a batch:
  /// ``batchStreams`` threads running the chain at once, each with its own
  /// stream, as `fxc run --device cuda` over many files does, with the
  /// bytes it moves over the host link as a share of that link's rate.
  func benchCUDA(_ path: String, _ input: ImageBuffer, _ pipelines: [Pipeline], options: LoweringOptions) throws {
    let device = try CUDADevice.open()
    let mpix = Double(input.width * input.height) / 1e6
    print("image: \(PathBytes.display(path)) (\(input.width)×\(input.height), \(input.format)); CPU: \(Target.host.summary), \(allThreads) threads")
    print("device: \(device.summary)")
    // The yardstick: the device copying the image's bytes (read + written), as pixels per second.
    let copyRate = try device.copyBytesPerSecond(bytes: input.byteCount) / Double(2 * input.format.bytesPerPixel) / 1e6
    print("device-to-device copy of the same bytes: \(fixed(copyRate)) Mpix/s")
    let link = try device.hostLinkBytesPerSecond(bytes: input.byteCount)
    print("host link, page-locked copies up and down at once: \(fixed(link / 1e9, 1)) GB/s")
    print(
      "chain".padding(toLength: 58, withPad: " ", startingAt: 0)
        + "   CPU Mpix/s  CUDA Mpix/s  launches only    % of copy     CUDA/CPU   compile ms"
        + "  of it: load  batch Mpix/s    % of link  same bytes")
    for (chain, var pipeline) in zip(chains, pipelines) {
      pipeline.floatMode = floatMode
      let inputs = try inputs(of: chain, pipeline, input)
      let formats = inputs.map(\.format)
      // The graphs the device compiles (a blur's loop, not the CPU's running sums), on the CPU.
      let cpu = try pipeline.keepingLoops.compile(inputFormats: formats, outputFormat: input.format, options: options, cache: nil)
      let gpu = try pipeline.compile(inputFormats: formats, outputFormat: input.format, options: options, cache: nil, target: device.target)
      let size = try cpu.outputSize(width: input.width, height: input.height)
      let cpuOutput = try ImageBuffer(width: size.width, height: size.height, format: cpu.outputFormat)
      let gpuOutput = try ImageBuffer(width: size.width, height: size.height, format: gpu.outputFormat)
      try cpu.run(inputs, into: cpuOutput, threads: allThreads)
      try gpu.run(inputs, into: gpuOutput)  // warm-up: the module's first launch
      let cpuTime = try bestTime(budget: budget, minRuns: 3) { try cpu.run(inputs, into: cpuOutput, threads: allThreads) }
      var launches = Double.infinity
      let gpuTime = try bestTime(budget: budget, minRuns: 3) {
        try gpu.run(inputs, into: gpuOutput)
        if let k = gpu.executor as? CUDAKernel, let ms = k.lastLaunchMilliseconds { launches = min(launches, ms / 1000) }
      }
      let same = sameBytes(cpuOutput, gpuOutput)
      let (batch, linkShare) = try batchRate(gpu, inputs, size: size, link: link, same: gpuOutput)
      let name = chain.count > 58 ? String(chain.prefix(55)) + "..." : chain.padding(toLength: 58, withPad: " ", startingAt: 0)
      let launchText = launches.isFinite ? fixed(mpix / launches) : "—"
      let ofCopy = launches.isFinite ? fixed(100 * mpix / launches / copyRate) : "—"
      let columns = [
        fixed(mpix / cpuTime), fixed(mpix / gpuTime), launchText, ofCopy, fixed(cpuTime / gpuTime, 2), fixed(gpu.compileMilliseconds),
        (gpu.executor as? CUDAKernel)?.phaseMilliseconds["load"].map { fixed($0) } ?? "—", fixed(batch), fixed(100 * linkShare),
      ]
      print(name + "  " + columns.map { $0.leftPadded(to: 11) }.joined(separator: "  ") + "  " + (same ? "yes" : "NO"))
      if !same { throw CommandFailure(description: "error: '\(chain)' gave other bytes on the CUDA device than on the CPU") }
    }
  }

  /// Whether two images of one size and format hold the same pixels.
  private func sameBytes(_ a: ImageBuffer, _ b: ImageBuffer) -> Bool {
    (0..<a.height).allSatisfy { memcmp(a.data + $0 * a.rowBytes, b.data + $0 * b.rowBytes, a.rowDataBytes) == 0 }
  }

  /// Threads of the batch column, each running the chain with its own stream.
  static let batchStreams = 4

  /// ``batchStreams`` threads running `pipeline` over and over for the time
  /// budget, each into its own output: the input's megapixels a second
  /// over all of them, and the bytes they move (inputs up, output down) as
  /// a share of `link` (bytes a second both ways).
  /// - Throws: a run's error, or ``CommandFailure`` when an output is not `same`'s bytes.
  private func batchRate(
    _ pipeline: CompiledPipeline, _ inputs: [ImageBuffer], size: (width: Int, height: Int), link: Double, same: ImageBuffer
  ) throws -> (Double, Double) {
    let outputs = try (0..<Self.batchStreams).map { _ in
      try ImageBuffer(width: size.width, height: size.height, format: pipeline.outputFormat)
    }
    let runs = Mutex(0), failure = Mutex<(any Error)?>(nil)
    let start = DispatchTime.now().uptimeNanoseconds, end = start + UInt64(Swift.max(budget, 0.2) * 1e9)
    DispatchQueue.concurrentPerform(iterations: Self.batchStreams) { i in
      while DispatchTime.now().uptimeNanoseconds < end {
        do { try pipeline.run(inputs, into: outputs[i]) } catch {
          failure.withLock { $0 = error }
          return
        }
        runs.withLock { $0 += 1 }
      }
    }
    if let error = failure.withLock({ $0 }) { throw error }
    for output in outputs where !sameBytes(output, same) {
      throw CommandFailure(description: "error: the batch's runs at once gave other bytes than one run alone")
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, count = Double(runs.withLock { $0 })
    let out = outputs[0]
    let bytes = Double(inputs.reduce(0) { $0 + $1.rowDataBytes * $1.height } + out.rowDataBytes * out.height)
    return (count * Double(size.width * size.height) / 1e6 / seconds, count * bytes / seconds / link)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
