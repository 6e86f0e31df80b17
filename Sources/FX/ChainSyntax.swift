// The syntax of an effect chain as users type it on the command line:
//
//     sepia | vignette(intensity: 0.8, radius: 0.7)
//
// This file knows the shape of a chain and nothing about which effects exist;
// a validator checks names and arguments afterwards and reports through the
// same `ChainSyntaxError`, so every message points at a column.

import FXIR

/// A parsed effect chain: effect calls separated by `|`.
///
/// The grammar, with whitespace allowed between any two tokens:
///
///     chain    := call ( '|' call )*
///     call     := identifier ( '(' [ argument ( ',' argument )* [','] ] ')' )?
///     argument := [ identifier ':' ] value
///     value    := number | identifier | color | string | list
///     list     := '[' [ value ( ',' value )* [','] ] ']'     (no lists or strings inside)
///     string   := '"' ( any character but '"' and '\\' | '\\"' | '\\\\' )* '"'
///     number   := [+-] ( digits [ '.' digits ] | '.' digits ) [ (e|E) [+-] digits ]
///               | [+-] ( nan | inf | infinity )
///     color    := '#' rrggbb | '#' rrggbbaa
///
/// Printing a chain (`description`) gives its canonical spelling, which parses
/// back to the same calls.
public struct ChainSyntax: Equatable, Sendable, CustomStringConvertible {
  /// The effect calls, in the order they apply.
  public var calls: [Call]
  /// The text the chain was parsed from; errors quote it.
  public var source: String

  /// Creates a chain from calls, for example to print it.
  public init(calls: [Call], source: String = "") {
    self.calls = calls
    self.source = source
  }

  /// One effect in a chain: `vignette(intensity: 0.8)`.
  public struct Call: Equatable, Sendable, CustomStringConvertible {
    /// The effect's name as written.
    public var name: String
    /// The 1-based column of the name in the source.
    public var column: Int
    /// The arguments in source order; empty for `sepia` and for `sepia()`.
    public var arguments: [Argument]

    /// Creates a call.
    public init(name: String, column: Int, arguments: [Argument] = []) {
      self.name = name
      self.column = column
      self.arguments = arguments
    }

    /// The canonical spelling, like `vignette(intensity: 0.8)`.
    public var description: String {
      arguments.isEmpty ? name : "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
    }
  }

  /// One argument of a call: `intensity: 0.8`, or positional `3`.
  public struct Argument: Equatable, Sendable, CustomStringConvertible {
    /// The label before `:`, or `nil` for a positional argument.
    public var label: String?
    /// The value after the label.
    public var value: Value
    /// The 1-based column of the argument's first token (its label, if any).
    public var column: Int

    /// Creates an argument.
    public init(label: String? = nil, value: Value, column: Int) {
      self.label = label
      self.value = value
      self.column = column
    }

    /// The canonical spelling, like `intensity: 0.8`.
    public var description: String { label.map { "\($0): \(value)" } ?? value.description }
  }

  /// The canonical spelling of the chain, like `sepia | vignette(intensity: 0.8)`.
  public var description: String { calls.map(\.description).joined(separator: " | ") }

  /// Parses a chain.
  ///
  /// - Throws: `ChainSyntaxError`, pointing at the column where the chain went wrong.
  public static func parse(_ source: String) throws(ChainSyntaxError) -> ChainSyntax {
    var lexer = Lexer(source)
    var parser = Parser(tokens: try lexer.tokens(), source: source)
    return ChainSyntax(calls: try parser.chain(), source: source)
  }

  /// The candidate closest to a misspelt word, when it is close enough to be what was meant.
  ///
  /// Closeness is the edit distance, ignoring case, where swapping two neighbouring
  /// letters counts as one edit; a candidate qualifies within `max(2, word.count / 3)`
  /// edits and when fewer edits than the word has letters. Ties go to the earlier candidate.
  ///
  ///     ChainSyntax.suggestion(for: "sepai", among: ["blur", "sepia"])  // "sepia"
  public static func suggestion(for word: String, among candidates: [String]) -> String? {
    Spelling.suggestion(for: word, among: candidates)
  }
}

