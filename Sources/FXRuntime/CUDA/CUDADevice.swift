import CCUDA
import Dispatch
import FXLLVM
import FXPasses
import Synchronization

/// An NVIDIA GPU through the CUDA driver API, opened at run time
/// (`libcuda.so.1`): its name, compute capability, the ``Target`` fxc
/// compiles for it, and device memory. One per process (``open()``); its
/// primary context is made current on whichever thread calls into it.
public final class CUDADevice: @unchecked Sendable {
  /// The driver's name for the device, e.g. `NVIDIA H200`.
  public let name: String
  /// The compute capability, e.g. (9, 0).
  public let capability: (major: Int, minor: Int)
  /// Streaming multiprocessors.
  public let multiprocessors: Int
  /// Device memory in bytes.
  public let memoryBytes: Int
  /// The driver's CUDA version, e.g. 13000 for 13.0.
  public let driverVersion: Int
  /// The target code is generated for: the newest capability LLVM 19 knows
  /// that the device has (``Target/cuda(major:minor:)``).
  public let target: Target

  let driver: UnsafePointer<fxc_cuda_driver>
  private let device: CUdevice
  private let context: CUcontext
  /// Freed device allocations by size, reused (a batch allocates the same sizes image after image).
  private let pool = BufferPool<CUdeviceptr>(capacity: pooledBytes)
  /// Freed page-locked host buffers by size, reused likewise.
  private let stagingPool = BufferPool<UnsafeMutableRawPointer>(capacity: pooledStagingBytes)

  /// The first CUDA device, opened once per process.
  /// - Throws: ``LLVMError`` naming why there is none: no driver
  ///   (`libcuda.so.1` not found), the driver's error, no device, or a
  ///   device older than fxc supports.
  public static func open() throws -> CUDADevice { try opened.get() }

  private static let opened = Result { try CUDADevice() }

