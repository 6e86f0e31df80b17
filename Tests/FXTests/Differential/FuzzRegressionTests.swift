import FX
import FXTestSupport
import Foundation
import Testing

/// Disagreements that `fxc fuzz` found, each shrunk to a small graph. The staged
/// interpreter is the meaning (DESIGN §4); each test also pins the oracle's own
/// value, so that a fix that changes the oracle instead is a deliberate choice.
struct FuzzRegressionTests {
  /// Every evaluation of `output` against the staged interpreter, one expectation each.
  func expectAgreement(
    _ output: Image, _ inputs: [ImageBuffer], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for e in Differential.Evaluation.interpreted + [.jit] {
      let d = Differential.check(output, inputs: inputs, evaluations: [e])
      #expect(d == nil, "\(d.map(\.description) ?? "")", sourceLocation: sourceLocation)
    }
  }

  func staged(_ output: Image, _ inputs: [ImageBuffer]) throws -> ImageBuffer {
    try Interpreter.runStaged(EffectGraph(output: output), inputs: inputs)
  }

  // MARK: a rule that holds for one program, applied to another

  /// Simplify sweeps again after unrolling a loop, and those sweeps applied
  /// RangeSimplify's rule — node indices and value ranges of the program
  /// before the sweep — to the unrolled one: here `min(5 / (y + 4.5), 1)`,
  /// which acts at y = 0.5 (5/4.5 > 1), was taken for a min that cannot act.
  /// A loop whose exit is true after its first iteration becomes a one-
  /// iteration range and unrolls in the range pass (fxc fuzz on 16 cores, seed
  /// 35001, 2 of 27,000 graphs; in relaxed mode, seed 35002, an invalid
  /// program that trapped, case 14151705026976966369).
  @Test func rangeRulesAreNotAppliedToAnUnrolledProgram() throws {
    let input = ImageBuffer.pixels(1, 1, .rgba8, [(0, 0, 0, 0)])
    let s0 = Effect.layer("s0", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, _ in
      let once = Expr.fold(from: Expr.int(-1), to: Expr.int(2), limit: 2, initial: [float4(0.0), isnan(position.g)], exit: 1) {
        i0, a0 in [(a0[0] + position.gggr), (float(i0) >= -4.0)]
      }[0]
      return smoothstep(float4(float3(0.0), smoothstep(-4.0, position.y, 1.0)), float4(0.0), (float4(0.5) * once) / float4(0.5))
    }(.input(0))
    // smoothstep(−4, 0.5, 1) = 1; the loop runs once: 0.5; smoothstep(1, 0, 0.5) = 0.5.
    #expect(try staged(s0, [input])[0, 0].w == 0.5)
    expectAgreement(s0, [input])
  }

  // MARK: sign of zero: `x + 0` is not `x`

  /// Simplify rewrites `x + 0` and `0 + x` to `x`, but `-0 + 0` is `+0`: the sign
  /// reaches the output through `1/x`, `atan2`, `pow(x, -1)`. Found as
  /// `pow(mix(0, c, -0), -1)` (`mix(a, b, t)` is `a + (b − a)·t`: with `a = 0` the
  /// product's −0 is kept), and as `atan2(0 + x / -7.11, -1)` (a tiny x
  /// underflowing to −0). The lowered kernel (default schedule, any schedule
  /// with simplification) and the JIT give −∞ / −π; staged gives +∞ / +π.
  @Test func addingZeroMakesNegativeZeroPositive() throws {
    let input = ImageBuffer.pixels(1, 1, .rgba32f, [(-0.0, -0.0, 0, 1)])
    let right = Effect.color("x + 0") { _, color in float4(1.0 / (color.r + 0.0)) }(.input(0))
    let left = Effect.color("0 + x") { _, color in float4(1.0 / (0.0 + color.r)) }(.input(0))
    #expect(try staged(right, [input])[0, 0].x == .infinity)
    #expect(try staged(left, [input])[0, 0].x == .infinity)
    expectAgreement(right, [input])
    expectAgreement(left, [input])
  }

