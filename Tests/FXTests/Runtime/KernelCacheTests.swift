import FX
import Foundation
import Testing

@testable import FXCodegen
@testable import FXRuntime

/// The kernel cache: a second compile of the same chain does no LLVM work and
/// gives the same pixels; a damaged cache file is recompiled, not trusted.
struct KernelCacheTests {
  func scratch() -> String {
    let dir = NSTemporaryDirectory() + "fxc-cache-test-\(UUID().uuidString)"
    return dir
  }

  @Test func diskCacheHitGivesTheSamePixels() throws {
    let dir = scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cache = KernelCache(directory: dir, useMemory: false)
    let pipeline = try Pipeline(sepia(amount: 0.4) | wave(amplitude: 2, wavelength: 13) | vignette())
    let first = try pipeline.compile(cache: cache)
    #expect(first.kernelSource == .compiled)
    // Several passes, so several objects compiled in parallel, bundled in one cache file.
    #expect(first.kernel.loopNests.count > 1)
    let second = try pipeline.compile(cache: cache)
    #expect(second.kernelSource == .diskCache)
    let input = randomImage(29, 11, seed: 6)
    let a = try first.run([input]), b = try second.run([input])
    #expect(memcmp(a.data, b.data, a.byteCount) == 0)
    // Another chain, another key.
    #expect(try Pipeline(sepia(amount: 0.5)).compile(cache: cache).kernelSource == .compiled)
  }

  /// A kernel's machine code is one object per pass in a bundle; a bundle
  /// whose lengths do not add up to its size is refused, not linked.
  @Test func objectBundlesRoundTripAndRefuseWhatDoesNotAddUp() {
    let objects: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 7, count: 300)]
    let packed = ObjectBundle.pack(objects)
    #expect(packed.count == 4 * 8 + 303)
    #expect(ObjectBundle.unpack(packed) == objects)
    #expect(ObjectBundle.unpack(Array(packed.dropLast())) == nil)
    #expect(ObjectBundle.unpack(packed + [0]) == nil)
    #expect(ObjectBundle.unpack([]) == nil)
    #expect(ObjectBundle.unpack(ObjectBundle.pack([])) == nil)
    #expect(ObjectBundle.unpack(Array(repeating: 0xff, count: 64)) == nil)
  }

  /// The passes are compiled on several threads, each in a module and LLVM
  /// context of its own: the machine code must not depend on which thread
  /// finished first, or the disk cache's key would not name one object.
  @Test func parallelCompilesGiveTheSameMachineCode() throws {
    let pipeline = try Pipeline(gaussianBlur(sigma: 4) | sepia() | vignette())
    let compiled = try pipeline.compile(cache: nil)
    #expect(compiled.kernel.loopNests.count >= 3)
    let plan = compiled.plan
    let objects = try (0..<3).map { _ in
      try NativeCode(compiled.kernel, plan: plan, layout: compiled.layout, keepObject: true).object
    }
    #expect(objects[0] != nil && objects[0] == objects[1] && objects[1] == objects[2])
    #expect(ObjectBundle.unpack(objects[0] ?? [])?.count == compiled.kernel.loopNests.count)
  }

  @Test func memoryCacheHit() throws {
    let pipeline = try Pipeline(brightness(amount: 0.123) | contrast(amount: 1.1))
    let cache = KernelCache.memoryOnly
    _ = try pipeline.compile(cache: cache)
    #expect(try pipeline.compile(cache: cache).kernelSource == .memoryCache)
  }

  @Test func corruptCacheFileIsRecompiled() throws {
    let dir = scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cache = KernelCache(directory: dir, useMemory: false)
    let pipeline = try Pipeline(saturation(amount: 0.7))
    _ = try pipeline.compile(cache: cache)
    for file in try FileManager.default.contentsOfDirectory(atPath: dir) {
      try Data("not an object".utf8).write(to: URL(fileURLWithPath: dir + "/" + file))
    }
    let again = try pipeline.compile(cache: cache)
    #expect(again.kernelSource == .compiled)
    let input = randomImage(9, 4, seed: 1)
    #expect(maxDifference(try again.run([input]), try pipeline.compile(cache: nil).run([input])) == 0)
  }

  /// Another kernel's valid object copied over a cache file, or a truncated
  /// one, is not loaded: the checksum of key and object fails and the kernel
  /// compiles again, with its own pixels (issue 16).
  @Test func swappedOrTruncatedCacheFileIsRecompiled() throws {
    let dir = scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cache = KernelCache(directory: dir, useMemory: false)
    let sepiaPipeline = try Pipeline(sepia(amount: 1))
    let invertPipeline = try Pipeline(invert())
    _ = try sepiaPipeline.compile(cache: cache)
    let sepiaFiles = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
    _ = try invertPipeline.compile(cache: cache)
    let invertFile = try #require(Set(try FileManager.default.contentsOfDirectory(atPath: dir)).subtracting(sepiaFiles).first)
    let sepiaFile = try #require(sepiaFiles.first)
    let input = randomImage(9, 4, seed: 2)
    let expected = try sepiaPipeline.compile(cache: nil).run([input])
    // Another kernel's object in sepia's file.
    try FileManager.default.removeItem(atPath: dir + "/" + sepiaFile)
    try FileManager.default.copyItem(atPath: dir + "/" + invertFile, toPath: dir + "/" + sepiaFile)
    let swapped = try sepiaPipeline.compile(cache: cache)
    #expect(swapped.kernelSource == .compiled)
    #expect(maxDifference(try swapped.run([input]), expected) == 0)
    // A truncated file.
    let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + sepiaFile))
    try whole.prefix(whole.count - 100).write(to: URL(fileURLWithPath: dir + "/" + sepiaFile))
    let truncated = try sepiaPipeline.compile(cache: cache)
    #expect(truncated.kernelSource == .compiled)
    #expect(maxDifference(try truncated.run([input]), expected) == 0)
    // The intact file loads.
    #expect(try sepiaPipeline.compile(cache: cache).kernelSource == .diskCache)
  }

  /// The key names LLVM's full version (19.1.7, not 19): a point release
  /// that changes code generation misses the cache.
  @Test func keyHoldsTheFullLLVMVersion() {
    #expect(llvmVersion.split(separator: ".").count == 3, "\(llvmVersion)")
    #expect(KernelCache.compilerVersion.contains("llvm-\(llvmVersion)/"), "\(KernelCache.compilerVersion)")
  }
}

