import FX
import Foundation
import Testing

/// The JIT against the staged interpreter, for every effect and chains of them,
/// on edge-case sizes (1×1, 1×N, N×1, sizes around the vector width) and formats.
struct JITTests {
  @Test(arguments: LoweringTests.effects.map(\.0))
  func jitMatchesInterpreter(_ name: String) throws {
    let effect = LoweringTests.effects.first { $0.0 == name }!.1
    let pipeline = try Pipeline(effect)
    let w = Pipeline.hostVectorWidth
    for format in [PixelFormat.rgba8, .rgba16, .rgba32f] {
      let compiled = try pipeline.compile(inputFormats: [format], outputFormat: .rgba32f)
      #expect(compiled.backend == .jit)
      for (width, height) in [(1, 1), (1, 6), (9, 1), (w - 1, 3), (w, 2), (2 * w + 3, 5), (37, 17)] {
        let input = randomImage(width, height, seed: UInt64(width * 7 + height), format: format)
        let reference = try Interpreter.runStaged(pipeline.graph, inputs: [input])
        let out = try compiled.run([input])
        let d = maxDifference(reference, out)
        #expect(d <= 1e-4, "\(name) \(width)×\(height) \(format): max difference \(d)")
      }
    }
  }

  @Test func quantisedOutputWithinOneLSB() throws {
    let pipeline = try Pipeline(sepia() | wave(amplitude: 4, wavelength: 11) | pixelate(amount: 1, blockSize: 4) | vignette())
    let input = randomImage(45, 23, seed: 9)
    let reference = try Interpreter.runStaged(pipeline.graph, inputs: [input]).copy(as: .rgba8)
    let out = try pipeline.apply(to: input)
    #expect(out.format == .rgba8)
    #expect(maxDifference(reference, out) <= 1.0 / 255 + 1e-6)
  }

  /// Line-buffered schedules (blur → blur), whole-image intermediates (a
  /// distortion reading a blur at data-dependent rows) and plain chains give the
  /// interpreter's pixels, identically for every thread count.
  @Test(arguments: [
    "gaussianBlur(sigma: 1) | sepia | vignette",
    "gaussianBlur(sigma: 1.5) | gaussianBlur(sigma: 1) | contrast(amount: 1.3)",
    "gaussianBlur(sigma: 1) | wave(amplitude: 5, wavelength: 9)",
    "unsharpMask(sigma: 1, amount: 1)",
  ])
  func threadCountsGiveIdenticalOutput(_ chain: String) throws {
    let pipeline = try Pipeline(try ChainSyntax.parse(chain).resolve().effect)
    let input = randomImage(70, 53, seed: 3, format: .rgba32f)
    let compiled = try pipeline.compile(inputFormats: [.rgba32f], outputFormat: .rgba32f)
    let one = try compiled.run([input], threads: 1)
    #expect(maxDifference(try Interpreter.runStaged(pipeline.graph, inputs: [input]), one) <= 1e-4)
    for threads in [2, 3, 16] {
      let many = try compiled.run([input], threads: threads)
      #expect(memcmp(one.data, many.data, one.byteCount) == 0, "\(threads) threads")
    }
    // Narrow column tiles (many tiles, halos at every edge) give the same pixels.
    Self.tileSettings.lock()
    let saved = CompiledKernel.tileCacheBytes
    CompiledKernel.tileCacheBytes = 1
    defer {
      CompiledKernel.tileCacheBytes = saved
      Self.tileSettings.unlock()
    }
    for threads in [1, 3] {
      let tiled = try compiled.run([input], threads: threads)
      #expect(memcmp(one.data, tiled.data, one.byteCount) == 0, "narrow tiles, \(threads) threads")
    }
  }

