import FX
import FXTestSupport
import Foundation
import Testing

/// `half` as an Apple GPU computes it (``HalfPrecision/metal``): the IR's
/// `roundHalf` against binary16 values worked out by hand, the JIT's
/// integer-and-float form against the interpreter's at every x86-64 level
/// this machine runs, and a shader's results against hand-computed fp16
/// arithmetic (and against Swift's `Float16`, a software binary16 of its
/// own, where a sum of many steps is easier to check that way).
struct MetalHalfTests {
  /// (x, the nearest binary16 value), by hand: 1/3 is 0x3555; 2049 and
  /// 2051 are ties between neighbours 2 apart (to the even significand);
  /// 65,520 is the tie between 65,504 and 2¹⁶ (even: 2¹⁶, which overflows);
  /// below 2⁻¹⁴ the spacing is 2⁻²⁴ (2⁻²⁵ is a tie to 0, 3·2⁻²⁵ to 2⁻²³,
  /// 1023.5·2⁻²⁴ to 1024·2⁻²⁴ = 2⁻¹⁴).
  static let cases: [(Float, Float)] = [
    (1.0 / 3, 0.333251953125), (0.1, 0.0999755859375), (-0.1, -0.0999755859375), (0.2, 0.199951171875),
    (2049, 2048), (2051, 2052), (65504, 65504), (65519.996, 65504), (65520, .infinity), (-70000, -.infinity),
    (0x1p-25, 0), (-0x1p-25, -0.0), (0x3p-25, 0x1p-23), (3e-8, 0x1p-24), (1e-8, 0), (0x1p-14, 0x1p-14),
    (0x1.ffcp-15, 0x1p-14), (1e-40, 0), (.infinity, .infinity), (-0.0, -0.0), (1, 1), (1.00048828125, 1),
    (1.000732421875, 1.0009765625),
  ]

  @Test func roundHalfIsTheNearestBinary16() {
    for (x, expected) in Self.cases {
      let r = Semantics.roundHalf(x)
      #expect(r.bitPattern == expected.bitPattern, "roundHalf(\(x)) = \(r), by hand \(expected)")
    }
    #expect(Semantics.roundHalf(.nan).isNaN)
  }

  /// The JIT's bits equal the interpreter's for the hand cases and for
  /// 4,096 floats spread over every exponent, at each level this machine runs.
  @Test func theJITRoundsAsTheInterpreterAtEveryLevel() throws {
    var values = Self.cases.map(\.0) + [.nan, -.nan, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
    var rng = SplitMix64(seed: 7)
    while values.count % 4 != 0 || values.count < 4096 {
      let bits = UInt32(truncatingIfNeeded: rng.next())
      // Half of them any float, half with exponents 2⁻³¹…2¹⁷ (binary16's range and its edges).
      values.append(Float(bitPattern: values.count % 2 == 0 ? bits : (bits & 0x8000_0000) | (0x3000_0000 + bits % 0x1800_0000)))
    }
    let (w, h) = (values.count / 4 / 8, 8)
    let input = try ImageBuffer(width: w, height: h, format: .rgba32f)
    for y in 0..<h {
      for x in 0..<w {
        let k = 4 * (y * w + x)
        input[x, y] = SIMD4(values[k], values[k + 1], values[k + 2], values[k + 3])
      }
    }
    let effect = Effect.color("roundHalf") { _, c in roundHalf(c) }
    let pipeline = try Pipeline(effect)
    let reference = try Interpreter.runStaged(pipeline.graph, inputs: [input])
    var levels = 0
    for level in 0..<3 where Target.x86Level(level).cannotRun(on: .host) == nil {
      let compiled = try pipeline.compile(
        inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil, target: .x86Level(level))
      let out = try compiled.run([input])
      for y in 0..<h {
        for x in 0..<w {
          let (a, b) = (reference[x, y], out[x, y])
          for c in 0..<4 {
            #expect(
              a[c].bitPattern == b[c].bitPattern || (a[c].isNaN && b[c].isNaN),
              "level \(level): roundHalf(\(input[x, y][c])) JIT \(b[c]), interpreter \(a[c])")
          }
        }
      }
      levels += 1
    }
    #expect(levels > 0)
  }

