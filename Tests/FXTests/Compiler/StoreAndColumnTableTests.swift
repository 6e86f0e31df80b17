import FX
import Foundation
import Testing

/// DESIGN §1's RGBA8 store (NaN → 0, clamp to 0…1, `⌊c·255 + 0.5⌋`) made of
/// x86's truncating conversion and saturating packs (`storeSaturating`): the
/// bytes of the float-clamping store for every kind of value, at every x86-64
/// level this machine runs.
struct SaturatingStoreTests {
  /// Values around every edge of the store: NaN, ±∞, beyond the int32 range
  /// after scaling, negatives that truncate to 0 and to −1, ties, 1 and just
  /// above, the largest finite float, and 0.49999997/255, whose `c·255 + 0.5`
  /// rounds up to 1 (a store adding ½ before truncating gave it 1, not 0).
  static let specials: [Float] = [
    .nan, -.infinity, .infinity, -1e30, 1e30, -1, -0.003, -0.0019, -0.0, 0, 0.5 / 255, 1.5 / 255, 0.49999997 / 255,
    127.5 / 255, 0.5, 0.99, 1, 1.0019, 1.002, 2, 8.4e6 / 255, 8.5e6 / 255, 3e9, .greatestFiniteMagnitude,
    .leastNonzeroMagnitude, -.greatestFiniteMagnitude, 254.49 / 255, 254.5 / 255, 200, -200,
  ]

  /// The byte DESIGN §1 gives `c` (NaN → 0, clamp to 0…1, round `c·255` to
  /// nearest, halves away from 0), worked out in scalar Swift.
  static func expectedByte(_ c: Float) -> UInt8 {
    let clamped = c.isNaN ? 0 : min(max(c, 0), 1)
    return UInt8((clamped * 255).rounded(.toNearestOrAwayFromZero))
  }

  /// The specials as an rgba32f image with alpha 1 (so neither premultiplying
  /// nor un-premultiplying changes them), each in every colour channel.
  func specialsImage() -> ImageBuffer {
    let values = Self.specials
    let image = try! ImageBuffer(width: values.count + 5, height: 3, format: .rgba32f)
    for y in 0..<3 {
      for x in 0..<image.width {
        let v = values[(x + y) % values.count]
        image[stored: x, y] = SIMD4(v, values[(x + 7 * y + 3) % values.count], values[(3 * x + y) % values.count], 1)
      }
    }
    return image
  }

  /// `effect` on `image` to RGBA8 by the JIT at every runnable level and on
  /// 1 and 3 threads: the interpreter's bytes, and the packs in the IR.
  func expectInterpreterBytes(_ effect: Effect, _ image: ImageBuffer) throws -> ImageBuffer {
    let pipeline = try Pipeline(effect)
    let interpreted = try pipeline.compile(inputFormats: [image.format], outputFormat: .rgba8, backend: .interpreter, cache: nil)
      .run([image])
    let packs = ["x86-64-v2": "llvm.x86.sse2.packuswb.128", "x86-64-v3": "llvm.x86.avx2.packuswb", "x86-64-v4": "llvm.x86.avx512.packuswb.512"]
    for target in Target.runnableLevels + [.host] {
      let compiled = try pipeline.compile(inputFormats: [image.format], outputFormat: .rgba8, cache: nil, target: target)
      if let pack = packs[target.name] {
        let ir = try compiled.dumpNative().ir
        #expect(ir.contains(pack), "\(target.name)")
      }
      for threads in [1, 3] {
        let jit = try compiled.run([image], threads: threads)
        #expect(memcmp(jit.data, interpreted.data, jit.byteCount) == 0, "\(target.name), \(threads) thread(s)")
      }
    }
    return interpreted
  }

  /// Unbounded values (a float input passed through): the store keeps one
  /// `min(c, 1)` and lets NaN reach the conversion.
  @Test func everySpecialValueGetsItsByte() throws {
    let image = specialsImage()
    let same = Effect.color("same") { _, c in c }
    let out = try expectInterpreterBytes(same, image)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let v = image[stored: x, y]
        let stored = (out.data + y * out.rowBytes + 4 * x).loadUnaligned(as: SIMD4<UInt8>.self)
        for c in 0..<3 {
          #expect(stored[c] == Self.expectedByte(v[c]), "(\(x), \(y)) channel \(c): \(v[c])")
        }
        #expect(stored[3] == 255)
      }
    }
  }

  /// Bounded values outside 0…1 (an 8-bit input scaled to −1…2 and to
  /// −100…200): no float clamp at all, the packs saturate.
  @Test func boundedValuesSaturate() throws {
    let image = opaqueImage(53, 4, seed: 5, format: .rgba8)
    let stretch = Effect.color("stretch") { _, c in float4(c.r * 3 - 1, c.g * 300 - 100, c.b * -2 + 1.5, c.a) }
    let out = try expectInterpreterBytes(stretch, image)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let v = image[x, y]
        let stored = (out.data + y * out.rowBytes + 4 * x).loadUnaligned(as: SIMD4<UInt8>.self)
        let expected = [v.x * 3 - 1, v.y * 300 - 100, v.z * -2 + 1.5].map(Self.expectedByte)
        #expect([stored[0], stored[1], stored[2]] == expected, "(\(x), \(y))")
      }
    }
  }
}