/// A mistake in a chain, with the column it was found at.
///
/// Printing one renders it like a compiler does:
///
///     error: missing value after 'intensity:'
///       vignette(intensity:)
///                          ^
public struct ChainSyntaxError: Error, CustomStringConvertible, Equatable {
  /// What went wrong, phrased so the user can fix it.
  public var message: String
  /// The 1-based column the caret points at; one past the end for "expected more".
  public var column: Int
  /// The whole chain, quoted under the message.
  public var source: String

  /// Creates an error; the validator uses this to report unknown effects and bad values.
  public init(message: String, column: Int, source: String) {
    self.message = message
    self.column = column
    self.source = source
  }

  /// `error: <message>`, the source, and a caret under `column`.
  public var description: String {
    // The caret line copies tabs so it lines up however the terminal expands them.
    let line = source.map { $0.isNewline ? " " : String($0) }.joined()
    let padding = source.prefix(max(column - 1, 0)).map { $0 == "\t" ? "\t" : " " }.joined()
    return "error: \(message)\n  \(line)\n  \(padding)^"
  }
}

// MARK: - Tokens

private struct Token {
  enum Kind { case identifier, number, color, string, pipe, open, close, openBracket, closeBracket, comma, colon, end }

  var kind: Kind
  var text: String
  var column: Int
  /// The value of a number or color token.
  var value: ChainSyntax.Value?

  init(_ kind: Kind, _ text: String, column: Int, value: ChainSyntax.Value? = nil) {
    self.kind = kind
    self.text = text
    self.column = column
    self.value = value
  }

  /// The column just after the token.
  var end: Int { column + text.count }
  var isValue: Bool { kind == .identifier || kind == .number || kind == .color || kind == .string }
  /// Whether a value starts here: a value token or a list's `[`.
  var startsValue: Bool { isValue || kind == .openBracket }
  /// How a message names the token.
  var quoted: String { kind == .end ? "the end of the chain" : "'\(text)'" }
}

/// Splits a chain into tokens; columns count characters, as a terminal shows them.
private struct Lexer {
  let characters: [Character]
  let source: String
  var index = 0

  init(_ source: String) {
    self.source = source
    self.characters = Array(source)
  }

  mutating func tokens() throws(ChainSyntaxError) -> [Token] {
    var tokens: [Token] = []
    while true {
      while index < characters.count, characters[index].isWhitespace { index += 1 }
      guard index < characters.count else {
        // "Expected more" errors point just past the last token, not at trailing spaces.
        tokens.append(Token(.end, "", column: tokens.last?.end ?? 1))
        return tokens
      }
      tokens.append(try token())
    }
  }

  private mutating func token() throws(ChainSyntaxError) -> Token {
    let character = characters[index]
    let punctuation: [Character: Token.Kind] = [
      "|": .pipe, "(": .open, ")": .close, ",": .comma, ":": .colon, "[": .openBracket, "]": .closeBracket,
    ]
    if let kind = punctuation[character] {
      index += 1
      return Token(kind, String(character), column: index)
    }
    if character == "#" { return try color() }
    if character == "\"" { return try string() }
    if character.isDigit || character == "+" || character == "-"
      || (character == "." && peek(1)?.isDigit == true)
    {
      return try number()
    }
    if character.isIdentifierStart {
      let start = index
      consume(while: \.isIdentifierContinue)
      return Token(.identifier, text(from: start), column: start + 1)
    }
    // `logo.png` or `dir/logo.png` unquoted, as an argument: a word, then '.' or '/' and more of a name, is a path.
    let open = characters[..<index].filter { $0 == "(" }.count > characters[..<index].filter { $0 == ")" }.count
    if character == "." || character == "/", open, index > 0, characters[index - 1].isIdentifierContinue,
      peek(1)?.isIdentifierStart == true
    {
      var start = index
      while start > 0, characters[start - 1].isIdentifierContinue || characters[start - 1] == "/" { start -= 1 }
      var end = index
      while end < characters.count, characters[end].isIdentifierContinue || ".-/".contains(characters[end]) { end += 1 }
      let path = String(characters[start..<end])
      throw ChainSyntaxError(
        message: "unexpected character '\(character)' (a file path is quoted: \"\(path)\")", column: index + 1, source: source)
    }
    throw ChainSyntaxError(message: Self.unexpected(character), column: index + 1, source: source)
  }

