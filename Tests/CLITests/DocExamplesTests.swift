import FX
import Foundation
import Testing

@testable import fxc

/// Every `fxc` command in README.md and docs/ runs as written (issue 37):
/// extracted from the code blocks, run by /bin/sh in a fresh directory that
/// holds the files the examples name as the reader's own (photo.jpg,
/// photos/, logo.png…), with the built fxc on the PATH — not from the
/// repository's root, except that a command naming `examples/` (the
/// repository's own files) gets a copy of them. A command is only left out
/// for a reason written below.
@Suite("docs: every fxc example runs")
struct DocExamplesTests {
  /// The fxc commands of one code block, run in order in one directory (a
  /// block's later commands may read what its earlier ones wrote).
  struct Example: CustomTestStringConvertible, Sendable {
    var file: String
    var commands: [String]
    var testDescription: String { "\(file): \(commands[0])\(commands.count > 1 ? " (+\(commands.count - 1))" : "")" }
  }

  /// Commands not run, each with why.
  static let leftOut: [(fragment: String, reason: String)] = [
    ("perf record", "needs perf, a profiler"),
    ("fuzz --graphs 1000", "minutes of fuzzing; the suite fuzzes itself"),
    ("parallel -j", "needs GNU parallel"),
    ("find /data", "reads the reader's /data"),
    ("--device cuda", "needs an NVIDIA GPU and its driver (CUDATargetTests runs a chain there where one is, and checks the error where none is)"),
    ("sudo apt", "installs a package (scripts/build-deb.sh is checked by hand; InstallScriptTests runs install.sh)"),
  ]

  static let root = BatchFXC.packageRoot

  /// The commands of every non-Swift code block: continuation lines joined,
  /// comments dropped, those that run fxc kept.
  static let examples: [Example] = {
    var found: [Example] = []
    let docs = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs"))?.filter { $0.hasSuffix(".md") }.sorted() ?? []
    for file in ["README.md"] + docs.map({ "docs/" + $0 }) {
      guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
      var inBlock = false, runnable = false, pending = "", block: [String] = []
      for line in text.components(separatedBy: "\n") {
        if line.hasPrefix("```") {
          inBlock.toggle()
          runnable = inBlock && (line == "```" || line == "```sh")
          if !inBlock, !block.isEmpty { found.append(Example(file: file, commands: block)) }
          block = []
          continue
        }
        guard inBlock, runnable else { continue }
        let code = withoutComment(line)
        if code.hasSuffix("\\") {
          pending += code.dropLast() + " "
          continue
        }
        let command = (pending + code).trimmingCharacters(in: .whitespaces)
        pending = ""
        guard runsFXC(command) else { continue }
        block.append(command)
      }
    }
    return found
  }()

  /// Whether `command` runs fxc: `fxc COMMAND…` or `fxc --option` (not a
  /// listing that starts with the word), directly, after a pipe, in `<(…)` or after `--`.
  static func runsFXC(_ command: String) -> Bool {
    let names = Set(FXC.commands.map { $0.spec.name })
    for marker in ["fxc ", "| fxc ", "<(fxc ", "-- fxc "] {
      var rest = Substring(command)
      if marker == "fxc " {
        guard command.hasPrefix(marker) else { continue }
      } else {
        guard let r = command.range(of: marker) else { continue }
        rest = command[r.lowerBound...]
      }
      let words = rest.split(separator: " ").drop { $0 != "fxc" && $0 != "<(fxc" }.dropFirst()
      if let next = words.first, names.contains(String(next)) || next.hasPrefix("-") { return true }
    }
    return false
  }

  /// `line` without a shell comment: a `#` after a blank, outside quotes.
  static func withoutComment(_ line: String) -> String {
    var quote: Character?
    var previous: Character = " "
    for (i, c) in zip(line.indices, line) {
      if let q = quote {
        if c == q { quote = nil }
      } else if c == "'" || c == "\"" {
        quote = c
      } else if c == "#", previous == " " {
        return String(line[..<i]).trimmingCharacters(in: .whitespaces)
      }
      previous = c
    }
    return line.trimmingCharacters(in: .whitespaces)
  }

