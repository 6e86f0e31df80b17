import Foundation
import Testing

/// No source file over 600 lines and no function over 80 (STYLE.md). The
/// ones that were already longer are listed in ``known`` with their size at
/// the time: they may shrink, never grow, and nothing new may join them.
/// The test prints every offender, longest first.
struct SourceSizeTests {
  static let fileLimit = 600
  static let functionLimit = 80

  /// Offenders when the check was introduced, by "File.swift" or
  /// "File.swift: name", with their line counts then.
  static let known: [String: Int] = [
    "FuzzCase.swift: build": 87,
    "FuzzCase.swift: b": 82,
    "LoopNestEmitter+Body.swift: emitBlockUniformBody": 87,
  ]

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Every Swift file under Sources/, with its lines.
  static func sources() throws -> [(name: String, lines: [String])] {
    let sources = root.appendingPathComponent("Sources")
    guard let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
    var files: [(String, [String])] = []
    for case let url as URL in walk where url.pathExtension == "swift" {
      files.append((url.lastPathComponent, try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")))
    }
    return files.sorted { $0.0 < $1.0 }
  }

  /// Functions and initialisers with their length in lines, from the line of
  /// `func`/`init` to the line closing its body (braces counted outside
  /// string literals and comments, roughly: enough for this code).
  static func functions(_ lines: [String]) -> [(name: String, length: Int)] {
    let declaration = try! Regex(
      #"^\s*(?:@\w+\s+)*(?:(?:public|package|private|internal|fileprivate|static|mutating|override|nonisolated|final|convenience|required)\s+)*(func\s+([^\s(<]+)|init)[(<?]"#
    )
    var result: [(String, Int)] = []
    for (start, line) in lines.enumerated() {
      guard let match = line.firstMatch(of: declaration) else { continue }
      let name = match.output[2].substring.map(String.init) ?? "init"
      var depth = 0, opened = false
      for (k, body) in lines[start...].enumerated() {
        let code = body.components(separatedBy: "//").first ?? ""
        var inString = false
        for ch in code {
          if ch == "\"" { inString.toggle() }
          if inString { continue }
          if ch == "{" {
            depth += 1
            opened = true
          }
          if ch == "}" { depth -= 1 }
        }
        if opened && depth <= 0 {
          result.append((name, k + 1))
          break
        }
        // A declaration without a body (a protocol requirement).
        if !opened && k > 3 { break }
      }
    }
    return result
  }

  @Test func filesAndFunctionsStayShort() throws {
    var offenders: [(String, Int)] = []
    for (file, lines) in try Self.sources() {
      if lines.count > Self.fileLimit { offenders.append((file, lines.count)) }
      for f in Self.functions(lines) where f.length > Self.functionLimit { offenders.append(("\(file): \(f.name)", f.length)) }
    }
    #expect(!offenders.isEmpty || Self.known.isEmpty, "the scan found no Swift sources under \(Self.root.path)")
    print("source size offenders (limits: \(Self.fileLimit) lines per file, \(Self.functionLimit) per function):")
    for (name, size) in offenders.sorted(by: { $0.1 > $1.1 }) { print("  \(size)  \(name)") }
    for (name, size) in offenders {
      guard let before = Self.known[name] else {
        Issue.record("\(name) is \(size) lines, over the limit: split it")
        continue
      }
      #expect(size <= before, "\(name) grew from \(before) to \(size) lines")
    }
  }

  /// The scanner finds a function's length and skips braces in strings.
  @Test func scannerMeasuresFunctions() {
    let lines = ["struct S {", "  public static func f(x: Int) -> Int {", "    let s = \"}\"", "    return x", "  }", "  init() {}", "}"]
    let found = Self.functions(lines)
    #expect(found.map(\.name) == ["f", "init"])
    #expect(found.map(\.length) == [4, 1])
  }
}