  private mutating func number() throws(ChainSyntaxError) -> Token {
    let start = index
    let sign = characters[index] == "+" || characters[index] == "-" ? characters[index] : nil
    if sign != nil { index += 1 }
    let body = index
    let decimal = peek(0).map { $0.isDigit || $0 == "." } ?? false
    // Take the whole word, so `1.2.3` and `3px` are reported as one bad number.
    while let c = peek(0) {
      let exponentSign =
        decimal && (c == "+" || c == "-")
        && (characters[index - 1] == "e" || characters[index - 1] == "E")
      guard c.isIdentifierContinue || c == "." || exponentSign else { break }
      index += 1
    }
    let text = text(from: start)
    func failure(_ message: String) -> ChainSyntaxError {
      ChainSyntaxError(message: message, column: start + 1, source: source)
    }
    guard body < index else { throw failure("expected a number after '\(text)'") }
    let word = String(characters[body..<index]).lowercased()
    let value: Double
    if word == "nan" {
      value = .nan
    } else if word == "inf" || word == "infinity" {
      value = .infinity
    } else {
      guard Self.isDecimal(Array(word)), let parsed = Double(word) else {
        throw failure("invalid number '\(text)'")
      }
      guard parsed.isFinite else { throw failure("number '\(text)' is out of range") }
      value = parsed
    }
    return Token(.number, text, column: start + 1, value: .number(sign == "-" ? -value : value))
  }

  private mutating func color() throws(ChainSyntaxError) -> Token {
    let start = index
    index += 1
    consume(while: \.isIdentifierContinue)
    let text = text(from: start)
    let digits = text.dropFirst()
    guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
      let packed = UInt32(digits, radix: 16)
    else {
      throw ChainSyntaxError(
        message: "invalid color '\(text)': expected 6 or 8 hex digits, like #ff8000 or #ff800080",
        column: start + 1, source: source)
    }
    let rgba = digits.count == 6 ? packed << 8 | 0xff : packed
    let channels = SIMD4<UInt32>(rgba >> 24, rgba >> 16, rgba >> 8, rgba) & 0xff
    return Token(.color, text, column: start + 1, value: .color(SIMD4<Float>(channels) / 255))
  }

  /// A double-quoted string; `\"` and `\\` stand for `"` and `\`, other escapes are refused.
  private mutating func string() throws(ChainSyntaxError) -> Token {
    let start = index
    index += 1
    var text = ""
    while let c = peek(0), c != "\"" {
      if c == "\\" {
        guard let escaped = peek(1), escaped == "\"" || escaped == "\\" else {
          throw ChainSyntaxError(
            message: "invalid escape in a string: only \\\" and \\\\ are escapes", column: index + 1, source: source)
        }
        text.append(escaped)
        index += 2
        continue
      }
      text.append(c)
      index += 1
    }
    guard peek(0) == "\"" else {
      throw ChainSyntaxError(
        message: "unterminated string: expected '\"' to match the one at column \(start + 1)", column: index + 1, source: source)
    }
    index += 1
    return Token(.string, self.text(from: start), column: start + 1, value: .string(text))
  }

