import Dispatch
import FXIR
import FXImage

/// One axis of a separable resampling as tables: output `i` is
/// `Σₖ weights[i·taps + k] · input[first[i] + k]` for `k < count[i]`: exactly
/// the window ``ResampleFilter/taps(_:inSize:outSize:)`` gives (its zero
/// weights too, so a NaN or ∞ under the window reaches the output as the
/// definition says), inside `0..<inSize`.
struct ResampleAxis {
  /// The widest window: the stride of ``weights``.
  let taps: Int
  let first: [Int]
  let count: [Int]
  let weights: [Float]

  /// The tables of `filter` for `inSize → outSize` (weights rounded once to fp32).
  init(_ filter: ResampleFilter, inSize: Int, outSize: Int) {
    let rows = (0..<outSize).map { filter.taps($0, inSize: inSize, outSize: outSize) }
    let taps = max(1, rows.map(\.weights.count).max() ?? 1)
    var weights = [Float](repeating: 0, count: outSize * taps)
    for (i, row) in rows.enumerated() {
      for (k, w) in row.weights.enumerated() { weights[i * taps + k] = Float(w) }
    }
    self.taps = taps
    self.first = rows.map(\.first)
    self.count = rows.map(\.weights.count)
    self.weights = weights
  }
}

/// The fast separable resampler: two 1-D passes over premultiplied rgba32f
/// images with fp32 weight tables (``ResampleAxis``), horizontal first, rows
/// split across threads, vectorised; every sum in window order from its
/// first product, as the definition's fp32 evaluation (``Interpreter/apply(_:to:)``)
/// does it: the same bits. Nothing is clamped between the passes.
enum Resampler {
  /// `image` (rgba32f) resampled to `width × height` with `filter`: the
  /// horizontal pass over every input row, then the vertical one.
  /// - Throws: ``ImageBufferError`` when memory runs out.
  static func resample(_ image: ImageBuffer, width: Int, height: Int, filter: ResampleFilter, threads: Int) throws -> ImageBuffer {
    precondition(image.format == .rgba32f)
    let out = try ImageBuffer(width: width, height: height, format: .rgba32f, zeroFilled: false)
    let xs = ResampleAxis(filter, inSize: image.width, outSize: width)
    let ys = ResampleAxis(filter, inSize: image.height, outSize: height)
    let mid = try ImageBuffer(width: width, height: image.height, format: .rgba32f, zeroFilled: false)
    parallelRows(image.height, threads) { horizontal(image, mid, xs, rows: $0) }
    parallelRows(height, threads) { vertical(mid, out, ys, rows: $0) }
    return out
  }

  /// Runs `body` over `0..<rows` in about `threads` contiguous chunks.
  static func parallelRows(_ rows: Int, _ threads: Int, _ body: (Range<Int>) -> Void) {
    guard rows > 0 else { return }
    let chunks = max(1, min(threads, rows / 8))
    if chunks == 1 { return body(0..<rows) }
    DispatchQueue.concurrentPerform(iterations: chunks) { c in
      body(rows * c / chunks..<rows * (c + 1) / chunks)
    }
  }

  /// Output rows `rows` of `dst` from the same rows of `src`, along x.
  static func horizontal(_ src: ImageBuffer, _ dst: ImageBuffer, _ axis: ResampleAxis, rows: Range<Int>) {
    for y in rows {
      horizontal(
        UnsafeRawPointer(src.data + y * src.rowBytes).assumingMemoryBound(to: SIMD4<Float>.self),
        (dst.data + y * dst.rowBytes).assumingMemoryBound(to: SIMD4<Float>.self), axis)
    }
  }

