import FX
import Foundation
import Testing

/// The JIT's vectorised sin and cos against libm (the IR's definition, Semantics):
/// within 2e-7 absolute for |x| ≤ 8192 (the polynomial's stated bound), exact
/// libm results beyond it and for NaN/±∞ (those vectors take libm).
struct TranscendentalTests {
  func evaluate(_ xs: [Float]) throws -> [(sin: Float, cos: Float)] {
    let effect = Effect.color("trig") { _, c in float4(sin(c.r), cos(c.r), 0, 1) }
    let input = try ImageBuffer(width: xs.count, height: 1, format: .rgba32f)
    for (i, x) in xs.enumerated() { input[i, 0] = SIMD4(x, 0, 0, 1) }
    let out = try Pipeline(effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f).run([input])
    return (0..<xs.count).map { (out[$0, 0].x, out[$0, 0].y) }
  }

  @Test func accurateOverTheReducedRange() throws {
    var rng = SplitMix(seed: 11)
    var xs: [Float] = [0, -0.0, 1e-30, .pi / 4, .pi / 2, .pi, -.pi, 3 * .pi / 4, 100, -100, 8191.9, -8192]
    for _ in 0..<4000 { xs.append(Float.random(in: -8192...8192, using: &rng)) }
    for _ in 0..<1000 { xs.append(Float.random(in: -10...10, using: &rng)) }
    var worst: Float = 0
    for (x, r) in zip(xs, try evaluate(xs)) {
      worst = max(worst, abs(r.sin - Foundation.sin(x)), abs(r.cos - Foundation.cos(x)))
    }
    #expect(worst <= 2e-7, "max error \(worst)")
  }

  @Test func specialValuesFollowLibm() throws {
    // Each special value sits in a vector of otherwise ordinary lanes, so the whole vector takes libm.
    for special: Float in [.nan, .infinity, -.infinity, 1e30, -3e9, 8193, 123_456.7] {
      let xs: [Float] = [0.5, special, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
      let r = try evaluate(xs)[1]
      let (s, c) = (Foundation.sin(special), Foundation.cos(special))
      #expect(s.isNaN ? r.sin.isNaN : r.sin == s, "sin(\(special)) = \(r.sin), libm \(s)")
      #expect(c.isNaN ? r.cos.isNaN : r.cos == c, "cos(\(special)) = \(r.cos), libm \(c)")
    }
  }
}
