import FX
import FXInterpreter
import Foundation
import Testing

/// A load of columns computed per lane from a row that is the same in every
/// lane (`LoopNestPlan.LoadStrategy.gatherOrDense`: a chromatic aberration's
/// sample, shifted by a function of x) tests each vector at run time and loads
/// it densely when its columns are consecutive, else gathers. Both paths must
/// read the same pixels: the JIT gives the interpreter's bits on images whose
/// rows hold vectors of both kinds, at every x86-64 level this machine runs and
/// at 1 and 3 threads, for 8-, 16-bit and float inputs and planar intermediates.
struct ConsecutiveColumnsTests {
  /// Compiles `effect` for `image` at every runnable level; `checked` says
  /// whether some load must be planned as gatherOrDense (and its branch
  /// emitted); the JIT's float output must equal the interpreter's bit for bit.
  func expectSameBits(_ effect: Effect, _ image: ImageBuffer, checked: Bool) throws {
    try expectInterpreterBitsAtEveryLevel(effect, image) { compiled, target in
      let planned = compiled.plan.loopNests.contains { $0.loads.values.contains { $0.strategy == .gatherOrDense } }
      #expect(planned == checked, "\(target.name)")
      let ir = try compiled.dumpNative().ir
      #expect(ir.contains("load.consecutive") == checked, "\(target.name)")
    }
  }

  /// The aberration's shift `(x − w/2)/(d/2)·m` changes its whole-pixel part
  /// every d/(2m) columns: on a 700-pixel row about every 58, so most vectors
  /// are consecutive and some straddle a step; on 61 pixels every 5, so most
  /// are not. Read from the input (8/16-bit whole pixels; a float input is
  /// first copied to planar) and from a wave's planar result.
  @Test(arguments: PixelFormat.allCases)
  func chromaticAberrationIsTheInterpretersPixels(_ format: PixelFormat) throws {
    for (w, h) in [(700, 5), (61, 7)] {
      let image = randomImage(w, h, seed: UInt64(w), format: format)
      try expectSameBits(chromaticAberration(amount: 6), image, checked: true)
      try expectSameBits(wave(amplitude: 3, wavelength: 20) | chromaticAberration(amount: 6), image, checked: true)
    }
  }

  /// Columns that are never consecutive (x/2: each column twice) take the
  /// gather every time; clamped columns at the row's ends repeat the edge.
  @Test func columnsThatRepeatAreGathered() throws {
    let stretch = Effect.distortion("stretch") { p in float2(p.x * 0.5 + 0.25, p.y + 0.5) }
    let past = Effect.distortion("past the edge") { p in float2(p.x * 1.02 - 3, p.y) }
    for effect in [stretch, past] {
      try expectSameBits(effect, randomImage(45, 4, seed: 3), checked: true)
    }
  }

  /// A row computed from a loop's result whose body loads at pixelX varies
  /// along the row, though the fold's operands are constants: it is
  /// gathered per lane (fxc fuzz seed 11751977387946507995 — the dependence
  /// analysis did not look into loop bodies, so the row was planned as the
  /// same in every lane and a consecutive vector read lane 0's row for all).
  @Test func aRowFromALoopThatReadsTheRowVariesAlongIt() throws {
    var pixels = [(Float, Float, Float, Float)](repeating: (0, 0, 0, 0), count: 64)
    pixels[62] = (0.5, 0.25, 0.125, 1)  // (14, 3): its red and alpha move the sample of (14, 2) by (0.5, 1)
    let image = ImageBuffer.pixels(16, 4, .rgba32f, pixels)
    let shifted = Effect.layer("shifted", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, layer in
      let below = Expr.fold(from: Expr.int(-1), to: Expr.int(2), limit: 1, initial: [float4(0)]) { i, _ in
        [layer.sample(position + float2(0, float(i)))]
      }[0]
      return layer.sample(position + below.xw)
    }
    let staged = try Interpreter.runStaged(try EffectGraph(output: shifted(.input())), inputs: [image])
    #expect(staged[14, 2] == SIMD4(0.25, 0.125, 0.0625, 0.5))
    try expectInterpreterBitsAtEveryLevel(shifted, image) { compiled, target in
      let rows = compiled.plan.loopNests.last!.loads.values.filter { $0.rowOffset == nil }
      #expect(!rows.isEmpty && rows.allSatisfy { $0.strategy == .gather }, "\(target.name)")
    }
  }
}