  /// Column tiles narrower than a blur's reach, on an image many tiles
  /// wide: interior tiles run the border copy of the horizontal loop (its
  /// taps cross the image's left edge), and each tile's rings hold only its
  /// own columns — so the border loads must touch no column beyond the
  /// tile's span (they once read the row's last pixel from every tile, past
  /// the end of the first tile's ring): every ring row ends at a guard page.
  /// Pixels as the interpreter's and as one tile's.
  @Test func tilesNarrowerThanTheReach() throws {
    // σ 25 reaches 75 columns: more than a narrow tile at any width (4 vectors, 64 columns at 16 lanes).
    let pipeline = try Pipeline(gaussianBlur(sigma: 25, method: .exact) | sepia())
    let input = randomImage(613, 29, seed: 5, format: .rgba32f)
    let compiled = try pipeline.compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil)
    let whole = try compiled.run([input])
    #expect(maxDifference(try Interpreter.runStaged(pipeline.graph, inputs: [input]), whole) <= 1e-4)
    try expectGuardedNarrowTiles(compiled, input, give: whole)
  }

  /// Serialises the tests that change the process-wide tile settings.
  static let tileSettings = NSLock()

  /// `compiled` on `input` with column tiles of 4 vectors and every ring row
  /// ending at a guard page, on 1 and 2 threads, gives `whole`'s bytes.
  func expectGuardedNarrowTiles(_ compiled: CompiledPipeline, _ input: ImageBuffer, give whole: ImageBuffer) throws {
    Self.tileSettings.lock()
    let saved = CompiledKernel.tileCacheBytes
    CompiledKernel.tileCacheBytes = 1
    CompiledKernel.guardedRings = true
    defer {
      (CompiledKernel.tileCacheBytes, CompiledKernel.guardedRings) = (saved, false)
      Self.tileSettings.unlock()
    }
    for threads in [1, 2] {
      let tiled = try compiled.run([input], threads: threads)
      #expect(memcmp(whole.data, tiled.data, whole.byteCount) == 0, "narrow tiles, \(threads) threads")
    }
  }

  /// A stage read at data-dependent columns within a proved bound (a
  /// chromatic aberration's shift, clamped to ±amount; a horizontal wave)
  /// keeps column tiles, each producer computing that bound as halo: with
  /// tiles of 4 vectors and every ring row ending at a guard page, a read past
  /// the halo faults or differs. Pixels as the interpreter's and as one tile's.
  @Test(arguments: [
    "wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)",
    "gaussianBlur(sigma: 1) | chromaticAberration(amount: 40)",
    "sepia | shear",
  ])
  func boundedColumnShiftsKeepColumnTiles(_ chain: String) throws {
    let shear = Effect.distortion("shear") { p in float2(p.x + floor(sin(p.y * 0.3) * 9.5) + 0.25, p.y) }
    let effect = chain.hasSuffix("shear") ? sepia() | shear : try ChainSyntax.parse(chain).resolve().effect
    let pipeline = try Pipeline(effect)
    let input = randomImage(613, 23, seed: 9, format: .rgba32f)
    let compiled = try pipeline.compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil)
    let halos = try #require(compiled.plan.run.columnLookahead, "a bounded shift keeps column tiles")
    #expect(halos.first! > 0)
    let whole = try compiled.run([input])
    #expect(maxDifference(try Interpreter.runStaged(pipeline.graph, inputs: [input]), whole) <= 1e-4)
    try expectGuardedNarrowTiles(compiled, input, give: whole)
  }

  /// A vertical filter with taps `dy` rows away (clamped at the image's top
  /// and bottom): column order, with row tables per chunk of 32 rows.
  static func vertical(_ offsets: [Float]) -> Effect {
    Effect.layer("vertical \(offsets)", sampler: Sampler(filter: .nearest, address: .clampToEdge)) { p, layer in
      var sum: Expr = float4(0)
      for (k, dy) in offsets.enumerated() { sum = sum + layer.sample(p + float2(Expr(Float(0)), Expr(dy))) * Expr(Float(k + 1) / 64) }
      return sum
    }
  }

  /// Column order is chosen for vertical taps and where column-only work
  /// (a wave's sin of x) outweighs row-only work; a color chain keeps row order.
  /// Code for each x86-64 level this machine runs uses that level's
  /// registers: xmm only at v2 (4 lanes), ymm at v3 (8), zmm at v4 (16) —
  /// and gives the interpreter's pixels.
  @Test(arguments: Target.runnableLevels.map(\.name))
  func eachLevelUsesItsVectorRegisters(level: String) throws {
    let target = try Target.named(level)
    let pipeline = try Pipeline(sepia() | vignette())
    let compiled = try pipeline.compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil, target: target)
    #expect(compiled.plan.loopNests.allSatisfy { $0.lanes == target.lanes })
    let assembly = try compiled.dumpNative().assembly
    #expect(assembly.contains("%zmm") == (target.lanes == 16), "\(level)")
    #expect(assembly.contains("%ymm") == (target.lanes == 8) || target.lanes == 16, "\(level)")
    let input = randomImage(37, 5, seed: 11, format: .rgba32f)
    let d = maxDifference(try Interpreter.runStaged(pipeline.graph, inputs: [input]), try compiled.run([input]))
    #expect(d <= 1e-4, "\(level): max difference \(d)")
  }

  /// An unknown target, or one this machine cannot run, is refused by name.
  @Test func unrunnableTargetIsRefused() throws {
    let pipeline = try Pipeline(sepia())
    let foreign = Target(name: "arm", triple: "aarch64-unknown-linux-gnu", cpuName: "neoverse-n1", features: "+neon")
    #expect(throws: RunError.self) { try pipeline.compile(cache: nil, target: foreign) }
    #expect(throws: TargetError.self) { try Target.named("x86-64-v9") }
  }

  /// The plan decides (no lanes involved), the emitted code follows it: a
  /// function walks down chunks exactly when its pass is in column order.
  @Test func columnOrderWhereItSaves() throws {
    func orders(_ effect: Effect) throws -> [LoopNestPlan.Order] {
      let compiled = try Pipeline(effect).compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil)
      let functions = try compiled.dumpNative().ir.components(separatedBy: "\ndefine ").dropFirst()
      let orders = compiled.plan.loopNests.map(\.order)
      #expect(functions.count == orders.count)
      #expect(functions.map { $0.contains("\nchunk.body") } == orders.map { $0 == .columns })
      return orders
    }
    #expect(try orders(wave(amplitude: 10, wavelength: 60)).last == .columns)
    #expect(try orders(Self.vertical([-2, 0, 2])).last == .columns)
    #expect(try orders(sepia() | vignette()) == [.rows])
    #expect(try !orders(chromaticAberration(amount: 6)).contains(.columns))
    // A split blur: only the vertical pass; the horizontal pass's per-tap
    // index arithmetic varies along x but is no reason to leave row order.
    #expect(try orders(gaussianBlur(sigma: 3)).filter { $0 == .columns }.count == 1)
  }

  /// Column order across chunks: taps reaching further than a chunk (±40
  /// rows), and beyond the row tables' limit (±300 rows, row order), over
  /// images taller than several chunks — alone (one call covers a band of
  /// rows), after a blur (line buffers) and read by a distortion (whole-image
  /// intermediates) — give the interpreter's pixels for 1 and 3 threads.
  @Test(arguments: [[-40, -1, 0, 3, 40], [-300, -7, 0, 5, 300]] as [[Float]])
  func verticalTapsAcrossChunks(_ offsets: [Float]) throws {
    for effect in [
      Self.vertical(offsets), gaussianBlur(sigma: 1) | Self.vertical(offsets), Self.vertical(offsets) | wave(amplitude: 6, wavelength: 13),
    ] {
      let pipeline = try Pipeline(effect)
      let input = randomImage(29, 150, seed: 11, format: .rgba8)
      let reference = try Interpreter.runStaged(pipeline.graph, inputs: [input])
      let compiled = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba32f, cache: nil)
      let one = try compiled.run([input], threads: 1)
      #expect(maxDifference(reference, one) <= 1e-4, "\(effect.name)")
      let three = try compiled.run([input], threads: 3)
      #expect(memcmp(one.data, three.data, one.byteCount) == 0, "\(effect.name): 3 threads")
    }
  }
}

