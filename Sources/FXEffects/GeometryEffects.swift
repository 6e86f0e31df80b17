import FXDSL
import FXIR
import Foundation

// Effects that change the image's size or move its pixels exactly: geometry
// stages (docs/design.md §4), cut out of the fused graph and run between
// its segments. Their arguments are whole pixels or constants: a size is
// needed before the kernels run.

/// How ``resize(width:height:fit:filter:gravity:background:)`` meets a
/// target box of another aspect, as sharp names the modes.
public enum ResizeFit: String, Sendable, CaseIterable {
  /// Covers the box, aspect kept, then cropped to it by `gravity` (sharp's default).
  case cover
  /// Fits inside the box, aspect kept, then extended to it with `background`.
  case contain
  /// Exactly the box: the aspect changes.
  case fill
  /// Fits inside the box, aspect kept: the result may be smaller on one side.
  case inside
  /// Covers the box, aspect kept: the result may be larger on one side.
  case outside
}

/// An effect that is an error when built: for arguments no geometry can take.
func invalidGeometry(_ name: String, _ message: String) -> Effect {
  Effect(name) { input in
    Image.combine(name, [input]) { _, _ in Expr.failure(GeometryError(message), type: .float4) }
  }
}

/// The effect that passes `input` through `stages` in turn.
func geometry(_ name: String, _ stages: [Geometry]) -> Effect {
  Effect(name) { input in stages.reduce(input) { $0.geometry($1) } }
}

/// Resizes to `width` and/or `height` pixels (a side left nil follows the
/// aspect), meeting a box of both by `fit` (default ``ResizeFit/cover``, as
/// sharp), resampling with `filter` (default Lanczos 3) on premultiplied
/// colour; a reduction widens the filter (antialiasing), as Pillow's and
/// libvips' resamplers do (docs/design.md §4 gives the formula). `gravity`
/// places the crop of `cover` and the image in `contain`'s canvas;
/// `background` fills `contain`'s margins. Sides are 1…65,535 px. With
/// `shrinkOnLoad`, a JPEG read from a file may be decoded reduced first, as
/// ``thumbnail(size:height:filter:)`` does (off by default: it changes the
/// pixels slightly).
public func resize(
  width: Int? = nil, height: Int? = nil, fit: ResizeFit = .cover, filter: ResampleFilter = .lanczos3,
  gravity: Gravity = .center, background: Color = Color(0, 0, 0, 0), shrinkOnLoad: Bool = false
) -> Effect {
  var args: [String] = []
  if let width { args.append("width: \(width)") }
  if let height { args.append("height: \(height)") }
  if width != nil && height != nil { args.append("fit: \(fit.rawValue)") }
  args.append("filter: \(filter.rawValue)")
  if shrinkOnLoad { args.append("shrinkOnLoad: on") }
  let name = "resize(\(args.joined(separator: ", ")))"
  let sides = [width, height].compactMap { $0 }
  guard !sides.isEmpty, sides.allSatisfy({ (1...65_535).contains($0) }) else {
    return invalidGeometry(name, "give a width and/or a height of 1…65535 px")
  }
  guard let width, let height else {
    return geometry(name, [.resize(Resize(width: width, height: height, filter: filter, shrinkOnLoad: shrinkOnLoad))])
  }
  switch fit {
  case .fill, .inside, .outside:
    let mode = Resize.Fit(rawValue: fit.rawValue)!
    return geometry(name, [.resize(Resize(width: width, height: height, fit: mode, filter: filter, shrinkOnLoad: shrinkOnLoad))])
  case .cover:
    return geometry(
      name,
      [
        .resize(Resize(width: width, height: height, fit: .outside, filter: filter, shrinkOnLoad: shrinkOnLoad)),
        .crop(.size(width: width, height: height, gravity: gravity)),
      ])
  case .contain:
    let canvas = Extend(.canvas(width: width, height: height, gravity: gravity), background: .color(background.premultipliedRGBA))
    return geometry(name, [.resize(Resize(width: width, height: height, fit: .inside, filter: filter, shrinkOnLoad: shrinkOnLoad)), .extend(canvas)])
  }
}

/// Resizes by `scale` on both axes, 1/1024…64 (0.5 halves each side; sides
/// rounded to the nearest pixel, at least 1), with `filter` as ``resize(width:height:fit:filter:gravity:background:)``.
public func resize(scale: Double, filter: ResampleFilter = .lanczos3) -> Effect {
  let name = "resize(scale: \(scale), filter: \(filter.rawValue))"
  guard scale.isFinite, scale >= 1.0 / 1024, scale <= 64 else { return invalidGeometry(name, "scale must be in 1/1024…64") }
  return geometry(name, [.resize(Resize(scale: scale, filter: filter))])
}

/// A thumbnail: the image reduced to fit inside `size × size` px (or
/// `size × height`), aspect kept, never enlarged, with `filter` — and, where
/// a file is read (the CLI, ``Pipeline/apply(from:to:options:read:uniforms:threads:)``),
/// decoded at a reduced size first when the decoder can (JPEG DCT scaling by
/// 1/2, 1/4, 1/8: shrink-on-load, as libvips' `thumbnail`; docs/design.md §4).
public func thumbnail(size: Int, height: Int? = nil, filter: ResampleFilter = .lanczos3) -> Effect {
  let name = "thumbnail(\(size)\(height.map { ", height: \($0)" } ?? ""))"
  guard (1...65_535).contains(size), (1...65_535).contains(height ?? size) else {
    return invalidGeometry(name, "the box must be 1…65535 px")
  }
  let r = Resize(width: size, height: height ?? size, fit: .inside, filter: filter, enlarge: false, shrinkOnLoad: true)
  return geometry(name, [.resize(r)])
}