  @Test func mixFromZeroWithNegativeZeroWeight() throws {
    let input = ImageBuffer.pixels(1, 1, .rgba8, [(0, 0, 0, 0)])
    let out = Effect.color("s0") { _, color in
      pow(float4(float3(0.0), mix(0.0, color.y, Expr(-0.0))), -1.0)
    }(.input(0))
    #expect(try staged(out, [input])[0, 0].w == .infinity)
    expectAgreement(out, [input])
  }

  // MARK: dense taps far from the pixel

  /// `position.x + k` is treated as the exact texel `i + k` (a dense tap) for
  /// any integer |k| < 2^23 (`PixelOffset.of`), but `i + 0.5 + k` is only exact
  /// in fp32 while it stays below 2^23 with its half: at k = 8388607, pixel 1's
  /// position is 8388608.5, which rounds to 8388608, so staged evaluation
  /// blends texels 8388607 and 8388608 (mod 3 under `repeat`: texels 1 and 2,
  /// half each) where the kernel reads texel 8388608 alone. Every lowered
  /// schedule and the JIT disagree with staged; the bound must keep
  /// `|k| + width + 0.5` exact (|k| ≤ 2^22 is safe for every image size ≤ 2^20).
  @Test func denseTapAtLargeOffsetIsNotExact() throws {
    let input = ImageBuffer.pixels(3, 1, .rgba32f, [(1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1)])
    let out = Effect.distortion("far", sampler: Sampler(filter: .linear, address: .repeat)) { position in
      position + float2(8388607.0, 0.0)
    }(.input(0))
    #expect(try staged(out, [input])[1, 0] == SIMD4(0, 0.5, 0.5, 1))
    expectAgreement(out, [input])
  }

  /// The same along y, nearest filter, mirror mode (a layer effect's own sampler).
  @Test func denseTapAtLargeOffsetAlongY() throws {
    let input = ImageBuffer.pixels(1, 3, .rgba32f, [(0, 0, 0, 1), (0, 0, 0, 0), (0, 0, 0, 0)])
    let out = Effect.layer("far") { position, layer in
      layer.sample(position - float2(0.0, -8388607.0), Sampler(filter: .nearest, address: .repeat))
    }(.input(0))
    #expect(try staged(out, [input])[0, 2].w == 0)
    expectAgreement(out, [input])
  }

  // MARK: min / max of ±0 in the JIT

  /// `Semantics.min/max` (Metal's fmin/fmax as the IR defines them) return the
  /// first operand when the two compare equal, so `max(-0, +0)` is −0. The JIT
  /// emits `llvm.maxnum` / `llvm.minnum`, which may return either zero; with a
  /// constant operand it returns the constant. So `saturate(-0)` is −0 staged
  /// and +0 in the JIT, and `1 / saturate(x)` is −∞ against +∞. Found as
  /// `pow(saturate(layer.sample(position)), -1)` on a −0 pixel. The
  /// interpreter on every lowered schedule agrees with staged; the JIT does not.
  @Test func jitMinMaxOfSignedZeros() throws {
    let negative = ImageBuffer.pixels(1, 1, .rgba32f, [(-0.0, -0.0, -0.0, -0.0)])
    let positive = ImageBuffer.pixels(1, 1, .rgba32f, [(0, 0, 0, 0)])
    let cases: [(String, (Expr) -> Expr, ImageBuffer, Float)] = [
      ("max(x, 0)", { max($0, 0.0) }, negative, -.infinity),
      ("min(x, 0)", { min($0, 0.0) }, negative, -.infinity),
      ("saturate(x)", { saturate($0) }, negative, -.infinity),
      ("max(x, -0)", { max($0, Expr(-0.0)) }, positive, .infinity),
      ("min(x, -0)", { min($0, Expr(-0.0)) }, positive, .infinity),
    ]
    for (name, f, input, expected) in cases {
      let out = Effect.color(name) { _, color in float4(1.0 / f(color.r)) }(.input(0))
      #expect(try staged(out, [input])[0, 0].x == expected, "\(name)")
      let d = Differential.check(out, inputs: [input])
      #expect(d == nil, "\(name): \(d.map(\.description) ?? "")")
    }
  }

