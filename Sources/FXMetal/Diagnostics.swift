import FXIR
import Foundation

/// A place in a Metal source file: which file, and the 1-based line and column.
struct SourceLocation: Hashable, Sendable {
  /// Index of the file in its ``SourceFiles``.
  var file: Int
  var line: Int
  var column: Int

  init(file: Int, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }
}

/// The text of every file a translation unit read (the main file and its
/// `#include`s), so that a diagnostic can quote its line.
final class SourceFiles: @unchecked Sendable {
  /// The files' paths as the user named them, and their lines.
  private(set) var paths: [String] = []
  private var lines: [[Substring]] = []

  init() {}

  /// Adds a file and returns its index.
  func add(path: String, text: String) -> Int {
    paths.append(path)
    lines.append(text.split(separator: "\n", omittingEmptySubsequences: false))
    return paths.count - 1
  }

  /// The text of line `line` (1-based) of file `file`, without its newline.
  func line(_ line: Int, of file: Int) -> String {
    guard lines.indices.contains(file), lines[file].indices.contains(line - 1) else { return "" }
    return String(lines[file][line - 1]).replacingOccurrences(of: "\r", with: "")
  }
}

/// An error (or a warning) in a Metal source, reported like a compiler does:
///
///     ripple.metal:12:9: error: use of undeclared identifier 'ampltude'; did you mean 'amplitude'?
///         p += ampltude * sin(t);
///              ^
public struct MetalDiagnostic: Error, CustomStringConvertible, Equatable, Sendable {
  /// How serious it is: an error stops the function; a warning says the
  /// function compiles but may not compute what the source says (a loop cut off).
  public enum Severity: String, Sendable {
    case error, warning
  }

  /// The file's path as it was given.
  public var file: String
  public var line: Int
  public var column: Int
  /// What is wrong, in one line.
  public var message: String
  /// The source line the location is on (empty when unknown).
  public var sourceLine: String
  /// Error or warning.
  public var severity: Severity

  public init(file: String, line: Int, column: Int, message: String, sourceLine: String, severity: Severity = .error) {
    self.file = file
    self.line = line
    self.column = column
    self.message = message
    self.sourceLine = sourceLine
    self.severity = severity
  }

  /// `file:line:col: error: message` (or `warning:`), the source line, and a caret under the column.
  public var description: String {
    guard line > 0 else { return "\(file): \(severity.rawValue): \(message)" }
    var text = "\(file):\(line):\(column): \(severity.rawValue): \(message)"
    if !sourceLine.isEmpty {
      let prefix = sourceLine.prefix(max(column - 1, 0)).map { $0 == "\t" ? "\t" : " " }.joined()
      text += "\n\(sourceLine)\n\(prefix)^"
    }
    return text
  }
}

/// A front-end error before it is tied to its file's text: where, and what.
struct MetalError: Error {
  var location: SourceLocation
  var message: String

  init(_ message: String, at location: SourceLocation) {
    self.message = message
    self.location = location
  }

  /// The error as a diagnostic quoting `files`.
  func diagnostic(_ files: SourceFiles, severity: MetalDiagnostic.Severity = .error) -> MetalDiagnostic {
    let path = files.paths.indices.contains(location.file) ? files.paths[location.file] : "<metal>"
    return MetalDiagnostic(
      file: path, line: location.line, column: location.column, message: message,
      sourceLine: files.line(location.line, of: location.file), severity: severity)
  }
}

/// The candidate nearest to `word`, if it is close enough to be a likely typo
/// (``Spelling/suggestion(for:among:)``; words under three letters get none).
func suggestion(for word: String, among candidates: [String]) -> String? {
  guard word.count >= 3 else { return nil }
  return Spelling.suggestion(for: word, among: candidates)
}
