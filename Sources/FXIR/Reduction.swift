/// A stage that reads the whole image before it writes a pixel (docs/design.md
/// §4, "Reductions"): it reduces the image to a table — a histogram of each
/// colour channel — and maps every pixel through what the table decides. It
/// keeps the size; alpha is kept; the colour is mapped unpremultiplied
/// (`v = c / α`, 0 where α = 0) and premultiplied again.
///
/// The histogram has 256 bins per channel: a sample `v` counts in bin
/// `clamp(⌊v·255 + ½⌋, 0, 255)`, every pixel alike (as Pillow's
/// `Image.histogram()` counts an 8-bit image).
public enum Reduction: Hashable, Sendable, CustomStringConvertible {
  /// Each channel's levels stretched to the full range after `low` % of its
  /// samples are cut from the dark end and `high` % from the bright end
  /// (Pillow's `ImageOps.autocontrast(cutoff: (low, high))`, per channel:
  /// `⌊n·low/100⌋` samples taken from the lowest bins up, `⌊n·high/100⌋`
  /// from the highest down; `lo` and `hi` the first and last bins left).
  /// The map is `clamp((v·255 − lo) / (hi − lo), 0, 1)` — continuous where
  /// Pillow truncates its table to whole levels (so within one level of it)
  /// — and the identity where `hi ≤ lo`.
  case levels(low: Float, high: Float)
  /// Histogram equalisation per channel, as Pillow's `ImageOps.equalize`
  /// defines it: with the histogram's non-empty bins `h`, `step = ⌊(Σh −
  /// h_last) / 255⌋`; if there is at most one such bin or `step` is 0 the
  /// identity; else bin `i` maps to `min(⌊(⌊step/2⌋ + Σ_{j<i} h(j)) / step⌋, 255) / 255`,
  /// a sample to its bin's value.
  case equalize
  /// Adaptive equalisation: each channel equalised per tile, clip-limited,
  /// the tiles' maps blended bilinearly (``Clahe``, OpenCV's CLAHE).
  case clahe(Clahe)

  public var description: String {
    switch self {
    case .levels(let low, let high): "reduction: levels(low: \(low) %, high: \(high) %), per-channel histograms"
    case .equalize: "reduction: equalize, per-channel histograms"
    case .clahe(let c): "reduction: \(c), per-channel histograms per tile"
    }
  }

  /// The bin of a sample `v` (unpremultiplied colour).
  @inlinable
  public static func bin(_ v: Float) -> Int {
    // ⌊v·255 + 0.5⌋ clamped to 0…255: clamped first, then truncated (⌊⌋ for
    // what is not negative), the same bins without a call to floorf.
    let x = v * 255 + 0.5
    return x.isNaN ? 0 : Int(Swift.min(Swift.max(x, 0), 255))
  }

  /// What a channel whose histogram is `h` (256 bins) maps its samples
  /// through: `(scale, offset)` for levels (`v·scale + offset`, clamped to
  /// 0…1), or a table of 256 values for equalize; nil for the identity.
  public func map(histogram h: [Int]) -> ChannelMap? {
    precondition(h.count == 256)
    switch self {
    case .clahe: preconditionFailure("CLAHE maps per tile, not through one channel map")
    case .levels(let low, let high):
      var h = h
      let n = h.reduce(0, +)
      func cut(_ count: Int, _ bins: [Int]) {
        var cut = count
        for i in bins where cut > 0 {
          let taken = Swift.min(cut, h[i])
          h[i] -= taken
          cut -= taken
        }
      }
      cut(Int(Double(n) * Double(low) / 100), Array(0..<256))
      cut(Int(Double(n) * Double(high) / 100), Array((0..<256).reversed()))
      guard let lo = h.firstIndex(where: { $0 > 0 }), let hi = h.lastIndex(where: { $0 > 0 }), hi > lo else { return nil }
      let scale = 255 / Float(hi - lo)
      return .linear(scale: scale, offset: -Float(lo) / Float(hi - lo))
    case .equalize:
      let used = h.filter { $0 > 0 }
      guard used.count > 1 else { return nil }
      let step = (used.reduce(0, +) - used.last!) / 255
      guard step > 0 else { return nil }
      var n = step / 2
      var table = [Float](repeating: 0, count: 256)
      for i in 0..<256 {
        table[i] = Float(Swift.min(n / step, 255)) / 255
        n += h[i]
      }
      return .table(table)
    }
  }

  /// A channel's map, decided from its histogram.
  public enum ChannelMap: Hashable, Sendable {
    /// `clamp(v·scale + offset, 0, 1)`, in fp32.
    case linear(scale: Float, offset: Float)
    /// `table[bin(v)]`.
    case table([Float])

    @inlinable
    public func apply(_ v: Float) -> Float {
      switch self {
      case .linear(let scale, let offset): Swift.min(Swift.max(v * scale + offset, 0), 1)
      case .table(let t): t[Reduction.bin(v)]
      }
    }
  }
}
