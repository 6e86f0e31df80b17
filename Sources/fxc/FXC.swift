import FX
import Foundation

/// A subcommand of fxc: declared by its ``CommandSpec``, parsed by its
/// initialiser (through ``CommandArguments``), then executed.
protocol Command {
  static var spec: CommandSpec { get }
  init(_ arguments: [String]) throws
  func execute() throws
}

/// A failure the user can act on: printed without a stack, exit status 1 (usage: 2).
struct CommandFailure: Error, CustomStringConvertible {
  var description: String
  var status: Int32 = 1
}

/// The command line: the list of commands, `fxc --help` made from their
/// declarations, and the dispatch from `fxc <command>` to one of them.
enum FXC {
  /// fxc's own version, printed by `fxc --version`.
  static let version = "0.1.0"

  /// Every command, in the order `fxc --help` lists them.
  static let commands: [any Command.Type] = [
    RunCommand.self, EffectsCommand.self, DumpCommand.self, BenchCommand.self, FuzzCommand.self,
    HelpCommand.self, VersionCommand.self, CompletionsCommand.self, ManPageCommand.self,
  ]

  /// The options fxc itself takes, before any command.
  static let options: [OptionSpec] = [
    CommandSpec.helpOption,
    .flag("--version", help: "print fxc's version, the commit it was built from, LLVM's version and the host"),
  ]

  static func command(named name: String) -> (any Command.Type)? {
    commands.first { $0.spec.name == name }
  }

  /// `fxc --help`.
  static var help: String {
    var lines = ["usage: fxc <command> [options]", "       fxc --help | --version", "", "commands:"]
    let column = (commands.map { $0.spec.name.count }.max() ?? 0) + 4
    for spec in commands.map({ $0.spec }) {
      lines += HelpText.entry(spec.name, spec.abstract, column: column, width: 100)
      let pad = String(repeating: " ", count: column)
      lines += spec.usage.map { pad + (["fxc", spec.name] + ($0.isEmpty ? [] : [$0])).joined(separator: " ") }
    }
    lines += ["", "options:"]
    let optionColumn = (options.map(\.label.count).max() ?? 0) + 4
    for option in options { lines += HelpText.entry(option.label, option.help, column: optionColumn, width: 100) }
    lines += [
      "",
      "Chains are effects separated by '|', applied left to right; see 'fxc effects'.",
      "'fxc <command> --help' (or 'fxc help <command>') lists every option of a command.",
    ]
    return lines.joined(separator: "\n")
  }

  /// Runs `fxc arguments…`; the exit status.
  static func main(_ arguments: [String]) -> Int32 {
    guard let name = arguments.first else {
      printError(help)
      return 2
    }
    do {
      try run(name, Array(arguments.dropFirst()))
      return 0
    } catch let request as HelpRequest {
      print(request.text)
      return 0
    } catch let e as CommandFailure {
      printError(e.description)
      return e.status
    } catch let e as UsageError {
      let see = command(named: name) != nil ? "fxc \(name) --help" : "fxc --help"
      printError("\(e)\n(see '\(see)')")
      return 2
    } catch let e as ChainSyntaxError {
      printError("\(e)")
      return 2
    } catch let e as MetalDiagnostic {
      printError("\(e)")
      return 1
    } catch {
      printError("error: \(error)")
      return 1
    }
  }

  private static func run(_ name: String, _ arguments: [String]) throws {
    if CommandSpec.helpOption.names.contains(name) { throw HelpRequest(text: help) }
    if name == "--version" { return try VersionCommand(arguments).execute() }
    if let command = command(named: name) { return try command.init(arguments).execute() }
    throw unknown(name)
  }

  /// `unknown command 'fuz' — did you mean 'fuzz'?` and where the help is; without
  /// a likely typo, the commands (or options) to choose from. Not the whole usage.
  static func unknown(_ name: String) -> CommandFailure {
    let isOption = name.hasPrefix("-")
    let candidates = isOption ? options.flatMap(\.names) : commands.map { $0.spec.name }
    let what = "error: unknown \(isOption ? "option" : "command") '\(name)'"
    if let nearest = ChainSyntax.suggestion(for: name, among: candidates) {
      return CommandFailure(description: "\(what) — did you mean '\(nearest)'?\n(see 'fxc --help')", status: 2)
    }
    let list = "\(isOption ? "options" : "commands"): \(candidates.joined(separator: ", "))"
    return CommandFailure(description: "\(what)\n\(list) (see 'fxc --help')", status: 2)
  }

  /// A line on standard error; paths in it show escaped bytes as `\xE9` (``PathBytes/display(_:)``).
  static func printError(_ text: String) {
    FileHandle.standardError.write(Data((PathBytes.display(StandardStreams.named(text)) + "\n").utf8))
  }
}

/// `fxc help [COMMAND]`: the help of fxc, or of one command.
struct HelpCommand: Command {
  static let spec = CommandSpec(
    name: "help", abstract: "print the help of fxc, or of one command (the same as 'fxc COMMAND --help')",
    usage: ["[COMMAND]"],
    groups: [
      OptionGroup(title: "arguments", options: [.positional("COMMAND", help: "the command to describe")]),
      OptionGroup(title: "options", options: []),
    ])

  var topic: String?

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    let rest = try args.remaining()
    if rest.count > 1 { throw UsageError("fxc help takes one command (got \(rest.joined(separator: " ")))") }
    topic = rest.first
  }

  func execute() throws {
    guard let topic else { return print(FXC.help) }
    guard let command = FXC.command(named: topic) else { throw FXC.unknown(topic) }
    print(command.spec.help())
  }
}
