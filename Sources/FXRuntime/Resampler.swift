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

  /// Multiply–adds per output pixel, at most.
  var cost: Int { taps }
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
  static func horizontal(_ s: UnsafePointer<SIMD4<Float>>, _ d: UnsafeMutablePointer<SIMD4<Float>>, _ axis: ResampleAxis) {
    let taps = axis.taps
    axis.weights.withUnsafeBufferPointer { w in
      axis.first.withUnsafeBufferPointer { first in
        axis.count.withUnsafeBufferPointer { count in
          for x in 0..<first.count {
            let p = s + first[x], k0 = x &* taps, n = count[x]
            guard n > 0 else {
              d[x] = SIMD4()
              continue
            }
            var acc = p[0] * w[k0]
            var k = 1
            while k < n {
              acc = acc + p[k] * w[k0 &+ k]
              k &+= 1
            }
            d[x] = acc
          }
        }
      }
    }
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
  /// vectorised along the row (8 floats at a time); 0 for no rows.
  static func vertical(_ rows: [UnsafePointer<Float>], _ weights: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, floats: Int) {
    let taps = rows.count
    guard taps > 0 else { return d.update(repeating: 0, count: floats) }
    let vectors = floats / 8
    rows.withUnsafeBufferPointer { r in
      let s0 = r[0]
      let w0 = weights[0]
      var v = 0
      while v < vectors {
        let o = v &* 8
        var acc = UnsafeRawPointer(s0 + o).loadUnaligned(as: SIMD8<Float>.self) * w0
        var k = 1
        while k < taps {
          let row: UnsafePointer<Float> = r[k] + o
          let weight: Float = weights[k]
          acc = acc + UnsafeRawPointer(row).loadUnaligned(as: SIMD8<Float>.self) * weight
          k &+= 1
        }
        UnsafeMutableRawPointer(d + o).storeBytes(of: acc, as: SIMD8<Float>.self)
        v &+= 1
      }
      for o in vectors * 8..<floats {
        var acc = s0[o] * w0
        for k in 1..<Swift.max(taps, 1) { acc += r[k][o] * weights[k] }
        d[o] = acc
      }
    }
  }
}
