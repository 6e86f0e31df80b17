import FX
import Testing

/// The effect language: the README's example compiles and runs; ill-typed
/// expressions are thrown errors naming the effect and the line.
struct LanguageTests {
  /// README's loop example: a box blur with a uniform radius, one kernel for
  /// every radius, against the mean worked out on a ramp.
  @Test func readmeLoopExample() throws {
    let radius = Param.uniform("radius", 3)
    let boxH = Effect.layer("boxH") { p, layer in
      let r = int(radius.expr)
      return Expr.sum(from: -r, to: r + 1, limit: 50) { i in layer.sample(p + float2(float(i), 0)) } / float(2 * r + 1)
    }
    let ramp = try ImageBuffer(width: 40, height: 2, format: .rgba32f)
    for y in 0..<2 { for x in 0..<40 { ramp[x, y] = SIMD4(Float(x) / 64, 0, 0, 1) } }
    let compiled = try Pipeline(boxH).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f)
    for r in [0, 2, 5] {
      let out = try compiled.run([ramp], uniforms: [radius: Float(r)])
      // Away from the edges the mean of a ramp is its centre; at x = 0 the clamped taps read 0 r + 1 times.
      #expect(abs(out[20, 1].x - 20 / 64) < 1e-6)
      let edge = Float((0...r).reduce(0, +)) / Float(2 * r + 1) / 64
      #expect(abs(out[0, 0].x - edge) < 1e-6, "radius \(r)")
    }
  }

  @Test func readmeExampleRunsOnJITAndInterpreter() throws {
    let duotone = Effect.color("duotone") { position, color in
      let luma = dot(color.rgb, float3(0.2126, 0.7152, 0.0722))
      let tint = mix(float3(0.1, 0.0, 0.3), float3(1.0, 0.8, 0.4), smoothstep(0.1, 0.9, luma))
      return float4(tint * color.a, color.a)
    }
    let shadow = Effect.layer("shadow") { position, layer in
      let below = layer.sample(position - float2(4, 4))
      let here = layer.sample(position)
      return here + float4(0, 0, 0, 0.5 * below.a) * (1 - here.a)
    }
    let pipeline = try Pipeline(gaussianBlur(sigma: 1.5) | duotone | shadow | vignette())
    let input = randomImage(23, 19, seed: 5, format: .rgba32f)
    let reference = try Interpreter.runStaged(pipeline.graph, inputs: [input])
    let out = try pipeline.apply(to: input)
    #expect(maxDifference(reference, out) <= 1e-4)
  }

  /// `fma` rounds once: with a = b = 1 + 2⁻¹², a·b = 1 + 2⁻¹¹ + 2⁻²⁴ loses its
  /// 2⁻²⁴ when rounded, so a·b − 1 is 2⁻¹¹ but fma(a, b, −1) is 2⁻¹¹ + 2⁻²⁴ —
  /// in the constant folder, the interpreter and the JIT alike; mix and dot
  /// are built on it.
  @Test func fmaRoundsOnce() throws {
    let a: Float = 1 + 0x1p-12, fused: Float = 0x1p-11 + 0x1p-24
    #expect(a * a - 1 == 0x1p-11, "the unfused product rounds")
    #expect(Semantics.evaluate(.fma, [a, a, -1].map { .float(bits: $0.bitPattern) })?.floatValue == fused)
    let effect = Effect.color("fma") { _, c in
      float4(fma(c.r, c.g, Expr(Float(-1))), mix(c.b, c.b + 1, c.r), dot(float2(c.r, c.r), float2(c.g, Expr(Float(0)))), 1)
    }
    let input = try ImageBuffer(width: 1, height: 1, format: .rgba32f)
    input[0, 0] = SIMD4(a, a, 0, 1)
    let pipeline = try Pipeline(effect)
    let jit = try pipeline.compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil)
    #expect(jit.backend == .jit)
    for out in [try jit.run([input]), try Interpreter.runStaged(pipeline.graph, inputs: [input])] {
      #expect(out[0, 0].x == fused)
      #expect(out[0, 0].y == a, "mix(0, 1, a) = fma(1, a, 0)")
      #expect(out[0, 0].z == a * a, "dot's first product, then fma(a, 0, ·)")
    }
  }

  @Test func mismatchedLanesAreAnErrorNamingTheEffect() {
    let bad = Effect.color("broken") { _, color in
      float4(color.rgb + color, 1)
    }
    #expect {
      try Pipeline(sepia() | bad)
    } throws: { error in
      let e = error as! GraphError
      return e.effect == "broken" && e.message.contains("float3") && e.message.contains("float4")
    }
  }

  @Test func badSwizzleIsAnError() {
    let bad = Effect.color("swizzle") { _, color in float4(color.q, 0, 0, 1) }
    #expect(throws: GraphError.self) { try Pipeline(bad) }
  }

  @Test func wrongReturnTypeIsAnError() {
    let bad = Effect.color("returnsFloat3") { _, color in color.rgb }
    #expect {
      try Pipeline(bad)
    } throws: { error in
      "\(error)".contains("must return float4") && "\(error)".contains("returnsFloat3")
    }
  }

  @Test func builtinCallsCarryTheirLine() {
    let line = #line + 1
    let bad = Effect.color("mixOfInts") { _, color in float4(mix(Expr.int(1), color.r, 0.5), 0, 0, 1) }
    #expect {
      try Pipeline(bad)
    } throws: { error in
      (error as? GraphError)?.location?.line == line
    }
  }

  @Test func integerArithmeticWrapsAndShifts() throws {
    // The dissolve hash's operations (EFFECTS.md): wrap-around multiply, xor, logical shift, mask.
    let hash = Effect.color("hash") { position, _ in
      let cx = int(position.x), cy = int(position.y)
      var m = (cx * Expr.int(0x9E37_79B1)) ^ (cy * Expr.int(0x85EB_CA77))
      m = m ^ ushr(m, 15)
      m = m * Expr.int(0x2C1B_3C6D)
      m = m ^ ushr(m, 12)
      return float4(float(m & 0xFFFF) / 65535, 0, 0, 1)
    }
    let input = randomImage(19, 3, format: .rgba32f)
    let pipeline = try Pipeline(hash)
    let out = try pipeline.apply(to: input)
    func reference(_ x: UInt32, _ y: UInt32) -> Float {
      var m = (x &* 0x9E37_79B1) ^ (y &* 0x85EB_CA77)
      m ^= m >> 15
      m = m &* 0x2C1B_3C6D
      m ^= m >> 12
      return Float(m & 0xFFFF) / 65535
    }
    for y in 0..<3 {
      for x in 0..<19 { #expect(abs(out[x, y].x - reference(UInt32(x), UInt32(y))) <= 1e-6) }
    }
  }

  @Test func uniformAndConstantGiveTheSamePixels() throws {
    let amount = Param.uniform("amount", 0.3)
    let asUniform = try Pipeline(sepia(amount: amount.expr) | vignette())
    #expect(asUniform.graph.uniforms == [amount])
    let asConstant = try Pipeline(sepia(amount: 0.7) | vignette())
    let input = randomImage(17, 9, seed: 2, format: .rgba32f)
    let compiled = try asUniform.compile(inputFormats: [.rgba32f], outputFormat: .rgba32f)
    let a = try compiled.run([input], uniforms: [amount: 0.7])
    let b = try asConstant.apply(to: input)
    #expect(maxDifference(a, b) <= 1e-6)
  }
}

