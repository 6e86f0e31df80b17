import Foundation
import Testing

@testable import fxc

/// `fxc completions bash|zsh|fish` and `fxc manpage` (issue 37): made from
/// the commands' declarations, so every declared option is in each; the bash
/// script completes what it should when bash runs it; each script parses in
/// its shell and the page formats without a warning.
@Suite("fxc: completions and manual page")
struct CompletionsTests {
  /// Runs `program arguments…` with `input` on standard input; its status, standard output and standard error.
  static func shell(_ program: String, _ arguments: [String], input: String = "") throws -> (Int32, String, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = arguments
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    p.standardInput = stdin
    p.standardOutput = stdout
    p.standardError = stderr
    try p.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
  }

  static func has(_ program: String) -> Bool { FileManager.default.isExecutableFile(atPath: program) }

  @Test(arguments: ShellCompletions.Shell.allCases)
  func everyCommandAndOptionIsInTheScript(_ shell: ShellCompletions.Shell) throws {
    let result = try fxc(["completions", shell.rawValue])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    for spec in ShellCompletions.specs {
      #expect(result.stdout.contains(spec.name), "\(spec.name)")
      for name in spec.options.flatMap(\.names) {
        // fish names an option without its dashes: `-l quality`, `-s o`.
        let spelling = shell == .fish ? (name.hasPrefix("--") ? "-l \(name.dropFirst(2))" : "-s \(name.dropFirst())") : name
        #expect(result.stdout.contains(spelling), "\(shell): \(spec.name) \(name)")
      }
    }
  }

  @Test func everyCommandAndOptionIsOnTheManualPage() throws {
    let page = ManPage.roff()
    for spec in ShellCompletions.specs {
      #expect(page.contains(".SS \"fxc \(spec.name)\""), "\(spec.name)")
      for name in spec.options.flatMap(\.names) {
        #expect(page.contains(ManPage.escape(name)), "\(spec.name) \(name)")
      }
    }
    #expect(page.unicodeScalars.allSatisfy { $0.isASCII })
    #expect(page.contains(".fchar \\[u2026] ..."), "'…' has an ASCII spelling")
  }

  /// bash itself runs the script's function on a command line typed so far.
  @Test func bashCompletesOptionsChoicesEffectsAndFiles() throws {
    try #require(Self.has("/bin/bash"))
    let dir = try BatchScratch()
    try dir.write(Data(), to: "photo-one.jpg")
    let script = ShellCompletions.bash()
    func complete(_ words: [String]) throws -> [String] {
      let quoted = words.map { "'\($0)'" }.joined(separator: " ")
      let program = script + "\ncd '\(dir.path)'\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _fxc; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
      let (status, out, err) = try Self.shell("/bin/bash", ["-c", program])
      #expect(status == 0 && err.isEmpty, "\(err)")
      return out.split(separator: "\n").map(String.init)
    }
    #expect(try complete(["fxc", "ru"]) == ["run"])
    #expect(try complete(["fxc", "run", "--ove"]) == ["--overwrite"])
    #expect(try complete(["fxc", "run", "--format", "j"]) == ["jpeg"])
    #expect(try complete(["fxc", "run", "-c", "sepi"]) == ["sepia"])
    #expect(try complete(["fxc", "run", "-c", "sepia", "photo"]) == ["photo-one.jpg"])
    #expect(try complete(["fxc", "help", "dum"]) == ["dump"])
    #expect(try complete(["fxc", "completions", "f"]) == ["fish"])
    #expect(try complete(["fxc", "run", "--quality", ""]) == [])
  }

  @Test func zshAndFishParseTheirScripts() throws {
    for (program, shell) in [("/usr/bin/zsh", ShellCompletions.Shell.zsh), ("/usr/bin/fish", .fish)] {
      guard Self.has(program) else {
        print("skipped: \(program) is not installed (scripts/install-deps.sh --test installs it)")
        continue
      }
      let file = NSTemporaryDirectory() + "fxc-completion-\(UUID().uuidString)"
      defer { try? FileManager.default.removeItem(atPath: file) }
      try ShellCompletions.script(shell).write(toFile: file, atomically: true, encoding: .utf8)
      let (status, _, err) = try Self.shell(program, ["-n", file])
      #expect(status == 0 && err.isEmpty, "\(shell): \(err)")
    }
    if Self.has("/usr/bin/fish") {
      let (_, out, _) = try Self.shell("/usr/bin/fish", ["-c", ShellCompletions.fish() + "\ncomplete -C 'fxc run --format w'"])
      #expect(out.hasPrefix("webp"), "\(out)")
    }
  }