  /// The reader's own files the examples name.
  /// (Not noise.png: the docs make it, in the block that reads it.)
  static func furnish(_ dir: BatchScratch, examples: Bool) throws {
    let photo = try Data(contentsOf: URL(fileURLWithPath: BatchFXC.rocket))
    for name in ["photo.jpg", "a.jpg", "in.jpg", "next.jpg", "photos/one.jpg", "photos/sub/two.jpg"] {
      try dir.mkdir((name as NSString).deletingLastPathComponent.isEmpty ? "." : (name as NSString).deletingLastPathComponent)
      try dir.write(photo, to: name)
    }
    let small = try ImageBuffer(width: 64, height: 48, format: .rgba8)
    for y in 0..<48 { for x in 0..<64 { small[x, y] = SIMD4(Float(x) / 64, Float(y) / 48, 0.5, 1) * (x < 8 ? 0.5 : 1) } }
    for name in ["logo.png", "scan.png", "x.png"] { try ImageFile.write(small, to: dir.file(name)) }
    try ImageFile.write(small, to: dir.file("scan.tif"))
    try dir.write(Data("sepia | vignette".utf8), to: "long-chain.txt")
    if examples {
      try FileManager.default.copyItem(atPath: root + "/examples", toPath: dir.file("examples"))
    }
  }

  @Test func theDocsHaveExamples() {
    let commands = Self.examples.flatMap(\.commands)
    #expect(commands.count >= 40, "\(commands.count) found: is the extraction broken?")
    #expect(commands.contains { $0.contains("--shaders examples/shaders/seeds.metal") })
  }

  @Test(arguments: examples)
  func runsAsWritten(_ example: Example) throws {
    let fxc = try #require(BatchFXC.executable)
    let dir = try BatchScratch()
    try Self.furnish(dir, examples: example.commands.contains { $0.contains("examples/") })
    for command in example.commands {
      if let skip = Self.leftOut.first(where: { command.contains($0.fragment) }) {
        print("left out: \(command) — \(skip.reason)")
        continue
      }
      // An example for an x86-64 level this host cannot run (v4 on an AVX2 machine) is that machine's refusal, not a failure.
      if let level = Target.x86Levels.map(\.name).first(where: { command.contains("--target \($0)") }),
        !Target.runnableLevels(on: .host).contains(where: { $0.name == level })
      {
        print("left out here: \(command) — this host (\(Target.host.summary)) cannot run \(level)")
        continue
      }
      try Self.run(command, in: dir, fxc: fxc, file: example.file)
    }
  }

  /// Runs `command` with bash in `dir`, the built fxc first on the PATH; it must succeed and do something visible.
  static func run(_ command: String, in dir: BatchScratch, fxc: String, file: String) throws {
    func entries() -> Int { FileManager.default.enumerator(atPath: dir.path)?.allObjects.count ?? 0 }
    let before = entries()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    // A `source <(…)` changes the shell: what it defined is what it did.
    let check = command.hasPrefix("source <(fxc completions bash)") ? " && complete -p fxc" : ""
    p.arguments = ["-c", "set -o pipefail; " + command + check]
    p.currentDirectoryURL = URL(fileURLWithPath: dir.path)
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = (fxc as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env["FXC_CACHE_DIR"] = dir.file(".cache")
    // The Slurm job script's variables, as Slurm sets them for task 1 of 4.
    env["SLURM_ARRAY_TASK_ID"] = "1"
    env["SLURM_ARRAY_TASK_COUNT"] = "4"
    env["SLURM_CPUS_PER_TASK"] = "2"
    p.environment = env
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(p.terminationStatus == 0, "\(file): \(command)\n\(stderr)")
    #expect(!stdout.isEmpty || entries() > before, "\(command): no output and no file written")
  }
}

/// Every relative link and picture in README.md and docs/ names a file that is there.
@Suite("docs: links")
struct DocLinkTests {
  @Test func everyRelativeLinkResolves() throws {
    let root = BatchFXC.packageRoot
    let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }
    var checked = 0
    for file in ["README.md"] + docs.map({ "docs/" + $0 }) {
      let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
      let base = (file as NSString).deletingLastPathComponent
      // `](target)` of [text](target) and ![alt](target), up to a space, `#` or `)`.
      for part in text.components(separatedBy: "](").dropFirst() {
        let target = String(part.prefix { $0 != ")" && $0 != " " && $0 != "#" })
        guard !target.isEmpty, !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
        let path = ((root + "/" + base) as NSString).appendingPathComponent(target)
        #expect(FileManager.default.fileExists(atPath: path), "\(file): \(target)")
        checked += 1
      }
    }
    #expect(checked >= 10, "only \(checked) links found")
  }
}
