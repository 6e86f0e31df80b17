/// A stage that changes the image's domain (its width × height): crop,
/// resize, the eight quarter-turn/mirror maps, extend and affine maps
/// (docs/design.md §4, "Stages of another size").
///
/// A geometry stage's size is a function of its input's size, decided when it
/// runs, so one pipeline serves photos of every size. Its output pixel
/// `(i, j)` has its centre at `(i + 0.5, j + 0.5)` in its own coordinates
/// and reads its input through the map each case states. Every image is
/// premultiplied RGBA32F here (DESIGN §1).
public enum Geometry: Hashable, Sendable, CustomStringConvertible {
  /// Output `(x, y)` is input `(x + left, y + top)`, exactly.
  case crop(Crop)
  /// Separable resampling (``Resize``).
  case resize(Resize)
  /// One of the eight exact index maps of the square's symmetries.
  case orient(Orientation)
  /// The input placed in a larger canvas (``Extend``).
  case extend(Extend)
  /// Output centre `p` reads the input at `A⁻¹·(p + origin)` (``Affine``).
  case affine(Affine)

  /// The output's width and height for an input of `width × height`.
  /// - Throws: ``GeometryError`` when the stage cannot apply to that size
  ///   (a crop rectangle outside the image, a side that would be 0 or above
  ///   2^20 px).
  public func outputSize(width: Int, height: Int) throws -> (width: Int, height: Int) {
    let size: (width: Int, height: Int)
    switch self {
    case .crop(let c): size = try c.rectangle(width: width, height: height).size
    case .resize(let r): size = r.outputSize(width: width, height: height)
    case .orient(let o): size = o.swapsAxes ? (height, width) : (width, height)
    case .extend(let e):
      let m = e.margins(width: width, height: height)
      size = (width + m.left + m.right, height + m.top + m.bottom)
    case .affine(let a): size = a.bounds(width: width, height: height).size
    }
    guard size.width >= 1, size.height >= 1, size.width <= 1 << 20, size.height <= 1 << 20 else {
      throw GeometryError("\(self) of a \(width)×\(height) image would be \(size.width)×\(size.height)")
    }
    return size
  }

  public var description: String {
    switch self {
    case .crop(let c): "\(c)"
    case .resize(let r): "\(r)"
    case .orient(let o): o.rawValue
    case .extend(let e): "\(e)"
    case .affine(let a): "\(a)"
    }
  }
}

/// Why a geometry stage cannot apply to an image.
public struct GeometryError: Error, CustomStringConvertible, Equatable {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Where a rectangle sits in a larger one, as sharp's `position` names it.
public enum Gravity: String, Hashable, Sendable, CaseIterable {
  case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight

  /// The offset of an `inner` length placed in an `outer` one along x or y:
  /// 0, centred (rounded down), or at the far end.
  public func offset(inner: Int, outer: Int, isX: Bool) -> Int {
    let name = rawValue.lowercased()
    let far = isX ? name.hasSuffix("right") : name.hasPrefix("bottom")
    let near = isX ? name.hasSuffix("left") : name.hasPrefix("top")
    return near ? 0 : far ? outer - inner : (outer - inner) / 2
  }
}

/// A crop rectangle, as a rule over the input's size.
public enum Crop: Hashable, Sendable, CustomStringConvertible {
  /// `x, y` from the top-left corner; a `width` or `height` ≤ 0 reaches to
  /// that many pixels before the far edge (`width: -100` stops 100 px short).
  case rectangle(x: Int, y: Int, width: Int, height: Int)
  /// A `width × height` rectangle placed by gravity.
  case size(width: Int, height: Int, gravity: Gravity)
  /// The largest rectangle of aspect `ratio` (width / height) placed by gravity.
  case aspect(ratio: Float, gravity: Gravity)

  /// The rectangle in the input's pixels.
  /// - Throws: ``GeometryError`` when it is empty or passes an edge.
  public func rectangle(width: Int, height: Int) throws -> (x: Int, y: Int, size: (width: Int, height: Int)) {
    var x = 0, y = 0, w = width, h = height
    switch self {
    case .rectangle(let cx, let cy, let cw, let ch):
      (x, y) = (cx, cy)
      w = cw > 0 ? cw : width - cx + cw
      h = ch > 0 ? ch : height - cy + ch
    case .size(let cw, let ch, let g):
      (w, h) = (cw, ch)
      (x, y) = (g.offset(inner: w, outer: width, isX: true), g.offset(inner: h, outer: height, isX: false))
    case .aspect(let ratio, let g):
      // Double: a ratio near the image's own must not lose a pixel to fp32.
      let r = Double(ratio)
      if Double(width) / Double(height) > r {
        w = max(1, Int((Double(height) * r).rounded()))
      } else {
        h = max(1, Int((Double(width) / r).rounded()))
      }
      (x, y) = (g.offset(inner: w, outer: width, isX: true), g.offset(inner: h, outer: height, isX: false))
    }
    guard x >= 0, y >= 0, w >= 1, h >= 1, x + w <= width, y + h <= height else {
      throw GeometryError(
        "\(self) does not fit a \(width)×\(height) image: the rectangle would be \(w)×\(h) at (\(x), \(y))")
    }
    return (x, y, (w, h))
  }

