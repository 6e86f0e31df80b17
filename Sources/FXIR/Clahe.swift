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
  /// by row) equalised in place: the histograms counted row by row
  /// (``Layout/count(_:row:into:)``), the tables (``tables(_:layout:)``), each
  /// row mapped (``Layout/map(_:row:tables:)``) — the steps a streamed run
  /// takes on two readings of its rows.
  public func apply(_ values: inout [Float], width: Int, height: Int) {
    let layout = Layout(self, width: width, height: height)
    var histograms = [Int](repeating: 0, count: 256 * tilesX * tilesY)
    let bins = values.map { UInt8(Reduction.bin($0)) }
    bins.withUnsafeBufferPointer { bins in
      for y in 0..<height { layout.count(bins.baseAddress! + y * width, row: y, into: &histograms) }
    }
    let tables = tables(histograms, layout: layout)
    values.withUnsafeMutableBufferPointer { out in
      bins.withUnsafeBufferPointer { bins in
        for y in 0..<height { layout.map(bins.baseAddress! + y * width, row: y, tables: tables, into: out.baseAddress! + y * width) }
      }
    }
  }

  /// Every tile's table from every tile's histogram (256 bins a tile, tile
  /// `ty · tilesX + tx` at `256 · (ty · tilesX + tx)`), flat in the same order.
  public func tables(_ histograms: [Int], layout: Layout) -> [Float] {
    (0..<(tilesX * tilesY)).flatMap { t in table(Array(histograms[(256 * t)..<(256 * (t + 1))]), area: layout.area) }
  }

  /// The tiles of a `width × height` channel and where each of its pixels
  /// counts and reads (steps 1 and 4 above).
  public struct Layout: Sendable {
    public let width: Int, height: Int
    let tilesX: Int, tilesY: Int
    let tileWidth: Int, tileHeight: Int
    /// A tile's pixels.
    let area: Int
    /// The extended image's columns, as columns of the image.
    let columns: [Int]
    /// For each row of the image, the rows of the extended image that are it.
    let extendedRows: [[Int]]
    /// Per column, as OpenCV precomputes them: the left and right tiles' offsets (256 a tile) and the weights.
    let left: [Int], right: [Int], weight: [Float]

    public init(_ clahe: Clahe, width: Int, height: Int) {
      (self.width, self.height, tilesX, tilesY) = (width, height, clahe.tilesX, clahe.tilesY)
      let even = width % tilesX == 0 && height % tilesY == 0
      tileWidth = even ? width / tilesX : (width + tilesX - width % tilesX) / tilesX
      tileHeight = even ? height / tilesY : (height + tilesY - height % tilesY) / tilesY
      area = tileWidth * tileHeight
      // BORDER_REFLECT_101 past the right and bottom edges, periodic as OpenCV's
      // borderInterpolate (a side of 1 repeats its only pixel).
      func reflect(_ i: Int, _ n: Int) -> Int {
        guard n > 1 else { return 0 }
        let period = 2 * (n - 1), j = i % period
        return j < n ? j : period - j
      }
      columns = (0..<(tilesX * tileWidth)).map { reflect($0, width) }
      var rows = [[Int]](repeating: [], count: height)
      for e in 0..<(tilesY * tileHeight) { rows[reflect(e, height)].append(e) }
      extendedRows = rows
      let invW = 1 / Float(tileWidth)
      var (left, right, weight) = ([Int](), [Int](), [Float]())
      for x in 0..<width {
        let fx = Float(x) * invW - 0.5
        let x1 = Int(fx.rounded(.down))
        weight.append(fx - Float(x1))
        left.append(256 * Swift.max(x1, 0))
        right.append(256 * Swift.min(x1 + 1, tilesX - 1))
      }
      (self.left, self.right, self.weight) = (left, right, weight)
    }

    /// Counts image row `y` (`width` bins at `bins`) into the histograms of
    /// every tile its extended rows fall in.
    public func count(_ bins: UnsafePointer<UInt8>, row y: Int, into histograms: inout [Int]) {
      histograms.withUnsafeMutableBufferPointer { h in
        columns.withUnsafeBufferPointer { columns in
          for e in extendedRows[y] {
            let tileRow = 256 * tilesX * (e / tileHeight)
            for tx in 0..<tilesX {
              let tile = h.baseAddress! + tileRow + 256 * tx
              // The interior of the row reads its own columns; only the last tile's reflected tail goes through the table.
              let start = tx * tileWidth, end = start + tileWidth, direct = Swift.max(start, Swift.min(end, width))
              for x in start..<direct { tile[Int(bins[x])] += 1 }
              for x in direct..<end { tile[Int(bins[columns[x]])] += 1 }
            }
          }
        }
      }
    }

    /// Image row `y` (`width` bins at `bins`) mapped through `tables` into
    /// `out`: each pixel the bilinear mix of the four nearest tiles' levels,
    /// in fp32, rounded to a whole level (ties to even), over 255.
    public func map(_ bins: UnsafePointer<UInt8>, row y: Int, tables: [Float], into out: UnsafeMutablePointer<Float>) {
      let fy = Float(y) * (1 / Float(tileHeight)) - 0.5  // OpenCV's y·(1/th): the same bits
      let y1 = Int(fy.rounded(.down))
      let ya = fy - Float(y1), ya1 = 1 - ya
      let top = 256 * tilesX * Swift.max(y1, 0), bottom = 256 * tilesX * Swift.min(y1 + 1, tilesY - 1)
      tables.withUnsafeBufferPointer { t in
        left.withUnsafeBufferPointer { left in
          right.withUnsafeBufferPointer { right in
            weight.withUnsafeBufferPointer { weight in
              let upper = t.baseAddress! + top, lower = t.baseAddress! + bottom
              for x in 0..<width {
                let b = Int(bins[x]), xa = weight[x], xa1 = 1 - weight[x], l = left[x] + b, r = right[x] + b
                let v = (upper[l] * xa1 + upper[r] * xa) * ya1 + (lower[l] * xa1 + lower[r] * xa) * ya
                // v ≥ 0: clamped, then rounded to nearest even by adding and taking away 2²³ (no libm call).
                let c = Swift.min(Swift.max(v, 0), 255)
                out[x] = ((c + 8_388_608) - 8_388_608) / 255
              }
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
