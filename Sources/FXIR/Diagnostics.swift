/// Where in the user's Swift source an expression was built.
public struct CodeLocation: Hashable, Sendable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public init(file: String, line: Int) {
    self.file = file
    self.line = line
  }
  public var description: String { "\(file):\(line)" }
}

/// An error in a user's effect graph, found when the graph is checked (types,
/// arity, parameters). Thrown by ``EffectGraph/init(output:)`` and by the
/// compile and run entry points; never a crash.
public struct GraphError: Error, CustomStringConvertible, Equatable {
  /// What is wrong, in words.
  public var message: String
  /// The effect whose definition contains the error, when known.
  public var effect: String?
  /// The source line of the offending built-in call, when known (operators
  /// cannot capture it; named functions do).
  public var location: CodeLocation?
  /// What kind of error it is, as the description begins: "type error", or
  /// "error" for one a front end reports in its own words (a Metal diagnostic).
  public var category = "type error"

  public init(_ message: String, effect: String? = nil, location: CodeLocation? = nil) {
    self.message = message
    self.effect = effect
    self.location = location
  }

  public var description: String {
    var s = category
    if let effect { s += " in effect '\(effect)'" }
    if let location { s += " (\(location))" }
    return s + ": " + message
  }
}
