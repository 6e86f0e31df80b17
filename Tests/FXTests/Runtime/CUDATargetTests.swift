import FX
import FXTestSupport
import Foundation
import Testing

/// Issue 40's CUDA target, checked without a GPU: the grid plan (a thread per
/// vector of a row), the PTX LLVM's NVPTX back end makes of every catalogue effect, and
/// the grid plan's per-pixel code run on this CPU (looped over the vectors)
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

  @Test func aCUDATargetsPlanIsAGridOfAThreadPerVector() throws {
    let pipeline = try Pipeline(gaussianBlur(sigma: 3) | vignette(intensity: 0.8) | chromaticAberration(amount: 4))
    let compiled = try pipeline.compile(backend: .interpreter, cache: nil, target: Self.sm90)
    let plan = compiled.plan
    #expect(plan.schedule == .grid)
    #expect(plan.run.lookahead == nil && plan.run.columnLookahead == nil, "intermediates are whole images")
    // The blur's passes have loops (a thread per pixel); the vignette and the aberration not (a vector).
    #expect(Set(plan.loopNests.map(\.lanes)) == [1, KernelPlan.gridLanes], "\(plan)")
    for nest in plan.loopNests {
      #expect(nest.lanes == (nest.loops.isEmpty ? KernelPlan.gridLanes : 1) && nest.order == .rows && nest.interior == nil && nest.rowTables.isEmpty)
      #expect(nest.blockUniform.isEmpty && nest.columnTable.isEmpty && nest.shifted.isEmpty)
      #expect(nest.loads.values.allSatisfy { $0.prefetchRows == nil && ($0.strategy == .dense || $0.strategy == .gather) })
      #expect(nest.folds.values.allSatisfy { $0.tapWindow == nil })
    }
    #expect("\(plan)".contains("schedule: grid — a thread per 4 pixels of a row (per pixel in a loop nest with a loop) in blocks of 32×8 threads"))
    // The same kernel on a CPU keeps its strips.
    #expect(try pipeline.compile(backend: .interpreter, cache: nil).plan.schedule == .strips)
  }

  /// A device's copies of the images put every pixel at a multiple of its
  /// size, so an 8-bit pixel is one 32-bit load and one 32-bit store, not
  /// four of a byte (the CPU's caller-owned rows promise no such thing) —
  /// and never a 16-byte load of four pixels: a thread's vector may start at
  /// any pixel (a row's last overlaps the one before), and LLVM 19 makes
  /// one `ld.v4.u32` of a `<16 x i8>` load whatever its alignment.
  @Test func aDevicesPixelsAreOneAlignedWord() throws {
    let pipeline = try Pipeline(sepia() | vignette(intensity: 0.8))
    let gpu = try pipeline.compile(inputFormats: [.rgba8], backend: .interpreter, cache: nil, target: Self.sm90)
    #expect(gpu.plan.loopNests.allSatisfy { $0.alignedPixels })
    let ptx = try gpu.dumpNative().assembly
    #expect(!ptx.contains("ld.u8") && !ptx.contains("st.u8") && ptx.contains("st.u32"), "\(ptx)")
    #expect(ptx.contains("ld.u32") || ptx.contains("ld.global.u32"), "\(ptx)")
    #expect(Self.vectorAccess(in: ptx) == nil, "\(ptx)")
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
        // 8-bit images and planar intermediates: no access is proved aligned beyond 4 bytes
        // (a float image's pixel is 16 aligned bytes: a segment between cut stages reads and writes those).
        let floats = (segment.layout.inputs + [segment.layout.output]).contains(.rgba32f)
        if let access = Self.vectorAccess(in: ptx, floatPixels: floats) {
          Issue.record("\(c): \(access), which needs an alignment nothing proves")
        }
      }
    }
    #expect(compiledCount > cases.count / 2)
  }

  /// The grid plan's code — the per-vector body the PTX holds — run on this
  /// CPU over random graphs, against the staged interpreter, at every x86-64
  /// level the host runs (the body is the CPU's at 4 lanes, so every level
  /// emits its own code).
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

  /// The grid's code and the strips' give the same bytes for chains of
  /// every kind — separable blurs (intermediates, their vertical passes 8
  /// rows a thread), a distortion, loops, a block-uniform body — on a
  /// photo-sized image, one narrower than a thread's vector and one whose
  /// last vector overlaps the one before, and heights below, at and past a
  /// thread's rows.
  @Test(arguments: [(97, 61), (3, 5), (6, 4), (11, 8), (9, 17)])
  func theGridGivesTheStripsBytes(size: (Int, Int)) throws {
    let photo = randomImage(size.0, size.1, seed: 40)
    let chains: [Effect] = [
      gaussianBlur(sigma: 4) | contrast(amount: 1.3), unsharpMask(sigma: 1.5, amount: 0.8),
      wave(amplitude: 6, wavelength: 30) | chromaticAberration(amount: 3) | vignette(intensity: 0.9),
      pixelate(amount: 1, blockSize: 7) | sepia(),
    ]
    for effect in chains {
      let pipeline = try Pipeline(effect)
      let strips = try pipeline.compile(inputFormats: [.rgba8], cache: nil)
      let grid = try pipeline.compile(inputFormats: [.rgba8], cache: nil, schedule: .grid)
      #expect(grid.plan.schedule == .grid && grid.compiledKernel?.lanes == grid.plan.loopNests.map(\.lanes).max())
      let blur = effect.name.contains("lur") || effect.name.contains("unsharp")
      #expect(grid.plan.loopNests.contains { $0.rowsPerStep == KernelPlan.gridRows } == blur, "\(effect.name)")
      let a = try strips.run([photo], threads: 2), b = try grid.run([photo], threads: 2)
      #expect(maxDifference(a, b) == 0, "\(effect.name), \(size.0)×\(size.1)")
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
    // Narrower than a thread's vector (buffers padded), and a last vector that overlaps.
    for (width, height) in [(1, 3), (3, 7), (6, 5)] {
      let small = randomImage(width, height, seed: 42)
      let expected = try pipeline.compile(inputFormats: [.rgba8], cache: nil).run([small])
      #expect(maxDifference(expected, try compiled.run([small])) == 0, "\(width)×\(height)")
    }
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

  /// The first vector load or store of 32-bit words in `ptx` (`ld.v2.u32`,
  /// `st.global.v4.f32`, …), or nil: each needs 8 or 16 bytes of alignment.
  /// With `floatPixels`, a whole float pixel (`.v4.f32`) is allowed.
  static func vectorAccess(in ptx: String, floatPixels: Bool = false) -> String? {
    for line in ptx.split(separator: "\n") {
      let op = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? ""
      guard op.hasPrefix("ld.") || op.hasPrefix("st.") else { continue }
      let parts = op.split(separator: ".")
      if floatPixels && parts.contains("v4") && parts.contains("f32") { continue }
      if parts.contains(where: { $0 == "v2" || $0 == "v4" }), parts.contains(where: { ["u32", "b32", "s32", "f32"].contains($0) }) {
        return String(line.trimmingCharacters(in: .whitespaces))
      }
    }
    return nil
  }
}
