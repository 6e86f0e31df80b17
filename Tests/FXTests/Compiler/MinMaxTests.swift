import FX
import FXTestSupport
import Foundation
import Testing

/// `min` and `max` (Semantics: a NaN operand yields the other, equal
/// operands the first) in the JIT, where an operand is `abs(x)`: LLVM 19's
/// InstCombine turned `min(abs(x), 0)` into `x > 0 || isnan(x) ? 0 :
/// abs(x)` when the NaN test and the compare were two nested selects, so
/// x = −3.34 gave 3.34 (fxc fuzz seed 8530264826734248012, 1 graph of
/// 45,000; OpEmitter.fminmax now emits one select of an `or`).
struct MinMaxOfAbsTests {
  static let image = ImageBuffer.pixels(
    3, 2, .rgba32f,
    [
      (-3.34, -3.34, -0.5, -2), (0, -0.0, .nan, .infinity), (2.5, -.infinity, 1e-45, -1e-45),
      (-1e30, 0.25, -0.25, 3), (.nan, 7, -7, 0.5), (-0.0, 1, -1, .nan),
    ])

  @Test func minAndMaxOfAnAbsoluteValueAreTheInterpretersAtEveryLevel() throws {
    let effect = Effect.color("minmax") { _, c in
      float4(min(abs(c.r), 0.0), max(abs(c.g), 1.0), min(0.5, abs(c.b)), max(-abs(c.a), 0.0))
    }
    try expectInterpreterBitsAtEveryLevel(effect, Self.image) { _, _ in }
    // By hand, pixel (0, 0) = (−3.34, −3.34, −0.5, −2): min(3.34, 0), max(3.34, 1), min(0.5, 0.5), max(−2, 0).
    let out = try Pipeline(effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil).run([Self.image])
    #expect(out[0, 0] == SIMD4(0, 3.34, 0.5, 0))
    // A NaN operand yields the other: pixel (1, 1) = (NaN, 7, −7, 0.5).
    #expect(out[1, 1] == SIMD4(0, 7, 0.5, 0))
  }
}
