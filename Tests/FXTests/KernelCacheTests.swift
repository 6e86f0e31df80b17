import FX
import Foundation
import Testing

@testable import FXCodegen

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
    #expect(first.kernel.passes.count > 1)
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
    #expect(compiled.kernel.passes.count >= 3)
    let plan = compiled.plan
    let objects = try (0..<3).map { _ in
      try NativeCode(compiled.kernel, plan: plan, layout: compiled.layout, keepObject: true).object
    }
    #expect(objects[0] != nil && objects[0] == objects[1] && objects[1] == objects[2])
    #expect(ObjectBundle.unpack(objects[0] ?? [])?.count == compiled.kernel.passes.count)
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