extension SaturatingStoreTests {
  /// Proved bounds far above 1 with a constant alpha (no un-premultiplying
  /// division to hide them): no `min(c, 1)` is emitted, so the packs alone
  /// clamp. `c·255` above 32,767 (c > 128.5) must still store 255: an
  /// unsigned dword → word pack left it a negative word, stored as 0.
  @Test func largeProvedBoundsStoreTheTopLevel() throws {
    let image = opaqueImage(37, 3, seed: 9, format: .rgba8)
    let scale = Effect.color("scale") { _, c in float4(c.r * 200, c.g * 300 - 100, c.b * 1000 + 128, 1) }
    let out = try expectInterpreterBytes(scale, image)
    var saturated = 0
    for y in 0..<image.height {
      for x in 0..<image.width {
        let v = image[x, y]
        let stored = (out.data + y * out.rowBytes + 4 * x).loadUnaligned(as: SIMD4<UInt8>.self)
        let expected = [v.x * 200, v.y * 300 - 100, v.z * 1000 + 128].map(Self.expectedByte)
        #expect([stored[0], stored[1], stored[2], stored[3]] == expected + [255], "(\(x), \(y))")
        saturated += expected.filter { $0 == 255 }.count
      }
    }
    #expect(saturated > 50, "the image must reach values above 128.5")
  }
}

/// Column-only work that feeds per-pixel work (a vignette's
/// `((x + ½)/width − ½)²`) is computed in the first row of a call and read
/// back from a table in the others (`LoopNestPlan.columnTable`): the same bits,
/// on rows of every width — narrower than a vector, ending mid-vector, and
/// wider than the table's slots (the last slot is then shared and checked).
struct ColumnTableTests {
  @Test func aVignetteKeepsItsColumnWorkInATable() throws {
    let compiled = try Pipeline(vignette()).compile(cache: nil)
    let plan = compiled.plan.loopNests.last!
    #expect(!plan.columnTable.isEmpty, "\(plan.columnTableReason)")
    #expect(plan.columnTableWork.contains { i in compiled.kernel.loopNests.last!.program.nodes[i].op == .div })
    // A blur's vertical pass (column order) and sepia (no column-only work) have none.
    for effect in [gaussianBlur(sigma: 2), sepia()] {
      #expect(try Pipeline(effect).compile(cache: nil).plan.loopNests.allSatisfy { $0.columnTable.isEmpty })
    }
  }

  @Test(arguments: [(5, 4), (61, 7), (700, 5), (16_000, 2)])
  func vignetteIsTheInterpretersPixels(_ size: (Int, Int)) throws {
    let image = randomImage(size.0, size.1, seed: UInt64(size.0))
    for effect in [vignette(intensity: 0.8, radius: 0.6), sepia() | vignette() | contrast(amount: 1.3)] {
      try expectInterpreterBitsAtEveryLevel(effect, image) { compiled, target in
        #expect(compiled.plan.loopNests.contains { !$0.columnTable.isEmpty }, "\(target.name)")
        let ir = try compiled.dumpNative().ir
        #expect(ir.contains("columns.reuse"), "\(target.name)")
      }
    }
  }
}

/// In column order, a vertical filter computes two rows per step, their
/// loops run as one
/// (`LoopNestPlan.rowsPerStep`): the interpreter's bits on chunks of odd and
/// even heights (the pair loop and the odd row left), at every level and on
/// 1 and 3 threads (bands that start at odd rows).
struct RowPairTests {
  @Test func verticalLoopsTakeTwoRowsPerStep() throws {
    func rows(_ effect: Effect) throws -> [Int] { try Pipeline(effect).compile(cache: nil).plan.loopNests.map(\.rowsPerStep) }
    #expect(try rows(gaussianBlur(sigma: 10, method: .exact)) == [1, 1, 2], "the vertical pass of ±30 taps")
    #expect(try rows(gaussianBlur(sigma: 3)) == [1, 1, 2], "±9 taps")
    #expect(try rows(invert()) == [1], "no loop")
  }

  @Test(arguments: [PixelFormat.rgba8, .rgba32f])
  func aLongVerticalBlurIsTheInterpretersPixels(_ format: PixelFormat) throws {
    for (w, h) in [(37, 41), (20, 64)] {
      let image = randomImage(w, h, seed: UInt64(h), format: format)
      for effect in [gaussianBlur(sigma: 6), gaussianBlur(sigma: 6) | contrast(amount: 1.3), unsharpMask(sigma: 1.5, amount: 0.8)] {
        try expectInterpreterBitsAtEveryLevel(effect, image) { compiled, target in
          #expect(compiled.plan.loopNests.contains { $0.rowsPerStep == 2 }, "\(target.name)")
        }
      }
    }
  }
}
