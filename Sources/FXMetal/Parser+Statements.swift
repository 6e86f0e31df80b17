// Statements, and telling a declaration from an expression.

extension Parser {
  /// Whether `name` names a type here: a built-in, a struct or an alias seen so far.
  func isTypeName(_ name: String) -> Bool {
    let bare = name.hasPrefix("metal::") ? String(name.dropFirst("metal::".count)) : name
    return MetalType.isBuiltinName(bare) || unit.structs.contains { $0.name == bare } || unit.aliases[bare] != nil
      || templateTypes.contains(bare)
  }

  /// Whether the tokens at the cursor start a declaration (`float2 p = …`, `const int n = …`).
  func startsDeclaration() -> Bool {
    guard current.kind == .identifier else { return false }
    if Self.qualifiers.contains(current.text) || current.text == "unsigned" || current.text == "struct" { return true }
    var k = 0
    var name = current.text
    while peek(k + 1).isPunct("::"), peek(k + 2).kind == .identifier {
      name += "::" + peek(k + 2).text
      k += 2
    }
    // Two names in a row start a declaration, of a type that may be unknown (reported when it is resolved).
    if peek(k + 1).kind == .identifier, !Self.qualifiers.contains(peek(k + 1).text) { return true }
    guard isTypeName(name) || (MetalType.templateNames.contains(name) && peek(k + 1).isPunct("<")) else { return false }
    var next = peek(k + 1)
    if next.isPunct("<") {  // texture2d<half> t, vec<float, 2> v
      var depth = 0
      var j = k + 1
      repeat {
        if peek(j).isPunct("<") { depth += 1 }
        if peek(j).isPunct(">") { depth -= 1 }
        j += 1
      } while depth > 0 && peek(j).kind != .end
      next = peek(j)
    }
    return next.kind == .identifier || next.isPunct("*") || next.isPunct("&")
  }

  mutating func statement() throws -> StmtSyntax {
    skipAttributes()  // [[maybe_unused]], [[unroll]]: hints that change no value
    let start = current.location
    if accept(";") { return StmtSyntax(kind: .empty, location: start) }
    if current.isPunct("{") { return try block() }
    if current.kind == .identifier {
      switch current.text {
      case "if": return try ifStatement()
      case "for": return try forStatement()
      case "while":
        advance()
        try expect("(", "after 'while'")
        let condition = try expression()
        try expect(")", "closing the condition")
        return StmtSyntax(kind: .whileLoop(condition, try statement()), location: start)
      case "do":
        advance()
        let body = try statement()
        guard current.isIdentifier("while") else { throw MetalError("expected 'while' after the do body", at: current.location) }
        advance()
        try expect("(", "after 'while'")
        let condition = try expression()
        try expect(")", "closing the condition")
        try expect(";", "after do-while")
        return StmtSyntax(kind: .doWhile(body, condition), location: start)
      case "break":
        advance()
        try expect(";", "after 'break'")
        return StmtSyntax(kind: .breakStatement, location: start)
      case "continue":
        advance()
        try expect(";", "after 'continue'")
        return StmtSyntax(kind: .continueStatement, location: start)
      case "return":
        advance()
        if accept(";") { return StmtSyntax(kind: .returnStatement(nil), location: start) }
        let value = try expression()
        try expect(";", "after the return value")
        return StmtSyntax(kind: .returnStatement(value), location: start)
      case "switch": return try switchStatement()
      case "case", "default": throw MetalError("'\(current.text)' outside a switch", at: start)
      case "goto":
        throw MetalError("unsupported: '\(current.text)' statements", at: start)
      default: break
      }
    }
    if startsDeclaration() {
      let s = try declaration()
      try expect(";", "after the declaration")
      return s
    }
    let e = try expression()
    try expect(";", "after the expression")
    return StmtSyntax(kind: .expression(e), location: start)
  }

  mutating func declaration() throws -> StmtSyntax {
    let start = current.location
    let type = try typeSyntax()
    return StmtSyntax(kind: .declaration(type, try declarators()), location: start)
  }

  private mutating func block() throws -> StmtSyntax {
    let start = try expect("{").location
    var body: [StmtSyntax] = []
    while !accept("}") {
      guard current.kind != .end else { throw MetalError("expected '}' closing the block", at: current.location) }
      body.append(try statement())
    }
    return StmtSyntax(kind: .block(body), location: start)
  }

  private mutating func ifStatement() throws -> StmtSyntax {
    let start = advance().location
    try expect("(", "after 'if'")
    let condition = try expression()
    try expect(")", "closing the condition")
    let then = try statement()
    var otherwise: StmtSyntax?
    if current.isIdentifier("else") {
      advance()
      otherwise = try statement()
    }
    return StmtSyntax(kind: .ifElse(condition, then, otherwise), location: start)
  }

  /// `switch (e) { case V: … default: … }`; statements before the first label are refused.
  private mutating func switchStatement() throws -> StmtSyntax {
    let start = advance().location
    try expect("(", "after 'switch'")
    let subject = try expression()
    try expect(")", "closing the switch condition")
    try expect("{", "opening the switch body")
    var sections: [SwitchSection] = []
    while !accept("}") {
      guard current.kind != .end else { throw MetalError("expected '}' closing the switch", at: current.location) }
      if current.isIdentifier("case") || current.isIdentifier("default") {
        let at = current.location
        var labels: [ExprSyntax?] = []
        while current.isIdentifier("case") || current.isIdentifier("default") {
          if advance().text == "case" { labels.append(try expression()) } else { labels.append(nil) }
          try expect(":", "after the case label")
        }
        sections.append(SwitchSection(labels: labels, body: [], location: at))
        continue
      }
      guard !sections.isEmpty else {
        throw MetalError("a statement in a switch must follow a 'case' or 'default' label", at: current.location)
      }
      sections[sections.count - 1].body.append(try statement())
    }
    return StmtSyntax(kind: .switchStatement(subject, sections), location: start)
  }

  private mutating func forStatement() throws -> StmtSyntax {
    let start = advance().location
    try expect("(", "after 'for'")
    var initial: StmtSyntax?
    if !current.isPunct(";") {
      let at = current.location
      initial = startsDeclaration() ? try declaration() : StmtSyntax(kind: .expression(try expression()), location: at)
    }
    try expect(";", "after the loop's initialisation")
    let condition = current.isPunct(";") ? nil : try expression()
    try expect(";", "after the loop's condition")
    let step = current.isPunct(")") ? nil : try expression()
    try expect(")", "closing the loop header")
    return StmtSyntax(kind: .forLoop(initial, condition, step, try statement()), location: start)
  }
}
