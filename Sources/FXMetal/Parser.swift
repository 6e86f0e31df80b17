/// A recursive-descent parser for the Metal subset stitchable shaders use,
/// from preprocessed tokens to a ``TranslationUnit``.
struct Parser {
  var tokens: [Token]
  var index = 0
  var unit = TranslationUnit()
  /// The type parameters of the function template being parsed (`T` in `template <typename T>`).
  var templateTypes: [String] = []
  /// The enumerators declared so far, as `Enum::name` (``enumDeclaration()``).
  var enumeratorNames: Set<String> = []
  /// The function templates parsed so far: `name<` after one starts explicit template arguments.
  var templateFunctions: Set<String> = []

  init(tokens: [Token]) { self.tokens = tokens }

  static let qualifiers: Set<String> = [
    "const", "constexpr", "constant", "device", "thread", "threadgroup", "static", "inline", "volatile",
    "__attribute__", "extern", "fragment", "vertex", "kernel",
  ]

  var current: Token { tokens[index] }
  func peek(_ k: Int = 1) -> Token { tokens[min(index + k, tokens.count - 1)] }

  @discardableResult
  mutating func advance() -> Token {
    let t = tokens[index]
    if index < tokens.count - 1 { index += 1 }
    return t
  }

  mutating func accept(_ p: String) -> Bool {
    guard current.isPunct(p) else { return false }
    advance()
    return true
  }

  @discardableResult
  mutating func expect(_ p: String, _ what: String? = nil) throws -> Token {
    guard current.isPunct(p) else {
      throw MetalError("expected '\(p)'\(what.map { " " + $0 } ?? ""), found \(current)", at: current.location)
    }
    return advance()
  }

  mutating func identifier(_ what: String) throws -> Token {
    guard current.kind == .identifier else {
      throw MetalError("expected \(what), found \(current)", at: current.location)
    }
    return advance()
  }

  /// Parses the whole unit.
  mutating func parse() throws -> TranslationUnit {
    while current.kind != .end { try topLevel() }
    return unit
  }

  private mutating func topLevel() throws {
    if accept(";") { return }
    if current.isIdentifier("using") { return try usingDeclaration() }
    if current.isIdentifier("namespace") {
      advance()
      if current.kind == .identifier { advance() }
      try expect("{", "after namespace")
      while !current.isPunct("}") {
        guard current.kind != .end else { throw MetalError("expected '}' closing the namespace", at: current.location) }
        try topLevel()
      }
      advance()
      return
    }
    if current.isIdentifier("typedef") {
      advance()
      // `typedef struct [Tag] { … } Name;` and `typedef enum [Tag] { … } Name;`, C's way of naming them.
      let braced = peek().isPunct("{") || (peek().kind == .identifier && peek(2).isPunct("{"))
      if braced, current.isIdentifier("struct") || current.isIdentifier("enum") {
        let isStruct = current.isIdentifier("struct")
        let start = advance().location
        let tag = current.kind == .identifier ? advance() : nil
        let body: [StructSyntax.Field]? = isStruct ? try structFields() : nil
        let underlying = isStruct ? nil : try enumerators(scope: nil)
        let name = try identifier("a type name")
        try expect(";", "after the typedef")
        if let body { unit.structs.append(StructSyntax(name: name.text, fields: body, location: start)) }
        if let underlying { unit.aliases[name.text] = underlying }
        if let tag, tag.text != name.text { unit.aliases[tag.text] = TypeSyntax(name: name.text, location: tag.location) }
        return
      }
      let type = try typeSyntax()
      let name = try identifier("a type name")
      try expect(";")
      unit.aliases[name.text] = type
      return
    }
    if current.isIdentifier("struct") { return try structDeclaration() }
    if current.isIdentifier("enum") { return try enumDeclaration() }
    if current.isIdentifier("template") { return try functionTemplate() }
    var stitchable = false
    while current.isPunct("[[") {
      advance()
      while !current.isPunct("]]") {
        guard current.kind != .end else { throw MetalError("expected ']]'", at: current.location) }
        if current.isIdentifier("stitchable") { stitchable = true }
        advance()
      }
      advance()
    }
    let start = current.location
    let type = try typeSyntax()
    if current.isPunct("[[") {  // `half4 [[ stitchable ]] f(…)` is not valid; attributes come first
      throw MetalError("attributes must precede the declaration", at: current.location)
    }
    let name = try identifier("a name")
    // `constexpr sampler s(filter::linear, …)` declares a sampler; anything else with `(` is a function.
    if current.isPunct("("), type.name != "sampler" {
      unit.functions.append(try function(type, name, stitchable: stitchable))
      return
    }
    let declarators = try declarators(first: name)
    try expect(";", "after the declaration")
    unit.globals.append(StmtSyntax(kind: .declaration(type, declarators), location: start))
  }

