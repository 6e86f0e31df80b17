import FX
import Foundation
import Testing

/// A deterministic pseudo-random generator (SplitMix64) for test images and graphs.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A random premultiplied RGBA image (some pixels transparent, some half-transparent).
func randomImage(_ w: Int, _ h: Int, seed: UInt64 = 1, format: PixelFormat = .rgba8) -> ImageBuffer {
  var rng = SplitMix(seed: seed)
  let img = try! ImageBuffer(width: w, height: h, format: format)
  for y in 0..<h {
    for x in 0..<w {
      let a: Float = [0, 0.5, 1, 1, 1][Int.random(in: 0..<5, using: &rng)]
      let rgb = SIMD3<Float>(Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng)) * a
      img[x, y] = SIMD4(rgb.x, rgb.y, rgb.z, a)
    }
  }
  return img
}

/// A random opaque image: every alpha 1, colors anywhere in 0…1.
func opaqueImage(_ w: Int, _ h: Int, seed: UInt64, format: PixelFormat) -> ImageBuffer {
  var rng = SplitMix(seed: seed)
  let img = try! ImageBuffer(width: w, height: h, format: format)
  for y in 0..<h {
    for x in 0..<w {
      img[x, y] = SIMD4(Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng), 1)
    }
  }
  return img
}

/// Largest absolute channel difference; NaN in the same place counts as equal.
func maxDifference(_ a: ImageBuffer, _ b: ImageBuffer) -> Float {
  precondition(a.width == b.width && a.height == b.height)
  var m: Float = 0
  for y in 0..<a.height {
    for x in 0..<a.width {
      let p = a[x, y], q = b[x, y]
      for c in 0..<4 {
        if p[c].isNaN && q[c].isNaN { continue }
        if p[c].isNaN || q[c].isNaN { return .infinity }
        if p[c] == q[c] { continue }
        m = Swift.max(m, Swift.abs(p[c] - q[c]))
      }
    }
  }
  return m
}

/// A Gaussian blur written as plain 2-D taps with constant weights (the
/// catalogue's blur before it became two loops): the separable-split pass's
/// and the loop plan's flat-convolution case.
func tapGaussian(sigma: Float) -> Effect {
  let w = gaussianWeights(sigma: sigma)
  let r = w.count / 2
  return Effect.layer("tapGaussian(\(sigma))") { p, layer in
    var taps: [Expr] = []
    for j in -r...r {
      for i in -r...r { taps.append(Expr(w[i + r] * w[j + r]) * layer.sample(p + float2(Expr(Float(i)), Expr(Float(j))))) }
    }
    return taps.dropFirst().reduce(taps[0], +)
  }
}

/// `effect` on `image` compiled for every x86-64 level this machine runs and
/// for the host: `check` looks at each compiled pipeline (its plan, its IR),
/// and the JIT's float output is the interpreter's bit for bit on 1 and 3 threads.
func expectInterpreterBitsAtEveryLevel(
  _ effect: Effect, _ image: ImageBuffer, check: (CompiledPipeline, Target) throws -> Void
) throws {
  let pipeline = try Pipeline(effect)
  let interpreted = try pipeline.compile(
    inputFormats: [image.format], outputFormat: .rgba32f, backend: .interpreter, cache: nil
  ).run([image])
  for target in Target.runnableLevels + [.host] {
    let compiled = try pipeline.compile(inputFormats: [image.format], outputFormat: .rgba32f, cache: nil, target: target)
    #expect(compiled.backend == .jit)
    try check(compiled, target)
    for threads in [1, 3] {
      let jit = try compiled.run([image], threads: threads)
      #expect(memcmp(jit.data, interpreted.data, jit.byteCount) == 0, "\(target.name), \(threads) thread(s)")
    }
  }
}