/// `toInt` in vector code (no per-lane branches) against Semantics.toInt on
/// the values where truncation, saturation and NaN meet.
struct ToIntTests {
  @Test func saturatingConversionMatchesSemantics() throws {
    let values: [Float] = [
      0, -0, 0.5, -0.5, 0.999_999_9, -1.000_000_1, 1e10, -1e10, .infinity, -.infinity, .nan, -.nan,
      2_147_483_520, 2_147_483_648, -2_147_483_648, -2_147_483_904, 16_777_217, -7.99, 123.456, .leastNonzeroMagnitude,
      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 3e9, -3e9,
    ]
    let effect = Effect.layer("toInt", sampler: Sampler(filter: .nearest, address: .clampToEdge)) { p, layer in
      let c = layer.sample(p)
      return float4(float(int(c.r)), float(int(c.g)), float(int(c.b)), float(int(c.a)))
    }
    let input = try ImageBuffer(width: values.count, height: 2, format: .rgba32f)
    for (x, v) in values.enumerated() {
      input[x, 0] = SIMD4(v, -v, v * 0.5, v + 1)
      input[x, 1] = SIMD4(v - 1, v * 2, -v * 2, v)
    }
    let output = try Pipeline(effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil).run([input])
    for y in 0..<2 {
      for x in 0..<values.count {
        let i = input[x, y], o = output[x, y]
        for c in 0..<4 {
          let expected = Float(Semantics.toInt(i[c]))
          #expect(o[c].bitPattern == expected.bitPattern, "toInt(\(i[c])) = \(o[c]), expected \(expected)")
        }
      }
    }
  }
}

/// A multi-threaded run without line buffers hands out strips of rows one at
/// a time; together they are every row exactly once, in order.
struct ParallelStripTests {
  @Test(arguments: [(1, 2), (15, 2), (16, 2), (17, 3), (427, 2), (3172, 2), (3172, 16), (100_000, 3)])
  func stripsCoverEveryRowOnce(_ height: Int, _ threads: Int) {
    let strips = CompiledKernel.strips(height: height, threads: threads)
    #expect(strips.first?.lowerBound == 0 && strips.last?.upperBound == height)
    #expect(zip(strips, strips.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
    #expect(strips.count <= 16 * threads)
    #expect(strips.dropLast().allSatisfy { $0.count >= CompiledKernel.parallelStripRows })
  }
}
