/// One token of Metal source, with where it came from.
struct Token: CustomStringConvertible {
  enum Kind: Equatable {
    case identifier
    /// An integer literal; `unsigned` for a `u` suffix.
    case integer(UInt64, unsigned: Bool)
    /// A floating literal; `half` for an `h` suffix.
    case floating(Double, half: Bool)
    case string
    /// A character literal (`'a'`, `'\\4'`): the preprocessor passes it on; the parser refuses it.
    case character
    /// Punctuation and operators: `(`, `+=`, `::`, `#`, …
    case punct
    case end
  }

  var kind: Kind
  /// The spelling (for a string or character literal, its contents as written, escapes kept).
  var text: String
  var location: SourceLocation
  /// First token on its line (directives start with such a `#`).
  var startsLine = false
  /// Whitespace precedes it (`#define F(x)` is function-like, `#define F (x)` is not).
  var spaceBefore = false

  var description: String { kind == .end ? "end of file" : "'\(text)'" }

  func isPunct(_ p: String) -> Bool { kind == .punct && text == p }
  func isIdentifier(_ name: String) -> Bool { kind == .identifier && text == name }
}

/// Splits Metal source into tokens. Comments and whitespace go; a backslash
/// at the end of a line joins it to the next (for multi-line `#define`s).
struct Lexer {
  private let characters: [Character]
  private var index = 0
  private var line = 1
  private var column = 1
  private let file: Int

  init(_ text: String, file: Int) {
    self.characters = Array(text)
    self.file = file
  }

  private static let punctuators: [String] = [
    "<<=", ">>=", "...", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "##", "[[", "]]",
  ]

  /// The tokens, ending with an `.end` token.
  mutating func tokens() throws -> [Token] {
    var out: [Token] = []
    var atLineStart = true
    var space = false
    while true {
      let (newline, sawSpace) = try skipTrivia()
      atLineStart = atLineStart || newline || out.isEmpty
      space = sawSpace || newline
      guard index < characters.count else { break }
      var token = try next()
      token.startsLine = atLineStart
      token.spaceBefore = space
      out.append(token)
      atLineStart = false
    }
    out.append(Token(kind: .end, text: "", location: here, startsLine: true))
    return out
  }

  private var here: SourceLocation { SourceLocation(file: file, line: line, column: column) }

  private func peek(_ offset: Int = 0) -> Character? {
    index + offset < characters.count ? characters[index + offset] : nil
  }

  private mutating func advance() {
    if characters[index] == "\n" {
      line += 1
      column = 1
    } else {
      column += 1
    }
    index += 1
  }

  /// Skips whitespace, comments and line continuations; says whether a newline was crossed.
  private mutating func skipTrivia() throws -> (newline: Bool, space: Bool) {
    var newline = false
    var space = false
    while let c = peek() {
      if c == "\\", peek(1) == "\n" || (peek(1) == "\r" && peek(2) == "\n") {
        while peek() != "\n" { advance() }
        advance()
        space = true
      } else if c == "\n" {
        newline = true
        advance()
      } else if c.isWhitespace {
        space = true
        advance()
      } else if c == "/", peek(1) == "/" {
        while let d = peek(), d != "\n" { advance() }
      } else if c == "/", peek(1) == "*" {
        let start = here
        advance()
        advance()
        // The comment is one space (C's phase 3), also across lines: a
        // directive does not end inside it.
        while !(peek() == "*" && peek(1) == "/") {
          guard peek() != nil else { throw MetalError("unterminated /* comment", at: start) }
          advance()
        }
        advance()
        advance()
        space = true
      } else {
        break
      }
    }
    return (newline, space)
  }

  private mutating func next() throws -> Token {
    let start = here
    let c = peek()!
    if c.isLetter || c == "_" {
      var text = ""
      while let d = peek(), d.isLetter || d.isNumber || d == "_" {
        text.append(d)
        advance()
      }
      return Token(kind: .identifier, text: text, location: start)
    }
    if c.isNumber || (c == "." && peek(1)?.isNumber == true) { return try number(start) }
    if c == "\"" || c == "'" {
      advance()
      var text = ""
      while let d = peek(), d != c, d != "\n" {
        text.append(d)
        advance()
        if d == "\\", let e = peek(), e != "\n" {  // an escape: `\"` does not end the literal
          text.append(e)
          advance()
        }
      }
      guard peek() == c else {
        throw MetalError("unterminated \(c == "'" ? "character" : "string") literal", at: start)
      }
      advance()
      return Token(kind: c == "'" ? .character : .string, text: text, location: start)
    }
    for p in Self.punctuators where matches(p) {
      for _ in p { advance() }
      return Token(kind: .punct, text: p, location: start)
    }
    // `@`, `$` and a lone `\` are no Metal punctuators, but a macro may stringize them (C11 6.10.3.5, example 4).
    guard "+-*/%=<>!&|^~?:;,.(){}[]#@$\\".contains(c) else {
      throw MetalError("unexpected character '\(c)'", at: start)
    }
    advance()
    return Token(kind: .punct, text: String(c), location: start)
  }

  private func matches(_ p: String) -> Bool {
    for (k, ch) in p.enumerated() where peek(k) != ch { return false }
    return true
  }

  /// A decimal, hex or octal integer (suffix `u`, `l`), or a float (suffix `f`, `h`).
  private mutating func number(_ start: SourceLocation) throws -> Token {
    var text = ""
    func take(_ ok: (Character) -> Bool) {
      while let d = peek(), ok(d) {
        text.append(d)
        advance()
      }
    }
    if peek() == "0", peek(1) == "x" || peek(1) == "X" {
      advance()
      advance()
      take { $0.isHexDigit }
      let value = UInt64(text, radix: 16)
      let unsigned = takeIntegerSuffix()
      guard let value else { throw MetalError("invalid hexadecimal literal", at: start) }
      return Token(kind: .integer(value, unsigned: unsigned), text: "0x" + text, location: start)
    }
    take { $0.isNumber }
    var isFloat = false
    if peek() == "." {
      isFloat = true
      text.append(".")
      advance()
      take { $0.isNumber }
    }
    if peek() == "e" || peek() == "E", peek(1)?.isNumber == true || ((peek(1) == "-" || peek(1) == "+") && peek(2)?.isNumber == true) {
      isFloat = true
      text.append("e")
      advance()
      if let sign = peek(), sign == "-" || sign == "+" {
        text.append(sign)
        advance()
      }
      take { $0.isNumber }
    }
    if let s = peek(), "fFhH".contains(s) {
      advance()
      guard let v = Double(text) else { throw MetalError("invalid number '\(text)'", at: start) }
      return Token(kind: .floating(v, half: s == "h" || s == "H"), text: text + String(s), location: start)
    }
    if isFloat {
      guard let v = Double(text) else { throw MetalError("invalid number '\(text)'", at: start) }
      return Token(kind: .floating(v, half: false), text: text, location: start)
    }
    let octal = text.count > 1 && text.hasPrefix("0")
    let value = UInt64(text, radix: octal ? 8 : 10)
    let unsigned = takeIntegerSuffix()
    guard let value else { throw MetalError("invalid integer literal '\(text)'", at: start) }
    return Token(kind: .integer(value, unsigned: unsigned), text: text, location: start)
  }

  /// Consumes `u`, `l`, `ul`, … and says whether the literal is unsigned.
  private mutating func takeIntegerSuffix() -> Bool {
    var unsigned = false
    while let s = peek(), "uUlL".contains(s) {
      if s == "u" || s == "U" { unsigned = true }
      advance()
    }
    return unsigned
  }
}
