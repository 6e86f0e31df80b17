import FX
import Foundation
import Testing

// The disciplines every effect keeps (EFFECTS.md "SwiftShaders discipline",
// DESIGN §5): premultiplied color — a half-transparent edge keeps its straight
// color through color effects, and effects that read neighbours clamp their
// reads so a flat image stays flat up to the border — and arguments — a
// non-finite value switches an effect off, angles fold into one turn.

/// Catalogue color effects that are not fills (a fill replaces color by a pattern).
private let colorEffects = Catalogue.effects.filter { $0.kind == .color && !$0.summary.hasPrefix("Fill:") }.map(\.name)

/// Effects that read neighbours, with arguments that make them do something.
private let neighbourEffects: [(String, Effect)] = [
  ("sharpen", sharpen(amount: 3)), ("unsharpMask", unsharpMask(sigma: 1.5, amount: 4)),
  ("gaussianBlur", gaussianBlur(sigma: 1.2)), ("boxBlur", boxBlur(radius: 2)),
  ("motionBlur", motionBlur(distance: 9, angle: 30)), ("progressiveBlur", progressiveBlur(radius: 6, length: 7)),
  ("pixelate", pixelate(amount: 1, blockSize: 4)), ("chromaticAberration", chromaticAberration(amount: 5)),
  ("crt", crt(curvature: 0, intensity: 0)),
]

@Suite struct EffectDisciplineTests {
  /// Every color effect (at its sheet example) on an opaque image and on the same
  /// straight colors at alpha 0.5: the straight result is the same, alpha stays 0.5.
  @Test(arguments: colorEffects)
  func halfTransparentEdgeKeepsItsStraightColor(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    let effect = try ChainSyntax.parse(spec.example).resolve().effect
    let opaque = makeTestImage(12, 7) { x, y in
      SIMD4(Float(x) / 11, Float(y) / 6, Float((x * 7 + y * 3) % 10) / 9, 1)
    }
    let edge = makeTestImage(12, 7) { x, y in opaque[x, y] * 0.5 }
    let full = try effectOutputs(effect, [opaque])[0].1
    for (label, half) in try effectOutputs(effect, [edge]) {
      var worst: Float = 0
      for y in 0..<7 {
        for x in 0..<12 {
          #expect(Swift.abs(half[x, y].w - 0.5 * full[x, y].w) < 1e-6, "\(name) \(label): alpha at (\(x), \(y))")
          let d = straight(half[x, y]) - straight(full[x, y])
          worst = Swift.max(worst, Swift.max(Swift.abs(d.x), Swift.max(Swift.abs(d.y), Swift.abs(d.z))))
        }
      }
      #expect(worst <= 2e-5, "\(name) \(label): a half-transparent pixel's straight color is off by \(worst)")
    }
  }

  @Test func brightnessAndHueKeepAnAntialiasedEdge() throws {
    // The named rule, by hand: an edge pixel (0.8, 0.4, 0.2) at alpha 0.5 next to the
    // same color opaque. brightness +0.1 → straight (0.9, 0.5, 0.3) for both; a hue
    // rotation by 120° maps both to the same straight color.
    let img = makeTestImage(2, 1) { x, _ in premultiplied(SIMD3(0.8, 0.4, 0.2), x == 0 ? 1 : 0.5) }
    try expectEffect(brightness(amount: 0.1), [img]) { x, _ in premultiplied(SIMD3(0.9, 0.5, 0.3), x == 0 ? 1 : 0.5) }
    for (label, out) in try effectOutputs(hueRotate(angle: 120), [img]) {
      let a = straight(out[0, 0]), b = straight(out[1, 0])
      #expect(Swift.abs(a.x - b.x) < 1e-5 && Swift.abs(a.y - b.y) < 1e-5 && Swift.abs(a.z - b.z) < 1e-5, "\(label)")
      #expect(out[1, 0].w == 0.5)
    }
  }

  @Test(arguments: neighbourEffects.map(\.0))
  func flatImageStaysFlatToTheBorder(_ name: String) throws {
    let effect = neighbourEffects.first { $0.0 == name }!.1
    let color = SIMD4<Float>(0.3, 0.15, 0.45, 0.6)
    let flat = makeTestImage(13, 9) { _, _ in color }
    try expectEffect(effect, [flat], inline: name != "progressiveBlur", tolerance: 1e-6) { _, _ in color }
  }