  /// `digits [ '.' digits ] [ exponent ]` or `'.' digits [ exponent ]`, sign already removed.
  private static func isDecimal(_ word: [Character]) -> Bool {
    var i = 0
    func digits() -> Int {
      let start = i
      while i < word.count, word[i].isDigit { i += 1 }
      return i - start
    }
    let whole = digits()
    if i < word.count, word[i] == "." {
      i += 1
      guard digits() > 0 else { return false }
    } else if whole == 0 {
      return false
    }
    if i < word.count, word[i] == "e" {  // the word is lowercased
      i += 1
      if i < word.count, word[i] == "+" || word[i] == "-" { i += 1 }
      guard digits() > 0 else { return false }
    }
    return i == word.count
  }

  private static func unexpected(_ character: Character) -> String {
    // Control characters would garble the message, so they are shown by code point.
    let scalars = character.unicodeScalars
    let isControl = scalars.allSatisfy { $0.properties.generalCategory == .control }
    let codePoints = scalars.map { scalar in
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
    let shown = isControl ? codePoints.joined(separator: " ") : "'\(character)'"
    let hints: [Character: String] = [
      "'": "quote a path with double quotes, like \"noise.png\"",
      "=": "use ':' between a label and its value",
      ";": "separate effects with '|'", ">": "separate effects with '|'",
    ]
    return "unexpected character \(shown)" + (hints[character].map { " (\($0))" } ?? "")
  }

  private func peek(_ offset: Int) -> Character? {
    index + offset < characters.count ? characters[index + offset] : nil
  }

  private mutating func consume(while predicate: (Character) -> Bool) {
    while let c = peek(0), predicate(c) { index += 1 }
  }

  private func text(from start: Int) -> String { String(characters[start..<index]) }
}

extension Character {
  fileprivate var isDigit: Bool { isASCII && isNumber }
  fileprivate var isIdentifierStart: Bool { isASCII && (isLetter || self == "_") }
  fileprivate var isIdentifierContinue: Bool { isASCII && (isLetter || isNumber || self == "_") }
}

// MARK: - Parser

/// Recursive descent over the tokens; each `throw` names what was expected where.
private struct Parser {
  let tokens: [Token]
  let source: String
  var index = 0

  init(tokens: [Token], source: String) {
    self.tokens = tokens
    self.source = source
  }

  private var current: Token { tokens[index] }
  private var following: Token { tokens[min(index + 1, tokens.count - 1)] }

  private mutating func advance() -> Token {
    defer { index = min(index + 1, tokens.count - 1) }
    return current
  }

  private func error(_ message: String, at column: Int) -> ChainSyntaxError {
    ChainSyntaxError(message: message, column: column, source: source)
  }

  mutating func chain() throws(ChainSyntaxError) -> [ChainSyntax.Call] {
    var calls = [try call(after: nil)]
    while true {
      switch current.kind {
      case .end:
        return calls
      case .pipe:
        calls.append(try call(after: advance()))
      case .identifier:
        throw error(
          "missing '|' between '\(calls.last!.name)' and '\(current.text)'", at: current.column)
      case _ where current.isValue && tokens[index - 1].kind == .identifier:
        let example = "\(calls.last!.name)(\(current.text))"
        throw error("arguments go in parentheses, like '\(example)'", at: current.column)
      default:
        throw error(
          "expected '|' or the end of the chain, found \(current.quoted)", at: current.column)
      }
    }
  }

  private mutating func call(after pipe: Token?) throws(ChainSyntaxError) -> ChainSyntax.Call {
    let name = current
    switch (name.kind, pipe) {
    case (.identifier, _):
      _ = advance()
    case (.end, nil):
      throw error("empty chain: expected an effect, like 'sepia'", at: name.column)
    case (.end, _?):
      throw error("expected an effect name after '|'", at: name.column)
    case (.pipe, nil):
      throw error("expected an effect name before '|'", at: name.column)
    case (.pipe, _?):
      throw error("expected an effect name after '|', found another '|'", at: name.column)
    default:
      throw error("expected an effect name, found \(name.quoted)", at: name.column)
    }
    guard current.kind == .open else {
      return ChainSyntax.Call(name: name.text, column: name.column)
    }
    let open = advance()
    return ChainSyntax.Call(
      name: name.text, column: name.column, arguments: try arguments(of: name, open: open))
  }

