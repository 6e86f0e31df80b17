import FX
import Foundation
import Testing

/// Scans (docs/design.md §4, "Scans"): the executor against the reference at
/// every level, bit for bit; the recursive Gaussian against the Gaussian
/// computed here in Double; running sums against box means worked out here;
/// and the blurs through the pipeline, streamed and whole.
@Suite struct ScanTests {
  /// A premultiplied rgba32f image of random values.
  static func image(_ w: Int, _ h: Int, seed: UInt64) -> ImageBuffer {
    let img = randomImage(w, h, seed: seed, format: .rgba32f)
    for y in 0..<h {
      for x in 0..<w {
        var p = img[x, y]
        p = SIMD4(p.x * p.w, p.y * p.w, p.z * p.w, p.w)
        img[x, y] = p
      }
    }
    return img
  }

  static let scans: [Scan] = [
    Scan(.gaussian(RecursiveGaussian(sigma: 0.5)), axis: .x), Scan(.gaussian(RecursiveGaussian(sigma: 3.7)), axis: .y),
    Scan(.gaussian(RecursiveGaussian(sigma: 40)), axis: .x), Scan(.box(radius: 1), axis: .y),
    Scan(.box(radius: 6), axis: .x), Scan(.box(radius: 300), axis: .y),
  ]

  /// Every scan, at every level this machine runs and with 1 or 3 threads,
  /// gives the reference's bits: widths and heights that are not multiples
  /// of the four-line groups exercise both loops.
  @Test(arguments: Target.runnableLevels.map(\.name))
  func theExecutorGivesTheReferencesBits(level: String) throws {
    let target = try Target.named(level)
    for (i, scan) in Self.scans.enumerated() {
      for (w, h) in [(1, 1), (7, 5), (37, 22)] {
        let input = Self.image(w, h, seed: UInt64(i * 10 + w))
        let reference = try Interpreter.apply(scan, to: input)
        for threads in [1, 3] {
          let ours = try ScanExecutor.apply(scan, to: input, threads: threads, target: target)
          var same = true
          for y in 0..<h { for x in 0..<w where ours[x, y] != reference[x, y] { same = false } }
          #expect(same, "\(level) \(scan) \(w)×\(h) threads \(threads)")
        }
      }
    }
  }

  /// The box by running sums: each output the mean of the clamped window,
  /// worked out here in Double, within the rounding the definition allows.
  @Test func runningSumsAreTheBoxMean() throws {
    let input = Self.image(23, 3, seed: 5)
    for r in [1, 4, 30] {
      let out = try Interpreter.apply(Scan(.box(radius: r), axis: .x), to: input)
      for y in 0..<3 {
        for x in 0..<23 {
          var sum = SIMD4<Double>()
          for k in -r...r { sum += SIMD4<Double>(input[min(max(x + k, 0), 22), y]) }
          let mean = sum / Double(2 * r + 1)
          #expect(Self.largest(SIMD4<Double>(out[x, y]) - mean) < 1e-5, "r \(r) (\(x), \(y))")
        }
      }
    }
  }

  /// The recursive Gaussian's impulse response is the sampled Gaussian
  /// within its own proved bound, and that bound is below half an 8-bit
  /// level from σ 1 to 200 (so `.auto` may take it wherever it is cheaper).
  @Test(arguments: [1.0, 2.5, 6, 30, 100, 200] as [Float])
  func theRecursiveGaussianIsWithinItsBound(sigma: Float) throws {
    let g = RecursiveGaussian(sigma: sigma)
    #expect(g.twoPassBound < 0.5 / 255, "σ \(sigma): bound \(g.twoPassBound * 255) levels")
    // An impulse far from the edges: the response is h itself.
    let n = Int(16 * sigma) + 41, centre = n / 2
    var line = [SIMD4<Float>](repeating: .zero, count: n)
    line[centre] = SIMD4(repeating: 1)
    let input = try ImageBuffer(width: n, height: 1, format: .rgba32f)
    for x in 0..<n { input[x, 0] = line[x] }
    let out = try Interpreter.apply(Scan(.gaussian(g), axis: .x), to: input)
    let s = Double(sigma)
    let weights = (-centre...(n - 1 - centre)).map { exp(-Double($0 * $0) / (2 * s * s)) }
    let total = (-20 * n...20 * n).reduce(0.0) { $0 + exp(-Double($1 * $1) / (2 * s * s)) }
    var l1 = 0.0
    for x in 0..<n { l1 += Swift.abs(Double(out[x, 0].x) - weights[x] / total) }
    #expect(l1 / 2 <= g.errorBound, "σ \(sigma): ‖h − g‖₁/2 = \(l1 / 2), bound \(g.errorBound)")
  }

  /// A constant input stays constant to the last bits an fp32 recurrence
  /// allows, to the edges: the start states are the constant's steady state.
  @Test func aFlatImageStaysFlat() throws {
    let input = try ImageBuffer(width: 40, height: 30, format: .rgba32f)
    for y in 0..<30 { for x in 0..<40 { input[x, y] = SIMD4(0.25, 0.5, 0.75, 1) } }
    for scan in Self.scans {
      let out = try ScanExecutor.apply(scan, to: input)
      for y in 0..<30 {
        for x in 0..<40 {
          #expect(Self.largest(SIMD4<Double>(out[x, y] - SIMD4(0.25, 0.5, 0.75, 1))) < 1e-5, "\(scan) (\(x), \(y)) \(out[x, y])")
        }
      }
    }
  }

