import FXDSL
import FXIR

// The catalogue describes every effect as data — name, kind, parameters with
// their kinds, defaults and ranges — so the command line resolves chains,
// checks values, prints `fxc effects` and renders the contact sheet from one
// table (CatalogueEntries.swift). The numbers there repeat the effect
// functions' documentation; the catalogue tests check that the two agree.

/// One parameter of an effect, as the command line shows and checks it.
public struct ParameterSpec: Sendable, Hashable {
  /// What kind of value the parameter takes.
  public enum Kind: Sendable, Hashable {
    /// A number in ``ParameterSpec/range``; the only kind that may be a uniform.
    case number
    /// A color, `#rrggbb` or `#rrggbbaa` (straight RGBA); the associated value is the default.
    case color(Color)
    /// One identifier of a fixed list (`direction: topToBottom`); the default is
    /// `choices[Int(defaultValue)]`.
    case choice([String])
    /// Any number of colors, given as consecutive color arguments (or repeated
    /// labels) or as one bracketed list `[#ff0000, #0000ff]`; the associated value is the default list.
    case colors([Color])
    /// A list of numbers, `[0.1, 0.2, 0.7]` (each finite; any length, empty
    /// included); the associated value is the default list. Constant only.
    case numbers([Float])
    /// An image file, given as a quoted path `"noise.png"` (relative to the
    /// current directory) that the command line reads as another input of the
    /// graph; left out, the graph's input 1 (`fxc run --to`).
    case image
  }

  /// The argument label, as in the effect function: `intensity`.
  public var name: String
  /// What kind of value it takes.
  public var kind: Kind
  /// The default of a number (for a choice, the default's index).
  public var defaultValue: Float
  /// The numbers the effect function accepts unclamped; the CLI rejects anything else.
  public var range: ClosedRange<Float>
  /// For angles and times: the period after which the library folds the value
  /// (`360` for degrees), instead of clamping it. The CLI still accepts only ``range``.
  public var period: Float?
  /// The unit of the value: `"px"` for lengths in pixels, `"°"` for angles, `"s"` for seconds, `""` for plain numbers.
  public var unit: String
  /// What the parameter does, in a few words, for `fxc effects`.
  public var summary: String
  /// Whether the parameter may be a uniform. `false` for a parameter that shapes
  /// the kernel itself (a blur's `sigma` sets its number of taps), which must be
  /// known when the kernel is compiled, and for every parameter that is not a number.
  public var allowsUniform: Bool

  /// Creates a number parameter.
  public init(
    name: String, defaultValue: Float, range: ClosedRange<Float>, unit: String = "", summary: String,
    allowsUniform: Bool = true, period: Float? = nil
  ) {
    self.name = name
    self.kind = .number
    self.defaultValue = defaultValue
    self.range = range
    self.period = period
    self.unit = unit
    self.summary = summary
    self.allowsUniform = allowsUniform
  }

  /// A number parameter: `.number("amount", 1, 0...1, "how much")`.
  public static func number(
    _ name: String, _ defaultValue: Float, _ range: ClosedRange<Float>, unit: String = "", _ summary: String,
    uniform: Bool = true
  ) -> ParameterSpec {
    ParameterSpec(name: name, defaultValue: defaultValue, range: range, unit: unit, summary: summary, allowsUniform: uniform)
  }

  /// An angle in degrees: the CLI accepts −360…360, the library folds any finite value into one turn.
  public static func angle(_ name: String, _ defaultValue: Float, _ summary: String) -> ParameterSpec {
    ParameterSpec(name: name, defaultValue: defaultValue, range: -360...360, unit: "°", summary: summary, period: 360)
  }

  /// A color parameter.
  public static func color(_ name: String, _ defaultColor: Color, _ summary: String) -> ParameterSpec {
    var p = ParameterSpec(name: name, defaultValue: 0, range: 0...0, summary: summary, allowsUniform: false)
    p.kind = .color(defaultColor)
    return p
  }

  /// A choice among identifiers, `defaultChoice` one of them.
  public static func choice(_ name: String, _ choices: [String], _ defaultChoice: String, _ summary: String)
    -> ParameterSpec
  {
    let index = choices.firstIndex(of: defaultChoice) ?? 0
    var p = ParameterSpec(
      name: name, defaultValue: Float(index), range: 0...Float(choices.count - 1), summary: summary,
      allowsUniform: false)
    p.kind = .choice(choices)
    return p
  }

