import FX
import Testing

/// Every number the code generator once chose by itself — a loop's unroll
/// counts, the AVX-512 tap window, prefetch distances — is the plan's now
/// (issue 40, the target seam), with its reason, and is tested here without
/// LLVM at the three x86-64 levels. The JIT's bits are checked against the
/// interpreter at every level by DifferentialTests and BlockUniformTests.
struct FoldScheduleTests {
  static let (v2, v3, v4) = (Target.x86Level(0), Target.x86Level(1), Target.x86Level(2))

  func plan(_ effect: Effect, _ target: Target) throws -> KernelPlan {
    let (kernel, _) = try Pipeline(effect).lower(LoweringOptions())
    return KernelLayout(inputs: [.rgba8], output: .rgba8).plan(kernel, target: target)
  }

  /// The schedules of the folds of every loop in `plan`'s loop nests, nested bodies included.
  func schedules(_ plan: KernelPlan) -> [FoldSchedule] {
    func all(_ p: LoopNestPlan) -> [FoldSchedule] { Array(p.folds.values) + p.loops.values.flatMap(all) }
    return plan.loopNests.flatMap(all)
  }

  @Test func aShortBlurTakesItsTapsFromAWindowOnlyWithAVX512() throws {
    // σ 2: taps ±6, a loop over 6 mirrored indices; the horizontal loop nest's body loads shifted taps.
    let blur = gaussianBlur(sigma: 2, method: .exact)
    let windows = try schedules(plan(blur, Self.v4)).compactMap(\.tapWindow)
    #expect(windows.count == 1 && windows[0].vectors == 1, "\(windows)")
    for target in [Self.v2, Self.v3] {
      let s = try schedules(plan(blur, target))
      #expect(s.allSatisfy { $0.tapWindow == nil })
      #expect(s.contains { $0.reasons.contains("no tap window: it needs 16 lanes of AVX-512") }, "\(target.name): \(s)")
    }
  }

  @Test func aWideBlurReachesPastTheWindow() throws {
    // σ 10: taps ±30 columns, two vectors a side at 16 lanes.
    let s = try schedules(plan(gaussianBlur(sigma: 10, method: .exact), Self.v4))
    #expect(s.allSatisfy { $0.tapWindow == nil })
    #expect(s.contains { $0.reasons.contains { $0.hasPrefix("no tap window: taps reach 30 columns") } }, "\(s)")
  }

  @Test func loopsUnrollByFourAndCompletelyWhenShort() throws {
    for (sigma, trips) in [(2.0, 6), (12.0, 36)] {
      let s = try schedules(plan(gaussianBlur(sigma: Expr(Float(sigma)), method: .exact), Self.v3))
      #expect(!s.isEmpty && s.allSatisfy { $0.unroll == LoopPlanner.foldUnroll && $0.trips == trips }, "σ \(sigma): \(s)")
      #expect(s.allSatisfy { $0.fullyUnrolled == (trips <= LoopPlanner.maxFullyUnrolledIterations) })
      // The horizontal body has shifted taps: its masked copy is not unrolled; the vertical one has one copy.
      #expect(s.contains { $0.unrollMasked == nil } && s.contains { $0.unrollMasked == LoopPlanner.foldUnroll }, "\(s)")
    }
  }

  @Test func inputsReadDenselyInRowOrderArePrefetched() throws {
    for target in [Self.v2, Self.v3, Self.v4] {
      let p = try plan(sepia() | vignette(), target)
      let loads = p.loopNests.flatMap(\.loads.values)
      #expect(!loads.isEmpty && loads.allSatisfy { $0.prefetchRows == LoopPlanner.inputPrefetchRows }, "\(target.name)")
      #expect(p.description.contains("prefetch: b0 \(LoopPlanner.inputPrefetchRows) rows ahead"))
    }
    // Intermediates are rings in cache: never prefetched.
    let blur = try plan(gaussianBlur(sigma: 3, method: .exact) | sepia(), Self.v3)
    for nest in blur.loopNests.dropFirst() { #expect(nest.loads.values.allSatisfy { $0.prefetchRows == nil }) }
  }

  @Test func targetsHaveAKind() throws {
    #expect([Self.v2, Self.v3, Self.v4].allSatisfy { $0.kind == .cpu })
    let gpu = try Target.cuda("sm_90")
    #expect(gpu.kind == .cuda(major: 9, minor: 0) && gpu.lanes == 1 && gpu.triple == "nvptx64-nvidia-cuda")
    #expect(throws: TargetError.self) { try Target.cuda("gfx90a") }
    // A CUDA target compiles for the device or says why it cannot; never a CPU kernel instead.
    do {
      let compiled = try Pipeline(sepia()).compile(cache: nil, target: gpu)
      #expect(compiled.executor is CUDAKernel && compiled.compiledKernel == nil)
    } catch {
      #expect("\(error)".contains("CUDA"), "\(error)")
    }
  }
}
