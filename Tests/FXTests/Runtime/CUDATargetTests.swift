import FX
import FXTestSupport
import Foundation
import Testing

/// Issue 40's CUDA target, checked without a GPU: the grid plan (a thread per
/// pixel), the PTX LLVM's NVPTX back end makes of every catalogue effect, and
/// the grid plan's per-pixel code run on this CPU (looped over the pixels)
/// against the staged interpreter, bit for bit. What only a GPU can check —
/// the driver loading the PTX, the launches, the bytes a device gives — runs
/// here only where a CUDA driver and device are present, and is
/// `fxc fuzz --device cuda` on the device machine (issue 40's note).
@Suite("CUDA target")
struct CUDATargetTests {
  static let sm90 = try! Target.cuda("sm_90")

  @Test func aDeviceGetsTheNewestCapabilityLLVMKnowsThatItHas() throws {
    #expect(try Target.cuda(major: 9, minor: 0).cpuName == "sm_90")
    #expect(try Target.cuda(major: 8, minor: 6).cpuName == "sm_86")
    #expect(try Target.cuda(major: 8, minor: 8).cpuName == "sm_87")
    // Newer than LLVM 19 knows: sm_90's PTX, which the driver compiles for the device.
    #expect(try Target.cuda(major: 12, minor: 0).cpuName == "sm_90")
    #expect(throws: TargetError.self) { try Target.cuda(major: 3, minor: 5) }
    #expect(throws: TargetError.self) { try Target.cuda("sm90") }
    // The oldest PTX ISA that names the capability (the PTX ISA manual's table).
    #expect(Self.sm90.features == "+ptx78")
    #expect(try Target.cuda("sm_80").features == "+ptx70")
    #expect(Self.sm90.kind == .cuda(major: 9, minor: 0) && Self.sm90.lanes == 1)
  }

  @Test func aCUDATargetsPlanIsAGridOfAThreadPerPixel() throws {
    let pipeline = try Pipeline(gaussianBlur(sigma: 3) | vignette(intensity: 0.8) | chromaticAberration(amount: 4))
    let compiled = try pipeline.compile(backend: .interpreter, cache: nil, target: Self.sm90)
    let plan = compiled.plan
    #expect(plan.schedule == .grid)
    #expect(plan.run.lookahead == nil && plan.run.columnLookahead == nil, "intermediates are whole images")
    for nest in plan.loopNests {
      #expect(nest.lanes == 1 && nest.order == .rows && nest.interior == nil && nest.rowTables.isEmpty)
      #expect(nest.blockUniform.isEmpty && nest.columnTable.isEmpty && nest.shifted.isEmpty)
      #expect(nest.loads.values.allSatisfy { $0.prefetchRows == nil && ($0.strategy == .dense || $0.strategy == .gather) })
      #expect(nest.folds.values.allSatisfy { $0.tapWindow == nil })
    }
    #expect("\(plan)".contains("schedule: grid — a thread per pixel in blocks of 32×8"))
    // The same kernel on a CPU keeps its strips.
    #expect(try pipeline.compile(backend: .interpreter, cache: nil).plan.schedule == .strips)
  }

  /// A device's copies of the images put every pixel at a multiple of its
  /// size, so an 8-bit pixel is one 32-bit load and one 32-bit store, not
  /// four of a byte (the CPU's caller-owned rows promise no such thing).
  @Test func aDevicesPixelsAreOneAlignedWord() throws {
    let pipeline = try Pipeline(sepia() | vignette(intensity: 0.8))
    let gpu = try pipeline.compile(inputFormats: [.rgba8], backend: .interpreter, cache: nil, target: Self.sm90)
    #expect(gpu.plan.loopNests.allSatisfy { $0.alignedPixels })
    let ptx = try gpu.dumpNative().assembly
    #expect(!ptx.contains("ld.u8") && !ptx.contains("st.u8") && ptx.contains("st.u32"), "\(ptx)")
    let cpu = try pipeline.compile(inputFormats: [.rgba8], backend: .interpreter, cache: nil)
    #expect(!cpu.plan.loopNests.contains { $0.alignedPixels })
  }

  /// On a device a blur keeps its loop: running sums are scans, which would
  /// run on the CPU between two copies. The CPU's 8-bit pipeline takes them.
  @Test func aDeviceKeepsABlursLoop() throws {
    let pipeline = try Pipeline(gaussianBlur(sigma: 10))
    #expect(try pipeline.compile(backend: .interpreter, cache: nil).hasCuts)
    #expect(try !pipeline.compile(backend: .interpreter, cache: nil, target: Self.sm90).hasCuts)
    #expect(try !pipeline.keepingLoops.compile(backend: .interpreter, cache: nil).hasCuts)
  }

