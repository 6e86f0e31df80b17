import CCUDA
import Dispatch
import FXCodegen
import FXIR
import FXImage
import FXLLVM
import FXPasses
import Synchronization

/// A kernel compiled to PTX (``PTXCode``) and loaded on a ``CUDADevice``:
/// each loop nest a launch of a grid of a thread per vector of its lanes
/// (``KernelPlan/gridLanes``, or one pixel in a loop nest with a loop) over
/// the whole image, intermediates whole planar images in device memory, in
/// the order of the kernel. A run copies the inputs to the device, launches
/// every loop nest and copies the output back: host images in, host image
/// out, as ``CompiledKernel`` takes them. Safe to run from several threads
/// at once, and then their runs overlap (each has its own stream and
/// buffers).
public final class CUDAKernel: KernelExecutor, @unchecked Sendable {
  public let kernel: Kernel
  public let layout: KernelLayout
  public let plan: KernelPlan
  public let device: CUDADevice
  /// The PTX loaded.
  public let ptx: PTXCode
  public let compileMilliseconds: Double
  public var phaseMilliseconds: [String: Double] { ["ptx": ptx.milliseconds, "load": compileMilliseconds - ptx.milliseconds] }
  public var runtimeSchedule: String { plan.runDescription(tileCacheBytes: 0) }

  private let module: CUmodule
  private let functions: [CUfunction]
  private let lastLaunch = Mutex<Double?>(nil)

  /// The device's time for the last run's launches alone, in milliseconds
  /// (CUDA events around them: no copies), or nil before the first run.
  public var lastLaunchMilliseconds: Double? { lastLaunch.withLock { $0 } }

  /// Plans `kernel` for `device` (the grid schedule), generates its PTX and
  /// loads it (the driver compiles it for the device).
  /// - Throws: ``LLVMError`` when the layout does not match the kernel, LLVM
  ///   rejects the module, or the driver cannot load it (its log included).
  public init(_ kernel: Kernel, layout: KernelLayout, device: CUDADevice) throws {
    guard layout.inputs.count == kernel.inputCount else {
      throw LLVMError("the kernel reads \(kernel.inputCount) inputs, the layout names \(layout.inputs.count)")
    }
    if let mismatch = layout.alphaMismatch(kernel) { throw LLVMError(mismatch) }
    let start = DispatchTime.now().uptimeNanoseconds
    let plan = layout.plan(kernel, target: device.target)
    let ptx = try PTXCode(kernel, plan: plan, layout: layout)
    self.plan = plan
    self.ptx = ptx
    try device.makeCurrent()
    var module: CUmodule?
    var log = [CChar](repeating: 0, count: 8192)
    var options: [Int32] = [Int32(FXC_CU_JIT_ERROR_LOG_BUFFER), Int32(FXC_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)]
    let loaded = log.withUnsafeMutableBytes { logBytes in
      var values: [UnsafeMutableRawPointer?] = [logBytes.baseAddress, UnsafeMutableRawPointer(bitPattern: logBytes.count)]
      return ptx.text.withCString { device.driver.pointee.cuModuleLoadDataEx(&module, $0, 2, &options, &values) }
    }
    if loaded != 0 {
      let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      do { try device.check(loaded, "cuModuleLoadDataEx") } catch { throw LLVMError("\(error): \(text)") }
    }
    guard let module else { throw LLVMError("cuModuleLoadDataEx gave no module") }
    self.module = module
    functions = try ptx.entryPoints.map { name in
      var function: CUfunction?
      try device.check(device.driver.pointee.cuModuleGetFunction(&function, module, name), "cuModuleGetFunction(\(name))")
      return function!
    }
    self.device = device
    self.kernel = kernel
    self.layout = layout
    compileMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
  }

  deinit {
    if (try? device.makeCurrent()) != nil { _ = device.driver.pointee.cuModuleUnload(module) }
  }