  // MARK: an input of its own size as the output

  /// A graph whose output is input 1 itself (no stage; found by shrinking, which
  /// may bypass every stage). It used to return input 1 at its own size staged,
  /// while the kernel read it at input 0's size with unresolved indices (out of
  /// bounds when input 1 is smaller). Now defined: the output has the output
  /// size, and an input as the output is read as a color effect reads (nearest,
  /// clamp to edge) — checked here with input 1 both larger and smaller.
  @Test func outputIsAnotherInputUnchanged() throws {
    let in0 = ImageBuffer.pixels(3, 2, .rgba32f, Array(repeating: (0, 0, 0, 1), count: 6))
    let in1 = ImageBuffer.pixels(5, 4, .rgba32f, (0..<20).map { (Float($0), 0, 0, 1) })
    let out = Image.input(1)
    let s = try staged(out, [in0, in1])
    #expect((s.width, s.height) == (3, 2))
    #expect(s[2, 1].x == 7)  // in1 pixel (2, 1) = 1·5 + 2
    #expect(Differential.check(out, inputs: [in0, in1]) == nil)
    // Input 1 smaller than the output: its edge pixels repeat.
    let big = ImageBuffer.pixels(6, 5, .rgba32f, Array(repeating: (0, 0, 0, 1), count: 30))
    let small = try staged(out, [big, in0])
    #expect((small.width, small.height) == (6, 5))
    #expect(Differential.check(out, inputs: [big, in1]) == nil)
    #expect(Differential.check(out, inputs: [big, in0]) == nil)
  }

  // MARK: transcendentals: one definition, the same bits everywhere

  /// The JIT's sin took its sign from `x < 0`, so sin(−0) was +0, and
  /// `pow(+0, −1)` = +∞ instead of −∞ (`fxc fuzz --case 13251294484521220713`).
  @Test func sineOfNegativeZeroIsNegativeZero() throws {
    let input = ImageBuffer.pixels(1, 1, .rgba8, [(0, 0, 0, 0)])
    let s0 = Effect.color("s0") { _, color in sin(color * float4(Expr(-0.0))) }(.input(0))
    let s1 = Effect.layer("s1", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, layer in
      step(float4(0.0), pow(layer.sample(position).x, -1.0))
    }(s0)
    #expect(try staged(s1, [input])[0, 0].x == 0)  // step(0, −∞) = 0
    expectAgreement(s1, [input])
  }

  /// `fract` of a large product amplifies a 1-ulp difference between the JIT's
  /// cos (Cephes) and libm's cosf into 1e-3 (`--case 1683871511316256451`);
  /// now the interpreter's cos is the same polynomial (``Trigonometry``).
  @Test func fractOfLargeCosineProduct() throws {
    let input = ImageBuffer.pixels(1, 3, .rgba32f, [(0, 0, 0, 0), (0, 65504, 0, 0), (0, 0, 0, 0)])
    let s0 = Effect.layer("s0", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, layer in
      layer.sample(float2(1.0)) * cos(distance(float2(0.5), position).rrrr)
    }(.input(0))
    let s1 = Effect.color("s1") { _, color in mix(float4(0.0), float4(1.0), fract(color.y)) }(s0)
    expectAgreement(s1, [input])
  }

  /// LLVM rewrote `pow(2³¹, y)` as `exp2(31·y)`, a few ulps from powf; at a
  /// sample position near 4·10⁶ that moved the bilinear weight by 0.25
  /// (`--case 15668750983570286152`). The JIT and the interpreter now compute
  /// the same ``Transcendentals/pow(_:_:)``, which LLVM cannot rewrite.
  @Test func powerOfTwoBaseIsPowf() throws {
    let input = ImageBuffer.pixels(1, 2, .rgba8, [(0, 0, 0, 0), (128, 64, 32, 255)])
    let s0 = Effect.distortion("s0", sampler: Sampler(filter: .linear, address: .repeat)) { position in
      pow(float2(0.0, float(int(Expr(Float.infinity)))), sqrt(position))
    }(.input(0))
    expectAgreement(s0, [input])
  }

