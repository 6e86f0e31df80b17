import FX
import Foundation
import Testing

/// composite against W3C Compositing and Blending Level 1 written on
/// straight colours (§9.1's general formula with each mode's B(Cb, Cs)),
/// independently of the premultiplied forms the effect uses; convolve
/// against the sum worked out per pixel.
@Suite struct CompositeTests {
  /// B(Cb, Cs) for one channel, as the W3C specification states it.
  static func blend(_ mode: BlendMode, _ cb: Double, _ cs: Double) -> Double {
    func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? b * 2 * s : 1 - (1 - b) * (1 - (2 * s - 1)) }
    switch mode {
    case .over: return cs
    case .multiply: return cb * cs
    case .screen: return cb + cs - cb * cs
    case .overlay: return hardLight(cs, cb)
    case .darken: return min(cb, cs)
    case .lighten: return max(cb, cs)
    case .difference: return abs(cb - cs)
    case .softLight:
      if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
      let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
      return cb + (2 * cs - 1) * (d - cb)
    }
  }

  /// A premultiplied result from straight source and backdrop colours.
  static func expected(_ mode: BlendMode, source s: SIMD4<Double>, backdrop b: SIMD4<Double>) -> SIMD4<Double> {
    let (as_, ab) = (s.w, b.w)
    var out = SIMD4<Double>(0, 0, 0, as_ + ab * (1 - as_))
    for c in 0..<3 {
      out[c] = as_ * (1 - ab) * s[c] + as_ * ab * blend(mode, b[c], s[c]) + (1 - as_) * ab * b[c]
    }
    return out
  }

  @Test(arguments: BlendMode.allCases)
  func compositeFollowsTheW3CFormulas(mode: BlendMode) throws {
    let base = randomImage(9, 7, seed: 21, format: .rgba32f)
    let overlay = randomImage(4, 3, seed: 22, format: .rgba32f)
    let opacity: Float = 0.75
    let pipeline = try Pipeline(output: composite(.input(1), x: 2, y: 3, opacity: Expr(opacity), mode: mode)(.input()))
    let out = try pipeline.compile(inputFormats: [.rgba32f, .rgba32f], outputFormat: .rgba32f, cache: nil).run([base, overlay])
    var worst = 0.0
    for y in 0..<7 {
      for x in 0..<9 {
        let b = SIMD4<Double>(base[x, y])
        let inside = (2..<6).contains(x) && (3..<6).contains(y)
        let s = inside ? SIMD4<Double>(overlay[x - 2, y - 3]) * Double(opacity) : SIMD4<Double>()
        // Straight colours (0 where transparent) for the formula.
        func straight(_ p: SIMD4<Double>) -> SIMD4<Double> { p.w > 0 ? SIMD4(p.x / p.w, p.y / p.w, p.z / p.w, p.w) : SIMD4() }
        let e = Self.expected(mode, source: straight(s), backdrop: straight(b))
        let d = SIMD4<Double>(out[x, y]) - e
        worst = max(worst, [d.x, d.y, d.z, d.w].map(abs).max()!)
      }
    }
    #expect(worst <= 2e-6, "\(mode): \(worst)")
  }

  /// Gravity places the overlay in the corner or the middle (rounded down).
  @Test func gravityPlacesTheOverlay() throws {
    let base = try ImageBuffer(width: 7, height: 5, format: .rgba32f)
    let dot = try ImageBuffer(width: 2, height: 2, format: .rgba32f)
    for y in 0..<2 { for x in 0..<2 { dot[x, y] = SIMD4(1, 1, 1, 1) } }
    func covered(_ g: Gravity) throws -> [Int] {
      let pipeline = try Pipeline(output: composite(.input(1), gravity: g)(.input()))
      let out = try pipeline.compile(inputFormats: [.rgba32f, .rgba32f], outputFormat: .rgba32f, cache: nil).run([base, dot])
      return (0..<35).filter { out[$0 % 7, $0 / 7].w == 1 }
    }
    #expect(try covered(.bottomRight) == [26, 27, 33, 34])
    #expect(try covered(.topLeft) == [0, 1, 7, 8])
    #expect(try covered(.center) == [9, 10, 16, 17])  // x 2…3, y 1…2: (7 − 2)/2 and (5 − 2)/2 rounded down
  }

  /// The vips-bench mask, and an asymmetric one, against the per-pixel sum with clamped edges.
  @Test func convolveIsTheWeightedSum() throws {
    let input = randomImage(11, 8, seed: 7, format: .rgba32f)
    let kernels: [([Float], Float, Float)] = [
      ([-1, -1, -1, -1, 16, -1, -1, -1, -1], 8, 0),
      ([1, 2, 0, 0, 0, 0, 0, 0, 3], 0, 0.1),
      ([1, 2, 1, 2, 4, 2, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5], 0, 0),
    ]
    for (kernel, divisor, offset) in kernels {
      let n = Int(Double(kernel.count).squareRoot())
      let out = try Pipeline(convolve(kernel: kernel, divisor: divisor, offset: offset))
        .compile(inputFormats: [.rgba32f], outputFormat: .rgba32f, cache: nil).run([input])
      let scale = 1 / Double(divisor != 0 ? divisor : kernel.reduce(0, +))
      var worst = 0.0
      for y in 0..<8 {
        for x in 0..<11 {
          var sum = SIMD4<Double>()
          for k in 0..<kernel.count {
            let sx = min(max(x + k % n - n / 2, 0), 10), sy = min(max(y + k / n - n / 2, 0), 7)
            sum += SIMD4<Double>(input[sx, sy]) * Double(kernel[k])
          }
          sum *= scale
          sum.w = Double(input[x, y].w)  // alpha is kept
          for c in 0..<3 { sum[c] += Double(offset) * sum.w }
          let d = SIMD4<Double>(out[x, y]) - sum
          worst = max(worst, [d.x, d.y, d.z, d.w].map(abs).max()!)
        }
      }
      #expect(worst <= 1e-5, "\(kernel): \(worst)")
    }
    #expect(throws: GraphError.self) { try Pipeline(convolve(kernel: [1, 2, 3, 4])) }
  }

  /// An edge kernel (weights summing to 0) on an opaque photo keeps it
  /// opaque: a new user's emboss came out fully transparent when alpha was
  /// convolved too.
  @Test func aZeroSumKernelKeepsAlpha() throws {
    let photo = opaqueImage(9, 6, seed: 3, format: .rgba8)
    let out = try Pipeline(convolve(kernel: [-1, 0, 0, 0, 1, 0, 0, 0, 0], offset: 0.5)).apply(to: photo, threads: 1)
    #expect((0..<54).allSatisfy { out[$0 % 9, $0 / 9].w == 1 })
    #expect((0..<54).contains { out[$0 % 9, $0 / 9].x > 0.1 })
  }

  /// A separable kernel is cut into two passes by the optimiser where the
  /// pixels are bounded (an 8-bit input, not an rgba32f one: SplitProofTests);
  /// vips-bench's mask is not separable.
  @Test func aSeparableKernelIsSplit() throws {
    func split(_ kernel: [Float], _ format: PixelFormat = .rgba8) throws -> String? {
      let layout = KernelLayout(inputs: [format], output: .rgba8).matching(LoweringOptions())
      return try Pipeline(convolve(kernel: kernel)).lower(layout).1.entries.first { $0.pass == "separable split" }?.summary
    }
    #expect(try split([1, 2, 1, 2, 4, 2, 1, 2, 1]) == "split 1 convolution")
    #expect(try split([1, 2, 1, 2, 4, 2, 1, 2, 1], .rgba32f) == "split 0 convolutions")
    #expect(try split([-1, -1, -1, -1, 16, -1, -1, -1, -1]) == "split 0 convolutions")
  }
}

/// A composite's name shows the file the chain gave it (the batch prints it as `chain:`).
@Test func aCompositeIsNamedWithItsFile() {
  #expect(composite(Image.input(2, name: "logo.png"), opacity: 0.5).name.hasPrefix("composite(\"logo.png\", gravity: bottomRight"))
  #expect(composite().name.hasPrefix("composite(gravity: bottomRight"))
  #expect(Image.input(1).inputName == nil && Image.input(0).inputName == nil)
}
