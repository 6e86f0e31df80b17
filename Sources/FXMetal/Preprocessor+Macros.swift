// Macro expansion and the arithmetic of `#if` lines.
//
// Expansion is the C standard's (C11 6.10.3, C++ [cpp.replace]) as Dave
// Prosser's algorithm states it: every token carries a hide set, the names of
// the macros whose expansion produced it, and a name in its own hide set is
// not expanded again. A function-like macro's expansion hides the names
// hidden at both its name and its closing parenthesis, plus its own. `#`
// makes a string literal of an argument's spelling, `##` pastes two tokens
// into one (an empty argument is a placemarker), an argument next to either
// is not expanded first, any other is expanded completely before it is
// substituted, and the result is rescanned with the tokens that follow it.

extension Preprocessor {
  /// A token during expansion, with its hide set.
  struct Item {
    var token: Token
    var hidden: Set<String> = []
    /// An empty argument beside `##` (C11 6.10.3.3): it pastes as nothing.
    var isPlacemarker = false
  }

  /// `tokens` with every macro expanded and rescanned.
  func expand(_ tokens: [Token]) throws -> [Token] {
    try expand(tokens.map { Item(token: $0) }).map(\.token)
  }

  private func expand(_ input: [Item]) throws -> [Item] {
    var pending = Array(input.reversed())  // the next token is the last
    var out: [Item] = []
    var steps = 0
    while let t = pending.popLast() {
      let name = t.token.text
      guard t.token.kind == .identifier, !t.hidden.contains(name) else {
        out.append(t)
        continue
      }
      if name == "__LINE__" {
        let line = UInt64(t.token.location.line)
        out.append(Item(token: Token(kind: .integer(line, unsigned: false), text: "\(line)", location: t.token.location)))
        continue
      }
      guard let macro = macros[name] else {
        out.append(t)
        continue
      }
      steps += 1
      if steps > 1_000_000 { throw MetalError("macro expansion does not end (over a million steps)", at: t.token.location) }
      guard macro.parameters != nil else {
        pending += try substitute(macro, [], hidden: t.hidden.union([name]), at: t.token).reversed()
        continue
      }
      guard let open = pending.last, open.token.isPunct("(") else {
        out.append(t)  // a function-like macro's name without arguments is left alone
        continue
      }
      pending.removeLast()
      var arguments: [[Item]] = [[]]
      var depth = 0
      var close: Item?
      while let a = pending.popLast() {
        if a.token.isPunct("(") { depth += 1 }
        if a.token.isPunct(")") {
          if depth == 0 {
            close = a
            break
          }
          depth -= 1
        }
        if a.token.isPunct(","), depth == 0 { arguments.append([]) } else { arguments[arguments.count - 1].append(a) }
      }
      guard let close else { throw MetalError("unterminated call of macro '\(name)'", at: t.token.location) }
      let hidden = t.hidden.intersection(close.hidden).union([name])
      pending += try substitute(macro, try bind(arguments, to: macro, at: t.token), hidden: hidden, at: t.token).reversed()
    }
    return out
  }

  /// The arguments of a call, one per parameter; a variadic macro's last
  /// parameter (`__VA_ARGS__`) takes the rest, commas included.
  private func bind(_ arguments: [[Item]], to macro: Macro, at use: Token) throws -> [[Item]] {
    let parameters = macro.parameters!
    var arguments = arguments
    if parameters.isEmpty, arguments.count == 1, arguments[0].isEmpty { arguments = [] }
    if macro.isVariadic {
      let fixed = parameters.count - 1
      if arguments.count == fixed { arguments.append([]) }  // `f(a)` for `f(x, ...)`: no variable arguments
      if arguments.count > fixed + 1 {
        let comma = Item(token: Token(kind: .punct, text: ",", location: use.location))
        let rest = arguments[fixed...].enumerated().flatMap { k, a in (k == 0 ? [] : [comma]) + a }
        arguments = Array(arguments[..<fixed]) + [rest]
      }
    }
    guard arguments.count == parameters.count else {
      let wanted = macro.isVariadic ? "at least \(parameters.count - 1)" : "\(parameters.count)"
      throw MetalError("macro '\(use.text)' takes \(wanted) arguments, got \(arguments.count)", at: use.location)
    }
    return arguments
  }

  /// The macro's replacement list with its parameters replaced (`#`, `##`,
  /// expanded arguments), every token given `hidden`.
  private func substitute(_ macro: Macro, _ arguments: [[Item]], hidden: Set<String>, at use: Token) throws -> [Item] {
    let body = relocated(macro.body, to: use)
    let parameters = macro.parameters ?? []
    func argument(_ t: Token) -> Int? { t.kind == .identifier ? parameters.firstIndex(of: t.text) : nil }
    var out: [Item] = []
    var i = 0
    while i < body.count {
      let b = body[i]
      if macro.parameters != nil, b.isPunct("#"), i + 1 < body.count, let k = argument(body[i + 1]) {
        out.append(Item(token: stringized(arguments[k].map(\.token), at: b)))
        i += 2
      } else if b.isPunct("##"), i + 1 < body.count, !out.isEmpty {
        let right = argument(body[i + 1]).map { arguments[$0] } ?? [Item(token: body[i + 1])]
        i += 2
        guard let first = right.first else { continue }  // `x ## <empty>`: x stays
        let left = out.removeLast()
        out.append(left.isPlacemarker ? first : Item(token: try pasted(left.token, first.token)))
        out += right.dropFirst()
      } else if let k = argument(b) {
        if i + 1 < body.count, body[i + 1].isPunct("##") {
          out += arguments[k].isEmpty ? [Item(token: b, isPlacemarker: true)] : arguments[k]
        } else {
          out += try expand(arguments[k])
        }
        i += 1
      } else {
        out.append(Item(token: b))
        i += 1
      }
    }
    return out.filter { !$0.isPlacemarker }.map { Item(token: $0.token, hidden: $0.hidden.union(hidden)) }
  }

