// Expressions, by C's precedence: comma < assignment < ?: < || < && < | < ^
// < & < equality < relational < shift < additive < multiplicative < unary < postfix.

extension Parser {
  private static let binaryLevels: [[String]] = [
    ["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", ">", "<=", ">="], ["<<", ">>"], ["+", "-"], ["*", "/", "%"],
  ]
  private static let assignments: Set<String> = ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]

  mutating func expression() throws -> ExprSyntax {
    var e = try assignment()
    while current.isPunct(",") {
      let at = advance().location
      e = ExprSyntax(kind: .comma(e, try assignment()), location: at)
    }
    return e
  }

  mutating func assignment() throws -> ExprSyntax {
    let left = try conditional()
    if current.kind == .punct, Self.assignments.contains(current.text) {
      let op = advance()
      let right = current.isPunct("{") ? try initializerList() : try assignment()
      return ExprSyntax(kind: .assign(op.text, left, right), location: op.location)
    }
    return left
  }

  private mutating func conditional() throws -> ExprSyntax {
    let c = try binary(0)
    guard current.isPunct("?") else { return c }
    let at = advance().location
    let a = try expression()
    try expect(":", "in the conditional expression")
    let b = try assignment()
    return ExprSyntax(kind: .conditional(c, a, b), location: at)
  }

  private mutating func binary(_ level: Int) throws -> ExprSyntax {
    guard level < Self.binaryLevels.count else { return try unary() }
    var left = try binary(level + 1)
    while current.kind == .punct, Self.binaryLevels[level].contains(current.text) {
      let op = advance()
      let right = try binary(level + 1)
      left = ExprSyntax(kind: .binary(op.text, left, right), location: op.location)
    }
    return left
  }

  private mutating func unary() throws -> ExprSyntax {
    let t = current
    if t.kind == .punct, ["-", "+", "!", "~", "++", "--"].contains(t.text) {
      advance()
      return ExprSyntax(kind: .unary(t.text, try unary()), location: t.location)
    }
    if t.isPunct("("), peek().kind == .identifier, isTypeName(peek().text), isCast() {
      advance()
      let type = try typeSyntax()
      try expect(")", "closing the cast")
      return ExprSyntax(kind: .cast(type, try unary()), location: t.location)
    }
    if t.isPunct("*") || t.isPunct("&") {
      throw MetalError("unsupported: pointer operator '\(t.text)'", at: t.location)
    }
    return try postfix(try primary())
  }

  /// After `(` and a type name: whether the parenthesis closes right after the type (a C cast).
  private func isCast() -> Bool {
    var k = 2
    while peek(k).isPunct("::") || peek(k).kind == .identifier && peek(k - 1).isPunct("::") { k += 1 }
    return peek(k).isPunct(")") || peek(k).isPunct("*")
  }

  private mutating func postfix(_ base: ExprSyntax) throws -> ExprSyntax {
    var e = base
    while true {
      let t = current
      if case .typeName = e.kind, t.isPunct("{") {  // `Ring{c, r}`: a braced initializer of a type
        e = ExprSyntax(kind: .call(e, [try initializerList()]), location: e.location)
        continue
      }
      if accept("(") {
        var arguments: [ExprSyntax] = []
        if !current.isPunct(")") {
          repeat { arguments.append(current.isPunct("{") ? try initializerList() : try assignment()) } while accept(",")
        }
        try expect(")", "closing the call")
        e = ExprSyntax(kind: .call(e, arguments), location: e.location)
      } else if t.isPunct("{"), case .typeName = e.kind {  // `float2{a, b}`, `Pair{a, b}`: brace initialisation
        e = ExprSyntax(kind: .call(e, [try initializerList()]), location: e.location)
      } else if accept(".") {
        let name = try identifier("a member name")
        e = ExprSyntax(kind: .member(e, name.text), location: name.location)
      } else if t.isPunct("->") {
        throw MetalError("unsupported: '->' (pointers to structs)", at: t.location)
      } else if accept("[") {
        let i = try expression()
        try expect("]", "closing the subscript")
        e = ExprSyntax(kind: .index(e, i), location: t.location)
      } else if t.isPunct("++") || t.isPunct("--") {
        advance()
        e = ExprSyntax(kind: .postfix(t.text, e), location: t.location)
      } else {
        return e
      }
    }
  }

  private mutating func primary() throws -> ExprSyntax {
    let t = current
    switch t.kind {
    case .integer(let v, let unsigned):
      advance()
      return ExprSyntax(kind: .integer(v, unsigned: unsigned), location: t.location)
    case .floating(let v, let half):
      advance()
      return ExprSyntax(kind: .floating(v, half: half), location: t.location)
    case .identifier:
      if t.text == "true" || t.text == "false" {
        advance()
        return ExprSyntax(kind: .boolean(t.text == "true"), location: t.location)
      }
      if ["static_cast", "reinterpret_cast", "const_cast"].contains(t.text) { return try cppCast() }
      if t.text == "sizeof" { return try sizeOf() }
      if t.text == "as_type" { return try asType() }
      if templateFunctions.contains(t.text), peek().isPunct("<") { return try templateName() }
      let enumerator = peek().isPunct("::") && enumeratorNames.contains("\(t.text)::\(peek(2).text)")  // Mode::Invert
      if !enumerator, isTypeName(t.text) || (MetalType.templateNames.contains(t.text) && peek().isPunct("<")) {
        let type = try typeSyntax()
        return ExprSyntax(kind: .typeName(type), location: t.location)
      }
      let name = try qualifiedName()
      return ExprSyntax(kind: .name(name), location: t.location)
    case .punct where t.text == "(":
      advance()
      let e = try expression()
      try expect(")", "closing the parenthesis")
      return e
    case .punct where t.text == "{":
      return try initializerList()
    default:
      throw MetalError("expected an expression, found \(t)", at: t.location)
    }
  }

  /// `sizeof(T)`, `sizeof(e)`, `sizeof e`.
  private mutating func sizeOf() throws -> ExprSyntax {
    let at = advance().location
    if current.isPunct("("), peek().kind == .identifier, isTypeName(peek().text), isCast() {
      advance()
      let type = try typeSyntax()
      try expect(")", "closing sizeof")
      return ExprSyntax(kind: .sizeOf(type, nil), location: at)
    }
    return ExprSyntax(kind: .sizeOf(nil, try unary()), location: at)
  }

  /// `f<float, 3>`: a function template with explicit arguments, each a type
  /// or a value (an expression without comparisons, as C++ reads them before `>`).
  private mutating func templateName() throws -> ExprSyntax {
    let t = advance()
    try expect("<")
    var arguments: [TemplateArgument] = []
    if !current.isPunct(">") {
      repeat {
        if current.kind == .identifier, isTypeName(current.text) {
          arguments.append(.type(try typeSyntax()))
        } else {
          arguments.append(.value(try binary(Self.binaryLevels.firstIndex(of: ["<<", ">>"])!)))
        }
      } while accept(",")
    }
    try expect(">", "closing the template arguments")
    return ExprSyntax(kind: .templateName(t.text, arguments), location: t.location)
  }

  /// `as_type<T>(e)`.
  private mutating func asType() throws -> ExprSyntax {
    let t = advance()
    let (type, value) = try angleCast("as_type", at: t)
    return ExprSyntax(kind: .bitCast(type, value), location: t.location)
  }

  private mutating func cppCast() throws -> ExprSyntax {
    let t = advance()
    guard t.text == "static_cast" else { throw MetalError("unsupported: \(t.text)", at: t.location) }
    let (type, value) = try angleCast("static_cast", at: t)
    return ExprSyntax(kind: .cast(type, value), location: t.location)
  }

  /// The `<T>(e)` after a cast's name `t`: the type (at the name's location) and the operand.
  private mutating func angleCast(_ name: String, at t: Token) throws -> (TypeSyntax, ExprSyntax) {
    try expect("<", "after \(name)")
    var type = try typeSyntax()
    type.location = t.location
    try expect(">", "closing \(name)'s type")
    try expect("(", "after \(name)<…>")
    let value = try expression()
    try expect(")", "closing \(name)")
    return (type, value)
  }
}
