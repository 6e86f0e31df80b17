/// A named effect parameter (DESIGN §5). A **constant** is folded into the
/// kernel when it is compiled; a **uniform** is an argument of the compiled
/// kernel, so one kernel serves every value (an animated `progress`).
public final class Param: Hashable, CustomStringConvertible, @unchecked Sendable {
  public let name: String
  /// The value used for a constant, and the default for a uniform.
  public let value: Float
  public let isUniform: Bool

  public init(_ name: String, value: Float, uniform: Bool = false) {
    self.name = name
    self.value = value
    self.isUniform = uniform
  }

  /// A uniform parameter named `name`, initially `value`.
  public static func uniform(_ name: String, _ value: Float = 0) -> Param { Param(name, value: value, uniform: true) }

  public static func == (a: Param, b: Param) -> Bool { a === b }
  public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
  public var description: String { "\(isUniform ? "uniform" : "constant") \(name) = \(value)" }
}