  /// The arguments after `(`, through the closing `)`.
  private mutating func arguments(of name: Token, open: Token) throws(ChainSyntaxError)
    -> [ChainSyntax.Argument]
  {
    var arguments: [ChainSyntax.Argument] = []
    while true {
      // Expecting an argument or `)`: after `(` or after a comma.
      switch current.kind {
      case .close:
        _ = advance()
        return arguments
      case .identifier, .number, .color, .string, .openBracket:
        arguments.append(try argument())
      default:
        throw unclosed(name, open)
          ?? error("expected an argument or ')', found \(current.quoted)", at: current.column)
      }
      // Expecting `,` or `)` after an argument.
      switch current.kind {
      case .comma:
        _ = advance()
      case .close:
        _ = advance()
        return arguments
      case .identifier, .number, .color, .string, .openBracket:
        let previous = tokens[index - 1]
        if arguments.last!.label == nil, previous.kind == .identifier {
          throw error("missing ':' after label '\(previous.text)'", at: previous.end)
        }
        throw error("missing ',' between arguments", at: current.column)
      default:
        throw unclosed(name, open)
          ?? error(
            "expected ',' or ')' after an argument, found \(current.quoted)", at: current.column)
      }
    }
  }

  /// The error for an argument list cut short by `|` or by the end of the chain.
  private func unclosed(_ name: Token, _ open: Token) -> ChainSyntaxError? {
    switch current.kind {
    case .end:
      return error(
        "unterminated argument list of '\(name.text)': expected ')' to match '(' at column \(open.column)",
        at: current.column)
    case .pipe:
      return error("missing ')' to close the argument list of '\(name.text)'", at: current.column)
    default:
      return nil
    }
  }

  private mutating func argument() throws(ChainSyntaxError) -> ChainSyntax.Argument {
    let first = current
    guard first.kind == .identifier, following.kind == .colon else {
      return ChainSyntax.Argument(value: try value(), column: first.column)
    }
    index += 2  // the label and its colon
    let label = first.text
    switch current.kind {
    case .identifier where following.kind == .colon:
      throw error("missing value after '\(label):'", at: current.column)
    case .identifier, .number, .color, .string, .openBracket:
      return ChainSyntax.Argument(label: label, value: try value(), column: first.column)
    case .comma, .close, .pipe, .end:
      throw error("missing value after '\(label):'", at: current.column)
    default:
      throw error("expected a value after '\(label):', found \(current.quoted)", at: current.column)
    }
  }

  /// The value at the current token: a single token, or a bracketed list.
  private mutating func value() throws(ChainSyntaxError) -> ChainSyntax.Value {
    guard current.kind == .openBracket else { return value(advance()) }
    let open = advance()
    var elements: [ChainSyntax.Value] = []
    while true {
      switch current.kind {
      case .closeBracket:
        _ = advance()
        return .list(elements)
      case .identifier, .number, .color:
        elements.append(value(advance()))
      case .openBracket, .string:
        throw error("a list holds numbers or colors, not \(current.kind == .string ? "strings" : "lists")", at: current.column)
      default:
        throw error("expected a number, a color or ']' in the list opened at column \(open.column), found \(current.quoted)", at: current.column)
      }
      switch current.kind {
      case .comma: _ = advance()
      case .closeBracket: continue
      case .identifier, .number, .color: throw error("missing ',' between list elements", at: current.column)
      default: throw unclosedList(open)
      }
    }
  }

  private func unclosedList(_ open: Token) -> ChainSyntaxError {
    error(
      "expected ',' or ']' in the list opened at column \(open.column), found \(current.quoted)", at: current.column)
  }

  private func value(_ token: Token) -> ChainSyntax.Value {
    if let value = token.value { return value }
    switch token.text.lowercased() {
    case "nan": return .number(.nan)
    case "inf", "infinity": return .number(.infinity)
    default: return .identifier(token.text)
    }
  }
}
