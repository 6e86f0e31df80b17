/// Contrast-limited adaptive histogram equalisation (CLAHE; Zuiderveld,
/// "Contrast Limited Adaptive Histogram Equalization", Graphics Gems IV,
/// 1994), per colour channel, as OpenCV's `createCLAHE(clipLimit,
/// tileGridSize).apply` computes it on an 8-bit channel — so fxc's result is
/// OpenCV's, level for level:
///
/// 1. The image is cut into `tilesX × tilesY` tiles. When both sides divide
///    evenly the tiles are `width / tilesX × height / tilesY`; otherwise, as
///    OpenCV does, the image is first extended by `tilesX − width mod tilesX`
///    columns and `tilesY − height mod tilesY` rows (a whole tile's worth on a
///    side that divides) by reflection without repeating the edge
///    (BORDER_REFLECT_101), and the extended image is cut.
/// 2. Each tile's 256-bin histogram (a sample's bin as ``Reduction/bin(_:)``)
///    is clipped at `max(⌊clipLimit · tileArea / 256⌋, 1)` when `clipLimit`
///    > 0; the clipped count is spread evenly over the bins (`⌊clipped / 256⌋`
///    each) and what remains one sample at a time to every
///    `max(⌊256 / remainder⌋, 1)`-th bin from bin 0.
/// 3. A tile's table maps bin `i` to `round(255 · Σ_{j≤i} h(j) / tileArea)`
///    (ties to even).
/// 4. A pixel's value is the bilinear mix of the four nearest tiles' tables
///    at its bin, weights from the pixel's position against the tiles'
///    centres (`x / tileWidth − ½`, clamped at the image's edges), in fp32,
///    rounded to a whole level (ties to even) and divided by 255.
public struct Clahe: Hashable, Sendable, CustomStringConvertible {
  public var tilesX: Int, tilesY: Int
  /// The clip limit as a multiple of a tile's mean bin count; 0: not limited (plain adaptive equalisation).
  public var clipLimit: Float

  public init(tilesX: Int, tilesY: Int, clipLimit: Float) {
    self.tilesX = tilesX
    self.tilesY = tilesY
    self.clipLimit = clipLimit
  }

  public var description: String { "clahe(tiles: \(tilesX)×\(tilesY), clip: \(clipLimit))" }

  /// `values` (`width × height` unpremultiplied samples of one channel, row
  /// by row) equalised in place.
  public func apply(_ values: inout [Float], width: Int, height: Int) {
    let even = width % tilesX == 0 && height % tilesY == 0
    let tw = even ? width / tilesX : (width + tilesX - width % tilesX) / tilesX
    let th = even ? height / tilesY : (height + tilesY - height % tilesY) / tilesY
    let area = tw * th
    // BORDER_REFLECT_101 past the right and bottom edges, periodic as OpenCV's
    // borderInterpolate (a side of 1 repeats its only pixel).
    func reflect(_ i: Int, _ n: Int) -> Int {
      guard n > 1 else { return 0 }
      let period = 2 * (n - 1), j = i % period
      return j < n ? j : period - j
    }
    let bins = values.map { UInt8(Reduction.bin($0)) }
    // The extended image's columns and rows, as indices into the image.
    let columns = (0..<(tilesX * tw)).map { reflect($0, width) }
    let rowStarts = (0..<(tilesY * th)).map { reflect($0, height) * width }
    // Every tile's table, flat: tile t's level for bin i at 256·t + i.
    var tables = [Float](repeating: 0, count: 256 * tilesX * tilesY)
    var h = [Int](repeating: 0, count: 256)
    bins.withUnsafeBufferPointer { bins in
      columns.withUnsafeBufferPointer { columns in
        for ty in 0..<tilesY {
          for tx in 0..<tilesX {
            h.withUnsafeMutableBufferPointer { h in
              for i in 0..<256 { h[i] = 0 }
              for y in (ty * th)..<((ty + 1) * th) {
                let row = bins.baseAddress! + rowStarts[y]
                for x in (tx * tw)..<((tx + 1) * tw) { h[Int(row[columns[x]])] += 1 }
              }
            }
            let t = table(h, area: area)
            for i in 0..<256 { tables[256 * (ty * tilesX + tx) + i] = t[i] }
          }
        }
      }
    }
    // Per column, as OpenCV precomputes them: the two tiles' offsets and the weights.
    let invW = 1 / Float(tw), invH = 1 / Float(th)
    let left = UnsafeMutableBufferPointer<Int>.allocate(capacity: width), right = UnsafeMutableBufferPointer<Int>.allocate(capacity: width)
    let xa = UnsafeMutableBufferPointer<Float>.allocate(capacity: width), xa1 = UnsafeMutableBufferPointer<Float>.allocate(capacity: width)
    defer {
      [left.baseAddress, right.baseAddress].forEach { $0?.deallocate() }
      [xa.baseAddress, xa1.baseAddress].forEach { $0?.deallocate() }
    }
    for x in 0..<width {
      let fx = Float(x) * invW - 0.5
      let x1 = Int(fx.rounded(.down))
      xa[x] = fx - Float(x1)
      xa1[x] = 1 - xa[x]
      left[x] = 256 * Swift.max(x1, 0)
      right[x] = 256 * Swift.min(x1 + 1, tilesX - 1)
    }
    tables.withUnsafeBufferPointer { t in
      bins.withUnsafeBufferPointer { bins in
        values.withUnsafeMutableBufferPointer { out in
          for y in 0..<height {
            let fy = Float(y) * invH - 0.5
            let y1 = Int(fy.rounded(.down))
            let ya = fy - Float(y1), ya1 = 1 - ya
            let top = 256 * tilesX * Swift.max(y1, 0), bottom = 256 * tilesX * Swift.min(y1 + 1, tilesY - 1)
            for x in 0..<width {
              let b = Int(bins[y * width + x])
              let v =
                (t[top + left[x] + b] * xa1[x] + t[top + right[x] + b] * xa[x]) * ya1
                + (t[bottom + left[x] + b] * xa1[x] + t[bottom + right[x] + b] * xa[x]) * ya
              out[y * width + x] = Swift.min(Swift.max(v.rounded(.toNearestOrEven), 0), 255) / 255
            }
          }
        }
      }
    }
  }

  /// A tile's table (in levels, 0…255) from its histogram: clipped, redistributed, accumulated.
  func table(_ histogram: [Int], area: Int) -> [Float] {
    var h = histogram
    if clipLimit > 0 {
      let limit = Swift.max(Int(Double(clipLimit) * Double(area) / 256), 1)
      var clipped = 0
      for i in 0..<256 where h[i] > limit {
        clipped += h[i] - limit
        h[i] = limit
      }
      let batch = clipped / 256
      var remainder = clipped - batch * 256
      for i in 0..<256 { h[i] += batch }
      if remainder > 0 {
        let step = Swift.max(256 / remainder, 1)
        var i = 0
        while i < 256, remainder > 0 {
          h[i] += 1
          remainder -= 1
          i += step
        }
      }
    }
    let scale = Float(255) / Float(area)
    var sum = 0
    return h.map { n in
      sum += n
      return Swift.min((Float(sum) * scale).rounded(.toNearestOrEven), 255)
    }
  }
}
