// `fxc --help`, every command's `--help` and `fxc --version`, checked against
// the golden files in Tests/CLITests/Golden/ (fxc run as a subprocess, as in
// CommandLineTests); and the suggestions for a misspelt command or option.
//
// After changing a command's declarations on purpose, regenerate the goldens
// and review the diff:
//
//     scripts/update-golden.sh

import Foundation
import Testing

@testable import fxc

/// The golden files: compared, or rewritten when FXC_UPDATE_GOLDEN=1.
enum Golden {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
  static var updating: Bool { ProcessInfo.processInfo.environment["FXC_UPDATE_GOLDEN"] == "1" }

  static func check(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = directory.appendingPathComponent(name)
    if updating {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try text.write(to: url, atomically: true, encoding: .utf8)
      return
    }
    guard let golden = try? String(contentsOf: url, encoding: .utf8) else {
      Issue.record("no golden file \(name); run scripts/update-golden.sh", sourceLocation: sourceLocation)
      return
    }
    guard text != golden else { return }
    let (a, b) = (text.components(separatedBy: "\n"), golden.components(separatedBy: "\n"))
    let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    Issue.record(
      """
      \(name) differs from the output at line \(line + 1):
        output: \(line < a.count ? a[line] : "(end)")
        golden: \(line < b.count ? b[line] : "(end)")
      (if the change is meant, run scripts/update-golden.sh and review the diff)
      """, sourceLocation: sourceLocation)
  }
}

/// Runs `fxc arguments…` in a scratch directory.
func fxc(_ arguments: [String]) throws -> BatchOutcome {
  let dir = try BatchScratch()
  return try BatchFXC.run(arguments, in: dir.path)
}

@Suite("fxc: help and version")
struct HelpTests {
  static let commands = FXC.commands.map { $0.spec.name }

