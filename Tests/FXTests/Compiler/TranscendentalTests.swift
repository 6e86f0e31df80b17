import FX
import Foundation
import Testing

/// The JIT's vectorised sin and cos against libm's double-precision ones:
/// within 2e-7 absolute for |x| ≤ 8192 (the polynomial's stated bound) and,
/// after the exact reduction, beyond it; NaN for NaN and ±∞; the JIT's bits
/// equal to ``Trigonometry``'s.
struct TrigonometryTests {
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

  /// Past ±8192, over the whole float range: a uniform draw of bit patterns,
  /// floats next to multiples of π/4 (where the reduction cancels most), the
  /// largest float; against libm's double sin and cos rounded once.
  @Test func largeArgumentsAreReducedExactly() throws {
    var rng = SplitMix(seed: 12)
    var xs: [Float] = [8192.001, -8193, 123_456.7, -3e9, 1e30, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]
    xs += [Float(16_777_216 * Double.pi / 4), Float(1e10 * Double.pi / 4), 102_940.4, 1.0e22, 3.4e38]
    for _ in 0..<6000 {
      let x = Float(bitPattern: UInt32.random(in: 0x4600_0000..<0x7f80_0000, using: &rng))
      xs.append(Bool.random(using: &rng) ? x : -x)
    }
    var worst: Float = 0
    var mismatches: [String] = []
    for (x, r) in zip(xs, try evaluate(xs)) {
      let (s, c) = (Float(Foundation.sin(Double(x))), Float(Foundation.cos(Double(x))))
      worst = max(worst, abs(r.sin - s), abs(r.cos - c))
      let (ws, wc) = (Trigonometry.sin(x), Trigonometry.cos(x))
      if r.sin.bitPattern != ws.bitPattern || r.cos.bitPattern != wc.bitPattern { mismatches.append("\(x)") }
    }
    #expect(worst <= 2e-7, "max error \(worst)")
    #expect(mismatches.count == 0, "JIT ≠ Trigonometry at \(mismatches.count) of \(xs.count), e.g. \(mismatches.prefix(5))")
    let special = try evaluate([0.5, .nan, .infinity, -.infinity] + (4..<17).map(Float.init))
    #expect(special[1...3].allSatisfy { $0.sin.isNaN && $0.cos.isNaN })
  }
}