/// The README's second library snippet (chain text, uniform per run) compiles and runs.
/// README's registry snippet, as written there.
func towardGray(amount: Expr) -> Effect {
  Effect.color("towardGray") { _, color in
    let gray = dot(color.rgb, float3(0.2126, 0.7152, 0.0722))
    return float4(mix(color.rgb, float3(gray), amount), color.a)
  }
}

struct ReadmeSnippetTests {
  @Test func registeredEffectInAChain() throws {
    var registry = EffectRegistry.builtIn
    try registry.register(
      EffectSpec(
        name: "towardGray", kind: .color, summary: "Mixes the image with its gray.",
        parameters: [.number("amount", 1, 0...1, "how much gray")]
      ) { values in towardGray(amount: values.number(0)) })
    let chain = try ChainSyntax.parse("towardGray(amount: 0.5)").resolve(registry: registry).effect
    let image = try ImageBuffer(width: 1, height: 1, format: .rgba32f)
    image[0, 0] = SIMD4(0.8, 0.4, 0.2, 1)
    let out = try Pipeline(chain).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil).run([image])
    // By hand: gray = 0.2126·0.8 + 0.7152·0.4 + 0.0722·0.2 = 0.4706; halfway: (0.6353, 0.4353, 0.3353).
    let expected = SIMD4<Float>(0.6353, 0.4353, 0.3353, 1)
    let error = (0..<4).map { Swift.abs(out[0, 0][$0] - expected[$0]) }.max()!
    #expect(error < 1e-5, "\(out[0, 0])")
  }

  @Test func chainTextAndUniformSweep() throws {
    let photo = randomImage(12, 8, seed: 4)
    let graded = try Pipeline(ChainSyntax.parse("sepia | vignette(intensity: 0.8)").resolve().effect)
    #expect(try graded.apply(to: photo).width == 12)
    let amount = Param.uniform("amount", 0)
    let fade = try Pipeline(sepia(amount: amount.expr)).compile(inputFormats: [photo.format], outputFormat: photo.format)
    let first = try fade.run([photo], uniforms: [amount: 0])
    let last = try fade.run([photo], uniforms: [amount: 1])
    #expect(maxDifference(first, photo) == 0)
    #expect(maxDifference(last, try Pipeline(sepia(amount: 1)).apply(to: photo)) <= 1.0 / 255)
  }
}