  /// A list of colors.
  public static func colors(_ name: String, _ defaultColors: [Color], _ summary: String) -> ParameterSpec {
    var p = ParameterSpec(name: name, defaultValue: 0, range: 0...0, summary: summary, allowsUniform: false)
    p.kind = .colors(defaultColors)
    return p
  }

  /// A list of numbers, `[0.1, 0.2]`.
  public static func numbers(_ name: String, _ defaultNumbers: [Float], _ summary: String) -> ParameterSpec {
    var p = ParameterSpec(name: name, defaultValue: 0, range: 0...0, summary: summary, allowsUniform: false)
    p.kind = .numbers(defaultNumbers)
    return p
  }

  /// An image, given as a file path.
  public static func image(_ name: String, _ summary: String) -> ParameterSpec {
    var p = ParameterSpec(name: name, defaultValue: 0, range: 0...0, summary: summary, allowsUniform: false)
    p.kind = .image
    return p
  }

  /// Whether the parameter takes a number.
  public var isNumber: Bool { kind == .number }

  /// The value used when the argument is left out.
  public var defaultArgument: ParameterValue {
    switch kind {
    case .number: .number(Expr(defaultValue))
    case .color(let c): .color(c)
    case .choice(let names): .choice(names[Int(defaultValue)])
    case .colors(let list): .colors(list)
    case .numbers(let list): .numbers(list.map { Expr($0) })
    case .image: .image(nil)
    }
  }

  /// The default as `fxc effects` prints it: `0.75`, `#ff8000`, `topToBottom`, `#000000,#ffffff`.
  public var defaultDescription: String {
    switch kind {
    case .number: formatted(defaultValue)
    case .color(let c): c.description
    case .choice(let names): names[Int(defaultValue)]
    case .colors(let list): list.isEmpty ? "none" : list.map(\.description).joined(separator: ",")
    case .numbers(let list): "[" + list.map { formatted($0) }.joined(separator: ", ") + "]"
    case .image: "input 1"
    }
  }

  /// The accepted values as messages and `fxc effects` print them: `0…1`,
  /// `1…10000 px`, `#rrggbb[aa]`, `linear|easeIn|easeOut`.
  public var rangeDescription: String {
    switch kind {
    case .number:
      let bounds = "\(formatted(range.lowerBound))…\(formatted(range.upperBound))"
      return unit.isEmpty ? bounds : unit == "°" ? bounds + "°" : "\(bounds) \(unit)"
    case .color: return "#rrggbb[aa]"
    case .choice(let names): return names.joined(separator: "|")
    case .colors: return "#rrggbb[aa]…"
    case .numbers: return "[n, …]"
    case .image: return "\"path\""
    }
  }

  /// What the command line accepts for this parameter of `effect`, for messages:
  /// `parameter 'amount' of 'sepia' must be a finite number in 0…1`.
  public func requirement(in effect: String) -> String {
    let what =
      switch kind {
      case .number: "a finite number in \(rangeDescription)"
      case .color: "a color like #ff8000 or #ff800080"
      case .choice(let names): "one of \(names.joined(separator: ", "))"
      case .colors: "colors like #ff8000 or #ff800080, or a list like [#ff8000, #0000ff]"
      case .numbers: "a list of finite numbers, like [0.1, 0.2, 0.7]"
      case .image: "an image file's path in double quotes, like \"noise.png\""
      }
    return "parameter '\(name)' of '\(effect)' must be \(what)"
  }

  /// Why the command line must reject the number `value` for this parameter of
  /// `effect`, or `nil` when `value` is a finite number in ``range``.
  ///
  /// The library clamps out-of-range values and switches an effect off for a
  /// non-finite one (DESIGN §5); the command line refuses both instead, so a
  /// typo never silently changes the picture:
  ///
  ///     parameter 'amount' of 'sepia' must be a finite number in 0…1, got nan
  public func rejection(of value: Double, in effect: String) -> String? {
    // Compared as the Float the effect receives: `0.1` written in a chain is
    // the documented bound Float(0.1), although as a Double it lies below it.
    let v = Float(value)
    if kind == .number, value.isFinite, v.isFinite, range.contains(v) {
      return nil
    }
    return "\(requirement(in: effect)), got \(formatted(value))"
  }
}

/// One argument value given to a catalogue entry, of its parameter's kind.
public enum ParameterValue {
  /// A number: a constant, or a uniform `Param` as an `Expr`.
  case number(Expr)
  case color(Color)
  case choice(String)
  case colors([Color])
  /// A list of numbers (constants).
  case numbers([Expr])
  /// An image the effect reads as another input of the graph; `nil`: the
  /// graph's input 1 (the parameter's default).
  case image(Image?)
}