  /// One row along x: `dst[x] = Σₖ w[x·taps + k]·src[first[x] + k]` for `k < count[x]`.
  /// Four neighbouring outputs with windows of one length are summed side by
  /// side (four independent chains of multiply–adds, each in window order:
  /// the same bits as one at a time, at a quarter of the latency).
  static func horizontal(_ s: UnsafePointer<SIMD4<Float>>, _ d: UnsafeMutablePointer<SIMD4<Float>>, _ axis: ResampleAxis) {
    let taps = axis.taps
    axis.weights.withUnsafeBufferPointer { wb in
      axis.first.withUnsafeBufferPointer { first in
        axis.count.withUnsafeBufferPointer { count in
          let w = wb.baseAddress!
          let width = first.count
          var x = 0
          while x + 4 <= width {
            let n = count[x]
            guard n > 0, count[x + 1] == n, count[x + 2] == n, count[x + 3] == n else {
              for i in x..<x + 4 { d[i] = one(s + first[i], w + i * taps, count[i]) }
              x += 4
              continue
            }
            let p0 = s + first[x], p1 = s + first[x + 1], p2 = s + first[x + 2], p3 = s + first[x + 3]
            let w0 = w + x &* taps, w1 = w0 + taps, w2 = w1 + taps, w3 = w2 + taps
            var a0 = p0[0] * w0[0], a1 = p1[0] * w1[0], a2 = p2[0] * w2[0], a3 = p3[0] * w3[0]
            var k = 1
            while k < n {
              a0 = a0 + p0[k] * w0[k]
              a1 = a1 + p1[k] * w1[k]
              a2 = a2 + p2[k] * w2[k]
              a3 = a3 + p3[k] * w3[k]
              k &+= 1
            }
            (d[x], d[x + 1], d[x + 2], d[x + 3]) = (a0, a1, a2, a3)
            x += 4
          }
          for i in x..<width { d[i] = one(s + first[i], w + i * taps, count[i]) }
        }
      }
    }
  }

  /// `Σₖ w[k]·p[k]` for `k < n`, from the first product (0 for n = 0).
  @inline(__always)
  static func one(_ p: UnsafePointer<SIMD4<Float>>, _ w: UnsafePointer<Float>, _ n: Int) -> SIMD4<Float> {
    guard n > 0 else { return SIMD4() }
    var acc = p[0] * w[0]
    var k = 1
    while k < n {
      acc = acc + p[k] * w[k]
      k &+= 1
    }
    return acc
  }

  /// Output rows `rows` of `dst` from windows of `src`'s rows, along y.
  static func vertical(_ src: ImageBuffer, _ dst: ImageBuffer, _ axis: ResampleAxis, rows: Range<Int>) {
    for y in rows {
      let sources = (0..<axis.count[y]).map { k in
        UnsafeRawPointer(src.data + (axis.first[y] + k) * src.rowBytes).assumingMemoryBound(to: Float.self)
      }
      axis.weights.withUnsafeBufferPointer { w in
        vertical(sources, w.baseAddress! + y * axis.taps, (dst.data + y * dst.rowBytes).assumingMemoryBound(to: Float.self), floats: dst.width * 4)
      }
    }
  }

  /// One row along y: `dst[o] = Σₖ weights[k]·rows[k][o]` for `o < floats`,
  /// each sum in row order from its first product; 0 for no rows. Four
  /// vectors of 8 floats at a time (independent chains: the same bits).
  static func vertical(_ rows: [UnsafePointer<Float>], _ weights: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, floats: Int) {
    let taps = rows.count
    guard taps > 0 else { return d.update(repeating: 0, count: floats) }
    typealias V = SIMD8<Float>
    @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    rows.withUnsafeBufferPointer { r in
      var o = 0
      while o + 32 <= floats {
        let w0 = weights[0], s0 = r[0] + o
        var a0 = load(s0) * w0, a1 = load(s0 + 8) * w0, a2 = load(s0 + 16) * w0, a3 = load(s0 + 24) * w0
        var k = 1
        while k < taps {
          let wk = weights[k], sk = r[k] + o
          a0 = a0 + load(sk) * wk
          a1 = a1 + load(sk + 8) * wk
          a2 = a2 + load(sk + 16) * wk
          a3 = a3 + load(sk + 24) * wk
          k &+= 1
        }
        let out = UnsafeMutableRawPointer(d + o)
        out.storeBytes(of: a0, as: V.self)
        out.storeBytes(of: a1, toByteOffset: 32, as: V.self)
        out.storeBytes(of: a2, toByteOffset: 64, as: V.self)
        out.storeBytes(of: a3, toByteOffset: 96, as: V.self)
        o += 32
      }
      while o < floats {
        var acc = r[0][o] * weights[0]
        for k in 1..<Swift.max(taps, 1) { acc += r[k][o] * weights[k] }
        d[o] = acc
        o += 1
      }
    }
  }
}
