import FX
import Foundation
import Testing

// Helpers of the Effect*Tests files: run an effect every way the library can
// (staged interpreter, lowered kernel in three schedules, optionally the JIT)
// and compare each result with values worked out independently.

/// Every way of computing `effect` over `inputs`: the staged interpreter (the
/// oracle), the lowered kernel interpreted under the default, all-inline and
/// all-materialised schedules, and with `jit` the compiled kernel.
///
/// `inline: false` skips the all-inline schedule, for deep graphs (the
/// progressive blur's pyramid of 5-tap stages would be re-evaluated 5^depth times).
func effectOutputs(
  _ effect: Effect, _ inputs: [ImageBuffer], uniforms: [Float] = [], jit: Bool = false, inline: Bool = true
) throws -> [(String, ImageBuffer)] {
  let cut = try PipelineGraph(output: effect(.input()), precise: true)
  if cut.hasCuts {
    // A scan or a reduction (docs/design.md §4): staged, and the compiled pipeline.
    let compiled = try Pipeline(effect).compile(inputFormats: inputs.map { _ in .rgba32f }, outputFormat: .rgba32f)
    let values = Dictionary(uniqueKeysWithValues: zip(cut.head.uniforms, uniforms))
    return [
      ("staged", try Interpreter.runStaged(cut, inputs: inputs, uniforms: values)),
      ("pipeline", try compiled.run(inputs, uniforms: values)),
    ]
  }
  let graph = try EffectGraph(output: effect(.input()))
  var result = [("staged", try Interpreter.runStaged(graph, inputs: inputs, uniforms: uniforms))]
  for (label, allInline, materialise) in [
    ("kernel", false, false), ("kernel/inline", true, false), ("kernel/materialise", false, true),
  ] where inline || !allInline {
    var options = LoweringOptions()
    options.forceInline = allInline
    options.forceMaterialise = materialise
    let (kernel, _) = try Lower.run(graph, options: options)
    result.append((label, try Interpreter.run(kernel, inputs: inputs, uniforms: uniforms, params: graph.uniforms)))
  }
  if jit {
    let compiled = try Pipeline(effect).compile(
      inputFormats: inputs.map { _ in .rgba32f }, outputFormat: .rgba32f)
    #expect(compiled.backend == .jit, "\(effect.name) fell back to the interpreter")
    let values = Dictionary(uniqueKeysWithValues: zip(graph.uniforms, uniforms))
    result.append(("jit", try compiled.run(inputs, uniforms: values)))
  }
  return result
}

/// A `w × h` RGBA32F image with premultiplied `pixel(x, y)` at every pixel.
func makeTestImage(_ w: Int, _ h: Int, _ pixel: (Int, Int) -> SIMD4<Float>) -> ImageBuffer {
  let img = try! ImageBuffer(width: w, height: h, format: .rgba32f)
  for y in 0..<h { for x in 0..<w { img[x, y] = pixel(x, y) } }
  return img
}

/// Straight `rgb` at alpha `a`, premultiplied.
func premultiplied(_ rgb: SIMD3<Float>, _ a: Float) -> SIMD4<Float> { SIMD4(rgb * a, a) }

/// The straight rgb of a premultiplied pixel (0 where transparent).
func straight(_ p: SIMD4<Float>) -> SIMD3<Float> { p.w > 0 ? SIMD3(p.x, p.y, p.z) / p.w : .zero }

func largestDifference(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
  var m: Float = 0
  for c in 0..<4 {
    let d = Swift.abs(a[c] - b[c])
    if !(d <= m) { m = d }  // NaN propagates (never ≤)
  }
  return m
}

/// Every pixel of every output of `effect` equals `expected(x, y)` within `tolerance`.
func expectEffect(
  _ effect: Effect, _ inputs: [ImageBuffer], uniforms: [Float] = [], jit: Bool = false, inline: Bool = true,
  tolerance: Float = 1e-4, sourceLocation: Testing.SourceLocation = #_sourceLocation,
  _ expected: (Int, Int) -> SIMD4<Float>
) throws {
  for (label, out) in try effectOutputs(effect, inputs, uniforms: uniforms, jit: jit, inline: inline) {
    var worst: (Float, Int, Int) = (0, 0, 0)
    for y in 0..<out.height {
      for x in 0..<out.width {
        let d = largestDifference(out[x, y], expected(x, y))
        if !(d <= worst.0) { worst = (d, x, y) }
      }
    }
    let (d, x, y) = worst
    #expect(
      d <= tolerance,
      "\(effect.name) \(label): pixel (\(x), \(y)) is \(out[x, y]), expected \(expected(x, y)) (max abs error \(d))",
      sourceLocation: sourceLocation)
  }
}

/// Every output of `effect` is bit-for-bit `inputs[0]`.
func expectIdentity(
  _ effect: Effect, _ inputs: [ImageBuffer], uniforms: [Float] = [], _ note: String = "", inline: Bool = true,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  let input = inputs[0]
  for (label, out) in try effectOutputs(effect, inputs, uniforms: uniforms, inline: inline) {
    var first: (Int, Int)? = nil
    for y in 0..<input.height {
      for x in 0..<input.width where first == nil && out[x, y] != input[x, y] { first = (x, y) }
    }
    if let (x, y) = first {
      Issue.record(
        "\(effect.name) \(note) \(label) is not the identity: pixel (\(x), \(y)) \(input[x, y]) became \(out[x, y])",
        sourceLocation: sourceLocation)
    }
  }
}

/// DESIGN §3 bilinear sampling, transcribed for finite positions, with the
/// address mode applied to texel indices: `clamp` or `repeat`.
func bilinear(_ img: ImageBuffer, _ px: Float, _ py: Float, repeating: Bool = false) -> SIMD4<Float> {
  let fx = px - 0.5, fy = py - 0.5
  let x0 = fx.rounded(.down), y0 = fy.rounded(.down)
  let tx = fx - x0, ty = fy - y0
  func index(_ i: Int, _ n: Int) -> Int { repeating ? ((i % n) + n) % n : Swift.min(Swift.max(i, 0), n - 1) }
  func texel(_ i: Int, _ j: Int) -> SIMD4<Float> { img[index(i, img.width), index(j, img.height)] }
  let i = Int(x0), j = Int(y0)
  var sum = SIMD4<Float>.zero
  for (di, wx) in [(0, 1 - tx), (1, tx)] where wx != 0 {
    for (dj, wy) in [(0, 1 - ty), (1, ty)] where wy != 0 { sum += wx * wy * texel(i + di, j + dj) }
  }
  return sum
}

/// A premultiplied test image whose values are not short binary fractions:
/// straight channels from a golden-ratio sequence, alphas 1, 0.7, 0.35, 0.05 and 0.
func irregularImage(_ w: Int, _ h: Int, seed: Int = 0) -> ImageBuffer {
  makeTestImage(w, h) { x, y in
    let k = Float(y * w + x + seed * 7)
    let a: Float = [1, 0.7, 0.35, 0.05, 0][(x + 2 * y + seed) % 5]
    func channel(_ c: Float) -> Float {
      let v = (k + 1) * 0.618034 + c * 0.318310
      return v - v.rounded(.down)
    }
    return SIMD4(channel(0) * a, channel(1) * a, channel(2) * a, a)
  }
}

func smoothstepRef(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
  let t = Swift.min(Swift.max((x - e0) / (e1 - e0), 0), 1)
  return t * t * (3 - 2 * t)
}

func mixRef(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ t: Float) -> SIMD4<Float> { a + (b - a) * t }
