// The command-line scanner of the fxc executable (Sources/fxc/CommandLineArguments.swift).

import Testing

@testable import fxc

@Suite("Command-line arguments")
struct CommandLineArgumentsTests {
  /// The message of the `UsageError` that `body` throws, or `nil` when it throws none.
  private func usageError(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return (error as? UsageError)?.message ?? "not a usage error: \(error)"
    }
  }

  @Test func separatedAndEqualsValues() throws {
    var arguments = CommandLineArguments([
      "--chain", "sepia | blur", "in.png", "-o", "out.png", "--json",
    ])
    let json = arguments.flag("--json")
    let verbose = arguments.flag("-v", "--verbose")
    let output = try arguments.option("-o", "--output")
    let chain = try arguments.option("--chain")
    let inputs = try arguments.remaining()
    #expect(json && !verbose)
    #expect(output == "out.png")
    #expect(chain == "sepia | blur")
    #expect(inputs == ["in.png"])

    var equals = CommandLineArguments([
      "a.png", "--chain=vignette(radius: 0.7)", "--output=", "b.png",
    ])
    let (chain2, empty, absent) = (
      try equals.option("--chain"), try equals.option("--output"), try equals.option("--absent")
    )
    let inputs2 = try equals.remaining()
    #expect(chain2 == "vignette(radius: 0.7)")
    #expect(empty == "")
    #expect(absent == nil)
    #expect(inputs2 == ["a.png", "b.png"])
  }

  @Test func repeatedOptions() throws {
    var arguments = CommandLineArguments(["-i", "a", "--input=b", "x", "-i", "c"])
    let inputs = try arguments.options("-i", "--input")
    let positionals = try arguments.remaining()
    #expect(inputs == ["a", "b", "c"])
    #expect(positionals == ["x"])
    var twice = CommandLineArguments(["-o", "a", "--output", "b"])
    #expect(
      usageError { _ = try twice.option("-o", "--output") }
        == "option '--output' may be given only once")
  }

  @Test func missingValues() {
    for list in [
      ["--chain"], ["--chain", "--json"], ["--chain", "--", "x"], ["in.png", "--chain"],
    ] {
      var arguments = CommandLineArguments(list)
      #expect(
        usageError { _ = try arguments.option("--chain") } == "missing value for option '--chain'",
        "\(list)")
    }
  }

  @Test func valuesThatLookLikeOptions() throws {
    var arguments = CommandLineArguments(["--offset", "-3", "-o", "-", "-"])
    let offset = try arguments.doubleOption("--offset")
    let output = try arguments.option("-o")
    let positionals = try arguments.remaining()
    #expect(offset == -3)
    #expect(output == "-")
    #expect(positionals == ["-"])
  }

  @Test func unknownOptionsListTheValidOnes() {
    var arguments = CommandLineArguments(["in.png", "--foo", "--chian=x"])
    _ = try? arguments.option("--chain")
    _ = try? arguments.option("-o", "--output")
    _ = arguments.flag("--json")
    #expect(
      usageError { _ = try arguments.remaining() }
        == "unknown option '--foo' (valid: --chain, -o, --output, --json)")

    var misspelt = CommandLineArguments(["--chian=x"])
    _ = try? misspelt.option("--chain")
    #expect(
      usageError { _ = try misspelt.remaining() }
        == "unknown option '--chian=x' — did you mean '--chain'? (valid: --chain)")

    var flagValue = CommandLineArguments(["--json=yes"])
    _ = flagValue.flag("--json")
    #expect(usageError { _ = try flagValue.remaining() } == "flag '--json' does not take a value")

    var none = CommandLineArguments(["-x"])
    #expect(
      usageError { _ = try none.remaining() }
        == "unknown option '-x' (this command takes no options)")
  }

  @Test func doubleDashEndsOptions() throws {
    var arguments = CommandLineArguments(["--chain", "sepia", "--", "-weird.png", "--json", "--"])
    let json = arguments.flag("--json")
    let chain = try arguments.option("--chain")
    let positionals = try arguments.remaining()
    #expect(!json)
    #expect(chain == "sepia")
    #expect(positionals == ["-weird.png", "--json", "--"])
  }

  @Test func integerRange() throws {
    func threads(_ list: [String]) throws -> Int? {
      var arguments = CommandLineArguments(list)
      return try arguments.intOption("-j", "--threads", range: 1...64)
    }
    #expect(try threads(["--threads", "8"]) == 8)
    #expect(try threads(["-j=64"]) == 64)
    #expect(try threads([]) == nil)
    #expect(
      usageError { _ = try threads(["--threads", "0"]) }
        == "option '--threads' expects an integer in 1…64, got '0'")
    #expect(
      usageError { _ = try threads(["-j", "two"]) }
        == "option '-j' expects an integer in 1…64, got 'two'")
    #expect(
      usageError { _ = try threads(["-j", "1.5"]) }
        == "option '-j' expects an integer in 1…64, got '1.5'")
  }

  @Test func doubleRange() throws {
    func intensity(_ list: [String], range: ClosedRange<Double>? = 0...1) throws -> Double? {
      var arguments = CommandLineArguments(list)
      return try arguments.doubleOption("--intensity", range: range)
    }
    #expect(try intensity(["--intensity", "0.25"]) == 0.25)
    #expect(
      usageError { _ = try intensity(["--intensity=1.5"]) }
        == "option '--intensity' expects a number in 0…1, got '1.5'")
    #expect(
      usageError { _ = try intensity(["--intensity", "nan"], range: nil) }
        == "option '--intensity' expects a finite number, got 'nan'")
  }

  @Test func errorDescription() {
    #expect(
      UsageError("missing value for option '-o'").description
        == "error: missing value for option '-o'")
  }
}
