import FX
import Foundation
import Testing

/// A pass with a `floor` of a slowly varying function of x (a pixelate's block
/// index) checks, per vector, whether that value is the same in all lanes and
/// then computes the block's sample once, keeping it in a slot per vector
/// position for the rows below while the row values it reads stay the same
/// (KernelEmitter's block-uniform body and its `BlockCache`).
/// Blocks of 8…40 pixels on rows of odd widths give vectors of both kinds —
/// inside one block and straddling two — and the JIT must give the
/// interpreter's pixels bit for bit, at every thread count.
struct BlockUniformTests {
  static let blockSizes: [Float] = [8, 9, 12, 16, 24, 40]

  /// At every x86-64 level this machine runs (4, 8, 16 lanes): the plan uses
  /// a block-uniform body exactly when `blockUniformAt(lanes)` says, and the
  /// JIT gives the interpreter's bits at 1 and 3 threads.
  func expectSameBits(_ effect: Effect, _ image: ImageBuffer, blockUniformAt: (Int) -> Bool) throws {
    try expectInterpreterBitsAtEveryLevel(effect, image) { compiled, target in
      let used = compiled.plan.loopNests.contains { !$0.blockUniform.isEmpty }
      #expect(used == blockUniformAt(target.lanes), "\(target.name), \(target.lanes) lanes")
      let ir = try compiled.dumpNative().ir
      #expect(ir.contains("block.uniform") == used, "\(target.name)")
    }
  }

  /// Wide rows cross blocks along x; a 9-pixel-wide image keeps one block
  /// along x for 40 rows and then moves to the next block row, where the
  /// block sample kept from the row above must not be reused.
  @Test(arguments: blockSizes, PixelFormat.allCases)
  func pixelateIsTheInterpretersPixels(_ side: Float, _ format: PixelFormat) throws {
    for (w, h) in [(61, 7), (9, 50)] {
      let image = randomImage(w, h, seed: UInt64(side), format: format)
      // A block of `side` columns is uniform over a vector of `lanes` when side ≥ lanes.
      try expectSameBits(pixelate(amount: 1, blockSize: Expr(side)) | vignette(), image) { Float($0) <= side }
    }
  }

  /// Rows wider than the cache's slots (1,024 vectors: 16,384 columns at 16
  /// lanes) share its last slot; a block row of 16 rows is computed once per
  /// vector and reused below, the next block row recomputed.
  @Test func rowsWiderThanTheCacheShareItsLastSlot() throws {
    let image = randomImage(16_500, 20, seed: 11)
    try expectSameBits(pixelate(amount: 1, blockSize: 16) | vignette(), image) { $0 <= 16 }
  }

  /// Block work that reads a row value which changes inside a block row
  /// (`floor(y / 3)`, blocks of 12 rows) must not be reused across it.
  @Test func aRowValueInsideTheBlockWorkIsPartOfTheKey() throws {
    let effect = Effect.color("bands") { p, c in
      let block = floor(p.x / 20), band = floor(p.y / 3), blockRow = floor(p.y / 12)
      return float4(sin(block * 1.3 + band), cos(block + blockRow), c.b, 1)
    }
    try expectSameBits(effect, randomImage(83, 30, seed: 3, format: .rgba32f)) { $0 <= 20 }
  }

  /// A block body with 40 values per block gets fewer slots (the cache stays
  /// within 64 KiB of stack), so vectors past them share the last one.
  @Test func manyBlockValuesTakeFewerSlots() throws {
    let effect = Effect.color("many") { p, c in
      let block = floor(p.x / 16)
      var sum: Expr = 0
      for k in 1...40 { sum = sum + sin(block * Expr(Float(k) * 0.37) + floor(p.y / 4)) * fract(p.x * Expr(Float(k) * 0.013)) }
      return float4(sum, c.g, c.b, 1)
    }
    try expectSameBits(effect, randomImage(7000, 6, seed: 2, format: .rgba32f)) { $0 <= 16 }
  }

  /// Blocks narrower than a vector take the general body only.
  @Test func smallBlocksHaveNoUniformBody() throws {
    try expectSameBits(pixelate(amount: 1, blockSize: 3), randomImage(29, 5, seed: 9)) { _ in false }
  }

  /// A hand-written block pattern whose per-block value is a sin of the
  /// block index, next to per-pixel work, at a negative slope.
  @Test func blockIndexFeedsPerBlockAndPerPixelWork() throws {
    let effect = Effect.color("blocks") { p, c in
      let block = floor((100 - p.x) / 10)
      return float4(sin(block * 1.7 + p.y), c.g * fract(p.x * 0.37), block / 8, 1)
    }
    // Blocks of 10 columns: uniform over 4 and 8 lanes, not over 16.
    try expectSameBits(effect, randomImage(53, 4, seed: 5, format: .rgba32f)) { $0 <= 10 }
  }
}
