import FXDSL
import FXIR

/// The argument discipline shared by every effect (DESIGN §5, after the
/// SwiftShaders package): a constant argument is checked before it reaches a
/// kernel — NaN or ±∞ switches the effect off, a finite value is clamped into
/// the documented range (or folded, for angles and time); a uniform is clamped
/// or folded in the kernel, and a non-finite uniform turns the effect off there.
enum Argument {
  /// How one argument is brought into its documented domain.
  enum Rule {
    /// Clamped into the range.
    case clamp(ClosedRange<Float>)
    /// An angle in degrees, folded into one turn, `0 ≤ a < 360`.
    case angle
    /// A time in seconds, wrapped every 3,600 s (before any speed multiplies it).
    case time
  }

  /// Seconds after which time wraps.
  static let timePeriod: Float = 3600

  /// `value` clamped to `range`, or nil when it is a non-finite constant.
  static func checked(_ value: Expr, _ range: ClosedRange<Float>) -> Expr? {
    checked(value, .clamp(range))
  }

  /// `value` brought into its domain by `rule`, or nil when it is a non-finite constant.
  static func checked(_ value: Expr, _ rule: Rule) -> Expr? {
    if let c = value.constantValue {
      guard c.isFinite else { return nil }
      switch rule {
      case .clamp(let range): return Expr(Swift.min(Swift.max(c, range.lowerBound), range.upperBound))
      case .angle: return Expr(fold(c, 360))
      case .time: return Expr(fold(c, timePeriod))
      }
    }
    switch rule {
    case .clamp(let range): return clamp(value, Expr(range.lowerBound), Expr(range.upperBound))
    case .angle: return value - 360 * floor(value / 360)
    case .time: return value - Expr(timePeriod) * floor(value / Expr(timePeriod))
    }
  }

  /// `x` folded into `0..<period` (for constants, in Swift).
  static func fold(_ x: Float, _ period: Float) -> Float {
    let r = x - period * (x / period).rounded(.down)
    return r >= period ? 0 : r
  }

  /// True where every non-constant argument is finite; nil when all are constants
  /// (constants were checked in Swift already).
  static func allFinite(_ args: [Expr]) -> Expr? {
    let checks = args.filter { $0.constantValue == nil }.map { isfinite($0) }
    guard let first = checks.first else { return nil }
    return checks.dropFirst().reduce(first) { $0 && $1 }
  }

  /// The checked values, and the in-kernel condition under which the effect is
  /// on (nil: always); nil when a constant argument switches the effect off.
  static func prepare(_ args: [(Expr, Rule)]) -> (values: [Expr], finite: Expr?)? {
    let values = args.map { checked($0.0, $0.1) }
    guard values.allSatisfy({ $0 != nil }) else { return nil }
    return (values.map { $0! }, allFinite(args.map(\.0)))
  }

  /// `value` where `finite` holds (or always), else `fallback`.
  static func guarded(_ finite: Expr?, _ value: Expr, else fallback: Expr) -> Expr {
    finite.map { select($0, value, fallback) } ?? value
  }

  /// A color effect that is the identity when any argument is non-finite.
  static func color(
    _ name: String, _ args: [(Expr, ClosedRange<Float>)], _ body: @escaping ([Expr], Expr, Expr) -> Expr
  ) -> Effect {
    color(name, args.map { ($0.0, .clamp($0.1)) }, body)
  }

  /// A color effect that is the identity when any argument is non-finite.
  static func color(_ name: String, _ args: [(Expr, Rule)], _ body: @escaping ([Expr], Expr, Expr) -> Expr) -> Effect {
    guard let (values, finite) = prepare(args) else { return Effect(name) { $0 } }
    return Effect.color(name) { p, c in guarded(finite, body(values, p, c), else: c) }
  }

  /// A distortion effect that samples `position` (the identity) when any argument is non-finite.
  static func distortion(
    _ name: String, _ args: [(Expr, Rule)], _ body: @escaping ([Expr], Expr) -> Expr
  ) -> Effect {
    guard let (values, finite) = prepare(args) else { return Effect(name) { $0 } }
    return Effect.distortion(name) { p in guarded(finite, body(values, p), else: p) }
  }

  /// A layer effect that returns the input at `position` when any argument is non-finite.
  static func layer(
    _ name: String, _ args: [(Expr, Rule)], _ body: @escaping ([Expr], Expr, Layer) -> Expr
  ) -> Effect {
    guard let (values, finite) = prepare(args) else { return Effect(name) { $0 } }
    return Effect.layer(name) { p, layer in guarded(finite, body(values, p, layer), else: layer.sample(p)) }
  }

  /// A transition from the input to `to` (a two-input layer stage): the input,
  /// untouched, when any argument is non-finite. Both images are read through
  /// `sampler`; the body gets the checked values, the position and the two layers.
  static func transition(
    _ name: String, _ args: [(Expr, Rule)], to: Image, sampler: Sampler = .linear,
    _ body: @escaping ([Expr], Expr, Layer, Layer) -> Expr
  ) -> Effect {
    guard let (values, finite) = prepare(args) else { return Effect(name) { $0 } }
    return Effect(name) { input in
      Image.combine(name, [input, to], sampler: sampler) { p, layers in
        guarded(finite, body(values, p, layers[0], layers[1]), else: layers[0].sample(p))
      }
    }
  }

  /// How a value prints in an effect's name.
  static func text(_ e: Expr) -> String {
    if let c = e.constantValue { return c == c.rounded() && Swift.abs(c) < 1e6 ? "\(Int(c))" : "\(c)" }
    return "uniform"
  }

  /// `label: value, …` for an effect's name.
  static func name(_ effect: String, _ args: [(String, String)]) -> String {
    "\(effect)(\(args.map { "\($0.0): \($0.1)" }.joined(separator: ", ")))"
  }
}

/// An effect that is an error when built: for arguments it cannot take
/// (never the identity in their place).
func invalidEffect(_ name: String, _ message: String) -> Effect {
  Effect(name) { input in
    Image.combine(name, [input]) { _, _ in Expr.failure(GraphError(message), type: .float4) }
  }
}