  /// The blurs through a pipeline: `.auto` takes the scans for a large σ or
  /// radius, and the result is within half an 8-bit level of the exact
  /// (Double, untruncated) Gaussian and box on an 8-bit output; streamed and
  /// whole-image runs give the same bytes; a colour stage before and after
  /// fuses around the cuts.
  @Test func blursThroughAPipelineMatchTheirDefinitions() throws {
    let input = randomImage(97, 61, seed: 9, format: .rgba8)
    for y in 0..<61 { for x in 0..<97 { input[x, y].w = 1 } }
    for (effect, exact) in [
      (gaussianBlur(sigma: 12), Self.gaussian(input, sigma: 12)), (boxBlur(radius: 20), Self.box(input, radius: 20)),
    ] {
      let pipeline = try Pipeline(effect)
      #expect(pipeline.steps.count == 2, "\(effect.name) is two scans")
      let compiled = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil)
      let ours = try compiled.run([input], threads: 2)
      let whole = try compiled.runStepsWhole([input], uniforms: [:], threads: 1)
      #expect(maxDifference(ours, whole) == 0, "\(effect.name): bands and whole differ")
      var worst = 0.0
      for y in 0..<61 {
        for x in 0..<97 { worst = max(worst, Self.largest(SIMD4<Double>(ours[x, y]) - exact[y * 97 + x])) }
      }
      #expect(worst * 255 <= 0.5 + 0.5, "\(effect.name): \(worst * 255) levels from the exact blur")
    }
    let chain = sepia() | gaussianBlur(sigma: 20) | vignette()
    let pipeline = try Pipeline(chain)
    let compiled = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil)
    let staged = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: [input]).copy(as: .rgba8)
    #expect(maxDifference(try compiled.run([input], threads: 2), staged) <= 1.0 / 255 + 1e-6)
  }

  /// The largest magnitude of `v`'s lanes.
  static func largest(_ v: SIMD4<Double>) -> Double { (0..<4).map { Swift.abs(v[$0]) }.max()! }

  /// `auto`'s scans are proved within half a level of 8 bits, not of 16: a
  /// deeper output, and an EffectGraph (which holds no cuts), take the loop.
  @Test func deeperOutputsTakeTheLoop() throws {
    for effect in [gaussianBlur(sigma: 20), boxBlur(radius: 30)] {
      let pipeline = try Pipeline(effect)
      let eight = try pipeline.compile(inputFormats: [.rgba16], outputFormat: .rgba8, cache: nil)
      #expect(eight.steps.count == 2, "\(effect.name): scans for 8 bits")
      for deeper in [PixelFormat.rgba16, .rgba32f] {
        let compiled = try pipeline.compile(inputFormats: [.rgba16], outputFormat: deeper, cache: nil)
        #expect(compiled.steps.isEmpty && !compiled.kernel.loopNests.isEmpty, "\(effect.name): the loop for \(deeper)")
      }
      #expect(try EffectGraph(output: effect(Image.input())).stages.count == 2, "\(effect.name): the loop's two passes")
      #expect(try Pipeline(output: effect(.input()).scan(Scan(.box(radius: 1), axis: .x))).steps.count >= 1)
      // `recursive` asks for the scans whatever the output.
      let asked = try Pipeline(gaussianBlur(sigma: 20, method: .recursive)).compile(outputFormat: .rgba32f, cache: nil)
      #expect(asked.steps.count == 2)
    }
  }

  /// The separable Gaussian of infinite support with clamped edges, in Double.
  static func gaussian(_ image: ImageBuffer, sigma: Double) -> [SIMD4<Double>] {
    let r = Int(8 * sigma)
    let w = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let total = w.reduce(0, +)
    return separable(image, weights: w.map { $0 / total })
  }

  static func box(_ image: ImageBuffer, radius r: Int) -> [SIMD4<Double>] {
    separable(image, weights: [Double](repeating: 1 / Double(2 * r + 1), count: 2 * r + 1))
  }

  /// `weights` (odd count, centred) along x then y, edges clamped.
  static func separable(_ image: ImageBuffer, weights: [Double]) -> [SIMD4<Double>] {
    let w = image.width, h = image.height, r = weights.count / 2
    let pixels = (0..<h).flatMap { y in (0..<w).map { x in SIMD4<Double>(image[x, y]) } }
    var rows = pixels
    for y in 0..<h {
      for x in 0..<w {
        var s = SIMD4<Double>()
        for k in -r...r { s += pixels[y * w + min(max(x + k, 0), w - 1)] * weights[k + r] }
        rows[y * w + x] = s
      }
    }
    var out = rows
    for y in 0..<h {
      for x in 0..<w {
        var s = SIMD4<Double>()
        for k in -r...r { s += rows[min(max(y + k, 0), h - 1) * w + x] * weights[k + r] }
        out[y * w + x] = s
      }
    }
    return out
  }
}