  /// Column order taken for a pass's column-only work (pow of x) while it
  /// also reads rows a million away: the row table of that buffer took
  /// 2 million entries on the stack and crashed (`--case 13057801998645148927`).
  /// Only reaches up to ``LoopPlanner/maxTableReach`` get a table now.
  @Test func columnOrderWithFarRows() throws {
    let input = randomImage(4, 5, seed: 8, format: .rgba32f)
    let s2 = Effect.layer("s2", sampler: Sampler(filter: .linear, address: .transparent)) { position, layer in
      layer.sample(position + float2(0.0, 1000000.0))
    }(.input(0))
    let s3 = Effect.layer("s3", sampler: Sampler(filter: .linear, address: .repeat)) { position, layer in
      let v0: Expr = normalize(floatFromUnsigned(int(position.x)))
      return layer.sample(position) + pow(float4(float2(-1.0), float(int(v0.r)), position.g), -1.0)
    }(s2)
    expectAgreement(s3, [input])
  }

  /// The polynomial path and libm's meet at ±8192; a vector mixing both ranges
  /// gives each lane its own definition, whatever its neighbours.
  @Test func trigonometryIsTheSameBitsInEveryEvaluation() throws {
    let xs: [Float] = [-0.0, 0, 1e-30, 0.5, -3.14159274, 100, 8191.99, 8192, 8192.001, -9000, 1e6, .infinity, .nan]
    let input = ImageBuffer.pixels(xs.count, 1, .rgba32f, xs.map { ($0, $0, 0, 1) })
    let trig = Effect.color("trig") { _, color in float4(sin(color.x), cos(color.y), 0, 1) }(.input(0))
    let compiled = try Pipeline(output: trig).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil)
    #expect(compiled.backend == .jit)
    let jit = try compiled.run([input])
    for (i, x) in xs.enumerated() {
      let (s, c) = (Trigonometry.sin(x), Trigonometry.cos(x))
      #expect(jit[i, 0].x.bitPattern == s.bitPattern || (jit[i, 0].x.isNaN && s.isNaN), "sin(\(x))")
      #expect(jit[i, 0].y.bitPattern == c.bitPattern || (jit[i, 0].y.isNaN && c.isNaN), "cos(\(x))")
      if abs(x) <= 8192 { #expect(abs(Double(s) - Foundation.sin(Double(x))) <= 2e-7, "sin(\(x))") }
    }
  }

  // MARK: relaxed float mode

  /// `normalize(1 − normalize(d))` for a distance d > 0: the inner normalize
  /// is exactly 1 in strict code, so the outer one is `0 / 0`, NaN. Relaxed
  /// code computed the inner one a rounding away (x · 1/|x|), and the outer
  /// then gave −1: a division by a value that may be 0 is discontinuous there,
  /// so what feeds it stays strict. Found by `fxc fuzz --float relaxed`
  /// (`--case 8760827084606469497`).
  @Test func aNormalizeOfAValueThatMayBeZeroStaysStrictInRelaxedCode() throws {
    let input = ImageBuffer.pixels(1, 1, .rgba8, [(0, 0, 0, 0)])
    let out = Effect.layer("s0", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, _ in
      float4(normalize(1.0 - normalize(distance(position, float2(0.0)))))
    }(.input(0))
    #expect(try staged(out, [input])[0, 0].x.isNaN)
    let d = Differential.check(out, inputs: [input], evaluations: [.jit], floatMode: .relaxed)
    #expect(d == nil, "\(d.map(\.description) ?? "")")
  }

