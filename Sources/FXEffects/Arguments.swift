import FXIR

/// The argument discipline shared by every effect (DESIGN §5, after the
/// SwiftShaders package): a constant argument is checked before it reaches a
/// kernel — NaN or ±∞ switches the effect off, a finite value is clamped into
/// the documented range; a uniform is clamped in the kernel, and a non-finite
/// uniform turns the effect off there.
enum Argument {
  /// `value` clamped to `range`, or nil when it is a non-finite constant.
  static func checked(_ value: Expr, _ range: ClosedRange<Float>) -> Expr? {
    if let c = value.constantValue {
      guard c.isFinite else { return nil }
      return Expr(Swift.min(Swift.max(c, range.lowerBound), range.upperBound))
    }
    return clamp(value, Expr(range.lowerBound), Expr(range.upperBound))
  }

  /// True where every non-constant argument is finite; nil when all are constants
  /// (constants were checked in Swift already).
  static func allFinite(_ args: [Expr]) -> Expr? {
    let checks = args.filter { $0.constantValue == nil }.map { isfinite($0) }
    guard let first = checks.first else { return nil }
    return checks.dropFirst().reduce(first) { $0 && $1 }
  }

  /// A color effect that is the identity when any argument is non-finite.
  static func color(
    _ name: String, _ args: [(Expr, ClosedRange<Float>)], _ body: @escaping ([Expr], Expr, Expr) -> Expr
  ) -> Effect {
    let checkedArgs = args.map { checked($0.0, $0.1) }
    guard checkedArgs.allSatisfy({ $0 != nil }) else { return Effect(name) { $0 } }
    let values = checkedArgs.map { $0! }
    let finite = allFinite(args.map(\.0))
    return Effect.color(name) { p, c in
      let out = body(values, p, c)
      guard let finite else { return out }
      return select(finite, out, c)
    }
  }

  /// How a value prints in an effect's name.
  static func text(_ e: Expr) -> String {
    if let c = e.constantValue { return c == c.rounded() && Swift.abs(c) < 1e6 ? "\(Int(c))" : "\(c)" }
    return "uniform"
  }
}