/// The cache key spells every node out (``KernelCache/opText(_:)``): kernels
/// that differ in any way that changes their code get different keys.
struct KernelCacheKeyTests {
  /// A one-pass kernel whose four outputs are `value`.
  func kernel(_ build: (inout Program) -> NodeID, straightAlphaOutput: Bool = false) -> Kernel {
    var p = Program()
    let v = build(&p)
    p.outputs = [v, v, v, v]
    return Kernel(
      inputCount: 1, intermediates: [], loopNests: [.init(name: "k", program: p, output: 1)], uniformCount: 1, scheduleNotes: [],
      straightAlphaOutput: straightAlphaOutput)
  }

  func key(_ k: Kernel) -> String { KernelCache.key(k, KernelLayout(inputs: [.rgba8], output: .rgba8), .host) }

  /// Each op's text names it and its parameters, distinctly.
  @Test func opTextsAreDistinct() {
    let ops: [Op] = [
      .positionX, .positionY, .width, .height, .uniform(0), .uniform(1), .inputWidth(0), .inputHeight(0), .pixelX, .pixelY,
      .load(buffer: 0, channel: 0), .load(buffer: 0, channel: 1), .load(buffer: 1, channel: 0), .add, .sub, .mul, .neg, .min,
      .max, .abs, .div, .floor, .ceil, .sqrt, .sin, .cos, .exp, .log, .pow, .atan2, .fma, .lt, .le, .gt, .ge, .eq, .ne, .isNaN, .and,
      .or, .xor, .not, .shl, .shr, .ushr, .mod, .quot, .rem, .uquot, .urem, .toInt, .toFloat, .toFloatUnsigned, .floatBits,
      .bitsFloat, .select, .loopIndex, .loopAccumulator(0, .float), .loopAccumulator(1, .float), .loopCapture(0, .float),
      .constant(.float(bits: Float(0).bitPattern)), .constant(.float(bits: Float(-0.0).bitPattern)),
      .constant(.float(bits: 0x7fc0_0000)), .constant(.float(bits: 0x7fc0_0001)), .constant(.int(0)), .constant(.bool(false)),
      // Tables that differ only past what `fxc dump` prints, or in where they start.
      .table(ConstantTable(first: 1, values: (0..<8).map { .float(Float($0)) })),
      .table(ConstantTable(first: 1, values: (0..<8).map { .float(Float($0 == 7 ? 9 : $0)) })),
      .table(ConstantTable(first: 0, values: (0..<8).map { .float(Float($0)) })),
      .table(ConstantTable(first: 0, values: (0..<8).map { .int(Int32($0)) })),
    ]
    #expect(Set(ops.map(KernelCache.opText)).count == ops.count)
  }

