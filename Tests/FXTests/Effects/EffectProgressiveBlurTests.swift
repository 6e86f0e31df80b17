import FX
import Foundation
import Testing

// progressiveBlur: the radius varies per pixel (so the effect is not, and is
// never split as, a constant-tap separable convolution), the fade follows the
// documented strength curve, and large radii give one smooth bump — no repeated
// copies of an edge, the artefact of a fixed tap grid scaled by the radius.

/// The B3-spline pyramid level k's 1-D impulse response, computed here (clamped reads).
private func pyramidResponse(width: Int, at center: Int, level: Int) -> [Double] {
  var v = [Double](repeating: 0, count: width)
  v[center] = 1
  let w: [Double] = [1, 4, 6, 4, 1].map { $0 / 16 }
  for k in 0..<level {
    let step = 1 << k
    v = (0..<width).map { i in (-2...2).reduce(0) { $0 + w[$1 + 2] * v[Swift.min(Swift.max(i + $1 * step, 0), width - 1)] } }
  }
  return v
}

@Suite struct EffectProgressiveBlurTests {
  @Test func finalStageIsNotASeparableConvolution() throws {
    let graph = try EffectGraph(output: progressiveBlur(radius: 8, length: 40)(.input()))
    let last = try #require(graph.stages.last)
    #expect(last.name.hasPrefix("progressiveBlur("))
    guard case .failure = SeparableSplit.analyse(last.program) else {
      Issue.record("the blending stage was recognised as a convolution")
      return
    }
    let (kernel, log) = try Lower.run(graph)
    let split = try #require(log.entries.first { $0.pass == "separable split" })
    #expect(split.summary == "split 0 convolutions")
    #expect(kernel.loopNests.count >= 2)
  }

