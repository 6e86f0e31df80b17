import FX

// A tiny command-line scanner in the spirit of swift-argument-parser, which we
// cannot fetch here. A subcommand asks for each flag and option it knows, then
// for the positionals; whatever looks like an option and was never asked for
// is reported, together with the names that were declared or asked for.
// Commands read it through their declarations (`CommandArguments`); it belongs
// to the command line, not to the `FX` library.

/// The arguments after a subcommand, consumed as the subcommand asks for them.
///
///     var arguments = CommandLineArguments(["--chain", "sepia", "in.png", "-o", "out.png"])
///     let chain = try arguments.option("--chain")        // "sepia"
///     let output = try arguments.option("-o", "--output") // "out.png"
///     let inputs = try arguments.remaining()             // ["in.png"]
///
/// Options take their value as the next argument (`-o out.png`) or after `=`
/// (`--chain=sepia`). A value may start with `-` only when it is a number
/// (`--offset -3`) or after `=`. Everything after `--` is positional.
/// Order does not matter: each request consumes every occurrence of its names.
struct CommandLineArguments {
  private let arguments: [String]
  private var consumed: [Bool]
  /// Where options stop: the index of `--`, or the end.
  private let optionsEnd: Int
  /// Every name asked for, in the order asked, for "unknown option" messages.
  private var knownNames: [String] = []
  private var flagNames: Set<String> = []

  /// Wraps the arguments that follow the subcommand.
  init(_ arguments: [String]) {
    self.arguments = arguments
    self.consumed = Array(repeating: false, count: arguments.count)
    self.optionsEnd = arguments.firstIndex(of: "--") ?? arguments.count
  }

  /// Whether any of the names, like `--json` or `-v`, is present; repeating it is harmless.
  mutating func flag(_ names: String...) -> Bool { flag(names) }

  /// The same, with the names in an array.
  mutating func flag(_ names: [String]) -> Bool {
    remember(names, flags: true)
    var found = false
    for i in 0..<optionsEnd where !consumed[i] && names.contains(arguments[i]) {
      consumed[i] = true
      found = true
    }
    return found
  }

  /// The value of an option that may be given once, or `nil` when it is absent.
  ///
  /// - Throws: `UsageError` when the value is missing or the option is repeated.
  mutating func option(_ names: String...) throws(UsageError) -> String? { try option(names) }

  /// The same, with the names in an array.
  mutating func option(_ names: [String]) throws(UsageError) -> String? {
    try single(names)?.value
  }

  /// Every value of a repeatable option, in order.
  ///
  /// - Throws: `UsageError` when a value is missing.
  mutating func options(_ names: String...) throws(UsageError) -> [String] { try options(names) }

  /// The same, with the names in an array.
  mutating func options(_ names: [String]) throws(UsageError) -> [String] {
    try values(names).map(\.value)
  }

  /// The value of an integer option within `range`, or `nil` when it is absent.
  ///
  /// - Throws: `UsageError` naming the option, the range and the value given.
  mutating func intOption(_ names: String..., range: ClosedRange<Int>) throws(UsageError)
    -> Int?
  {
    try intOption(names, range: range)
  }

  /// The same, with the names in an array.
  mutating func intOption(_ names: [String], range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let (name, text) = try single(names) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw UsageError("option '\(name)' expects an integer in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
    }
    return value
  }

  /// The value of a finite number option, within `range` when one is given, or `nil` when it is absent.
  ///
  /// - Throws: `UsageError` naming the option, the range and the value given.
  mutating func doubleOption(_ names: String..., range: ClosedRange<Double>? = nil)
    throws(UsageError)
    -> Double?
  {
    try doubleOption(names, range: range)
  }

  /// The same, with the names in an array.
  mutating func doubleOption(_ names: [String], range: ClosedRange<Double>? = nil) throws(UsageError)
    -> Double?
  {
    guard let (name, text) = try single(names) else { return nil }
    guard let value = Double(text), value.isFinite, range?.contains(value) ?? true else {
      let expected = range.map { "a number in \(short($0.lowerBound))…\(short($0.upperBound))" } ?? "a finite number"
      throw UsageError("option '\(name)' expects \(expected), got '\(text)'")
    }
    return value
  }

  /// Makes `names` known before they are asked for, so that an unknown option
  /// is matched against every declared name, in the order declared.
  mutating func declare(_ names: [String], flag: Bool) {
    remember(names, flags: flag)
  }

