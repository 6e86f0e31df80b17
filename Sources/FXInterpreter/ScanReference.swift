import FXIR
import FXImage

/// The meaning of a scan (docs/design.md §4, "Scans"), evaluated as its
/// definition reads, one pixel at a time in fp32 in the order the definition
/// states: the oracle FXRuntime's `ScanExecutor` must equal bit for bit.
extension Interpreter {
  /// Applies a cut stage (a geometry stage or a scan) to `image` as its definition states.
  /// - Returns: an rgba32f (premultiplied) image.
  /// - Throws: ``GeometryError`` when a geometry stage cannot apply to this
  ///   size; ``ImageBufferError`` when memory runs out.
  public static func apply(_ cut: Cut, to image: ImageBuffer) throws -> ImageBuffer {
    switch cut {
    case .geometry(let g): return try apply(g, to: image)
    case .scan(let s): return try apply(s, to: image)
    case .reduction(let r): return try apply(r, to: image)
    }
  }

  /// Applies `scan` to every row (``Scan/Axis/x``) or column of `image`.
  public static func apply(_ scan: Scan, to image: ImageBuffer) throws -> ImageBuffer {
    let out = try ImageBuffer(width: image.width, height: image.height, format: .rgba32f, zeroFilled: false)
    let (lines, length) = scan.axis == .x ? (image.height, image.width) : (image.width, image.height)
    var line = [SIMD4<Float>](repeating: .zero, count: length)
    for l in 0..<lines {
      for i in 0..<length { line[i] = scan.axis == .x ? image[i, l] : image[l, i] }
      let result = filter(line, scan.filter)
      for i in 0..<length {
        if scan.axis == .x { out[i, l] = result[i] } else { out[l, i] = result[i] }
      }
    }
    return out
  }

  /// One line through `filter`, as ``Scan/Filter`` defines it.
  static func filter(_ x: [SIMD4<Float>], _ filter: Scan.Filter) -> [SIMD4<Float>] {
    let n = x.count
    func at(_ i: Int) -> SIMD4<Float> { x[min(max(i, 0), n - 1)] }
    switch filter {
    case .box(let r):
      let scale = SIMD4<Float>(repeating: 1 / Float(2 * r + 1))
      var sum = at(-r)
      for k in (-r + 1)...r { sum = sum + at(k) }
      var out = [sum * scale]
      for i in 1..<max(n, 1) {
        sum = sum + (at(i + r) - at(i - r - 1))
        out.append(sum * scale)
      }
      return Array(out.prefix(n))
    case .gaussian(let g):
      // In Double (RecursiveGaussian), each result rounded to fp32.
      func at(_ i: Int) -> SIMD4<Double> { SIMD4<Double>(x[min(max(i, 0), n - 1)]) }
      let n0 = g.n[0], n1 = g.n[1], n2 = g.n[2], n3 = g.n[3]
      let d1 = g.d[0], d2 = g.d[1], d3 = g.d[2], d4 = g.d[3]
      var causal = [SIMD4<Double>](repeating: .zero, count: n)
      let start = at(0) * g.causalGain
      var y1 = start, y2 = start, y3 = start, y4 = start
      for i in 0..<n {
        let f = ((at(i) * n0 + at(i - 1) * n1) + at(i - 2) * n2) + at(i - 3) * n3
        let b = (y4 * d4 + y3 * d3) + y2 * d2
        let y = (f - b) - y1 * d1
        causal[i] = y
        (y4, y3, y2, y1) = (y3, y2, y1, y)
      }
      let m1 = g.m[0], m2 = g.m[1], m3 = g.m[2], m4 = g.m[3]
      let end = at(n - 1) * g.anticausalGain
      (y1, y2, y3, y4) = (end, end, end, end)
      var out = x
      for i in stride(from: n - 1, through: 0, by: -1) {
        let f = ((at(i + 1) * m1 + at(i + 2) * m2) + at(i + 3) * m3) + at(i + 4) * m4
        let b = (y4 * d4 + y3 * d3) + y2 * d2
        let y = (f - b) - y1 * d1
        out[i] = SIMD4<Float>(causal[i] + y)
        (y4, y3, y2, y1) = (y3, y2, y1, y)
      }
      return out
    }
  }
}

/// The meaning of a reduction (docs/design.md §4, "Reductions"): the
/// histograms, the maps they decide, each pixel through them.
extension Interpreter {
  /// Applies `reduction` to `image` as its definition states.
  /// - Returns: an rgba32f (premultiplied) image of the same size.
  public static func apply(_ reduction: Reduction, to image: ImageBuffer) throws -> ImageBuffer {
    let out = try ImageBuffer(width: image.width, height: image.height, format: .rgba32f, zeroFilled: false)
    func straight(_ p: SIMD4<Float>, _ c: Int) -> Float { p.w > 0 ? p[c] / p.w : 0 }
    if case .clahe(let clahe) = reduction {
      // Each channel's unpremultiplied samples, equalised by Clahe's definition, premultiplied again.
      var channels = (0..<3).map { c in (0..<image.height).flatMap { y in (0..<image.width).map { x in straight(image[x, y], c) } } }
      for c in 0..<3 { clahe.apply(&channels[c], width: image.width, height: image.height) }
      for y in 0..<image.height {
        for x in 0..<image.width {
          var p = image[x, y]
          if p.w > 0 { for c in 0..<3 { p[c] = channels[c][y * image.width + x] * p.w } }
          out[x, y] = p
        }
      }
      return out
    }
    var histograms = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let p = image[x, y]
        for c in 0..<3 { histograms[c][Reduction.bin(straight(p, c))] += 1 }
      }
    }
    let maps = histograms.map { reduction.map(histogram: $0) }
    for y in 0..<image.height {
      for x in 0..<image.width {
        var p = image[x, y]
        for c in 0..<3 { if let m = maps[c], p.w > 0 { p[c] = m.apply(straight(p, c)) * p.w } }
        out[x, y] = p
      }
    }
    return out
  }
}
