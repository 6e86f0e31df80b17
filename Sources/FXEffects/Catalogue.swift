import FXIR

// The catalogue describes every effect as data — name, kind, parameters with
// their defaults and ranges — so the command line resolves chains, checks
// values and prints `fxc effects` from one table. The numbers here repeat the
// effect functions' documentation; the CLI tests check that the two agree.

/// One parameter of an effect, as the command line shows and checks it.
public struct ParameterSpec: Sendable, Hashable {
  /// The argument label, as in the effect function: `intensity`.
  public var name: String
  /// The value the effect function uses when the argument is left out.
  public var defaultValue: Float
  /// The values the effect function accepts unclamped; the CLI rejects anything else.
  public var range: ClosedRange<Float>
  /// The unit of the value: `"px"` for lengths in pixels, `""` for plain numbers.
  public var unit: String
  /// What the parameter does, in a few words, for `fxc effects`.
  public var summary: String
  /// Whether the parameter may be a uniform. `false` for a parameter that shapes
  /// the kernel itself (a blur's `sigma` sets its number of taps), which must be
  /// known when the kernel is compiled.
  public var allowsUniform: Bool

  /// Creates a parameter description.
  public init(
    name: String, defaultValue: Float, range: ClosedRange<Float>, unit: String = "", summary: String,
    allowsUniform: Bool = true
  ) {
    self.name = name
    self.defaultValue = defaultValue
    self.range = range
    self.unit = unit
    self.summary = summary
    self.allowsUniform = allowsUniform
  }

  /// The range as messages and `fxc effects` print it, with its unit: `0…1`, `1…10000 px`.
  public var rangeDescription: String {
    let bounds = "\(formatted(range.lowerBound))…\(formatted(range.upperBound))"
    return unit.isEmpty ? bounds : "\(bounds) \(unit)"
  }

  /// What the command line accepts for this parameter of `effect`, for messages:
  /// `parameter 'amount' of 'sepia' must be a finite number in 0…1`.
  public func requirement(in effect: String) -> String {
    "parameter '\(name)' of '\(effect)' must be a finite number in \(rangeDescription)"
  }

  /// Why the command line must reject `value` for this parameter of `effect`, or
  /// `nil` when `value` is a finite number in ``range``.
  ///
  /// The library clamps out-of-range values and switches an effect off for a
  /// non-finite one (DESIGN §5); the command line refuses both instead, so a
  /// typo never silently changes the picture:
  ///
  ///     parameter 'amount' of 'sepia' must be a finite number in 0…1, got nan
  public func rejection(of value: Double, in effect: String) -> String? {
    if value.isFinite, Double(range.lowerBound) <= value, value <= Double(range.upperBound) { return nil }
    return "\(requirement(in: effect)), got \(formatted(value))"
  }
}

/// One effect of the catalogue: what `fxc effects` lists and a chain may name.
public struct EffectSpec: Sendable {
  /// The name a chain uses, the same as the Swift function's: `gaussianBlur`.
  public var name: String
  /// Color, distortion or layer effect (DESIGN §2).
  public var kind: EffectKind
  /// What the effect does, in one line.
  public var summary: String
  /// The parameters, in the order of the function's arguments (and of positional arguments in a chain).
  public var parameters: [ParameterSpec]
  /// Builds the effect from one value per parameter, in parameter order
  /// (each a constant or a uniform `Param` as an `Expr`).
  public var make: @Sendable ([Expr]) -> Effect

  /// Creates an effect description.
  public init(
    name: String, kind: EffectKind, summary: String, parameters: [ParameterSpec],
    make: @escaping @Sendable ([Expr]) -> Effect
  ) {
    self.name = name
    self.kind = kind
    self.summary = summary
    self.parameters = parameters
    self.make = make
  }

  /// The parameter called `name`, if there is one.
  public func parameter(named name: String) -> ParameterSpec? { parameters.first { $0.name == name } }

  /// The effect with every parameter at its default value.
  public func makeDefault() -> Effect { make(parameters.map { Expr($0.defaultValue) }) }
}

