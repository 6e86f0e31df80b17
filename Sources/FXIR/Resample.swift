import Foundation

/// A resampling kernel `k(x)` with its support `a` (k is 0 for `|x| ≥ a`),
/// as Pillow (`libImaging/Resample.c`) and libvips (`reduce*`) define them.
public enum ResampleFilter: String, Hashable, Sendable, CaseIterable {
  /// The input pixel whose square holds the output's centre: `⌊(i + 0.5)·s⌋`;
  /// no weights, no antialiasing.
  case nearest
  /// `1` on `(−½, ½]`: the mean of the pixels under the output's footprint.
  case box
  /// The triangle `1 − |x|` on `[−1, 1]`: bilinear.
  case linear
  /// Catmull-Rom: Keys' cubic with `a = −½` (Pillow's BICUBIC).
  case cubic
  /// Mitchell–Netravali with `B = C = ⅓` (libvips' `mitchell`).
  case mitchell
  /// `sinc(x)·sinc(x/2)` on `[−2, 2]`.
  case lanczos2
  /// `sinc(x)·sinc(x/3)` on `[−3, 3]` (Pillow's LANCZOS, the default).
  case lanczos3

  /// The support `a`: the kernel is 0 outside `(−a, a)`.
  public var support: Double {
    switch self {
    case .nearest, .box: 0.5
    case .linear: 1
    case .cubic, .mitchell, .lanczos2: 2
    case .lanczos3: 3
    }
  }

  /// `k(x)`. Sources: Pillow's `box_filter`, `bilinear_filter`,
  /// `bicubic_filter` (a = −0.5), `lanczos_filter`; Mitchell and Netravali,
  /// "Reconstruction filters in computer graphics" (1988), eq. 8 with B = C = ⅓.
  public func weight(_ x: Double) -> Double {
    let t = abs(x)
    switch self {
    case .nearest, .box: return x > -0.5 && x <= 0.5 ? 1 : 0
    case .linear: return t < 1 ? 1 - t : 0
    case .cubic:
      let a = -0.5
      if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
      return t < 2 ? (((t - 5) * t + 8) * t - 4) * a : 0
    case .mitchell:
      let b = 1.0 / 3, c = 1.0 / 3
      if t < 1 { return ((12 - 9 * b - 6 * c) * t * t * t + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6 }
      if t < 2 { return ((-b - 6 * c) * t * t * t + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6 }
      return 0
    case .lanczos2: return t < 2 ? Self.sinc(x) * Self.sinc(x / 2) : 0
    case .lanczos3: return t < 3 ? Self.sinc(x) * Self.sinc(x / 3) : 0
    }
  }

  static func sinc(_ x: Double) -> Double {
    x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
  }

  /// The input pixels output pixel `i` reads along an axis of `inSize`
  /// resampled to `outSize`, and their weights, normalised to sum 1: the
  /// centre is `c = (i + 0.5)·s` with `s = inSize / outSize`, the kernel is
  /// widened by `σ = max(s, 1)`, and the pixels are `n` in
  /// `[⌊c − a·σ + ½⌋, ⌊c + a·σ + ½⌋) ∩ [0, inSize)` weighted `k((n + 0.5 − c)/σ)`
  /// (Pillow's `precompute_coeffs`). Nearest reads one pixel, `⌊c⌋`.
  public func taps(_ i: Int, inSize: Int, outSize: Int) -> (first: Int, weights: [Double]) {
    let s = Double(inSize) / Double(outSize)
    let c = (Double(i) + 0.5) * s
    if self == .nearest { return (min(max(Int(c.rounded(.down)), 0), inSize - 1), [1]) }
    let sigma = max(s, 1)
    let reach = support * sigma
    let lo = max(0, Int((c - reach + 0.5).rounded(.down)))
    let hi = min(inSize, Int((c + reach + 0.5).rounded(.down)))
    var weights = (lo..<max(hi, lo)).map { weight((Double($0) + 0.5 - c) / sigma) }
    let sum = weights.reduce(0, +)
    if sum != 0 { weights = weights.map { $0 / sum } }
    return (lo, weights)
  }
}

/// Resampling to a new size, separably: every output pixel is the weighted
/// sum of input pixels that ``ResampleFilter/taps(_:inSize:outSize:)`` gives
/// along x, of the sums along y (docs/design.md §4). On premultiplied colour;
/// nothing is clamped between the two axes.
public struct Resize: Hashable, Sendable, CustomStringConvertible {
  /// How a target width and height that do not match the input's aspect are met (sharp's names;
  /// `cover` and `contain` are this with a crop or an extend after it).
  public enum Fit: String, Hashable, Sendable, CaseIterable {
    /// Exactly the target size: the aspect changes.
    case fill
    /// As large as fits inside the target, aspect kept.
    case inside
    /// As small as covers the target, aspect kept.
    case outside
  }

  /// The target width and height in pixels (one may be nil: from the aspect), or
  /// a scale factor for both.
  public var width: Int?, height: Int?, scale: Double?
  public var fit: Fit
  public var filter: ResampleFilter
  /// False: an image that would grow keeps its size (a thumbnail never enlarges).
  public var enlarge: Bool
  /// Whether the decoder may reduce first (JPEG DCT scaling): "the decoder's
  /// reduced image, then this resize" (§4). Used only where a file is read.
  public var shrinkOnLoad: Bool

  public init(
    width: Int? = nil, height: Int? = nil, scale: Double? = nil, fit: Fit = .fill, filter: ResampleFilter = .lanczos3,
    enlarge: Bool = true, shrinkOnLoad: Bool = false
  ) {
    (self.width, self.height, self.scale) = (width, height, scale)
    self.fit = fit
    self.filter = filter
    self.enlarge = enlarge
    self.shrinkOnLoad = shrinkOnLoad
  }

  /// The output size for an input of `w × h` (each side rounded to the
  /// nearest pixel, at least 1).
  public func outputSize(width w: Int, height h: Int) -> (width: Int, height: Int) {
    func scaled(_ n: Int, _ f: Double) -> Int { max(1, Int((Double(n) * f).rounded())) }
    var size: (width: Int, height: Int)
    switch (width, height, scale) {
    case (let tw?, let th?, _):
      let fx = Double(tw) / Double(w), fy = Double(th) / Double(h)
      switch fit {
      case .fill: size = (tw, th)
      case .inside: size = fx <= fy ? (tw, scaled(h, fx)) : (scaled(w, fy), th)
      case .outside: size = fx >= fy ? (tw, scaled(h, fx)) : (scaled(w, fy), th)
      }
    case (let tw?, nil, _): size = (tw, scaled(h, Double(tw) / Double(w)))
    case (nil, let th?, _): size = (scaled(w, Double(th) / Double(h)), th)
    case (nil, nil, let f?): size = (scaled(w, f), scaled(h, f))
    case (nil, nil, nil): size = (w, h)
    }
    if !enlarge && (size.width > w || size.height > h) { return (w, h) }
    return size
  }

  public var description: String {
    var parts: [String] = []
    if let width { parts.append("width: \(width)") }
    if let height { parts.append("height: \(height)") }
    if let scale { parts.append("scale: \(scale)") }
    if width != nil && height != nil { parts.append("fit: \(fit.rawValue)") }
    parts.append("filter: \(filter.rawValue)")
    if !enlarge { parts.append("enlarge: false") }
    if shrinkOnLoad { parts.append("shrinkOnLoad") }
    return "resize(\(parts.joined(separator: ", ")))"
  }
}