  /// The same across passes: `0.5 − normalize(v.xxyz)` (strictly 0, relaxed
  /// a rounding away) materialised, and its log in the next pass — −∞
  /// against −17.5. A channel that a later pass reads into a discontinuous op
  /// stays strict in the pass that writes it. Found by `fxc fuzz --float
  /// relaxed --seed 45` (`--case 13632632673387352905`).
  @Test func aChannelALaterPassTakesTheLogOfStaysStrictInRelaxedCode() throws {
    let input = ImageBuffer.pixels(1, 2, .rgba32f, [(0, 0, 0, 0), (0, 0, 0, 0)])
    let s0 = Effect.layer("s0", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, _ in
      float4(0.5) - normalize((float3(1.0) / position.g).xxyz)
    }(.input(0))
    let s1 = Effect.color("s1") { _, color in log(color) }(s0)
    #expect(try staged(s1, [input])[0, 1].x == -.infinity)
    let d = Differential.check(s1, inputs: [input], evaluations: [.jit], jitSchedule: 2, floatMode: .relaxed)
    #expect(d == nil, "\(d.map(\.description) ?? "")")
  }

  /// `∞ · ((y · 2⁻¹⁴⁹) / 0.5)` at y = ½: strictly the product underflows to
  /// 0 and ∞ · 0 is NaN; relaxed code multiplied by 2 first (2⁻¹⁴⁹ survives)
  /// and gave ∞. A product with a value that may be infinite is
  /// discontinuous at 0. Found by `fxc fuzz --float relaxed --seed 45`
  /// (`--case 5272447289783830655`).
  @Test func aProductWithInfinityStaysStrictInRelaxedCode() throws {
    let input = ImageBuffer.pixels(1, 1, .rgba32f, [(0, 0, 0, 0)])
    let out = Effect.layer("s0", sampler: Sampler(filter: .linear, address: .clampToEdge)) { position, _ in
      float4(Expr(Float.infinity)) * ((position.g * Expr(Float.leastNonzeroMagnitude)) / 0.5)
    }(.input(0))
    #expect(try staged(out, [input])[0, 0].x.isNaN)
    let d = Differential.check(out, inputs: [input], evaluations: [.jit], floatMode: .relaxed)
    #expect(d == nil, "\(d.map(\.description) ?? "")")
  }

  // MARK: geometry: a resampler's window is exactly the definition's

  /// The fast resampler padded every window to the widest one, shifting it
  /// inside the image with weights of 0: `0 · −∞` is NaN, so an infinite
  /// pixel just outside a window reached the output. Found by the fuzzer's
  /// first geometry cases (seed 5, graph 4986769667109409684): 2 × 1 → 4 × 19,
  /// linear; output column 3 reads only pixel 1 (alpha 0), not pixel 0 (−∞).
  @Test func aResampledPixelReadsOnlyItsWindow() throws {
    let input = ImageBuffer.pixels(2, 1, .rgba32f, [(0, 0, 0, -Float.infinity), (0, 0, 0, 0)])
    let output = Image.input(0).geometry(.resize(Resize(width: 4, height: 19, fit: .fill, filter: .linear)))
    let staged = try Interpreter.runStaged(PipelineGraph(output: output), inputs: [input])
    #expect(staged[3, 0].w == 0 && staged[0, 0].w == -.infinity)
    expectAgreement(output, [input])
  }

  /// RangeAnalysis bounded `pow(x, y)` below by 0 for every x ≥ 0 — but the
  /// facts do not tell −0 from +0, and `pow(−0, −1)` is −∞: a
  /// `clamp(…, 0, 0)` after it was taken for a no-op, and the lowered kernel
  /// gave −∞ where the staged interpreter gives 0. Found by `fxc fuzz -n 3000
  /// --seed 11` (graph 1626800894084005123), whose geometry cases went past
  /// the seeds run before.
  @Test func powOfAZeroThatMayBeNegativeIsNotBoundedBelow() throws {
    let input = ImageBuffer.pixels(2, 2, .rgba16, [(0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)])
    let zero = Effect.color("−0") { _, _ in float4(Expr(-0.0)) }(.input(0))
    let output = Effect.layer("pow", sampler: Sampler(filter: .linear, address: .clampToEdge)) { _, layer in
      float4(clamp(pow(layer.sample(float2(1.0), Sampler(filter: .linear, address: .transparent)), -1.0).xyz, float3(0.0), float3(0.0)), 0.0)
    }(zero)
    #expect(try staged(output, [input])[0, 0] == SIMD4(0, 0, 0, 0))
    expectAgreement(output, [input])
  }
}
