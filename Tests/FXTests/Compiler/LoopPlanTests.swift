import FX
import Testing

/// The loop plan (``LoopPlanner``) at 4, 8 and 16 lanes — the x86-64-v2, v3
/// and v4 levels — on every host: planning needs no LLVM and no CPU, so these
/// hold whatever machine runs them. What the JIT does with a plan is checked
/// against the interpreter at every level the host runs (BlockUniformTests,
/// DifferentialTests).
struct LoopPlanTests {
  static let levels = Target.x86Levels.indices.map { Target.x86Level($0) }

  func plan(_ effect: Effect, _ target: Target, options: LoweringOptions = LoweringOptions(), input: PixelFormat = .rgba8)
    throws -> KernelPlan
  {
    // Lowered as compiled for these formats (an 8-bit input's values are bounded: a split is proved).
    let layout = KernelLayout(inputs: [input], output: .rgba8)
    let (kernel, _) = try Pipeline(effect).lower(layout.matching(options))
    return layout.plan(kernel, target: target)
  }

  @Test func levelsHaveFourEightAndSixteenLanes() {
    #expect(Self.levels.map(\.lanes) == [4, 8, 16])
    #expect(Self.levels.map(\.name) == ["x86-64-v2", "x86-64-v3", "x86-64-v4"])
    #expect(Self.levels[1].has("avx2") && Self.levels[1].has("fma") && !Self.levels[1].has("avx512f"))
  }

  /// A block of b columns is the same over a vector of W lanes when b ≥ W.
  @Test(arguments: [4, 8, 12, 16, 24])
  func blockUniformBodyNeedsBlocksAsWideAsAVector(side: Int) throws {
    for target in Self.levels {
      let p = try plan(pixelate(amount: 1, blockSize: Expr(Float(side))) | vignette(), target)
      let used = p.loopNests.contains { !$0.blockUniform.isEmpty }
      #expect(used == (side >= target.lanes), "block \(side), \(target.lanes) lanes")
      let reason = p.loopNests.map(\.blockUniformReason).joined()
      #expect(reason.contains(used ? "used for" : "not for"), "\(reason)")
      #expect(reason.contains("1/\(target.lanes)"))
    }
  }

  @Test func colourChainLoadsDenselyInRowOrder() throws {
    for target in Self.levels {
      let p = try plan(sepia() | vignette(), target)
      #expect(p.loopNests.count == 1)
      let pass = p.loopNests[0]
      #expect(pass.order == .rows)
      #expect(pass.lanes == target.lanes)
      #expect(pass.interior == nil)
      #expect(!pass.loads.isEmpty && pass.loads.values.allSatisfy { $0.strategy == .dense })
    }
  }

  /// A split blur: the vertical pass walks down columns with row tables; the
  /// horizontal pass stays in row order with an interior split, its taps
  /// dense inside and masked at the border (8-bit input, planar intermediate).
  @Test func splitBlurPlansColumnsAndAnInterior() throws {
    for target in Self.levels {
      let p = try plan(tapGaussian(sigma: 2), target)
      #expect(p.loopNests.count >= 2)
      let vertical = p.loopNests.filter { $0.order == .columns }
      #expect(!vertical.isEmpty && vertical.allSatisfy { !$0.rowTables.isEmpty })
      #expect(vertical.allSatisfy { $0.rowTables.values.allSatisfy { $0 > 0 && $0 <= LoopPlanner.maxTableReach } })
      let horizontal = p.loopNests.filter { $0.interior != nil }
      #expect(!horizontal.isEmpty)
      for pass in horizontal {
        #expect(pass.order == .rows)
        let (lo, hi) = pass.interior!
        #expect(lo < 0 && hi > 0 && lo == -hi)
        #expect(pass.loads.values.contains { if case .denseInterior(_, .masked) = $0.strategy { true } else { false } })
      }
    }
  }

