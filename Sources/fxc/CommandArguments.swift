/// `-h` or `--help` was given: the caller prints `text` and exits with status 0.
struct HelpRequest: Error {
  var text: String
}

/// A command's arguments, read through its ``CommandSpec``: the options are
/// asked for by any of their declared names, and asking for an undeclared one,
/// or never asking for a declared one, is a programming error that stops fxc
/// on its first use. Underneath is the ``CommandLineArguments`` scanner, told
/// every declared name up front, so that an unknown option is matched against
/// all of them (and the nearest suggested) in the order they are declared.
///
///     var args = try CommandArguments(argv, Self.spec)
///     let chain = try args.option("--chain")
///     let json = args.flag("--json")
///     let files = try args.remaining()
struct CommandArguments {
  let spec: CommandSpec
  private var scanner: CommandLineArguments
  /// The first name of each declared option not asked for yet.
  private var unread: [String]

  /// - Throws: ``HelpRequest`` when `-h` or `--help` is among the options (before `--`),
  ///   else `UsageError` for an undeclared option, before any other mistake.
  init(_ arguments: [String], _ spec: CommandSpec) throws {
    self.spec = spec
    scanner = CommandLineArguments(arguments)
    for option in spec.options { scanner.declare(option.names, flag: option.kind == .flag) }
    unread = spec.options.map { $0.names[0] }
    if flag(CommandSpec.helpOption.names[0]) { throw HelpRequest(text: spec.help()) }
    try scanner.checkKnown()
  }

  /// Whether the flag is present.
  mutating func flag(_ name: String) -> Bool {
    scanner.flag(declared(name, .flag))
  }

  /// The value of an option given at most once, or `nil`.
  mutating func option(_ name: String) throws(UsageError) -> String? {
    try scanner.option(declared(name, .option))
  }

  /// Every value of a repeatable option, in order.
  mutating func options(_ name: String) throws(UsageError) -> [String] {
    try scanner.options(declared(name, .repeatable))
  }

  /// The value of an integer option within `range`, or `nil`.
  mutating func intOption(_ name: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
    try scanner.intOption(declared(name, .option), range: range)
  }

  /// The value of a finite number option, within `range` when given, or `nil`.
  mutating func doubleOption(_ name: String, range: ClosedRange<Double>? = nil) throws(UsageError) -> Double? {
    try scanner.doubleOption(declared(name, .option), range: range)
  }

  /// The positional arguments, once every declared option has been read.
  ///
  /// - Throws: `UsageError` for an argument that looks like an option and is not declared.
  mutating func remaining() throws(UsageError) -> [String] {
    precondition(unread.isEmpty, "fxc \(spec.name) declares \(unread.joined(separator: ", ")) but never reads it")
    return try scanner.remaining()
  }

  /// Every name of the declared option called `name`, marked as read.
  private mutating func declared(_ name: String, _ kind: OptionSpec.Kind) -> [String] {
    guard let option = spec.option(named: name) else {
      preconditionFailure("fxc \(spec.name) reads '\(name)', which its CommandSpec does not declare")
    }
    precondition(option.kind == kind, "fxc \(spec.name) reads '\(name)' as \(kind), but declares it as \(option.kind)")
    unread.removeAll { $0 == option.names[0] }
    return option.names
  }
}
