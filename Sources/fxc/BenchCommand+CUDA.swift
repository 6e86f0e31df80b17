import FX
import Foundation

extension BenchCommand {
  /// `fxc bench --device cuda`: each chain on the CUDA device beside the
  /// CPU's JIT on all cores, on the same image: the device's rate with the
  /// copies to it and back (what a caller with host images gets), its
  /// launches alone (CUDA events), the CPU's rate, and whether the two
  /// outputs are the same bytes (strict floats: they must be).
  func benchCUDA(_ path: String, _ input: ImageBuffer, _ pipelines: [Pipeline], options: LoweringOptions) throws {
    let device = try CUDADevice.open()
    let mpix = Double(input.width * input.height) / 1e6
    print("image: \(PathBytes.display(path)) (\(input.width)×\(input.height), \(input.format)); CPU: \(Target.host.summary), \(allThreads) threads")
    print("device: \(device.summary)")
    // The yardstick: the device copying the image's bytes (read + written), as pixels per second.
    let copyRate = try device.copyBytesPerSecond(bytes: input.byteCount) / Double(2 * input.format.bytesPerPixel) / 1e6
    print("device-to-device copy of the same bytes: \(fixed(copyRate)) Mpix/s")
    print(
      "chain".padding(toLength: 58, withPad: " ", startingAt: 0)
        + "   CPU Mpix/s  CUDA Mpix/s  launches only    % of copy     CUDA/CPU   compile ms  same bytes")
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
      let same = (0..<size.height).allSatisfy {
        memcmp(cpuOutput.data + $0 * cpuOutput.rowBytes, gpuOutput.data + $0 * gpuOutput.rowBytes, cpuOutput.rowDataBytes) == 0
      }
      let name = chain.count > 58 ? String(chain.prefix(55)) + "..." : chain.padding(toLength: 58, withPad: " ", startingAt: 0)
      let launchText = launches.isFinite ? fixed(mpix / launches) : "—"
      let ofCopy = launches.isFinite ? fixed(100 * mpix / launches / copyRate) : "—"
      let columns = [
        fixed(mpix / cpuTime), fixed(mpix / gpuTime), launchText, ofCopy, fixed(cpuTime / gpuTime, 2), fixed(gpu.compileMilliseconds),
      ]
      print(name + "  " + columns.map { $0.leftPadded(to: 11) }.joined(separator: "  ") + "  " + (same ? "yes" : "NO"))
      if !same { throw CommandFailure(description: "error: '\(chain)' gave other bytes on the CUDA device than on the CPU") }
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