  /// The catalogue's Gaussian, two loops: the horizontal loop's taps at ±i
  /// are shifted dense loads (a dense and a masked copy of the loop); the
  /// vertical pass walks down columns, its rows from a row table reaching the
  /// loop's limit.
  @Test func loopBlurPlansShiftedTapsAndRowTables() throws {
    for target in Self.levels {
      let p = try plan(gaussianBlur(sigma: 2), target)
      let r: Int32 = 6
      let withLoops = p.loopNests.filter { !$0.loops.isEmpty }
      #expect(withLoops.count == 2, "\(p)")
      let horizontal = withLoops[0], vertical = withLoops[1]
      let h = try #require(horizontal.loops.first).value
      #expect(horizontal.loops.first!.key.limit == r)
      #expect(Set(h.shifted.keys) == [-1, 1])
      #expect(h.loads.values.allSatisfy { if case .denseShifted(0, let c) = $0.strategy { c != 0 } else { false } })
      #expect(vertical.order == .columns)
      let v = try #require(vertical.loops.first).value
      #expect(v.loads.values.allSatisfy { $0.strategy == .dense && $0.rowIndex != 0 && $0.rowOffset == 0 })
      #expect(vertical.rowTables.values.allSatisfy { $0 == Int(r) })
    }
  }

  /// Dense taps of an interleaved float input gather at the border (inlined,
  /// so the taps read the input rather than a planar copy of it).
  @Test func floatInputTapsGatherAtTheBorder() throws {
    var inline = LoweringOptions()
    inline.forceInline = true
    let p = try plan(tapGaussian(sigma: 1), Self.levels[1], options: inline, input: .rgba32f)
    let borders = p.loopNests.flatMap(\.loads.values).compactMap { load -> LoopNestPlan.Border? in
      if case .denseInterior(_, let border) = load.strategy, load.buffer == 0 { return border }
      return nil
    }
    #expect(!borders.isEmpty && borders.allSatisfy { $0 == .gather })
  }

  /// A wave's sin(x·k) depends on the column only: column order computes it once per chunk.
  @Test func waveRunsInColumnOrderForItsColumnWork() throws {
    for target in Self.levels {
      let p = try plan(wave(), target)
      #expect(p.loopNests.last!.order == .columns, "\(p)")
      #expect(p.loopNests.last!.orderReason.contains("column only"))
    }
  }

  /// The plan is data: the same kernel and width give the same description,
  /// and it names the target and every pass.
  @Test func descriptionNamesTargetAndPasses() throws {
    let a = try plan(pixelate(amount: 1, blockSize: 8) | vignette(), Self.levels[2]).description
    let b = try plan(pixelate(amount: 1, blockSize: 8) | vignette(), Self.levels[2]).description
    #expect(a == b)
    #expect(a.contains("target x86-64-v4") && a.contains("16 lanes") && a.contains("block-uniform: not for"))
    #expect(a.contains("order: rows") && a.contains("loads (one per channel read): "))
  }

  @Test func namedTargetsAreCheckedAgainstTheHost() throws {
    let avx2Host = Target(name: "host", triple: "x86_64-pc-linux-gnu", cpuName: "znver3", features: Self.levels[1].features)
    #expect(try Target.named("x86-64-v3", on: avx2Host).lanes == 8)
    #expect(try Target.named("x86-64-v2", on: avx2Host).lanes == 4)
    #expect(try Target.named("host", on: avx2Host) == avx2Host)
    #expect(Target.runnableLevels(on: avx2Host).map(\.name) == ["x86-64-v2", "x86-64-v3"])
    #expect(throws: TargetError.self) { try Target.named("x86-64-v4", on: avx2Host) }
    do {
      _ = try Target.named("x86-64-v4", on: avx2Host)
    } catch {
      #expect(error.description.contains("cannot run target 'x86-64-v4'") && error.description.contains("avx512f"))
    }
    do {
      _ = try Target.named("avx9", on: avx2Host)
    } catch {
      #expect(error.description.contains("unknown target 'avx9'") && error.description.contains("x86-64-v3"))
    }
    let arm = Target(name: "host", triple: "aarch64-unknown-linux-gnu", cpuName: "neoverse-n1", features: "+neon")
    #expect(Target.runnableLevels(on: arm).isEmpty)
  }
}