  public var description: String {
    switch self {
    case .rectangle(let x, let y, let w, let h): "crop(x: \(x), y: \(y), width: \(w), height: \(h))"
    case .size(let w, let h, let g): "crop(width: \(w), height: \(h), gravity: \(g.rawValue))"
    case .aspect(let r, let g): "crop(aspect: \(r), gravity: \(g.rawValue))"
    }
  }
}

/// The eight maps of a square onto itself; output `(x, y)` reads one input
/// pixel, exactly (EXIF orientation numbers them 1…8: ``exifOrientation``).
public enum Orientation: String, Hashable, Sendable, CaseIterable {
  case identity, flop, rotate180, flip, transpose, rotate90, transverse, rotate270

  /// `flop` mirrors left–right, `flip` top–bottom; `rotate90` turns clockwise.
  /// The EXIF number (CIPA DC-008, tag 0x0112) of the map that turns a stored
  /// image upright, which is this map.
  public var exifOrientation: Int { Self.allCases.firstIndex(of: self)! + 1 }
  /// Whether width and height trade places.
  public var swapsAxes: Bool { exifOrientation >= 5 }

  /// The input pixel output `(x, y)` reads, for an input of `width × height`.
  @inlinable
  public func source(_ x: Int, _ y: Int, width w: Int, height h: Int) -> (x: Int, y: Int) {
    switch self {
    case .identity: (x, y)
    case .flop: (w - 1 - x, y)
    case .rotate180: (w - 1 - x, h - 1 - y)
    case .flip: (x, h - 1 - y)
    case .transpose: (y, x)
    case .rotate90: (y, h - 1 - x)
    case .transverse: (w - 1 - y, h - 1 - x)
    case .rotate270: (w - 1 - y, x)
    }
  }
}

/// What an extend or affine map shows where there is no input.
public enum Background: Hashable, Sendable, CustomStringConvertible {
  /// A premultiplied RGBA colour.
  case color(SIMD4<Float>)
  /// The nearest edge pixel (§3's clamp to edge).
  case edge
  /// The image mirrored about its edges (§3's mirror, period 2n).
  case mirror

  public var description: String {
    switch self {
    case .color(let c): "color(\(c.x), \(c.y), \(c.z), \(c.w))"
    case .edge: "edge"
    case .mirror: "mirror"
    }
  }
}

/// The input placed in a larger canvas: by margins, or centred by gravity in
/// a canvas of a given size (a side smaller than the input's keeps the input's).
public struct Extend: Hashable, Sendable, CustomStringConvertible {
  public enum Rule: Hashable, Sendable {
    case margins(top: Int, right: Int, bottom: Int, left: Int)
    case canvas(width: Int, height: Int, gravity: Gravity)
  }
  public var rule: Rule
  public var background: Background

  public init(_ rule: Rule, background: Background) {
    self.rule = rule
    self.background = background
  }

  /// The margins for an input of `width × height`.
  public func margins(width: Int, height: Int) -> (top: Int, right: Int, bottom: Int, left: Int) {
    switch rule {
    case .margins(let t, let r, let b, let l): return (max(t, 0), max(r, 0), max(b, 0), max(l, 0))
    case .canvas(let cw, let ch, let g):
      let w = max(cw, width), h = max(ch, height)
      let left = g.offset(inner: width, outer: w, isX: true), top = g.offset(inner: height, outer: h, isX: false)
      return (top, w - width - left, h - height - top, left)
    }
  }

  public var description: String {
    switch rule {
    case .margins(let t, let r, let b, let l): "extend(top: \(t), right: \(r), bottom: \(b), left: \(l), \(background))"
    case .canvas(let w, let h, let g): "extend(width: \(w), height: \(h), gravity: \(g.rawValue), \(background))"
    }
  }
}

/// An affine map `q = A·p` (`A = [a b; c d]`, no translation: the output is
/// the box of the mapped input's extent, centred on it, so a translation would not show).
/// Output centre `p` reads the input at `A⁻¹·(p + origin)`, where `origin`
/// is the box's top-left corner, with ``interpolation`` (§3's bilinear or
/// nearest) and ``background`` for texels outside the input.
public struct Affine: Hashable, Sendable, CustomStringConvertible {
  public var a: Double, b: Double, c: Double, d: Double
  public var interpolation: Sampler.Filter
  public var background: Background

  public init(a: Double, b: Double, c: Double, d: Double, interpolation: Sampler.Filter, background: Background) {
    (self.a, self.b, self.c, self.d) = (a, b, c, d)
    self.interpolation = interpolation
    self.background = background
  }

  /// The determinant; an affine stage needs it non-zero and finite.
  public var determinant: Double { a * d - b * c }

  /// The output box: as wide and tall as the mapped input rectangle's
  /// extent, rounded up after a 1e-6 px tolerance (a quarter turn keeps its
  /// size), centred on the mapped centre (so ±θ give one size, as libvips'
  /// `rotate`); `origin` is its top-left corner in mapped coordinates.
  public func bounds(width: Int, height: Int) -> (originX: Double, originY: Double, size: (width: Int, height: Int)) {
    let corners = [(0.0, 0.0), (Double(width), 0), (0, Double(height)), (Double(width), Double(height))]
    let xs = corners.map { a * $0.0 + b * $0.1 }, ys = corners.map { c * $0.0 + d * $0.1 }
    let w = (xs.max()! - xs.min()! - 1e-6).rounded(.up), h = (ys.max()! - ys.min()! - 1e-6).rounded(.up)
    guard determinant.isFinite, determinant != 0, w < 1e7, h < 1e7 else { return (0, 0, (0, 0)) }
    let cx = (xs.max()! + xs.min()!) / 2, cy = (ys.max()! + ys.min()!) / 2
    return (cx - w / 2, cy - h / 2, (Int(w), Int(h)))
  }

  public var description: String {
    "affine([\(a), \(b); \(c), \(d)], \(interpolation), \(background))"
  }
}