  /// `#x`: the argument's spelling as a string literal, one space where
  /// there was white space, `"` and `\` escaped inside string and character literals.
  private func stringized(_ tokens: [Token], at hash: Token) -> Token {
    var text = ""
    for (k, t) in tokens.enumerated() {
      if k > 0 && t.spaceBefore { text += " " }
      let spelling = Self.spelling(t)
      text +=
        t.kind == .string || t.kind == .character
        ? spelling.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") : spelling
    }
    var result = Token(kind: .string, text: text, location: hash.location)
    result.spaceBefore = hash.spaceBefore
    return result
  }

  /// `a ## b`: the token their spellings make together.
  /// - Throws: when they do not make exactly one token.
  private func pasted(_ a: Token, _ b: Token) throws -> Token {
    let text = Self.spelling(a) + Self.spelling(b)
    var lexer = Lexer(text, file: a.location.file)
    let tokens = (try? lexer.tokens()) ?? []
    guard tokens.count == 2 else {
      throw MetalError("pasting \"\(Self.spelling(a))\" and \"\(Self.spelling(b))\" does not give a valid token", at: a.location)
    }
    var t = tokens[0]
    t.location = a.location
    t.spaceBefore = a.spaceBefore
    t.startsLine = false
    return t
  }

  /// A token as written in the source: a string literal with its quotes.
  static func spelling(_ t: Token) -> String {
    switch t.kind {
    case .string: "\"" + t.text + "\""
    case .character: "'" + t.text + "'"
    default: t.text
    }
  }

  /// The macro's tokens placed at the use, so diagnostics point where the macro was used.
  private func relocated(_ body: [Token], to use: Token) -> [Token] {
    body.enumerated().map { k, b in
      var t = b
      t.location = use.location
      t.startsLine = false
      if k == 0 { t.spaceBefore = use.spaceBefore }
      return t
    }
  }
}

/// Evaluates the integer expression of an `#if` line (after `defined` and
/// macros): C's operators on 64-bit integers; an unknown identifier is 0.
struct ConditionEvaluator {
  var tokens: [Token]
  var at: SourceLocation
  private var index = 0

  init(tokens: [Token], at: SourceLocation) {
    self.tokens = tokens
    self.at = at
  }

  private static let levels: [[String]] = [
    ["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", ">", "<=", ">="], ["<<", ">>"], ["+", "-"], ["*", "/", "%"],
  ]

  mutating func evaluate() throws -> Int64 {
    let v = try ternary()
    guard index == tokens.count else { throw MetalError("unexpected \(tokens[index]) in #if", at: tokens[index].location) }
    return v
  }

  private mutating func ternary() throws -> Int64 {
    let c = try binary(0)
    guard index < tokens.count, tokens[index].isPunct("?") else { return c }
    index += 1
    let a = try ternary()
    guard index < tokens.count, tokens[index].isPunct(":") else { throw MetalError("expected ':' in #if", at: at) }
    index += 1
    let b = try ternary()
    return c != 0 ? a : b
  }

  private mutating func binary(_ level: Int) throws -> Int64 {
    guard level < Self.levels.count else { return try unary() }
    var left = try binary(level + 1)
    while index < tokens.count, tokens[index].kind == .punct, Self.levels[level].contains(tokens[index].text) {
      let op = tokens[index].text
      index += 1
      let right = try binary(level + 1)
      if (op == "/" || op == "%") && right == 0 { throw MetalError("division by zero in #if", at: at) }
      if (op == "/" || op == "%") && right == -1 && left == .min { throw MetalError("overflow in #if", at: at) }
      left = Self.apply(op, left, right)
    }
    return left
  }

  private static func apply(_ op: String, _ a: Int64, _ b: Int64) -> Int64 {
    switch op {
    case "||": return (a != 0 || b != 0) ? 1 : 0
    case "&&": return (a != 0 && b != 0) ? 1 : 0
    case "|": return a | b
    case "^": return a ^ b
    case "&": return a & b
    case "==": return a == b ? 1 : 0
    case "!=": return a != b ? 1 : 0
    case "<": return a < b ? 1 : 0
    case ">": return a > b ? 1 : 0
    case "<=": return a <= b ? 1 : 0
    case ">=": return a >= b ? 1 : 0
    case "<<": return a << (b & 63)
    case ">>": return a >> (b & 63)
    case "+": return a &+ b
    case "-": return a &- b
    case "*": return a &* b
    case "/": return a / b
    default: return a % b
    }
  }

  private mutating func unary() throws -> Int64 {
    guard index < tokens.count else { throw MetalError("#if expression ends early", at: at) }
    let t = tokens[index]
    index += 1
    switch t.kind {
    case .integer(let v, _): return Int64(truncatingIfNeeded: v)
    case .identifier: return t.text == "true" ? 1 : 0
    case .punct where t.text == "!": return try unary() == 0 ? 1 : 0
    case .punct where t.text == "-": return 0 &- (try unary())
    case .punct where t.text == "+": return try unary()
    case .punct where t.text == "~": return ~(try unary())
    case .punct where t.text == "(":
      let v = try ternary()
      guard index < tokens.count, tokens[index].isPunct(")") else { throw MetalError("expected ')' in #if", at: t.location) }
      index += 1
      return v
    default: throw MetalError("unexpected \(t) in #if", at: t.location)
    }
  }
}