  /// Every catalogue effect (each at the edges of its parameters, as
  /// constants and as uniforms: ``CatalogueFuzz``) compiles to PTX: an entry
  /// point per loop nest of every segment, and no function it calls left
  /// undefined (a GPU has no libm: every transcendental is fxc's own code).
  @Test(arguments: 0..<4)
  func everyCatalogueEffectCompilesToPTX(part: Int) throws {
    let cases = CatalogueFuzz.cases(seed: 40, random: 0).enumerated().filter { $0.offset % 4 == part }.map(\.element)
    #expect(!cases.isEmpty)
    var compiledCount = 0
    for c in cases {
      // Geometry stages refuse sizes that are not whole pixels (a crop of width 1e-38): as on a CPU.
      guard let compiled = try? Pipeline(c.make()).compile(backend: .interpreter, cache: nil, target: Self.sm90) else { continue }
      compiledCount += 1
      for segment in [compiled] + compiled.steps.map(\.next) {
        let ptx = try segment.dumpNative().assembly
        #expect(ptx.contains(".target sm_90"), "\(c)")
        for k in segment.kernel.loopNests.indices {
          #expect(ptx.contains(".visible .entry fxc_nest\(k)("), "\(c): no entry point for loop nest \(k)")
        }
        #expect(!ptx.contains(".extern"), "\(c) calls a function the PTX does not define")
      }
    }
    #expect(compiledCount > cases.count / 2)
  }

  /// The grid plan's code — the per-pixel body the PTX holds — run on this
  /// CPU over random graphs, against the staged interpreter, at every x86-64
  /// level the host runs (the body is the CPU's at one lane, so every level
  /// emits its own scalar code).
  @Test(arguments: Target.runnableLevels.map(\.name))
  func theGridsPerPixelCodeAgreesWithTheInterpreter(level: String) throws {
    let target = try Target.named(level)
    for i in stride(from: 2, to: DifferentialTests.jitGraphs, by: 3) {
      let c = DifferentialTests.make(i)
      guard let d = Differential.check(c, evaluations: [.jit], target: target, schedule: .grid) else { continue }
      let (small, failure) = Differential.shrink(c, failing: d, maxAttempts: 60, target: target, schedule: .grid)
      Issue.record("\(level), graph \(i) (fxc fuzz --schedule grid --case \(c.seed)): \(d)\n\nshrunk:\n\(small)\n\n\(failure)")
    }
  }

  /// The grid's code and the strips' give the same bytes on a photo-sized
  /// image for chains of every kind: separable blurs (intermediates), a
  /// distortion, loops, a transition reading two images, and a resize.
  @Test func theGridGivesTheStripsBytes() throws {
    let photo = randomImage(97, 61, seed: 40)
    let chains: [Effect] = [
      gaussianBlur(sigma: 4) | contrast(amount: 1.3), unsharpMask(sigma: 1.5, amount: 0.8),
      wave(amplitude: 6, wavelength: 30) | chromaticAberration(amount: 3) | vignette(intensity: 0.9),
      pixelate(amount: 1, blockSize: 7) | sepia(),
    ]
    for effect in chains {
      let pipeline = try Pipeline(effect)
      let strips = try pipeline.compile(inputFormats: [.rgba8], cache: nil)
      let grid = try pipeline.compile(inputFormats: [.rgba8], cache: nil, schedule: .grid)
      #expect(grid.plan.schedule == .grid && grid.compiledKernel?.lanes == 1)
      let a = try strips.run([photo], threads: 2), b = try grid.run([photo], threads: 2)
      #expect(maxDifference(a, b) == 0, "\(effect.name)")
    }
  }

  /// Without a CUDA driver the device is an error that says so; with one,
  /// a chain runs there and gives the CPU's bytes.
  @Test func theDeviceIsThereOrSaysWhyNot() throws {
    let device: CUDADevice
    do { device = try CUDADevice.open() } catch {
      #expect("\(error)".contains("CUDA"), "\(error)")
      let pipeline = try Pipeline(sepia())
      #expect(throws: RunError.self) { try pipeline.compile(cache: nil, target: Self.sm90) }
      return
    }
    let photo = randomImage(301, 77, seed: 41)
    let pipeline = try Pipeline(gaussianBlur(sigma: 2) | wave(amplitude: 5, wavelength: 40) | vignette(intensity: 0.7))
    let cpu = try pipeline.compile(inputFormats: [.rgba8], cache: nil).run([photo])
    let compiled = try pipeline.compile(inputFormats: [.rgba8], cache: nil, target: device.target)
    #expect(maxDifference(cpu, try compiled.run([photo])) == 0)
    // Four threads at once, each run on its own stream, into host rows with padding (staged row by row).
    let outputs = try (0..<4).map { _ -> ImageBuffer in
      let rowBytes = 301 * 4 + 36
      let pixels = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * 77, alignment: 64)
      pixels.initializeMemory(as: UInt8.self, repeating: 0xEE, count: rowBytes * 77)
      return try ImageBuffer(
        wrapping: pixels, width: 301, height: 77, rowBytes: rowBytes, format: .rgba8, deallocator: .custom { $0.deallocate() })
    }
    DispatchQueue.concurrentPerform(iterations: outputs.count) { i in
      for _ in 0..<5 { try? compiled.run([photo], into: outputs[i]) }
    }
    for output in outputs {
      #expect(maxDifference(cpu, output) == 0)
      #expect(output.data.load(fromByteOffset: 301 * 4, as: UInt8.self) == 0xEE, "the padding is not the device's to write")
    }
  }
}
