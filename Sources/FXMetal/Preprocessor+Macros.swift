// Macro expansion and the arithmetic of `#if` lines.

extension Preprocessor {
  /// `tokens` with every macro expanded, rescanned, never expanding a macro inside its own expansion.
  func expand(_ tokens: [Token], hidden: Set<String> = []) throws -> [Token] {
    var out: [Token] = []
    var i = 0
    while i < tokens.count {
      let t = tokens[i]
      guard t.kind == .identifier, !hidden.contains(t.text), let macro = macros[t.text] else {
        out.append(t)
        i += 1
        continue
      }
      guard let parameters = macro.parameters else {
        out += try expand(relocated(macro.body, to: t), hidden: hidden.union([t.text]))
        i += 1
        continue
      }
      guard i + 1 < tokens.count, tokens[i + 1].isPunct("(") else {
        out.append(t)  // a function-like macro's name without arguments is left alone
        i += 1
        continue
      }
      let (arguments, next) = try collectArguments(tokens, from: i + 1, name: t)
      let count = arguments.count == 1 && arguments[0].isEmpty && parameters.isEmpty ? 0 : arguments.count
      guard count == parameters.count else {
        throw MetalError("macro '\(t.text)' takes \(parameters.count) arguments, got \(count)", at: t.location)
      }
      let expandedArguments = try arguments.map { try expand($0, hidden: hidden) }
      var body: [Token] = []
      for b in relocated(macro.body, to: t) {
        if b.kind == .identifier, let k = parameters.firstIndex(of: b.text) {
          body += expandedArguments[k]
        } else {
          body.append(b)
        }
      }
      out += try expand(body, hidden: hidden.union([t.text]))
      i = next
    }
    return out
  }

  /// The macro's tokens placed at the use, so diagnostics point where the macro was used.
  private func relocated(_ body: [Token], to use: Token) -> [Token] {
    body.map {
      var t = $0
      t.location = use.location
      t.startsLine = false
      return t
    }
  }

  /// The comma-separated arguments of a macro call starting at `(`, and the index after `)`.
  private func collectArguments(_ tokens: [Token], from open: Int, name: Token) throws -> ([[Token]], Int) {
    var arguments: [[Token]] = [[]]
    var depth = 0
    var i = open + 1
    while i < tokens.count {
      let t = tokens[i]
      if t.isPunct("(") || t.isPunct("[") || t.isPunct("{") { depth += 1 }
      if t.isPunct(")") || t.isPunct("]") || t.isPunct("}") {
        if depth == 0 { return (arguments, i + 1) }
        depth -= 1
      }
      if t.isPunct(","), depth == 0 {
        arguments.append([])
      } else {
        arguments[arguments.count - 1].append(t)
      }
      i += 1
    }
    throw MetalError("unterminated call of macro '\(name.text)'", at: name.location)
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
    case "/": return b == 0 ? 0 : a / b
    default: return b == 0 ? 0 : a % b
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