  static let source = """
    [[ stitchable ]] half4 halves(float2 position, half4 color) {
      half third = 1.0h / 3.0h;
      half big = 300.0h * 300.0h;
      half tiny = 0.0001h * 0.001h;
      half s = 0;
      for (int i = 0; i < 10; i++) { s += 0.1h; }
      return half4(third, isinf(big) ? 1 : 0, float(tiny) * 1e7, s);
    }

    [[ stitchable ]] half4 passThrough(float2 position, half4 color) {
      return color;
    }
    """

  /// By hand, in binary16: 1/3 is 0x3555 = 0.333251953125; 300·300 =
  /// 90,000 overflows to ∞; 0.0001h = 1.638671875·2⁻¹⁴ and 0.001h =
  /// 1.0244140625·2⁻¹⁰, whose product 1.0006·10⁻⁷ is 1.68·2⁻²⁴, a subnormal
  /// rounded to 2·2⁻²⁴; ten additions of 0.1h (1638·2⁻¹⁴), each rounded to
  /// the spacing of its binade (2⁻¹³, 2⁻¹², 2⁻¹¹, 2⁻¹⁰), in units of 2⁻¹⁴:
  /// 1638, 3276, 4912 (a tie), 6552 (a tie), 8192 (a tie), 9832, 11472,
  /// 13112, 14752, 16384 = 1.0 (Swift's Float16 agrees). In fp32 (the
  /// default) the same shader gives 1/3, 90,000 (not ∞), 1.0·10⁻⁷ and
  /// 1.0000001.
  @Test func aShadersHalfArithmeticIsTheGPUs() throws {
    var s = Float16(0)
    for _ in 0..<10 { s += Float16(0.1) }
    let input = randomImage(4, 3, seed: 2, format: .rgba32f)
    for half in HalfPrecision.allCases {
      let library = try ShaderLibrary(source: Self.source, path: "halves.metal", half: half)
      let effect = try library.function(named: "halves").bind([]).effect
      let (out, _, difference) = try MetalSupport.run(effect, [input])
      #expect(difference == 0, "\(half): the JIT differs from the interpreter by \(difference)")
      let pixel = out[1, 1]
      if half == .metal {
        // tiny·10⁷ is fp32 (a float literal), then rounded to binary16 by the half4 constructor.
        let z = Float(Float16(Float(0x1p-23) * 1e7))
        #expect(pixel == SIMD4(0.333251953125, 1, z, 1) && z == 1.1923828125, "\(pixel)")
        #expect(Float(s) == 1, "Swift's Float16: \(s)")
      } else {
        var t = Float(0)
        for _ in 0..<10 { t += 0.1 }
        #expect(pixel.x == Float(1) / 3 && pixel.y == 0 && abs(pixel.z - 1) < 1e-6 && pixel.w == t, "\(pixel)")
      }
    }
  }

  /// The colour arrives as half4: under `.metal` it is rounded as the GPU
  /// receives it (0.2 → 0.199951171875), under `.float` it is untouched.
  @Test func theInputColourIsHalf() throws {
    let input = try ImageBuffer(width: 2, height: 2, format: .rgba32f)
    for y in 0..<2 { for x in 0..<2 { input[x, y] = SIMD4(0.2, 0.1, 1.0 / 3, 1) } }
    for half in HalfPrecision.allCases {
      let library = try ShaderLibrary(source: Self.source, path: "halves.metal", half: half)
      let (out, _, difference) = try MetalSupport.run(try library.function(named: "passThrough").bind([]).effect, [input])
      #expect(difference == 0)
      let expected: SIMD4<Float> = half == .metal ? SIMD4(0.199951171875, 0.0999755859375, 0.333251953125, 1) : SIMD4(0.2, 0.1, 1.0 / 3, 1)
      #expect(out[1, 0] == expected, "\(half): \(out[1, 0])")
    }
  }
}