extension Array where Element == ParameterValue {
  /// The number at `index` (0 when that argument is not a number).
  public func number(_ index: Int) -> Expr {
    if case .number(let e) = self[index] { return e }
    return 0
  }
  /// The color at `index` (black when that argument is not a color).
  public func color(_ index: Int) -> Color {
    if case .color(let c) = self[index] { return c }
    return .black
  }
  /// The colors at `index` (none when that argument is not a color list).
  public func colors(_ index: Int) -> [Color] {
    if case .colors(let list) = self[index] { return list }
    return []
  }
  /// The numbers at `index` (none when that argument is not a number list).
  public func numbers(_ index: Int) -> [Expr] {
    if case .numbers(let list) = self[index] { return list }
    return []
  }
  /// The image at `index` (`nil`, the graph's input 1, when that argument is not an image).
  public func image(_ index: Int) -> Image? {
    if case .image(let image) = self[index] { return image }
    return nil
  }
  /// The choice at `index` as a value of `T` (its first case when it is not one of them).
  public func choice<T: RawRepresentable & CaseIterable>(_ index: Int, as: T.Type) -> T where T.RawValue == String {
    if case .choice(let word) = self[index], let value = T(rawValue: word) { return value }
    return T.allCases.first!
  }
}

/// One effect of the catalogue: what `fxc effects` lists and a chain may name.
public struct EffectSpec: Sendable {
  /// The name a chain uses, the same as the Swift function's: `gaussianBlur`.
  public var name: String
  /// Color, distortion or layer effect (DESIGN §2); the kind of its last stage.
  public var kind: EffectKind
  /// What the effect does, in one line.
  public var summary: String
  /// The parameters, in the order of the function's arguments (and of positional arguments in a chain).
  public var parameters: [ParameterSpec]
  /// Whether it is a transition: it reads the graph's input 1 (`fxc run --to`) as
  /// the image to go to, at `progress` 1.
  public var isTransition: Bool
  /// A chain that shows the effect at its best on a photo, for the contact sheet.
  public var example: String
  /// Builds the effect from one value per parameter, in parameter order.
  public var build: @Sendable ([ParameterValue]) -> Effect
  /// Checks values (one per parameter, in parameter order) before ``build``
  /// runs: returns warnings about how the effect computes them, each a
  /// printable message (a Metal loop that may be cut off), or throws why they
  /// build no effect (a Metal function that does not compile with them, which
  /// ``build`` cannot report and replaces by the identity). `nil` for effects
  /// that need no check.
  public var check: (@Sendable ([ParameterValue]) throws -> [String])? = nil
  /// The parameters that unlabelled arguments fill, in order, when that is
  /// not every parameter: one per Metal parameter (a `float2 size` is its
  /// `size` choice, whose lanes `size_x`, `size_y` are named), as SwiftUI's
  /// `ShaderLibrary` binds arguments by position. A nil slot takes no
  /// unlabelled argument (a `float3`, whose lanes must be named). `nil`: every
  /// parameter, in order.
  public var positional: [Int?]? = nil
  /// Whether the effect changes the image's size or moves its pixels as a
  /// geometry stage (docs/design.md §4): `fxc effects` lists its kind as "geometry".
  public var changesSize = false

  /// Creates an effect description.
  public init(
    name: String, kind: EffectKind, summary: String, parameters: [ParameterSpec], isTransition: Bool = false,
    example: String? = nil, build: @escaping @Sendable ([ParameterValue]) -> Effect
  ) {
    self.name = name
    self.kind = kind
    self.summary = summary
    self.parameters = parameters
    self.isTransition = isTransition
    self.example = example ?? name
    self.build = build
  }

  /// The kind `fxc effects` prints: "geometry" for an effect that changes the size, else ``kind``.
  public var kindName: String { changesSize ? "geometry" : kind.rawValue }

  /// The parameter called `name`, if there is one.
  public func parameter(named name: String) -> ParameterSpec? { parameters.first { $0.name == name } }

  /// Builds the effect from one value per parameter.
  public func make(_ values: [ParameterValue]) -> Effect { build(values) }

  /// Builds the effect from numbers, in parameter order; parameters that are not
  /// numbers (and numbers past the end of `values`) take their defaults.
  public func make(_ values: [Expr]) -> Effect {
    build(parameters.enumerated().map { i, p in p.isNumber && i < values.count ? .number(values[i]) : p.defaultArgument })
  }

  /// The effect with every parameter at its default value.
  public func makeDefault() -> Effect { build(parameters.map(\.defaultArgument)) }
}