  /// `template <typename T, class U> T f(T x, U y) { … }`: a function whose
  /// type parameters are deduced from each call's arguments (or given,
  /// `f<float>(…)`); `template <int N>`: a value parameter, given at each call.
  private mutating func functionTemplate() throws {
    advance()
    try expect("<", "after template")
    var names: [String] = []
    var values: [(name: String, type: TypeSyntax)] = []
    var order: [String] = []
    repeat {
      let start = current.location
      if current.isIdentifier("typename") || current.isIdentifier("class") {
        advance()
        names.append(try identifier("a template parameter name").text)
        order.append(names[names.count - 1])
      } else if current.kind == .identifier, ["int", "uint", "bool"].contains(current.text) {
        let type = try typeSyntax()
        values.append((try identifier("a template parameter name").text, type))
        order.append(values[values.count - 1].name)
        if accept("=") { throw MetalError("unsupported: a default template argument", at: start) }
      } else {
        var text = ""
        while !current.isPunct(",") && !current.isPunct(">") && current.kind != .end { text += (text.isEmpty ? "" : " ") + advance().text }
        throw MetalError(
          "unsupported: template parameter '\(text)'; fxc reads 'typename T' and integer ('int N') parameters", at: start)
      }
    } while accept(",")
    try expect(">", "closing the template parameters")
    templateTypes = names
    defer { templateTypes = [] }
    let count = unit.functions.count
    try topLevel()
    guard unit.functions.count == count + 1 else { throw MetalError("unsupported: templates other than functions", at: current.location) }
    unit.functions[count].templateParameters = names
    unit.functions[count].templateValues = values
    unit.functions[count].templateOrder = order
    templateFunctions.insert(unit.functions[count].name)
  }

  private mutating func usingDeclaration() throws {
    advance()
    if current.isIdentifier("namespace") {
      advance()
      _ = try qualifiedName()
      try expect(";")
      return
    }
    let name = try identifier("a name")
    try expect("=", "in a using declaration")
    unit.aliases[name.text] = try typeSyntax()
    try expect(";")
  }

  private mutating func structDeclaration() throws {
    let start = advance().location
    let name = try identifier("a struct name")
    let fields = try structFields()
    try expect(";", "after the struct")
    unit.structs.append(StructSyntax(name: name.text, fields: fields, location: start))
  }

  /// `enum [class] [Name] [: type] { A, B = 4, C };`: the type is its
  /// underlying integer type (`int` unless given), each enumerator a
  /// file-scope constant of it — `Name::A` for a scoped `enum class`, `A`
  /// (and `Name::A`) otherwise — worth the previous one plus 1 unless given.
  private mutating func enumDeclaration() throws {
    let start = advance().location
    let scoped = current.isIdentifier("class") || current.isIdentifier("struct")
    if scoped { advance() }
    let name = current.kind == .identifier ? advance() : nil
    if scoped, name == nil { throw MetalError("expected a name for the scoped enum", at: current.location) }
    let underlying = try enumerators(scope: name.map { ($0.text, scoped) })
    if let name { unit.aliases[name.text] = underlying }
    if accept(";") { return }
    throw MetalError("unsupported: a variable declared with its enum's definition", at: start)
  }