  @Test func edgeFiltersSeeNoEdgeAtTheBorder() throws {
    // Clamped reads: a flat image has no gradient anywhere, borders included.
    let color = SIMD4<Float>(0.3, 0.15, 0.45, 0.6)
    let flat = makeTestImage(11, 8) { _, _ in color }
    try expectEffect(edgeDetect(strength: 5), [flat], tolerance: 1e-6) { _, _ in SIMD4(0, 0, 0, 0.6) }
    try expectEffect(emboss(strength: 5), [flat], tolerance: 1e-6) { _, _ in SIMD4(0.3, 0.3, 0.3, 0.6) }  // 0.5·alpha
    try expectEffect(sketch(intensity: 4), [flat], tolerance: 1e-6) { _, _ in SIMD4(0.6, 0.6, 0.6, 0.6) }  // paper
  }

  /// Every number parameter that may be a uniform, set to NaN or ±∞, switches the
  /// effect off in the kernel: the output is the input (for a transition, input 0).
  @Test(arguments: Catalogue.names)
  func nonFiniteUniformSwitchesTheEffectOff(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    let names = spec.parameters.filter(\.allowsUniform).map { "\(name).\($0.name)" }
    guard !names.isEmpty else { return }
    let chain = try ChainSyntax.parse(name).resolve(uniforms: Set(names))
    let graph = try EffectGraph(output: chain.effect(.input()))
    let images = graph.inputs.indices.map { irregularImage(9, 6, seed: $0) }
    for bad in graph.uniforms.indices {
      for value in [Float.nan, .infinity, -.infinity] {
        var values = graph.uniforms.map(\.value)
        values[bad] = value
        let out = try Interpreter.runStaged(graph, inputs: images, uniforms: values)
        #expect(maxDifference(out, images[0]) == 0, "\(name): \(graph.uniforms[bad].name) = \(value)")
      }
    }
  }

  /// A non-finite constant switches the effect off before any kernel exists.
  @Test(arguments: Catalogue.names)
  func nonFiniteConstantSwitchesTheEffectOff(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    for (index, parameter) in spec.parameters.enumerated() where parameter.isNumber {
      var values = spec.parameters.map { Expr($0.defaultValue) }
      values[index] = Expr(Float.nan)
      if spec.changesSize {
        // A size has nothing to switch off to: the error names the parameter.
        #expect(throws: GraphError.self, "\(name).\(parameter.name) = nan") { try Pipeline(spec.make(values)) }
        continue
      }
      let graph = try EffectGraph(output: spec.make(values)(.input()))
      #expect(graph.stages.isEmpty, "\(name).\(parameter.name) = nan leaves \(graph.stages.count) stages")
    }
  }

  @Test func anglesFoldIntoOneTurn() throws {
    let img = irregularImage(10, 7)
    func program(_ e: Effect) throws -> [String] { try EffectGraph(output: e(.input())).stages.map(\.program.description) }
    #expect(try program(hueRotate(angle: 370)) == program(hueRotate(angle: 10)))
    #expect(try program(hueRotate(angle: -90)) == program(hueRotate(angle: 270)))
    #expect(try program(halftone(angle: 405)) == program(halftone(angle: 45)))
    #expect(try program(domainWarp(time: 3700)) == program(domainWarp(time: 100)))
    // A uniform angle folds in the kernel.
    let angle = Param.uniform("angle")
    let reference = try effectOutputs(hueRotate(angle: 10), [img])[0].1
    for turns: Float in [0, 1, -2, 5] {
      try expectEffect(hueRotate(angle: Expr(angle)), [img], uniforms: [10 + 360 * turns], tolerance: 2e-5) { x, y in
        reference[x, y]
      }
    }
  }

  @Test func offsetsAreCappedAtTheDiagonal() throws {
    // chromaticAberration's shift and motionBlur's streak never exceed the diagonal:
    // on an image of diagonal 5, amount 100 acts as amount 5.
    let img = irregularImage(4, 3)
    let capped = try effectOutputs(chromaticAberration(amount: 5), [img])[0].1
    try expectEffect(chromaticAberration(amount: 100), [img]) { x, y in capped[x, y] }
    let streak = try effectOutputs(motionBlur(distance: 5), [img])[0].1
    try expectEffect(motionBlur(distance: 300), [img]) { x, y in streak[x, y] }
  }
}