/// Every effect the command line knows, in the order `fxc effects` lists them.
public enum Catalogue {
  /// The effects: color effects first, then fills, distortions, layer effects, transitions and geometry.
  public static let effects: [EffectSpec] =
    colorEntries + fillEntries + distortionEntries + layerEntries + transitionEntries + geometryEntries

  /// The effect called `name` (exact spelling), if there is one.
  public static func spec(named name: String) -> EffectSpec? { effects.first { $0.name == name } }

  /// The effects' names, in catalogue order.
  public static var names: [String] { effects.map(\.name) }
}

/// The text `fxc effects` prints: for each effect a line with its name, kind and
/// summary, then one line per parameter with its default, accepted values and
/// unit, and what it does; columns aligned across the whole listing (a default or
/// range longer than its column pushes the rest of its line right).
///
///     sepia         color       Sepia tone: the W3C sepia matrix, mixed with the original.
///       amount      default 1     0…1         how much tone; 0 leaves the image unchanged
public func effectsListing(_ effects: [EffectSpec] = Catalogue.effects) -> String {
  let parameters = effects.flatMap(\.parameters)
  let numbers = parameters.filter(\.isNumber)
  let nameWidth = (effects.map(\.name.count) + parameters.map { $0.name.count + 2 }).max() ?? 0
  let kindWidth = effects.map(\.kindName.count).max() ?? 0
  let defaultWidth = numbers.map { "default \($0.defaultDescription)".count }.max() ?? 0
  let rangeWidth = numbers.map(\.rangeDescription.count).max() ?? 0
  func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(width - text.count, 0)) }

  var blocks: [String] = []
  for effect in effects {
    var lines = [pad(effect.name, nameWidth) + "  " + pad(effect.kindName, kindWidth) + "  " + effect.summary]
    for p in effect.parameters {
      let note = p.allowsUniform ? "" : " (constant only)"
      lines.append(
        "  " + pad(p.name, nameWidth - 2) + "  " + pad("default \(p.defaultDescription)", defaultWidth) + "  "
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

/// The effects a chain is resolved against: the built-in ``Catalogue`` plus
/// a program's own. A value: extend a copy of ``builtIn`` and pass it to
/// `ChainSyntax.resolve(uniforms:registry:)`; nothing global changes.
///
///     var registry = EffectRegistry.builtIn
///     try registry.register(EffectSpec(name: "duotone", …) { values in duotone(amount: values.number(0)) })
///     let effect = try ChainSyntax.parse("duotone(amount: 0.5) | vignette").resolve(registry: registry).effect
public struct EffectRegistry: Sendable {
  /// The effects, built-in ones first, then the registered ones in order.
  public private(set) var effects: [EffectSpec]

  /// The built-in effects only.
  public static let builtIn = EffectRegistry(effects: Catalogue.effects)

  /// Adds `spec`, so that chains resolved against this registry know it by name.
  ///
  /// - Throws: ``CatalogueError`` when the name is not an identifier or is
  ///   already taken, or a number parameter's default lies outside its range.
  public mutating func register(_ spec: EffectSpec) throws {
    let identifier =
      spec.name.first.map { $0.isLetter || $0 == "_" } == true && spec.name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    guard identifier else { throw CatalogueError("effect name '\(spec.name)' is not an identifier") }
    guard self.spec(named: spec.name) == nil else { throw CatalogueError("an effect named '\(spec.name)' is already registered") }
    for p in spec.parameters where p.isNumber && !p.range.contains(p.defaultValue) {
      throw CatalogueError("parameter '\(p.name)' of '\(spec.name)': default \(p.defaultValue) is outside \(p.range)")
    }
    effects.append(spec)
  }

  /// Adds `spec` in place of any effect of the same name (a `--shaders`
  /// file's function called like a built-in effect stands for it in that run).
  ///
  /// - Throws: ``CatalogueError`` as ``register(_:)`` does, except for a taken name.
  public mutating func registerReplacing(_ spec: EffectSpec) throws {
    let saved = effects
    effects.removeAll { $0.name == spec.name }
    do { try register(spec) } catch {
      effects = saved
      throw error
    }
  }

  /// The effect called `name` (exact spelling), if there is one.
  public func spec(named name: String) -> EffectSpec? { effects.first { $0.name == name } }

  /// The effects' names, in order.
  public var names: [String] { effects.map(\.name) }
}

/// A registration the registry refuses.
public struct CatalogueError: Error, CustomStringConvertible, Equatable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