  @Test func impulseResponseIsOneSmoothBumpAtLargeRadius() throws {
    // A 1-row image: vertical passes read the row itself, so the blur is 1-D.
    // start ≥ the height keeps the strength at 1 everywhere: σ = radius.
    let width = 1201, center = 600
    let img = makeTestImage(width, 1) { x, _ in x == center ? SIMD4(1, 1, 1, 1) : .zero }
    for radius: Float in [30, 12.5, 3] {
      let effect = progressiveBlur(radius: Expr(radius), length: 100, start: 100)
      let out = try Interpreter.runStaged(try EffectGraph(output: effect(.input())), inputs: [img])
      let response = (0..<width).map { Double(out[$0, 0].x) }
      let total = response.reduce(0, +)
      let variance = response.enumerated().reduce(0) { $0 + $1.element * Double(($1.offset - center) * ($1.offset - center)) }
      #expect(Swift.abs(total - 1) < 1e-4, "radius \(radius): weights sum to \(total)")
      // The two blended levels' variances mix to exactly radius².
      #expect(
        Swift.abs(variance - Double(radius * radius)) < 1e-3 * Double(radius * radius) + 1e-3,
        "radius \(radius): variance \(variance), expected \(radius * radius)")
      // One bump: non-increasing away from the center on both sides (a scaled
      // fixed grid would show separate peaks, "repeated edges").
      for i in center..<(width - 1) {
        #expect(response[i + 1] <= response[i] + 1e-7, "radius \(radius): bump at \(i + 1 - center) px")
        #expect(response[2 * center - i - 1] <= response[2 * center - i] + 1e-7)
      }
      #expect(response[center] > 0 && response[center] < 0.5)
    }
  }

  @Test func levelsAreTheBSplinePyramid() throws {
    // radius² = 21 = variance of level 3 exactly: the output is level 3 alone.
    let width = 61, center = 30
    let img = makeTestImage(width, 1) { x, _ in x == center ? SIMD4(1, 1, 1, 1) : .zero }
    let want = pyramidResponse(width: width, at: center, level: 3)
    let effect = progressiveBlur(radius: Expr(Float(21).squareRoot()), length: 10, start: 10)
    try expectEffect(effect, [img], inline: false, tolerance: 1e-5) { x, _ in SIMD4(repeating: Float(want[x])) }
  }

  @Test func strengthFadesAlongTheDirection() throws {
    // Columns alternating 0 and 1: a blur lowers the contrast between neighbours.
    // Every pyramid level from 1 on removes that frequency entirely, so with
    // radius 1 (variance ≤ 1, levels 0 and 1 only) the contrast is exactly
    // 1 − σ², σ = w. topToBottom, start 4, length 20 over 32 rows: rows up to 4 px
    // are blurred at full radius, the blur fades to nothing at 24 px, rows below
    // are untouched.
    let img = makeTestImage(16, 32) { x, _ in x % 2 == 0 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
    for curve in Curve.allCases {
      let effect = progressiveBlur(radius: 1, length: 20, direction: .topToBottom, start: 4, curve: curve)
      let out = try Interpreter.runStaged(try EffectGraph(output: effect(.input())), inputs: [img])
      func contrast(_ y: Int) -> Float { Swift.abs(out[8, y].x - out[7, y].x) }
      for y in 0..<31 { #expect(contrast(y) <= contrast(y + 1) + 1e-5, "\(curve): row \(y)") }
      #expect(contrast(0) < 0.01 && contrast(3) < 0.01, "\(curve): full strength at the top")
      for y in 24..<32 { #expect(out[8, y] == img[8, y] && out[7, y] == img[7, y], "\(curve): row \(y) untouched") }
      // Row 14: u = (14.5 − 4)/20 = 0.525, w = 1 − curve(u), contrast 1 − w².
      let u: Float = 0.525
      let shaped: Float = [Curve.linear: u, .easeIn: u * u, .easeOut: 1 - (1 - u) * (1 - u), .smoothStep: u * u * (3 - 2 * u)][curve]!
      let w = 1 - shaped
      #expect(Swift.abs(contrast(14) - (1 - w * w)) < 1e-4, "\(curve): row 14 contrast \(contrast(14)), expected \(1 - w * w)")
    }
    // The four directions: the untouched side is the far one.
    let effects: [(Direction, (Int, Int))] = [
      (.topToBottom, (5, 31)), (.bottomToTop, (5, 0)), (.leadingToTrailing, (15, 3)), (.trailingToLeading, (0, 3)),
    ]
    let square = makeTestImage(16, 32) { x, y in (x + y) % 2 == 0 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
    for (direction, (x, y)) in effects {
      let effect = progressiveBlur(radius: 4, length: 10, direction: direction)
      let out = try Interpreter.runStaged(try EffectGraph(output: effect(.input())), inputs: [square])
      #expect(out[x, y] == square[x, y], "\(direction): far side untouched")
    }
  }

  @Test func curvesShapeTheFade() throws {
    // Near half way through the fade the strength is 1 − curve(u): for u ≈ 0.5,
    // linear 0.5, easeIn 0.75, easeOut 0.25 — so easeIn blurs most there.
    let img = makeTestImage(16, 40) { x, _ in x % 2 == 0 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
    var contrasts: [Curve: Float] = [:]
    for curve in Curve.allCases {
      let effect = progressiveBlur(radius: 1, length: 30, start: 0, curve: curve)
      let out = try Interpreter.runStaged(try EffectGraph(output: effect(.input())), inputs: [img])
      contrasts[curve] = Swift.abs(out[8, 15].x - out[7, 15].x)
    }
    #expect(contrasts[.easeIn]! < contrasts[.linear]! && contrasts[.linear]! < contrasts[.easeOut]!)
  }

  @Test func offWhenRadiusOrLengthIsNotPositive() throws {
    let img = irregularImage(11, 9)
    try expectIdentity(progressiveBlur(radius: 0), [img])
    try expectIdentity(progressiveBlur(radius: 5, length: 0), [img])
    try expectIdentity(progressiveBlur(radius: Expr(Float.nan)), [img])
    try expectIdentity(progressiveBlur(radius: 5, length: Expr(-Float.infinity)), [img])
    // (The all-inline schedule is skipped below: it re-evaluates the pyramid 5^depth times.)
    // Uniform radius and length: one kernel, switched off in the kernel.
    let radius = Param.uniform("radius", 5), length = Param.uniform("length", 10)
    let effect = progressiveBlur(radius: Expr(radius), length: Expr(length))
    for (r, l): (Float, Float) in [(0, 10), (-2, 10), (5, 0), (.nan, 10), (5, .infinity)] {
      try expectIdentity(effect, [img], uniforms: [r, l], "radius \(r), length \(l)", inline: false)
    }
    // …and a positive uniform radius is the constant one.
    let constant = try effectOutputs(progressiveBlur(radius: 5, length: 10), [img], inline: false)[0].1
    try expectEffect(effect, [img], uniforms: [5, 10], jit: true, inline: false) { x, y in constant[x, y] }
  }
}