/// exp, log and atan2 (``Transcendentals``): at most 1 ulp from the true
/// value (libm's double-precision functions, rounded once to float) over the
/// whole float range; pow within `1.5·(1 + |y·log₂x|)` ulp; C11's special
/// values; and the JIT's vector code equal to ``Transcendentals`` bit for bit,
/// lanes of both paths mixed in a vector.
struct TranscendentalTests {
  /// Distance in floats between `a` and `b` (0 when equal or both NaN).
  func ulps(_ a: Float, _ b: Float) -> Int {
    if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : .max }
    func ordered(_ x: Float) -> Int { x.sign == .minus ? -Int(x.magnitude.bitPattern) : Int(x.bitPattern) }
    return abs(ordered(a) - ordered(b))
  }

  /// A float of any sign and magnitude (uniform over bit patterns, NaN and ±∞ excluded).
  func anyFloat(_ rng: inout SplitMix) -> Float {
    while true {
      let x = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
      if x.isFinite { return x }
    }
  }

  @Test func expWithinOneUlp() {
    var rng = SplitMix(seed: 21)
    var xs: [Float] = [0, -0.0, 1, -1, 1e-30, -1e-30, 88.72, 88.73, -87.33, -103.9, -103.98, -104, 0.3465736, -0.3465736]
    for _ in 0..<20000 { xs.append(Float.random(in: -105...89, using: &rng)) }
    for _ in 0..<5000 { xs.append(anyFloat(&rng)) }
    var worst = 0
    for x in xs { worst = max(worst, ulps(Transcendentals.exp(x), Float(Foundation.exp(Double(x))))) }
    #expect(worst <= 1, "exp: \(worst) ulps")
  }

  @Test func logWithinOneUlp() {
    var rng = SplitMix(seed: 22)
    var xs: [Float] = [1, 2, 0.5, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 1.4142135, 1.4142137]
    xs += [1 + .ulpOfOne, 1 - .ulpOfOne / 2, 0.70710677, 3e-39]
    for _ in 0..<20000 { xs.append(anyFloat(&rng).magnitude) }
    for _ in 0..<5000 { xs.append(Float.random(in: 0.5...2, using: &rng)) }
    var worst = 0
    for x in xs where x > 0 { worst = max(worst, ulps(Transcendentals.log(x), Float(Foundation.log(Double(x))))) }
    #expect(worst <= 1, "log: \(worst) ulps")
  }

  /// pow's stated bound, `1.5·(1 + |y·log₂x|)` ulp of the true value, as a
  /// distance in floats from the correctly rounded one (half an ulp more).
  func powBound(_ x: Float, _ y: Float) -> Double {
    1.5 * (1 + Swift.abs(Double(y) * Foundation.log2(Double(x)))) + 0.5
  }

  @Test func powWithinItsBound() {
    var rng = SplitMix(seed: 23)
    var pairs: [(Float, Float)] = [(2, 10), (2, -149), (2, 127), (2, 128), (10, 38), (0.5, 149.5), (1, 1e30), (3, 0.5)]
    pairs += [(1e-45, 0.5), (3e-39, 1.2), (0.5, -126.5), (1.5, 218.8), (0.70710677, 3), (1.4142134, -7)]
    for _ in 0..<20000 { pairs.append((Float.random(in: 0...1, using: &rng), Float.random(in: 0.1...10, using: &rng))) }
    for _ in 0..<10000 { pairs.append((anyFloat(&rng).magnitude, Float.random(in: -40...40, using: &rng))) }
    for _ in 0..<5000 { pairs.append((anyFloat(&rng).magnitude, anyFloat(&rng))) }
    // Near 1 with large exponents: where y·log₂x amplifies an error in log₂x.
    for _ in 0..<5000 {
      let x = 1 + Float(Int.random(in: -2000...2000, using: &rng)) * .ulpOfOne
      pairs.append((x, Float.random(in: -1e7...1e7, using: &rng)))
    }
    var worst = 0.0, gammaWorst = 0
    for (x, y) in pairs {
      let d = ulps(Transcendentals.pow(x, y), Float(Foundation.pow(Double(x), Double(y))))
      worst = max(worst, Double(d) / powBound(x, y))
      if x >= 1 / 255 && x <= 1 && y >= 0.1 && y <= 10 { gammaWorst = max(gammaWorst, d) }
    }
    #expect(worst <= 1, "pow: \(worst) of its bound")
    #expect(pairs.allSatisfy { x, _ in Transcendentals.pow(x, 1) == x }, "pow(x, 1) is x")
    // The gammas of images (x in 1/255…1, y in 0.1…10): |y·log₂x| ≤ 80, but in fact a few ulps.
    #expect(gammaWorst <= 8, "pow on [1/255, 1]^[0.1, 10]: \(gammaWorst) ulps")
  }

  @Test func atan2WithinOneUlp() {
    var rng = SplitMix(seed: 24)
    var pairs: [(Float, Float)] = [(1, 1), (-1, 1), (1, -1), (-1, -1), (0, -1), (-0.0, -1), (1, 0), (-1, -0.0), (1e-30, 1e30)]
    pairs += [(0.41421357, 1), (0.41421354, 1), (1e30, 1e-30), (3, -1e-40)]
    for _ in 0..<20000 { pairs.append((Float.random(in: -2...2, using: &rng), Float.random(in: -2...2, using: &rng))) }
    for _ in 0..<10000 { pairs.append((anyFloat(&rng), anyFloat(&rng))) }
    var worst = 0
    for (y, x) in pairs { worst = max(worst, ulps(Transcendentals.atan2(y, x), Float(Foundation.atan2(Double(y), Double(x))))) }
    #expect(worst <= 1, "atan2: \(worst) ulps")
  }

  /// C11 Annex F's special cases, which libm's float functions implement.
  static let specials: [Float] = [.nan, .infinity, -.infinity, 0, -0.0, 1, -1, 2, -2, 0.5, -0.5, 3, -3, 1e-40, -1e-40]

  /// Where an operand is NaN, ±∞ or ±0 the result is exact (C11 F.10), so
  /// libm's float function must agree bit for bit; elsewhere within 1 ulp.
  @Test func specialValuesFollowC11() {
    func special(_ x: Float) -> Bool { !x.isFinite || x == 0 }
    for x in Self.specials {
      #expect(ulps(Transcendentals.exp(x), Foundation.exp(x)) <= (special(x) ? 0 : 1), "exp(\(x))")
      #expect(ulps(Transcendentals.log(x), Foundation.log(x)) <= (special(x) ? 0 : 1), "log(\(x))")
      for y in Self.specials {
        let bound = special(x) || special(y) ? 0 : 1
        let powBound = special(x) || special(y) ? 0 : self.powBound(Swift.abs(x), y)
        #expect(Double(ulps(Transcendentals.pow(x, y), Foundation.pow(x, y))) <= powBound, "pow(\(x), \(y))")
        #expect(ulps(Transcendentals.atan2(x, y), Foundation.atan2(x, y)) <= bound, "atan2(\(x), \(y))")
      }
    }
  }

  /// fxc's own special values (no libm): C11 F.10.4.4 and F.10.1.4 worked
  /// out by hand, signs included, and a negative base's integer powers.
  @Test func specialValuesByHand() {
    let pi = Float(Double.pi), inf = Float.infinity
    let pows: [(Float, Float, Float)] = [
      (-2, 3, -8), (-2, 2, 4), (-0.5, -1, -2), (-0.0, -1, -inf), (-0.0, -2, inf), (-0.0, 3, -0.0), (-0.0, 0.5, 0),
      (-inf, 3, -inf), (-inf, -3, -0.0), (-inf, 2, inf), (-inf, 0.5, inf), (-inf, -0.5, 0), (inf, -2, 0), (inf, 0.5, inf),
      (-1, inf, 1), (-1, -inf, 1), (0.5, -inf, inf), (2, -inf, 0), (0.5, inf, 0), (-3, inf, inf), (.nan, 0, 1), (1, .nan, 1),
      (-2, 16_777_216, inf), (-0.5, -16_777_216, inf), (-1, 16_777_215, -1), (-1, -16_777_215, -1),
    ]
    for (x, y, want) in pows {
      let got = Transcendentals.pow(x, y)
      #expect(got.bitPattern == want.bitPattern, "pow(\(x), \(y)) = \(got), want \(want)")
    }
    for (x, y) in [(Float(-2), Float(0.5)), (-0.5, -1.5), (.nan, 1), (2, .nan), (-inf, .nan)] {
      #expect(Transcendentals.pow(x, y).isNaN, "pow(\(x), \(y))")
    }
    let atans: [(Float, Float, Float)] = [
      (0, -0.0, pi), (-0.0, -0.0, -pi), (0, 0, 0), (-0.0, 0, -0.0), (0, -3, pi), (-0.0, 3, -0.0),
      (inf, inf, Float(Double.pi / 4)), (-inf, -inf, -Float(3 * Double.pi / 4)), (inf, -2, Float(Double.pi / 2)),
      (1, -inf, pi), (-1, inf, -0.0), (-1, -inf, -pi),
    ]
    for (y, x, want) in atans {
      let got = Transcendentals.atan2(y, x)
      #expect(got.bitPattern == want.bitPattern, "atan2(\(y), \(x)) = \(got), want \(want)")
    }
    #expect(Transcendentals.atan2(.nan, 1).isNaN && Transcendentals.atan2(1, .nan).isNaN)
    #expect(Trigonometry.sin(.infinity).isNaN && Trigonometry.cos(-.infinity).isNaN && Trigonometry.sin(.nan).isNaN)
  }

  /// The special cases' branch gives ``Transcendentals``' bits at every level
  /// the host runs: negative bases, ±0, ±∞ and NaN among ordinary lanes.
  @Test(arguments: Target.runnableLevels(on: .host).map(\.name))
  func specialCasesAreTheSameBitsAtEveryLevel(level: String) throws {
    let target = try Target.named(level, on: .host)
    var values = Self.specials + [-0.75, -1.5, -7, 4.5, -4.5, 16_777_217, -16_777_216, 1e30, -1e30, 0.3]
    values += values.map { -$0 }
    let operands = values.flatMap { x in values.map { y in (x, y) } }
    let effect = Effect.color("special") { _, c in float4(pow(c.r, c.g), atan2(c.r, c.g), sin(c.r), cos(c.g)) }
    let input = try ImageBuffer(width: operands.count, height: 1, format: .rgba32f)
    for (i, (x, y)) in operands.enumerated() { input[i, 0] = SIMD4(x, y, 0, 1) }
    let compiled = try Pipeline(effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil, target: target)
    let out = try compiled.run([input])
    var mismatches: [String] = []
    for (i, (x, y)) in operands.enumerated() {
      let want = [Transcendentals.pow(x, y), Transcendentals.atan2(x, y), Trigonometry.sin(x), Trigonometry.cos(y)]
      for (name, (got, w)) in zip(["pow", "atan2", "sin", "cos"], zip([out[i, 0].x, out[i, 0].y, out[i, 0].z, out[i, 0].w], want))
      where !(got.bitPattern == w.bitPattern || (got.isNaN && w.isNaN)) {
        mismatches.append("\(name)(\(x), \(y)): JIT \(got), Transcendentals \(w)")
      }
    }
    #expect(mismatches.count == 0, "\(level): \(mismatches.count) differ, e.g. \(mismatches.prefix(5))")
  }

  /// exp(r), log(r), pow(r, g) and atan2(r, g) of each pixel, by the JIT.
  func jit(_ operands: [(Float, Float)]) throws -> [SIMD4<Float>] {
    let effect = Effect.color("transcendentals") { _, c in float4(exp(c.r), log(c.r), pow(c.r, c.g), atan2(c.r, c.g)) }
    let input = try ImageBuffer(width: operands.count, height: 1, format: .rgba32f)
    for (i, (x, y)) in operands.enumerated() { input[i, 0] = SIMD4(x, y, 0, 1) }
    let compiled = try Pipeline(effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil)
    #expect(compiled.backend == .jit)
    let out = try compiled.run([input])
    return (0..<operands.count).map { out[$0, 0] }
  }

  /// pow of an 8-bit channel (x in 0…1, never NaN) by a constant exponent:
  /// the range analysis proves the operands ordinary (``RangeProofs/ordinaryPow``)
  /// and the JIT drops its test and special-case branch, with the same bits.
  @Test func provedOrdinaryPowIsTheSameBits() throws {
    let input = try ImageBuffer(width: 256, height: 1, format: .rgba8)
    for i in 0..<256 { input[i, 0] = SIMD4(Float(i) / 255, Float(255 - i) / 255, 0.5, 1) }
    for exponent: Float in [0.8, 2.4, 1 / 2.4, 2, -0.5, 0, 7.25] {
      let effect = Effect.color("gamma") { _, c in float4(pow(c.r, Expr(exponent)), pow(c.g, Expr(exponent)), 0, 1) }
      let compiled = try Pipeline(effect).compile(inputFormats: [.rgba8], outputFormat: .rgba32f, cache: nil)
      let out = try compiled.run([input])
      for i in 0..<256 {
        for (c, v) in [(0, input[i, 0].x), (1, input[i, 0].y)] {
          let want = Transcendentals.pow(v, exponent), got = out[i, 0][c]
          #expect(got.bitPattern == want.bitPattern, "pow(\(v), \(exponent)): JIT \(got), Transcendentals \(want)")
        }
      }
    }
  }

  /// pow of a value clamped to 0…1 by an exponent that keeps `y·log₂x` in
  /// −125…127 even for subnormal x (``RangeProofs/normalPow``): the JIT
  /// scales by 2ᵏ once, without the clamp of the exponent, and gives the
  /// same bits on subnormals, the smallest normal, 0, −0 and ordinary values.
  /// An exponent that could leave that range (2.4: 2.4·log₂(2⁻¹⁴⁹) = −358) is
  /// not so proved.
  @Test func provedNormalPowIsTheSameBits() throws {
    var rng = SplitMix(seed: 27)
    var xs: [Float] = [0, -0, 1, .leastNonzeroMagnitude, .leastNormalMagnitude, Float.leastNormalMagnitude.nextDown, 1e-40, 0x1p-130, 0.5]
    xs += (0..<200).map { _ in Float.random(in: 0...1, using: &rng) }
    xs += (0..<50).map { _ in Float(bitPattern: UInt32.random(in: 1..<0x0080_0000, using: &rng)) }  // subnormals
    let input = try ImageBuffer(width: xs.count, height: 1, format: .rgba32f)
    for (i, x) in xs.enumerated() { input[i, 0] = SIMD4(x, 0, 0, 1) }
    for (exponent, normal) in [(Float(0.8), true), (0.83, true), (1 / 2.4, true), (-0.5, true), (0.25, true), (2.4, false)] {
      let effect = Effect.color("gamma") { _, c in
        let x = clamp(c.r, Expr(Float(0)), Expr(Float(1)))
        return float4(pow(x, Expr(exponent)), 0, 0, 1)
      }
      let compiled = try Pipeline(effect).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil)
      #expect(compiled.plan.loopNests.map(\.proofs.normalPow.count) == [normal ? 1 : 0], "pow(x, \(exponent))")
      let out = try compiled.run([input])
      for (i, x) in xs.enumerated() {
        let want = Transcendentals.pow(Swift.min(Swift.max(x, 0), 1), exponent), got = out[i, 0].x
        #expect(got.bitPattern == want.bitPattern, "pow(\(x), \(exponent)): JIT \(got), Transcendentals \(want)")
      }
    }
  }

  /// pow at every x86-64 level this machine runs: the AVX-512 code (16
  /// lanes) reduces x with getmant/getexp and scales with rndscale/scalef,
  /// the narrower levels with bit manipulation; both must give
  /// Transcendentals' bits. The operands straddle the reduction's boundary
  /// (mantissa field 0x3504f3, where m moves from [1, √2) to [√½, 1)) in
  /// normal and subnormal binades, with exponents whose results are normal,
  /// subnormal, 0 and +∞, through the proved path (x clamped to 0…1 by a
  /// constant exponent) and the general one.
  @Test(arguments: Target.runnableLevels(on: .host).map(\.name))
  func powIsTheSameBitsAtEveryLevel(level: String) throws {
    let target = try Target.named(level, on: .host)
    var rng = SplitMix(seed: 28)
    var xs: [Float] = [0, 1, 0.5, 2, .leastNonzeroMagnitude, .leastNormalMagnitude, Float.leastNormalMagnitude.nextDown]
    for field: UInt32 in [0x35_04f2, 0x35_04f3, 0x35_04f4, 0, 0x7f_ffff] {
      for exponent: UInt32 in [0, 1, 2, 100, 126, 127, 128, 200] { xs.append(Float(bitPattern: exponent << 23 | field)) }
    }
    xs += (0..<300).map { _ in Float.random(in: 0...1, using: &rng) }
    xs += (0..<100).map { _ in Float(bitPattern: UInt32.random(in: 1..<0x7f80_0000, using: &rng)) }
    let ys: [Float] = [0.8, 1 / 2.4, 2.4, -0.5, 7.25, 80, -80, 150, -150]
    let input = try ImageBuffer(width: xs.count, height: ys.count, format: .rgba32f)
    for (j, y) in ys.enumerated() { for (i, x) in xs.enumerated() { input[i, j] = SIMD4(x, y, 0, 1) } }
    let general = Effect.color("pow") { _, c in float4(pow(c.r, c.g), 0, 0, 1) }
    let compiled = try Pipeline(general).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil, target: target)
    let out = try compiled.run([input])
    var mismatches: [String] = []
    for (j, y) in ys.enumerated() {
      for (i, x) in xs.enumerated() {
        let want = Transcendentals.pow(x, y), got = out[i, j].x
        if got.bitPattern != want.bitPattern && !(got.isNaN && want.isNaN) { mismatches.append("pow(\(x), \(y)): \(got) ≠ \(want)") }
      }
    }
    for y: Float in [0.8, 1 / 2.4, 0.25] {
      let proved = Effect.color("gamma") { _, c in float4(pow(clamp(c.r, Expr(Float(0)), Expr(Float(1))), Expr(y)), 0, 0, 1) }
      let compiled = try Pipeline(proved).compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil, target: target)
      #expect(compiled.plan.loopNests.map(\.proofs.normalPow.count) == [1], "pow(x, \(y)) proved normal")
      let out = try compiled.run([input])
      for (i, x) in xs.enumerated() {
        let want = Transcendentals.pow(Swift.min(Swift.max(x, 0), 1), y), got = out[i, 0].x
        if got.bitPattern != want.bitPattern { mismatches.append("proved pow(\(x), \(y)): \(got) ≠ \(want)") }
      }
    }
    #expect(mismatches.isEmpty, "\(level): \(mismatches.count) differ, e.g. \(mismatches.prefix(5))")
  }

  @Test func jitIsTheSameBits() throws {
    var rng = SplitMix(seed: 25)
    var operands: [(Float, Float)] = []
    // Specials scattered among ordinary lanes, so that vectors of both kinds (all
    // ordinary; some lanes taking libm) occur at every lane position.
    // A last-bit difference in a series term shows up in few results; pow with
    // large exponents amplifies it (y·ln x), so that class is the largest.
    for _ in 0..<40000 {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0: operands.append((Self.specials.randomElement(using: &rng)!, Self.specials.randomElement(using: &rng)!))
      case 1: operands.append((anyFloat(&rng), anyFloat(&rng)))
      case 2: operands.append((Float.random(in: -1...1, using: &rng), Float.random(in: -3...3, using: &rng)))
      case 3, 4: operands.append((Float.random(in: 0...1, using: &rng), Float.random(in: 0.1...5, using: &rng)))
      default: operands.append((Float.random(in: 0.7...1.42, using: &rng), Float.random(in: -80...80, using: &rng)))
      }
    }
    let out = try jit(operands)
    var mismatches: [String] = []
    for ((x, y), p) in zip(operands, out) {
      let expected = [Transcendentals.exp(x), Transcendentals.log(x), Transcendentals.pow(x, y), Transcendentals.atan2(x, y)]
      for (name, (got, want)) in zip(["exp", "log", "pow", "atan2"], zip([p.x, p.y, p.z, p.w], expected))
      where !(got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN)) {
        mismatches.append("\(name)(\(x), \(y)): JIT \(got), Transcendentals \(want)")
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.count) differ, e.g. \(mismatches.prefix(5))")
  }

  /// On an x86-64 without AVX or FMA (4 lanes; LLVM calls libm's `fma` for
  /// each fused multiply-add) the kernel gives the same bits as on this host.
  @Test func sameBitsWithoutAVXOrFMA() throws {
    let host = Target.host
    guard host.triple.hasPrefix("x86_64") else { return }
    let baseline = Target(triple: host.triple, cpuName: "x86-64", features: "+sse2,-avx,-avx2,-fma,-avx512f")
    #expect(baseline.lanes == 4)
    var rng = SplitMix(seed: 26)
    let operands: [(Float, Float)] = (0..<999).map { i in
      i % 7 == 0
        ? (Self.specials.randomElement(using: &rng)!, Self.specials.randomElement(using: &rng)!)
        : (Float.random(in: 0.7...1.42, using: &rng), Float.random(in: -80...80, using: &rng))
    }
    let effect = Effect.color("transcendentals") { _, c in float4(exp(c.r), log(c.r), pow(c.r, c.g), atan2(c.r, c.g)) }
    let input = try ImageBuffer(width: operands.count, height: 1, format: .rgba32f)
    for (i, (x, y)) in operands.enumerated() { input[i, 0] = SIMD4(x, y, 0, 1) }
    let (kernel, _) = try Pipeline(effect).lower()
    let layout = KernelLayout(inputs: [.rgba32f], output: .rgba32f)
    let output = try ImageBuffer(width: operands.count, height: 1, format: .rgba32f)
    try CompiledKernel(kernel, layout: layout, target: baseline).run(inputs: [input], output: output)
    let native = try jit(operands)
    for i in 0..<operands.count {
      let (a, b) = (output[i, 0], native[i])
      for c in 0..<4 { #expect(a[c].bitPattern == b[c].bitPattern || (a[c].isNaN && b[c].isNaN), "\(operands[i]) channel \(c)") }
    }
  }
}