  @Test func topLevelHelpMatchesGolden() throws {
    let result = try fxc(["--help"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    try Golden.check(result.stdout, "fxc-help.txt")
    for args in [["-h"], ["help"]] { #expect(try fxc(args).stdout == result.stdout, "fxc \(args)") }
  }

  @Test(arguments: commands)
  func commandHelpMatchesGolden(_ command: String) throws {
    let result = try fxc([command, "--help"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    try Golden.check(result.stdout, "\(command)-help.txt")
    #expect(try fxc([command, "-h"]).stdout == result.stdout)
    #expect(try fxc(["help", command]).stdout == result.stdout)
  }

  @Test func versionMatchesGolden() throws {
    let result = try fxc(["--version"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    #expect(try fxc(["version"]).stdout == result.stdout)
    var values: [String: String] = [:]
    let normalised = result.stdout.components(separatedBy: "\n").map { line in
      for key in ["commit", "LLVM", "host", "CUDA"] where line.hasPrefix(key + ": ") {
        values[key] = String(line.dropFirst(key.count + 2))
        return "\(key): <\(key.lowercased())>"
      }
      return line
    }.joined(separator: "\n")
    try Golden.check(normalised, "version.txt")
    let commit = values["commit"] ?? ""
    #expect(
      commit == "unknown" || (commit.split(separator: "-").first ?? "").allSatisfy(\.isHexDigit) && commit.count >= 4,
      "commit '\(commit)'")
    let llvm = (values["LLVM"] ?? "").split(separator: ".")
    #expect(llvm.count == 3 && llvm.allSatisfy { Int($0) != nil }, "LLVM '\(values["LLVM"] ?? "")'")
    #expect(values["host"]?.isEmpty == false)
    #expect(values["CUDA"]?.isEmpty == false, "a CUDA device, or why there is none")
  }

  struct Misspelling: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var fragment: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let misspellings = [
    Misspelling(arguments: ["fuz"], fragment: "unknown command 'fuz' — did you mean 'fuzz'?"),
    Misspelling(arguments: ["bnech"], fragment: "unknown command 'bnech' — did you mean 'bench'?"),
    Misspelling(arguments: ["dmp"], fragment: "unknown command 'dmp' — did you mean 'dump'?"),
    Misspelling(arguments: ["efects"], fragment: "did you mean 'effects'?"),
    Misspelling(arguments: ["verison"], fragment: "did you mean 'version'?"),
    Misspelling(arguments: ["help", "fzz"], fragment: "unknown command 'fzz' — did you mean 'fuzz'?"),
    Misspelling(arguments: ["--verison"], fragment: "unknown option '--verison' — did you mean '--version'?"),
    Misspelling(arguments: ["dump", "--pases"], fragment: "unknown option '--pases' — did you mean '--passes'?"),
    Misspelling(arguments: ["dump", "-c", "sepia", "--no-splt"], fragment: "did you mean '--no-split'?"),
    Misspelling(arguments: ["bench", "--jsn"], fragment: "did you mean '--json'?"),
    Misspelling(arguments: ["fuzz", "--graph", "3"], fragment: "did you mean '--graphs'?"),
    Misspelling(arguments: ["effects", "--colums", "3"], fragment: "did you mean '--columns'?"),
  ]

  @Test(arguments: misspellings)
  func misspellingSuggestsTheNearestName(_ m: Misspelling) throws {
    let result = try fxc(m.arguments)
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains(m.fragment), "missing '\(m.fragment)' in \(result)")
    #expect(result.stdout.isEmpty, "\(result)")
  }

  /// Each command's options are declared once: no name twice, and every name in its help.
  @Test(arguments: commands)
  func everyDeclaredOptionIsInTheHelp(_ command: String) throws {
    let spec = try #require(FXC.command(named: command)).spec
    let names = spec.options.flatMap(\.names)
    #expect(Set(names).count == names.count, "\(names)")
    let help = spec.help()
    for name in names { #expect(help.contains(name), "\(name) is not in the help of \(command)") }
    for line in help.components(separatedBy: "\n") { #expect(line.count <= 100, "too long: \(line)") }
  }

  @Test func everyCommandIsInTheTopLevelHelp() {
    #expect(Set(Self.commands).count == Self.commands.count)
    for command in Self.commands { #expect(FXC.help.contains("\n  \(command) ")) }
    // A command with a letter dropped suggests that command.
    for command in Self.commands {
      #expect(FXC.unknown(String(command.dropLast())).description.contains("did you mean '\(command)'?"), "\(command)")
    }
  }

  @Test func wrapping() {
    #expect(HelpText.wrap("aa bb cc dd", width: 5) == ["aa bb", "cc dd"])
    #expect(HelpText.wrap("a verylongword b", width: 6, indent: 2) == ["  a", "  verylongword", "  b"])
    #expect(HelpText.entry("-x", "help", column: 6, width: 20) == ["  -x  help"])
    #expect(HelpText.entry("--long-name", "help", column: 6, width: 20) == ["  --long-name", "      help"])
    #expect(HelpText.paragraphs("one\ntwo\n\n  kept  as is\nthree", width: 40) == ["one two", "", "  kept  as is", "three"])
  }
}

/// `fxc effects NAME…` and `fxc run -q` (issue 37's CLI conventions).
@Suite("fxc: effects NAME, run -q")
struct EffectsByNameAndQuietTests {
  @Test func effectsByNameDescribeOnlyThoseWithAnExample() throws {
    let result = try fxc(["effects", "vignette", "sepia"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    let blocks = result.stdout.components(separatedBy: "\n\n")
    #expect(blocks.count == 2, "\(result)")
    #expect(blocks[0].hasPrefix("vignette ") && blocks[1].hasPrefix("sepia "), "\(result)")
    #expect(blocks.allSatisfy { $0.contains("example: fxc run -c '") }, "\(result)")
    let wrong = try fxc(["effects", "vigntte"])
    #expect(wrong.status == 1 && wrong.stderr.contains("no effect named 'vigntte' — did you mean 'vignette'?"), "\(wrong)")
    #expect(try fxc(["effects", "--sheet", "x.png", "sepia"]).status == 2)
  }

  @Test func quietPrintsNothingButErrors() throws {
    let dir = try BatchScratch()
    let quiet = try BatchFXC.run(["run", "-q", "-c", "sepia", BatchFXC.rocket, "-o", "a.png"], in: dir.path)
    #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
    #expect(dir.exists("a.png"))
    let loud = try BatchFXC.run(["run", "-c", "sepia", BatchFXC.rocket, "-o", "b.png"], in: dir.path)
    #expect(!loud.stdout.isEmpty, "the test needs a run that prints: \(loud)")
    let failing = try BatchFXC.run(["run", "-q", "-c", "sepia", dir.file("missing.png"), "-o", "c.png"], in: dir.path)
    #expect(failing.status != 0 && failing.stderr.contains("missing.png") && failing.stdout.isEmpty, "\(failing)")
    #expect(try BatchFXC.run(["run", "-q", "-v", "-c", "sepia", BatchFXC.rocket, "-o", "d.png"], in: dir.path).status == 2)
  }
}