  /// An enum's `[: type] { … }`: declares each enumerator as a file-scope
  /// constant (``enumDeclaration()``) and returns the underlying type.
  private mutating func enumerators(scope: (name: String, scoped: Bool)?) throws -> TypeSyntax {
    var underlying = TypeSyntax(name: "int", location: current.location)
    if accept(":") { underlying = try typeSyntax() }
    underlying.qualifiers = []
    try expect("{", "opening the enum")
    var previous: String?
    while !accept("}") {
      let token = try identifier("an enumerator")
      let value: ExprSyntax
      if accept("=") {
        value = try assignment()
      } else if let previous {
        let one = ExprSyntax(kind: .integer(1, unsigned: false), location: token.location)
        value = ExprSyntax(kind: .binary("+", ExprSyntax(kind: .name(previous), location: token.location), one), location: token.location)
      } else {
        value = ExprSyntax(kind: .integer(0, unsigned: false), location: token.location)
      }
      var type = underlying
      type.qualifiers = ["constant"]
      var names = scope.map { ["\($0.name)::\(token.text)"] } ?? []
      enumeratorNames.formUnion(names)
      if scope?.scoped != true { names.append(token.text) }
      for n in names {
        let d = Declarator(name: n, initializer: value, location: token.location)
        unit.globals.append(StmtSyntax(kind: .declaration(type, [d]), location: token.location))
      }
      previous = names[0]
      if !accept(",") {
        try expect("}", "closing the enum")
        break
      }
    }
    return underlying
  }

  /// A struct's `{ fields }`, after its name.
  private mutating func structFields() throws -> [StructSyntax.Field] {
    try expect("{", "opening the struct")
    var fields: [StructSyntax.Field] = []
    while !accept("}") {
      guard current.kind != .end else { throw MetalError("expected '}' closing the struct", at: current.location) }
      let type = try typeSyntax()
      repeat {
        let field = try identifier("a field name")
        var length: ExprSyntax?
        if accept("[") {
          length = try expression()
          try expect("]")
        }
        skipAttributes()  // [[ position ]], [[ user(…) ]]
        if current.isPunct("(") {
          throw MetalError("unsupported: member functions of structs", at: current.location)
        }
        skipAttributes()  // [[position]], [[user(name)]], [[flat]]: stage-interface attributes, meaningless here
        fields.append((type, field.text, length))
      } while accept(",")
      try expect(";", "after the field")
    }
    return fields
  }

  private mutating func function(_ type: TypeSyntax, _ name: Token, stitchable: Bool) throws -> FunctionSyntax {
    try expect("(")
    var parameters: [ParameterSyntax] = []
    if current.isIdentifier("void"), peek().isPunct(")") { advance() }
    if !current.isPunct(")") {
      repeat {
        let start = current.location
        let ptype = try typeSyntax()
        let pname = try identifier("a parameter name")
        var length: ExprSyntax?
        if accept("[") {
          length = try expression()
          try expect("]")
        }
        skipAttributes()  // [[ texture(0) ]], [[ buffer(0) ]]…: binding attributes, ignored
        let defaultValue = accept("=") ? try assignment() : nil
        parameters.append(
          ParameterSyntax(type: ptype, name: pname.text, arrayLength: length, defaultValue: defaultValue, location: start))
      } while accept(",")
    }
    try expect(")", "closing the parameter list")
    skipAttributes()
    if type.qualifiers.contains("vertex") || type.qualifiers.contains("fragment") || type.qualifiers.contains("kernel") {
      // A render or compute function in the same file: not an effect, its body is skipped unread.
      try skipBody()
      return FunctionSyntax(
        name: name.text, returnType: type, parameters: [], body: [], isStitchable: false, location: name.location)
    }
    if accept(";") {  // a prototype; the definition comes later
      return FunctionSyntax(
        name: name.text, returnType: type, parameters: parameters, body: [], isStitchable: false, location: name.location)
    }
    let open = try expect("{", "opening the function body")
    let bodyStart = index
    var body: [StmtSyntax] = []
    var bodyError: MetalError?
    do {
      while !accept("}") {
        guard current.kind != .end else { throw MetalError("expected '}' closing '\(name.text)'", at: current.location) }
        body.append(try statement())
      }
    } catch let e as MetalError {
      // An unsupported construct in one body fails that function, not the file, when the braces still match.
      guard skipBody(from: bodyStart) else { throw e }
      (body, bodyError) = ([StmtSyntax(kind: .empty, location: open.location)], e)
    }
    var f = FunctionSyntax(
      name: name.text, returnType: type, parameters: parameters, body: body, isStitchable: stitchable,
      location: name.location)
    f.bodyError = bodyError
    return f
  }