  /// Runs every loop nest on the device (``KernelExecutor/run(inputs:output:uniforms:threads:)``;
  /// `threads` is unused: the device's grid is the parallelism).
  ///
  /// A run has a stream of its own: its inputs are packed into page-locked
  /// host buffers (``CUDADevice/stage(_:)``) and copied up, its loop nests
  /// launched and its output copied down, all queued on that stream, so the
  /// runs of several threads (a batch) overlap: one's copies with another's
  /// kernels, a copy engine each way.
  /// - Throws: ``LLVMError`` for a format, size or count mismatch (nothing
  ///   written then), or the driver's error (an allocation the device has no
  ///   room for, a failed launch).
  public func run(inputs: [ImageBuffer], output: ImageBuffer, uniforms: [Float], threads: Int = 1) throws {
    try checkArguments(inputs: inputs, output: output, uniforms: uniforms)
    try device.makeCurrent()
    let driver = device.driver.pointee
    var stream: CUstream?
    try device.check(driver.cuStreamCreate(&stream, CUDADevice.nonBlocking), "cuStreamCreate")
    var held: [(CUdeviceptr, Int)] = [], staged: [(UnsafeMutableRawPointer, Int)] = []
    defer {
      // Nothing goes back to a pool while a copy or launch may still use it (an error mid-way).
      _ = driver.cuStreamSynchronize(stream)
      _ = driver.cuStreamDestroy(stream)
      for (pointer, bytes) in held { device.release(pointer, bytes: bytes) }
      for (pointer, bytes) in staged { device.unstage(pointer, bytes: bytes) }
    }
    func allocate(_ bytes: Int) throws -> CUdeviceptr {
      let pointer = try device.allocate(bytes)
      held.append((pointer, bytes))
      return pointer
    }
    func stage(_ bytes: Int) throws -> UnsafeMutableRawPointer {
      let pointer = try device.stage(bytes)
      staged.append((pointer, bytes))
      return pointer
    }
    /// Copies `bytes` from host memory to a new device allocation, through a staging buffer.
    func upload(_ bytes: Int, _ fill: (UnsafeMutableRawPointer) -> Void) throws -> CUdeviceptr {
      let d = try allocate(bytes), h = try stage(bytes)
      fill(h)
      try device.check(driver.cuMemcpyHtoDAsync(d, h, bytes, stream), "cuMemcpyHtoDAsync")
      return d
    }
    func pointer(_ p: CUdeviceptr) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: UInt(p))! }
    // The inputs and the output packed on the device, every pixel at a
    // multiple of its size (the plan's alignedPixels); intermediates planar.
    // A thread computes a vector of up to gridLanes pixels, so an image narrower
    // than that runs with input 0 and the output padded to `columns` (zeros
    // beyond the image; those lanes' results are dropped). Every descriptor
    // keeps its image's width: every clamp and coordinate uses it.
    let width = output.width, height = output.height, columns = Swift.max(width, plan.lanes)
    var descriptors: [BufferDescriptor] = []
    for (i, image) in inputs.enumerated() {
      let rowBytes = image.rowDataBytes
      let pitch = i == 0 ? columns * image.format.bytesPerPixel : rowBytes
      let d = try upload(pitch * image.height) { staged in
        if pitch != rowBytes { staged.initializeMemory(as: UInt8.self, repeating: 0, count: pitch * image.height) }
        Self.copyRows(image.height, rowBytes, from: image.data, image.rowBytes, to: staged, pitch)
      }
      descriptors.append(BufferDescriptor(data: pointer(d), rowBytes: Int64(pitch), width: Int32(image.width), height: Int32(image.height)))
    }
    let (planeStride, rowBytes) = BufferDescriptor.planar(width: columns)
    for _ in kernel.intermediates {
      let d = try allocate(rowBytes * height)
      descriptors.append(
        BufferDescriptor(
          data: pointer(d), rowBytes: Int64(rowBytes), width: Int32(width), height: Int32(height), planeStride: Int32(planeStride)))
    }
    // A host row's padding is not the kernel's to write: only the pixels come back.
    let outRowBytes = output.rowDataBytes, outPitch = columns * output.format.bytesPerPixel
    let out = try allocate(outPitch * height)
    descriptors.append(BufferDescriptor(data: pointer(out), rowBytes: Int64(outPitch), width: Int32(width), height: Int32(height)))
    let table = try descriptors.withUnsafeBytes { d in try upload(d.count) { $0.copyMemory(from: d.baseAddress!, byteCount: d.count) } }
    let values = uniforms.isEmpty ? [0] : uniforms
    let uniformTable = try values.withUnsafeBytes { v in try upload(v.count) { $0.copyMemory(from: v.baseAddress!, byteCount: v.count) } }
    let result = try stage(outPitch * height)
    try launchAll(buffers: table, uniforms: uniformTable, width: width, height: height, columns: columns, stream: stream) {
      try device.check(driver.cuMemcpyDtoHAsync(result, out, outPitch * height, stream), "cuMemcpyDtoHAsync")
    }
    Self.copyRows(height, outRowBytes, from: result, outPitch, to: output.data, output.rowBytes)
    withExtendedLifetime(inputs) {}
  }

  /// Copies `rows` rows of `bytes` between host buffers, each at its own
  /// pitch (one copy where both are packed).
  private static func copyRows(
    _ rows: Int, _ bytes: Int, from source: UnsafeRawPointer, _ sourcePitch: Int, to destination: UnsafeMutableRawPointer,
    _ destinationPitch: Int
  ) {
    if sourcePitch == bytes && destinationPitch == bytes { return destination.copyMemory(from: source, byteCount: rows * bytes) }
    for y in 0..<rows { (destination + y * destinationPitch).copyMemory(from: source + y * sourcePitch, byteCount: bytes) }
  }

  /// Queues each loop nest in turn on `stream` over a grid of a thread per
  /// vector of `columns` (blocks of ``KernelPlan/gridBlock``) by `height`
  /// (in groups of the nest's ``LoopNestPlan/rowsPerStep`` rows) between two events, then what `after` queues (the copy down), then
  /// waits for the stream.
  private func launchAll(
    buffers: CUdeviceptr, uniforms: CUdeviceptr, width: Int, height: Int, columns: Int, stream: CUstream?, after: () throws -> Void
  ) throws {
    // The parameters' values, and a pointer to each: how cuLaunchKernel takes them.
    let values = UnsafeMutableRawPointer.allocate(byteCount: 28, alignment: 8)
    defer { values.deallocate() }
    values.storeBytes(of: buffers, as: CUdeviceptr.self)
    values.storeBytes(of: uniforms, toByteOffset: 8, as: CUdeviceptr.self)
    values.storeBytes(of: Int32(width), toByteOffset: 16, as: Int32.self)
    values.storeBytes(of: Int32(height), toByteOffset: 20, as: Int32.self)
    values.storeBytes(of: Int32(columns), toByteOffset: 24, as: Int32.self)
    var parameters: [UnsafeMutableRawPointer?] = [values, values + 8, values + 16, values + 20, values + 24]
    let block = KernelPlan.gridBlock
    var events: [CUevent?] = [nil, nil]
    for i in events.indices { try device.check(device.driver.pointee.cuEventCreate(&events[i], 0), "cuEventCreate") }
    defer { for e in events { _ = device.driver.pointee.cuEventDestroy(e) } }
    try device.check(device.driver.pointee.cuEventRecord(events[0], stream), "cuEventRecord")
    for (k, function) in functions.enumerated() {
      let nest = plan.loopNests[k]
      let vectors = (columns + nest.lanes - 1) / nest.lanes, rows = (height + nest.rowsPerStep - 1) / nest.rowsPerStep
      let grid = ((vectors + block.x - 1) / block.x, (rows + block.y - 1) / block.y)
      try device.check(
        device.driver.pointee.cuLaunchKernel(
          function, UInt32(grid.0), UInt32(grid.1), 1, UInt32(block.x), UInt32(block.y), 1, 0, stream, &parameters, nil),
        "cuLaunchKernel(fxc_nest\(k))")
    }
    try device.check(device.driver.pointee.cuEventRecord(events[1], stream), "cuEventRecord")
    try after()
    try device.check(device.driver.pointee.cuStreamSynchronize(stream), "cuStreamSynchronize")
    var milliseconds: Float = 0
    try device.check(device.driver.pointee.cuEventElapsedTime(&milliseconds, events[0], events[1]), "cuEventElapsedTime")
    lastLaunch.withLock { $0 = Double(milliseconds) }
  }
}