  @Test func theManualPageFormatsWithoutWarnings() throws {
    guard Self.has("/usr/bin/groff") else {
      print("skipped: groff is not installed")
      return
    }
    let (status, _, err) = try Self.shell("/usr/bin/groff", ["-man", "-Tascii", "-ww", "-z"], input: ManPage.roff())
    #expect(status == 0 && err.isEmpty, "\(err)")
  }

  @Test func valuesCompleteByTheirDeclaredNames() {
    #expect(ValueCompletion(value: nil) == .nothing)
    #expect(ValueCompletion(value: "FILE.json") == .files)
    #expect(ValueCompletion(value: "FILE|-") == .files)
    #expect(ValueCompletion(value: "DIR") == .directories)
    #expect(ValueCompletion(value: "strict|relaxed") == .choices(["strict", "relaxed"]))
    #expect(ValueCompletion(value: "8|16") == .choices(["8", "16"]))
    #expect(ValueCompletion(value: "CHAIN") == .effects)
    #expect(ValueCompletion(value: "1…100") == .nothing)
    #expect(ValueCompletion(value: "NAME=VALUE") == .nothing)
  }

  /// A mistyped command gets its suggestion and where the help is, not the whole usage.
  @Test func aMistypedCommandIsOneSuggestion() throws {
    let result = try fxc(["rnu"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("did you mean 'run'?") && !result.stderr.contains("usage:"), "\(result)")
    #expect(result.stderr.split(separator: "\n").count == 2, "\(result)")
  }
}

/// scripts/install.sh puts fxc, its page, its completions and the bundled
/// photo under a prefix, and an fxc run from there finds the photo from any
/// directory; --uninstall removes exactly that.
@Suite("scripts/install.sh")
struct InstallScriptTests {
  @Test func installsUnderAPrefixAndUninstalls() throws {
    let built = try #require(BatchFXC.executable)
    let dir = try BatchScratch()
    let prefix = dir.file("prefix")
    let script = BatchFXC.packageRoot + "/scripts/install.sh"
    let (status, out, err) = try CompletionsTests.shell(script, ["--prefix", prefix, "--binary", built])
    #expect(status == 0, "\(out)\(err)")
    for file in [
      "bin/fxc", "share/man/man1/fxc.1.gz", "share/bash-completion/completions/fxc", "share/zsh/site-functions/_fxc",
      "share/fish/vendor_completions.d/fxc.fish", "share/fxc/examples/rocket.jpg", "share/fxc/examples/shaders/seeds.metal",
    ] {
      #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file)")
    }
    let bash = try String(contentsOfFile: "\(prefix)/share/bash-completion/completions/fxc", encoding: .utf8)
    #expect(bash == ShellCompletions.bash())
    let (_, page, _) = try CompletionsTests.shell("/bin/sh", ["-c", "gzip -dc '\(prefix)/share/man/man1/fxc.1.gz'"])
    #expect(page == ManPage.roff())
    // The installed fxc, run from an empty directory, finds the installed photo.
    let elsewhere = dir.file("elsewhere")
    try dir.mkdir("elsewhere")
    let bench = try BatchFXC.run(["bench", "-c", "invert", "--seconds", "0.01"], in: elsewhere, program: "\(prefix)/bin/fxc")
    #expect(bench.status == 0 && bench.stdout.contains("share/fxc/examples/rocket.jpg"), "\(bench)")
    let (removed, _, removeErr) = try CompletionsTests.shell(script, ["--prefix", prefix, "--uninstall"])
    #expect(removed == 0, "\(removeErr)")
    let left = FileManager.default.enumerator(atPath: prefix)?.allObjects.compactMap { $0 as? String } ?? []
    let files = left.filter { name in
      var isDirectory: ObjCBool = false
      return FileManager.default.fileExists(atPath: "\(prefix)/\(name)", isDirectory: &isDirectory) && !isDirectory.boolValue
    }
    #expect(files.isEmpty, "left: \(files)")
  }
}