  @Test func keysTellApartWhatChangesTheCode() {
    let zero = key(kernel { $0.constant(Float(0)) })
    #expect(zero == key(kernel { $0.constant(Float(0)) }))
    #expect(zero != key(kernel { $0.constant(Float(-0.0)) }))
    #expect(zero != key(kernel({ $0.constant(Float(0)) }, straightAlphaOutput: true)))
    #expect(key(kernel { $0.add(.constant(.float(bits: 0x7fc0_0000))) }) != key(kernel { $0.add(.constant(.float(bits: 0x7fc0_0001))) }))
    #expect(key(kernel { $0.add(.uniform(0)) }) != key(kernel { $0.add(.uniform(1)) }))
  }
}

/// The disk cache's files hold their whole key and are bounded in size, least
/// recently used out first (issue 37: a real hash, the full key verified, a cap).
struct KernelCacheFileTests {
  /// A file whose name is the key's hash but whose stored key differs (as two
  /// keys with one hash would) is not loaded; nor one whose object was changed.
  @Test func aLoadComparesTheWholeKeyAndTheObjectsHash() throws {
    let object: [UInt8] = Array(repeating: 0x5a, count: 100)
    let file = KernelCache.fileContents("key A", object)
    #expect(KernelCache.object(in: file, keyText: "key A") == object)
    #expect(KernelCache.object(in: file, keyText: "key B") == nil)
    #expect(KernelCache.object(in: file, keyText: "key ") == nil)
    var flipped = file
    flipped[flipped.count - 1] ^= 1
    #expect(KernelCache.object(in: flipped, keyText: "key A") == nil)
    #expect(KernelCache.object(in: Array(file.dropLast()), keyText: "key A") == nil)
    #expect(KernelCache.object(in: [], keyText: "key A") == nil)
    // The hash is XXH3-128 (libxxhash): its published value for empty input.
    #expect(KernelCache.hash([]) == "99aa06d3014798d86001c324468d497f")
  }

  /// Storing past the cap deletes the least recently used files; a load
  /// counts as a use.
  @Test func theDiskCacheEvictsTheLeastRecentlyUsed() throws {
    let dir = NSTemporaryDirectory() + "fxc-cache-lru-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var cache = KernelCache(directory: dir, useMemory: false)
    let object = [UInt8](repeating: 1, count: 1000)
    cache.capacityBytes = 3 * (KernelCache.fileContents("k0", object).count) + 10
    for k in 0..<3 {
      cache.store("k\(k)", object)
      usleep(20_000)  // distinct modification times
    }
    #expect(cache.load("k0") == object)  // k0 is now the most recently used
    usleep(20_000)
    cache.store("k3", object)
    #expect(cache.load("k1") == nil)
    for k in [0, 2, 3] { #expect(cache.load("k\(k)") == object, "k\(k)") }
    cache.capacityBytes = 0
    cache.store("k4", object)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".o") }.isEmpty)
  }

  /// A store scans the directory at the process's first store, then after
  /// each sixteenth of the capacity (not at every store: a scan stats every file).
  @Test func evictionScansEverySixteenthOfTheCapacity() {
    let dir = "/nonexistent/fxc-cache-scan-\(UUID().uuidString)"
    #expect(KernelCache.dueForEviction(dir, stored: 100, capacity: 16_000))
    // 1,000 bytes (a sixteenth) are reached at the tenth store of 100 after that.
    let due = (1...20).map { _ in KernelCache.dueForEviction(dir, stored: 100, capacity: 16_000) }
    #expect(due.indices.filter { due[$0] } == [9, 19])
    #expect(KernelCache.dueForEviction(dir, stored: 1, capacity: 0))
  }
}
