import FXDSL
import FXIR

/// An on/off choice.
enum Switch: String, CaseIterable { case off, on }

extension Array where Element == ParameterValue {
  /// The whole number at `index` (a constant; 0 when it is not one).
  func int(_ index: Int) -> Int { Int(number(index).constantValue ?? 0) }
}

extension Catalogue {
  static let geometryEntries: [EffectSpec] = [
    geometryEntry(
      name: "resize", summary: "Resamples to a width and/or height, or by a scale (Lanczos 3 by default).",
      parameters: [
        .number("width", 0, 0...65_535, unit: "px", "target width; 0 = from the aspect", uniform: false),
        .number("height", 0, 0...65_535, unit: "px", "target height; 0 = from the aspect", uniform: false),
        .number("scale", 0.5, 1.0 / 1024...64, "both sides times this, when no width or height is given", uniform: false),
        .choice("fit", ResizeFit.allCases.map(\.rawValue), "cover", "how a width and a height of another aspect are met"),
        .choice("filter", ResampleFilter.allCases.map(\.rawValue), "lanczos3", "the resampling kernel"),
        .choice("gravity", Gravity.allCases.map(\.rawValue), "center", "where cover crops and contain places"),
        .color("background", Color(0, 0, 0, 0), "contain's margins"),
        .choice("shrinkOnLoad", ["off", "on"], "off", "on: a JPEG file may be decoded at 1/2, 1/4 or 1/8 first"),
      ],
      example: "resize(width: 320)"
    ) { a in
      let filter = a.choice(4, as: ResampleFilter.self)
      if a.int(0) <= 0 && a.int(1) <= 0 { return resize(scale: Double(a.number(2).constantValue ?? 0), filter: filter) }
      return resize(
        width: a.int(0) > 0 ? a.int(0) : nil, height: a.int(1) > 0 ? a.int(1) : nil, fit: a.choice(3, as: ResizeFit.self),
        filter: filter, gravity: a.choice(5, as: Gravity.self), background: a.color(6), shrinkOnLoad: a.choice(7, as: Switch.self) == .on)
    },
    geometryEntry(
      name: "thumbnail", summary: "Fits inside a box, never enlarging; JPEGs decode reduced first (shrink-on-load).",
      parameters: [
        .number("size", 256, 1...65_535, unit: "px", "the box's width (and height, unless given)", uniform: false),
        .number("height", 0, 0...65_535, unit: "px", "the box's height; 0 = size", uniform: false),
        .choice("filter", ResampleFilter.allCases.map(\.rawValue), "lanczos3", "the resampling kernel"),
      ],
      example: "thumbnail(256)"
    ) { a in thumbnail(size: a.int(0), height: a.int(1) > 0 ? a.int(1) : nil, filter: a.choice(2, as: ResampleFilter.self)) },
    geometryEntry(
      name: "crop", summary: "Cuts out a rectangle: at x, y; by gravity; or the largest of an aspect.",
      parameters: [
        .number("x", 0, 0...1_048_575, unit: "px", "left edge (with gravity topLeft)", uniform: false),
        .number("y", 0, 0...1_048_575, unit: "px", "top edge (with gravity topLeft)", uniform: false),
        .number("width", 0, -1_048_575...1_048_575, unit: "px", "width; ≤ 0 = up to that many px before the right edge", uniform: false),
        .number("height", 0, -1_048_575...1_048_575, unit: "px", "height; ≤ 0 = up to that many px before the bottom", uniform: false),
        .number("aspect", 0, 0...1000, "width / height of the largest such rectangle; 0 = off", uniform: false),
        .choice("gravity", Gravity.allCases.map(\.rawValue), "topLeft", "where a rectangle of a width and height, or an aspect, sits"),
      ],
      example: "crop(aspect: 1, gravity: center)"
    ) { a in
      let gravity = a.choice(5, as: Gravity.self)
      if let aspect = a.number(4).constantValue, aspect > 0 { return crop(aspect: Double(aspect), gravity: gravity) }
      if gravity != .topLeft {
        if a.int(0) != 0 || a.int(1) != 0 || a.int(2) <= 0 || a.int(3) <= 0 {
          return invalidGeometry("crop", "with a gravity, give a positive width and height and no x or y")
        }
        return crop(width: a.int(2), height: a.int(3), gravity: gravity)
      }
      return crop(x: a.int(0), y: a.int(1), width: a.int(2), height: a.int(3))
    },
    geometryEntry(
      name: "rotate", summary: "Turns clockwise: quarter turns exactly, other angles by an affine map.",
      parameters: [
        .number("angle", 90, -360...360, unit: "°", "clockwise", uniform: false),
        .choice("interpolation", Sampler.Filter.allCases.map(\.rawValue), "linear", "sampling for angles off the quarter turns"),
        .color("background", Color(0, 0, 0, 0), "where no image is (angles off the quarter turns)"),
      ],
      example: "rotate(90)"
    ) { a in
      rotate(
        degrees: Double(a.number(0).constantValue ?? 0), interpolation: a.choice(1, as: Sampler.Filter.self),
        background: a.color(2))
    },
    geometryEntry(name: "flip", summary: "Mirrors top to bottom.", parameters: []) { _ in flip() },
    geometryEntry(name: "flop", summary: "Mirrors left to right.", parameters: []) { _ in flop() },
    geometryEntry(name: "transpose", summary: "Swaps rows and columns.", parameters: []) { _ in transpose() },
    geometryEntry(name: "transverse", summary: "Mirrors about the anti-diagonal.", parameters: []) { _ in transverse() },
    geometryEntry(
      name: "extend", summary: "Adds margins: a colour, the edge repeated, or a mirror.",
      parameters: ["top", "right", "bottom", "left"].map { .number($0, 0, 0...65_535, unit: "px", "margin", uniform: false) }
        + [
          .choice("with", ExtendMode.allCases.map(\.rawValue), "color", "what fills the margins"),
          .color("color", Color(0, 0, 0, 0), "the margins' colour (with: color)"),
        ],
      example: "extend(top: 40, right: 40, bottom: 40, left: 40, color: #ffffff)"
    ) { a in
      extend(top: a.int(0), right: a.int(1), bottom: a.int(2), left: a.int(3), with: a.choice(4, as: ExtendMode.self), color: a.color(5))
    },
    EffectSpec(
      name: "composite", kind: .layer, summary: "Places an image over this one (a watermark): by gravity or at x, y, with a blend mode.",
      parameters: [
        .image("overlay", "the image placed on top"),
        .number("x", -1, -1...1_048_575, unit: "px", "its left edge; -1 = by gravity", uniform: false),
        .number("y", -1, -1...1_048_575, unit: "px", "its top edge; -1 = by gravity", uniform: false),
        .choice("gravity", Gravity.allCases.map(\.rawValue), "bottomRight", "where it sits along an axis whose x or y is -1"),
        .number("opacity", 1, 0...1, "1 = as it is, 0 = invisible"),
        .choice("mode", BlendMode.allCases.map(\.rawValue), "over", "the W3C blend mode"),
      ],
      example: "composite(opacity: 0.7)"
    ) { a in
      guard [1, 2].allSatisfy({ a.number($0).constantValue?.isFinite ?? false }) else { return .identity }  // §5
      let (x, y) = (min(max(a.int(1), -1), 1_048_575), min(max(a.int(2), -1), 1_048_575))
      return composite(
        a.image(0) ?? .input(1), x: x >= 0 ? x : nil, y: y >= 0 ? y : nil, gravity: a.choice(3, as: Gravity.self),
        opacity: a.number(4), mode: a.choice(5, as: BlendMode.self))
    },
    EffectSpec(
      name: "convolve", kind: .layer, summary: "Convolves with an n × n kernel, divided and offset (libvips conv, Pillow Kernel).",
      parameters: [
        .numbers("kernel", [0, 0, 0, 0, 1, 0, 0, 0, 0], "n × n weights, row by row (n odd)"),
        .number("divisor", 0, 0...1e6, "the sum is divided by this (at least 1e-6); 0 = the weights' sum (1 if that is 0)", uniform: false),
        .number("offset", 0, -1...1, "added to straight colour after dividing", uniform: false),
      ],
      example: "convolve(kernel: [-1, -1, -1, -1, 16, -1, -1, -1, -1], divisor: 8)"
    ) { a in
      convolve(
        kernel: a.numbers(0).map { $0.constantValue ?? .nan }, divisor: a.number(1).constantValue.map { min(max($0, 0), 1e6) } ?? 0,
        offset: a.number(2).constantValue.map { min(max($0, -1), 1) } ?? 0)
    },
  ]

  /// A geometry effect's row.
  static func geometryEntry(
    name: String, summary: String, parameters: [ParameterSpec], example: String? = nil,
    build: @escaping @Sendable ([ParameterValue]) -> Effect
  ) -> EffectSpec {
    // A size has nothing to switch off to: a non-finite number is an error
    // naming the parameter (docs/design.md §5), not the identity.
    let checked: @Sendable ([ParameterValue]) -> Effect = { values in
      for (p, v) in zip(parameters, values) {
        guard case .number(let e) = v, let c = e.constantValue else { continue }
        if !c.isFinite { return invalidGeometry(name, "\(p.name) must be a finite number, got \(c)") }
        // A size or position in pixels is whole: resize(0.25) is not a scale.
        if p.unit == "px" && c != c.rounded() {
          return invalidGeometry(
            name,
            "\(p.name) is a whole number of pixels, got \(c)\(p.name == "width" && name == "resize" ? " (for a scale: resize(scale: \(c)))" : "")")
        }
      }
      return build(values)
    }
    var spec = EffectSpec(name: name, kind: .layer, summary: summary, parameters: parameters, example: example, build: checked)
    spec.changesSize = true
    return spec
  }
}