/// Every effect the command line knows, in the order `fxc effects` lists them.
public enum Catalogue {
  /// The effects, color effects first.
  public static let effects: [EffectSpec] = [
    EffectSpec(
      name: "sepia", kind: .color, summary: "Sepia tone: the W3C sepia matrix, mixed with the original.",
      parameters: [
        ParameterSpec(
          name: "amount", defaultValue: 1, range: 0...1, summary: "how much tone; 0 leaves the image unchanged")
      ],
      make: { sepia(amount: $0[0]) }),
    EffectSpec(
      name: "brightness", kind: .color, summary: "Adds to every channel, like SwiftUI's brightness(_:).",
      parameters: [
        ParameterSpec(name: "amount", defaultValue: 0, range: -1...1, summary: "added to each channel; 0 = unchanged")
      ],
      make: { brightness(amount: $0[0]) }),
    EffectSpec(
      name: "contrast", kind: .color, summary: "Scales color around mid-gray, like SwiftUI's contrast(_:).",
      parameters: [
        ParameterSpec(name: "amount", defaultValue: 1, range: 0...4, summary: "the scale; 1 = unchanged, 0 = flat gray")
      ],
      make: { contrast(amount: $0[0]) }),
    EffectSpec(
      name: "saturation", kind: .color, summary: "Mixes color with its Rec. 709 luma (W3C saturate).",
      parameters: [
        ParameterSpec(name: "amount", defaultValue: 1, range: 0...4, summary: "0 = gray, 1 = unchanged, more = vivid")
      ],
      make: { saturation(amount: $0[0]) }),
    EffectSpec(
      name: "vignette", kind: .color, summary: "Darkens toward the corners with a smoothstep falloff.",
      parameters: [
        ParameterSpec(name: "intensity", defaultValue: 1, range: 0...1, summary: "darkening at the corners"),
        ParameterSpec(
          name: "radius", defaultValue: 0.75, range: 0...1.5,
          summary: "centre of the falloff, in half-diagonals from the centre"),
      ],
      make: { vignette(intensity: $0[0], radius: $0[1]) }),
    EffectSpec(
      name: "wave", kind: .distortion, summary: "Shifts each column up and down along a sine wave.",
      parameters: [
        ParameterSpec(
          name: "amplitude", defaultValue: 10, range: 0...1000, unit: "px", summary: "how far a column moves"),
        ParameterSpec(
          name: "wavelength", defaultValue: 60, range: 1...10000, unit: "px", summary: "distance between crests"),
      ],
      make: { wave(amplitude: $0[0], wavelength: $0[1]) }),
    EffectSpec(
      name: "pixelate", kind: .layer, summary: "Fills square blocks with the color at their centre.",
      parameters: [
        ParameterSpec(name: "amount", defaultValue: 1, range: 0...1, summary: "0 = unchanged, 1 = full block size"),
        ParameterSpec(
          name: "blockSize", defaultValue: 22, range: 1...1000, unit: "px", summary: "block side at amount 1"),
      ],
      make: { pixelate(amount: $0[0], blockSize: $0[1]) }),
    EffectSpec(
      name: "gaussianBlur", kind: .layer, summary: "Gaussian blur; edges are clamped, so no dark border.",
      parameters: [
        ParameterSpec(
          name: "sigma", defaultValue: 3, range: 0...10, unit: "px", summary: "standard deviation; 0 = unchanged",
          allowsUniform: false)
      ],
      make: { gaussianBlur(sigma: $0[0]) }),
    EffectSpec(
      name: "unsharpMask", kind: .layer, summary: "Sharpens by adding back the difference from a Gaussian blur.",
      parameters: [
        ParameterSpec(
          name: "sigma", defaultValue: 2, range: 0...10, unit: "px", summary: "standard deviation of the blur",
          allowsUniform: false),
        ParameterSpec(name: "amount", defaultValue: 1, range: 0...10, summary: "strength; 0 = unchanged"),
      ],
      make: { unsharpMask(sigma: $0[0], amount: $0[1]) }),
  ]

  /// The effect called `name` (exact spelling), if there is one.
  public static func spec(named name: String) -> EffectSpec? { effects.first { $0.name == name } }

  /// The effects' names, in catalogue order.
  public static var names: [String] { effects.map(\.name) }
}

/// The text `fxc effects` prints: for each effect a line with its name, kind and
/// summary, then one line per parameter with its default, range and unit, and
/// what it does; every column aligned across the whole listing.
///
///     sepia         color       Sepia tone: the W3C sepia matrix, mixed with the original.
///       amount      default 1     0…1         how much tone; 0 leaves the image unchanged
public func effectsListing(_ effects: [EffectSpec] = Catalogue.effects) -> String {
  let parameters = effects.flatMap(\.parameters)
  let nameWidth = (effects.map(\.name.count) + parameters.map { $0.name.count + 2 }).max() ?? 0
  let kindWidth = effects.map(\.kind.rawValue.count).max() ?? 0
  let defaultWidth = parameters.map { "default \(formatted($0.defaultValue))".count }.max() ?? 0
  let rangeWidth = parameters.map(\.rangeDescription.count).max() ?? 0
  func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(width - text.count, 0)) }

  var blocks: [String] = []
  for effect in effects {
    var lines = [pad(effect.name, nameWidth) + "  " + pad(effect.kind.rawValue, kindWidth) + "  " + effect.summary]
    for p in effect.parameters {
      let note = p.allowsUniform ? "" : " (constant only)"
      lines.append(
        "  " + pad(p.name, nameWidth - 2) + "  " + pad("default \(formatted(p.defaultValue))", defaultWidth) + "  "
          + pad(p.rangeDescription, rangeWidth) + "  " + p.summary + note)
    }
    blocks.append(lines.joined(separator: "\n"))
  }
  return blocks.joined(separator: "\n\n") + "\n"
}

/// A number as the catalogue prints it: `3`, `0.75`, `-1`, `nan`.
func formatted(_ value: Double) -> String {
  value.isFinite && value == value.rounded() && Swift.abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
}

/// A parameter bound or default as the catalogue prints it: `3`, `0.75`, `1.5`.
func formatted(_ value: Float) -> String {
  value.isFinite && value == value.rounded() && Swift.abs(value) < 1e7 ? String(Int64(value)) : "\(value)"
}