  private init() throws {
    var message = [CChar](repeating: 0, count: 512)
    guard let driver = fxc_cuda_load(&message, message.count) else {
      throw LLVMError(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    self.driver = driver
    try Self.check(driver, driver.pointee.cuInit(0), "cuInit")
    var count: Int32 = 0
    try Self.check(driver, driver.pointee.cuDeviceGetCount(&count), "cuDeviceGetCount")
    guard count > 0 else { throw LLVMError("the CUDA driver sees no device") }
    var device: CUdevice = 0
    try Self.check(driver, driver.pointee.cuDeviceGet(&device, 0), "cuDeviceGet")
    self.device = device
    func attribute(_ a: Int32) throws -> Int {
      var value: Int32 = 0
      try Self.check(driver, driver.pointee.cuDeviceGetAttribute(&value, a, device), "cuDeviceGetAttribute")
      return Int(value)
    }
    capability = (
      try attribute(Int32(FXC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)),
      try attribute(Int32(FXC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
    )
    multiprocessors = try attribute(Int32(FXC_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT))
    var chars = [CChar](repeating: 0, count: 256)
    try Self.check(driver, driver.pointee.cuDeviceGetName(&chars, Int32(chars.count), device), "cuDeviceGetName")
    name = String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var bytes = 0
    try Self.check(driver, driver.pointee.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem")
    memoryBytes = bytes
    var version: Int32 = 0
    try Self.check(driver, driver.pointee.cuDriverGetVersion(&version), "cuDriverGetVersion")
    driverVersion = Int(version)
    do { target = try Target.cuda(major: capability.major, minor: capability.minor) } catch { throw LLVMError(error.description) }
    var context: CUcontext?
    try Self.check(driver, driver.pointee.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain")
    guard let context else { throw LLVMError("cuDevicePrimaryCtxRetain gave no context") }
    self.context = context
  }

  /// A line for `fxc version` and reports, e.g. `NVIDIA H200, compute capability 9.0, 132 SMs, 141 GiB; driver CUDA 13.0; code for sm_90`.
  public var summary: String {
    "\(name), compute capability \(capability.major).\(capability.minor), \(multiprocessors) SMs, \(memoryBytes >> 30) GiB; "
      + "driver CUDA \(driverVersion / 1000).\(driverVersion % 1000 / 10); code for \(target.cpuName)"
  }

  /// Makes the device's context current on the calling thread (the driver
  /// keeps one per thread); every call into the device starts with it.
  func makeCurrent() throws { try check(driver.pointee.cuCtxSetCurrent(context), "cuCtxSetCurrent") }

  /// Throws an ``LLVMError`` naming `call` and the driver's error when `result` is not success.
  func check(_ result: CUresult, _ call: String) throws { try Self.check(driver, result, call) }

  static func check(_ driver: UnsafePointer<fxc_cuda_driver>, _ result: CUresult, _ call: String) throws {
    guard result != 0 else { return }
    var name: UnsafePointer<CChar>?, text: UnsafePointer<CChar>?
    _ = driver.pointee.cuGetErrorName(result, &name)
    _ = driver.pointee.cuGetErrorString(result, &text)
    throw LLVMError(
      "CUDA \(call) failed: \(name.map { String(cString: $0) } ?? "error \(result)") (\(text.map { String(cString: $0) } ?? "no description"))")
  }

  /// The device's copy rate, device memory to device memory, in bytes per
  /// second counting bytes read and written (a copy of `bytes`, the best
  /// of `runs`, timed by CUDA events): the yardstick of a kernel that reads
  /// and writes each pixel once.
  /// - Throws: ``LLVMError`` for the driver's errors (no room for two buffers of `bytes`).
  public func copyBytesPerSecond(bytes: Int, runs: Int = 10) throws -> Double {
    try makeCurrent()
    let a = try allocate(bytes), b = try allocate(bytes)
    defer {
      release(a, bytes: bytes)
      release(b, bytes: bytes)
    }
    try check(driver.pointee.cuMemsetD8(a, 0x5A, bytes), "cuMemsetD8")
    var events: [CUevent?] = [nil, nil]
    for i in events.indices { try check(driver.pointee.cuEventCreate(&events[i], 0), "cuEventCreate") }
    defer { for e in events { _ = driver.pointee.cuEventDestroy(e) } }
    var best = Float.infinity
    for _ in 0..<runs {
      try check(driver.pointee.cuEventRecord(events[0], nil), "cuEventRecord")
      try check(driver.pointee.cuMemcpyDtoD(b, a, bytes), "cuMemcpyDtoD")
      try check(driver.pointee.cuEventRecord(events[1], nil), "cuEventRecord")
      try check(driver.pointee.cuEventSynchronize(events[1]), "cuEventSynchronize")
      var ms: Float = 0
      try check(driver.pointee.cuEventElapsedTime(&ms, events[0], events[1]), "cuEventElapsedTime")
      best = Swift.min(best, ms)
    }
    return 2 * Double(bytes) / (Double(best) / 1000)
  }

  /// `bytes` of device memory (a freed allocation of that size when there is one).
  /// - Throws: ``LLVMError`` when the device has not that much free.
  func allocate(_ bytes: Int) throws -> CUdeviceptr {
    if let reused = pool.take(bytes) { return reused }
    var pointer: CUdeviceptr = 0
    try check(driver.pointee.cuMemAlloc(&pointer, Swift.max(bytes, 1)), "cuMemAlloc of \(bytes) bytes")
    return pointer
  }

  /// Gives back `pointer`, of `bytes`, for reuse by a later ``allocate(_:)``;
  /// freed instead once the pool holds ``pooledBytes``.
  func release(_ pointer: CUdeviceptr, bytes: Int) {
    if !pool.keep(pointer, bytes: bytes) { _ = driver.pointee.cuMemFree(pointer) }
  }

  /// The most device memory kept for reuse after a run: 2 GiB.
  static let pooledBytes = 2 << 30

  /// `bytes` of page-locked ("pinned") host memory, a freed buffer of that
  /// size when there is one: the one kind of host memory the device's copy
  /// engines read and write directly, so that a copy to or from it runs
  /// asynchronously, beside kernels and other copies (CUDA C Programming
  /// Guide, "Page-Locked Host Memory").
  /// - Throws: ``LLVMError`` when the driver cannot lock that much.
  func stage(_ bytes: Int) throws -> UnsafeMutableRawPointer {
    if let reused = stagingPool.take(bytes) { return reused }
    var pointer: UnsafeMutableRawPointer?
    try check(driver.pointee.cuMemAllocHost(&pointer, Swift.max(bytes, 1)), "cuMemAllocHost of \(bytes) bytes")
    return pointer!
  }

  /// Gives back a buffer from ``stage(_:)`` for reuse; freed instead once
  /// the pool holds ``pooledStagingBytes``.
  func unstage(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
    if !stagingPool.keep(pointer, bytes: bytes) { _ = driver.pointee.cuMemFreeHost(pointer) }
  }

  /// The most page-locked host memory kept for reuse after a run: 1 GiB.
  static let pooledStagingBytes = 1 << 30

  /// The host link's copy rate, in bytes per second counting both ways: a
  /// copy of `bytes` from page-locked host memory to the device and one
  /// back, issued together on two streams (the device has a copy engine
  /// each way), the best of `runs`, timed by the host's clock. The
  /// yardstick of a batch, whose images cross the link in and out.
  /// - Throws: ``LLVMError`` for the driver's errors.
  public func hostLinkBytesPerSecond(bytes: Int, runs: Int = 5) throws -> Double {
    try makeCurrent()
    let up = try stage(bytes), down = try stage(bytes)
    let a = try allocate(bytes), b = try allocate(bytes)
    var streams: [CUstream?] = [nil, nil]
    for i in streams.indices { try check(driver.pointee.cuStreamCreate(&streams[i], Self.nonBlocking), "cuStreamCreate") }
    defer {
      for s in streams { _ = driver.pointee.cuStreamDestroy(s) }
      release(a, bytes: bytes)
      release(b, bytes: bytes)
      unstage(up, bytes: bytes)
      unstage(down, bytes: bytes)
    }
    var best = Double.infinity
    for _ in 0..<runs {
      let start = DispatchTime.now().uptimeNanoseconds
      try check(driver.pointee.cuMemcpyHtoDAsync(a, up, bytes, streams[0]), "cuMemcpyHtoDAsync")
      try check(driver.pointee.cuMemcpyDtoHAsync(down, b, bytes, streams[1]), "cuMemcpyDtoHAsync")
      for s in streams { try check(driver.pointee.cuStreamSynchronize(s), "cuStreamSynchronize") }
      best = Swift.min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return 2 * Double(bytes) / best
  }

  /// `CU_STREAM_NON_BLOCKING`: a stream that does not wait for the legacy default stream.
  static let nonBlocking: UInt32 = 1
}

/// Freed buffers by size, kept for reuse up to `capacity` bytes in all.
private final class BufferPool<Buffer>: Sendable {
  private let buffers = Mutex<[Int: [Buffer]]>([:])
  private let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  /// A kept buffer of `bytes`, if there is one.
  func take(_ bytes: Int) -> Buffer? { buffers.withLock { $0[bytes]?.popLast() } }

  /// Keeps `buffer` of `bytes` for a later ``take(_:)``; false, keeping
  /// nothing, when the pool would hold more than its capacity (the caller frees it).
  func keep(_ buffer: Buffer, bytes: Int) -> Bool {
    buffers.withLock { pool in
      guard pool.reduce(0, { $0 + $1.key * $1.value.count }) + bytes <= capacity else { return false }
      pool[bytes, default: []].append(buffer)
      return true
    }
  }
}
