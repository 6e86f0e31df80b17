import FX

/// `fxc effects`: the catalogue with parameters, defaults, ranges and units.
struct EffectsCommand {
  init(_ argv: [String]) throws {
    var args = CommandLineArguments(argv)
    let rest = try args.remaining()
    if !rest.isEmpty { throw UsageError("fxc effects takes no arguments (got \(rest.joined(separator: " ")))") }
  }

  func execute() throws { print(effectsListing()) }
}

/// Parses a chain and resolves it against the catalogue.
func resolveChain(_ text: String) throws -> Effect {
  try ChainSyntax.parse(text).resolve().effect
}