/// Crops to the rectangle at `x, y` of `width × height` pixels; a `width` or
/// `height` ≤ 0 reaches to that many pixels before the far edge (`crop(x: 100,
/// y: 100, width: -100, height: -100)` trims 100 px off every side). A
/// rectangle that does not fit an image is an error for that image.
public func crop(x: Int, y: Int, width: Int, height: Int) -> Effect {
  let rule = Crop.rectangle(x: x, y: y, width: width, height: height)
  return geometry("\(rule)", [.crop(rule)])
}

/// Crops a `width × height` rectangle placed by `gravity` (default centre).
public func crop(width: Int, height: Int, gravity: Gravity = .center) -> Effect {
  let rule = Crop.size(width: width, height: height, gravity: gravity)
  return geometry("\(rule)", [.crop(rule)])
}

/// Crops the largest rectangle of `aspect` (width / height, e.g. 16/9) placed by `gravity`.
public func crop(aspect: Double, gravity: Gravity = .center) -> Effect {
  let rule = Crop.aspect(ratio: Float(aspect), gravity: gravity)
  guard aspect.isFinite, aspect > 0 else { return invalidGeometry("\(rule)", "the aspect must be a positive number") }
  return geometry("\(rule)", [.crop(rule)])
}

/// Mirrors top to bottom.
public func flip() -> Effect { geometry("flip", [.orient(.flip)]) }
/// Mirrors left to right.
public func flop() -> Effect { geometry("flop", [.orient(.flop)]) }
/// Swaps rows and columns (mirrors about the main diagonal).
public func transpose() -> Effect { geometry("transpose", [.orient(.transpose)]) }
/// Mirrors about the other diagonal.
public func transverse() -> Effect { geometry("transverse", [.orient(.transverse)]) }

/// Rotates clockwise by `degrees`. A multiple of 90° is an exact index map;
/// any other angle an affine map (output = the rotated image's bounding box)
/// sampled with `interpolation` (§3's bilinear by default, or nearest),
/// `background` (default transparent) where there is no image.
public func rotate(degrees: Double, interpolation: Sampler.Filter = .linear, background: Color = Color(0, 0, 0, 0)) -> Effect {
  var name = "rotate(\(degrees)"
  if interpolation != .linear { name += ", interpolation: \(interpolation)" }
  if background != Color(0, 0, 0, 0) { name += ", background: \(background)" }
  name += ")"
  guard degrees.isFinite else { return invalidGeometry(name, "the angle must be finite") }
  let folded = degrees - 360 * (degrees / 360).rounded(.down)
  switch folded {
  case 0: return geometry(name, [])
  case 90: return geometry(name, [.orient(.rotate90)])
  case 180: return geometry(name, [.orient(.rotate180)])
  case 270: return geometry(name, [.orient(.rotate270)])
  default:
    let t = folded * Double.pi / 180
    // y points down: a clockwise turn on screen is the usual rotation matrix.
    let (c, s) = (Foundation.cos(t), Foundation.sin(t))
    return affine(a: c, b: -s, c: s, d: c, interpolation: interpolation, background: background, name: name)
  }
}

/// The affine map `[a b; c d]` (pixels to pixels; the output is the mapped
/// image's bounding box), sampled with `interpolation`, `background` outside.
public func affine(
  a: Double, b: Double, c: Double, d: Double, interpolation: Sampler.Filter = .linear, background: Color = Color(0, 0, 0, 0),
  name: String? = nil
) -> Effect {
  let map = Affine(a: a, b: b, c: c, d: d, interpolation: interpolation, background: .color(background.premultipliedRGBA))
  let label = name ?? "\(map)"
  guard map.determinant.isFinite, map.determinant != 0 else { return invalidGeometry(label, "the matrix must be invertible") }
  return geometry(label, [.affine(map)])
}

/// What ``extend(top:right:bottom:left:with:color:)`` puts in the margins.
public enum ExtendMode: String, Sendable, CaseIterable {
  /// A colour.
  case color
  /// The nearest edge pixel.
  case edge
  /// The image mirrored about its edges.
  case mirror
}

/// Adds margins of `top`, `right`, `bottom`, `left` pixels (each 0…65,535)
/// filled `with` a colour (`color`, default transparent), the edge, or a mirror.
public func extend(
  top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0, with mode: ExtendMode = .color, color: Color = Color(0, 0, 0, 0)
) -> Effect {
  let background: Background =
    switch mode {
    case .color: .color(color.premultipliedRGBA)
    case .edge: .edge
    case .mirror: .mirror
    }
  let e = Extend(.margins(top: top, right: right, bottom: bottom, left: left), background: background)
  let name = "extend(top: \(top), right: \(right), bottom: \(bottom), left: \(left), with: \(mode)\(mode == .color ? ", color: \(color)" : ""))"
  guard [top, right, bottom, left].allSatisfy({ (0...65_535).contains($0) }) else {
    return invalidGeometry(name, "margins must be 0…65535 px")
  }
  return geometry(name, [.extend(e)])
}

extension Color {
  /// The colour with premultiplied alpha, as geometry backgrounds hold it.
  var premultipliedRGBA: SIMD4<Float> { SIMD4(red * alpha, green * alpha, blue * alpha, alpha) }
}