  /// Moves past the `}` matching the `{` before token `start`; false at the end of the tokens.
  private mutating func skipBody(from start: Int) -> Bool {
    index = start
    var depth = 1
    while current.kind != .end {
      if current.isPunct("{") { depth += 1 }
      if current.isPunct("}") { depth -= 1 }
      advance()
      if depth == 0 { return true }
    }
    return false
  }

  /// Skips `[[ … ]]` attributes at the cursor.
  mutating func skipAttributes() {
    while current.isPunct("[[") {
      while !current.isPunct("]]") && current.kind != .end { advance() }
      advance()
    }
  }

  /// Skips a braced body without parsing it.
  private mutating func skipBody() throws {
    let open = try expect("{", "opening the function body")
    var depth = 1
    while depth > 0 {
      guard current.kind != .end else { throw MetalError("expected '}' closing the function", at: open.location) }
      if current.isPunct("{") { depth += 1 }
      if current.isPunct("}") { depth -= 1 }
      advance()
    }
  }

  /// `a::b::c` as one string.
  mutating func qualifiedName() throws -> String {
    var name = try identifier("a name").text
    while current.isPunct("::") {
      advance()
      name += "::" + (try identifier("a name after '::'")).text
    }
    return name
  }

  /// A type: qualifiers, a (qualified) name, template arguments, `*` or `&`.
  mutating func typeSyntax() throws -> TypeSyntax {
    let start = current.location
    var qualifiers: Set<String> = []
    while current.kind == .identifier, Self.qualifiers.contains(current.text) { qualifiers.insert(advance().text) }
    if current.isIdentifier("unsigned") {
      advance()
      if current.isIdentifier("int") { advance() }
      return try finishType(TypeSyntax(name: "uint", qualifiers: qualifiers, location: start))
    }
    if current.isIdentifier("struct") { advance() }
    var name = try qualifiedName()
    if name.hasPrefix("metal::") { name.removeFirst("metal::".count) }
    var type = TypeSyntax(name: name, qualifiers: qualifiers, location: start)
    if current.isPunct("<") {
      advance()
      var argument = ""
      var depth = 0
      while !(depth == 0 && current.isPunct(">")) {
        guard current.kind != .end else { throw MetalError("expected '>'", at: current.location) }
        if current.isPunct(","), depth == 0 {
          type.arguments.append(argument)
          argument = ""
        } else {
          if current.isPunct("<") { depth += 1 }
          if current.isPunct(">") { depth -= 1 }
          argument += current.text
        }
        advance()
      }
      advance()
      type.arguments.append(argument)
    }
    return try finishType(type)
  }

  private mutating func finishType(_ type: TypeSyntax) throws -> TypeSyntax {
    var type = type
    while true {
      if current.kind == .identifier, Self.qualifiers.contains(current.text) {
        type.qualifiers.insert(advance().text)
      } else if accept("*") {
        type.isPointer = true
      } else if accept("&") {
        type.isReference = true
      } else {
        return type
      }
    }
  }

  /// The declarators after a declaration's type: `a = 1, b[2] = {…}, s(filter::linear)`.
  mutating func declarators(first: Token? = nil) throws -> [Declarator] {
    var result: [Declarator] = []
    var name = first
    repeat {
      let token = try name ?? identifier("a variable name")
      name = nil
      var d = Declarator(name: token.text, location: token.location)
      if accept("[") {
        d.isArray = true
        if !current.isPunct("]") { d.arrayLength = try expression() }
        try expect("]")
      }
      skipAttributes()
      if accept("=") {
        d.initializer = current.isPunct("{") ? try initializerList() : try assignment()
      } else if current.isPunct("{") {
        d.initializer = try initializerList()
      } else if current.isPunct("(") {
        advance()
        var arguments: [ExprSyntax] = []
        if !current.isPunct(")") {
          repeat { arguments.append(try assignment()) } while accept(",")
        }
        try expect(")")
        d.constructorArguments = arguments
      }
      result.append(d)
    } while accept(",")
    return result
  }

  mutating func initializerList() throws -> ExprSyntax {
    let start = try expect("{").location
    var elements: [ExprSyntax] = []
    while !current.isPunct("}") {
      elements.append(current.isPunct("{") ? try initializerList() : try assignment())
      if !accept(",") { break }
    }
    try expect("}", "closing the initializer list")
    return ExprSyntax(kind: .initializerList(elements), location: start)
  }
}