  /// Checks, before anything is asked for, that every option before `--` has a
  /// known name, so that a misspelt option is reported (with the nearest name)
  /// ahead of any other mistake. Only meaningful once every name is declared.
  ///
  /// - Throws: `UsageError` for the first unknown option, as ``remaining()`` would.
  func checkKnown() throws(UsageError) {
    var i = 0
    while i < optionsEnd {
      defer { i += 1 }
      let argument = arguments[i]
      guard Self.isOptionLike(argument) else { continue }
      let name = Self.splitAtEquals(argument)?.name ?? argument
      guard knownNames.contains(name), name == argument || !flagNames.contains(name) else { throw unknown(argument) }
      // An option's value is the next argument (unless it looks like an option: then it is missing).
      if name == argument, !flagNames.contains(name), i + 1 < optionsEnd, !Self.isOptionLike(arguments[i + 1]) { i += 1 }
    }
  }

  private func short(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

  /// The positional arguments, in order, once every flag and option has been asked for.
  ///
  /// - Throws: `UsageError` for the first argument before `--` that looks like an
  ///   option but was never asked for, listing the names that were.
  mutating func remaining() throws(UsageError) -> [String] {
    var positionals: [String] = []
    for i in arguments.indices where !consumed[i] && i != optionsEnd {
      if i < optionsEnd, Self.isOptionLike(arguments[i]) { throw unknown(arguments[i]) }
      consumed[i] = true
      positionals.append(arguments[i])
    }
    return positionals
  }

  // MARK: - Scanning

  private mutating func single(_ names: [String]) throws(UsageError) -> (
    name: String, value: String
  )? {
    let found = try values(names)
    if found.count > 1 { throw UsageError("option '\(found[1].name)' may be given only once") }
    return found.first
  }

  /// Consumes every occurrence of the names with their values; `name` is the spelling used.
  private mutating func values(_ names: [String]) throws(UsageError) -> [(
    name: String, value: String
  )] {
    remember(names, flags: false)
    var found: [(name: String, value: String)] = []
    var i = 0
    while i < optionsEnd {
      defer { i += 1 }
      guard !consumed[i] else { continue }
      let argument = arguments[i]
      if names.contains(argument) {
        let next = i + 1
        guard next < optionsEnd, !consumed[next], !Self.isOptionLike(arguments[next]) else {
          throw UsageError("missing value for option '\(argument)'")
        }
        consumed[i] = true
        consumed[next] = true
        found.append((argument, arguments[next]))
        i = next
      } else if let (name, value) = Self.splitAtEquals(argument), names.contains(name) {
        consumed[i] = true
        found.append((name, value))
      }
    }
    return found
  }

  private mutating func remember(_ names: [String], flags: Bool) {
    for name in names where !knownNames.contains(name) { knownNames.append(name) }
    if flags { flagNames.formUnion(names) }
  }

  private func unknown(_ argument: String) -> UsageError {
    if let (name, _) = Self.splitAtEquals(argument), flagNames.contains(name) {
      return UsageError("flag '\(name)' does not take a value")
    }
    guard !knownNames.isEmpty else {
      return UsageError("unknown option '\(argument)' (this command takes no options)")
    }
    let name = Self.splitAtEquals(argument)?.name ?? argument
    let hint =
      ChainSyntax.suggestion(for: name, among: knownNames).map { " — did you mean '\($0)'?" } ?? ""
    return UsageError(
      "unknown option '\(argument)'\(hint) (valid: \(knownNames.joined(separator: ", ")))")
  }

  /// `--name=value` as its two halves.
  private static func splitAtEquals(_ argument: String) -> (name: String, value: String)? {
    guard isOptionLike(argument), let equals = argument.firstIndex(of: "=") else { return nil }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  /// `-x` and `--xx` are options; `-` (standard input or output) and negative numbers are values.
  private static func isOptionLike(_ argument: String) -> Bool {
    argument.hasPrefix("-") && argument != "-" && Double(argument) == nil
  }
}

/// A mistake on the command line, with a message the user can act on.
struct UsageError: Error, CustomStringConvertible, Equatable {
  /// What went wrong, like `missing value for option '--chain'`.
  var message: String

  /// Creates an error with its message.
  init(_ message: String) { self.message = message }

  /// `error: <message>`, as the command line prints it.
  var description: String { "error: \(message)" }
}
