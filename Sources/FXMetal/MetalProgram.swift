import FXDSL
import FXIR
import Foundation

/// A parsed and resolved Metal translation unit: its structs, file-scope
/// constants (already evaluated) and functions.
final class MetalProgram {
  let unit: TranslationUnit
  let files: SourceFiles
  private(set) var structs: [String: MetalType] = [:]
  var globals: [String: MetalValue] = [:]
  let functions: [String: [FunctionSyntax]]
  /// ``unit`` with what it takes from the files it is linked with.
  let scope: TranslationUnit
  /// How `half` arithmetic is computed (``HalfPrecision``).
  let half: HalfPrecision

  /// Preprocesses, parses and resolves `text` (the file at `url`, shown as `path`).
  convenience init(text: String, path: String, url: URL?, files: SourceFiles, half: HalfPrecision = .float) throws {
    try self.init(unit: try Self.parse(text, path: path, url: url, files: files), files: files, half: half)
  }

  /// The translation unit of `text` (the file at `url`, shown as `path`), preprocessed and parsed.
  static func parse(_ text: String, path: String, url: URL?, files: SourceFiles) throws -> TranslationUnit {
    var preprocessor = Preprocessor(files: files)
    let tokens = try preprocessor.run(text, path: path, url: url)
    var parser = Parser(tokens: tokens)
    return try parser.parse()
  }

  /// Resolves `unit`, linked with the files of `linked` as Xcode links the
  /// `.metal` files of a target into one library: a function `unit` declares
  /// (or calls) without defining is taken from the first of them that
  /// defines it, with the structs, type aliases and file-scope constants of
  /// theirs that `unit` lacks. `unit`'s own stitchable functions are its own.
  init(unit: TranslationUnit, files: SourceFiles, half: HalfPrecision = .float, linked: [TranslationUnit] = []) throws {
    self.files = files
    self.half = half
    self.unit = unit
    scope = Self.link(unit, linked)
    var table: [String: [FunctionSyntax]] = [:]
    for var f in scope.functions {
      // A prototype is replaced by its definition, which keeps the default
      // arguments the prototype gives (C++ [dcl.fct.default]: a declaration's
      // defaults hold for the calls after it, `float ring(float2, float, float smooth = 0.01);`).
      let same = table[f.name, default: []].indices.filter { table[f.name]![$0].parameters.count == f.parameters.count }
      if f.body.isEmpty, let k = same.first {
        table[f.name]![k].inheritDefaults(from: f)
        continue
      }
      for k in same where table[f.name]![k].body.isEmpty { f.inheritDefaults(from: table[f.name]![k]) }
      table[f.name, default: []].removeAll { $0.body.isEmpty && $0.parameters.count == f.parameters.count }
      table[f.name, default: []].append(f)
    }
    functions = table
    for s in scope.structs {
      let fields = try s.fields.map { field -> (name: String, type: MetalType) in
        var type = try resolve(field.type)
        if let length = field.arrayLength { type = .array(type, try constantInt(length)) }
        return (field.name, type)
      }
      structs[s.name] = .structure(s.name, fields)
    }
    try evaluateGlobals()
  }

  var functionNames: [String] { Array(functions.keys) }

  /// The functions with a parameter taken by reference (`thread float &out`):
  /// the only calls that can assign a variable passed to them.
  private(set) lazy var referenceTakers: Set<String> = Set(
    functions.filter { $0.value.contains { f in f.parameters.contains { $0.type.isReference } } }.keys)

  /// The type a type name means here; `bindings` are the types of the
  /// template parameters of the function template being lowered.
  func resolve(_ syntax: TypeSyntax, bindings: [String: MetalType] = [:]) throws -> MetalType {
    if syntax.isPointer {
      var element = syntax
      element.isPointer = false
      return .buffer(try resolve(element, bindings: bindings))
    }
    let name = syntax.name
    if let bound = bindings[name] { return bound }
    if let alias = scope.aliases[name] { return try resolve(alias) }
    if let s = structs[name] { return s }
    if name == "vec", syntax.arguments.count == 2, let n = Int(syntax.arguments[1]),
      let t = MetalType.builtins[syntax.arguments[0]], case .vector(let k, 1) = t, (1...4).contains(n)
    {
      return .vector(k, n)
    }
    if name == "matrix", syntax.arguments.count == 3, let c = Int(syntax.arguments[1]), let r = Int(syntax.arguments[2]),
      let t = MetalType.builtins[syntax.arguments[0]], case .vector(let k, 1) = t, k.isFloating, (2...4).contains(c),
      (2...4).contains(r)
    {
      return .matrix(k, columns: c, rows: r)
    }
    if name == "texture2d" {
      let element = syntax.arguments.first ?? "float"
      // The element type may be an alias (`using f16 = half;`).
      let resolved = scope.aliases[element].flatMap { try? resolve($0) }
      guard element == "half" || element == "float" || resolved == .vector(.half, 1) || resolved == .vector(.float, 1) else {
        throw MetalError("unsupported: texture2d<\(element)>; fxc reads texture2d<half> and texture2d<float>", at: syntax.location)
      }
      if syntax.arguments.dropFirst().contains(where: { $0.contains("write") }) {
        throw MetalError("unsupported: writable textures", at: syntax.location)
      }
      return .texture
    }
    if name == "Layer" { return .layer }
    if let t = MetalType.builtins[name] { return t }
    if let reason = MetalType.unsupported[name] { throw MetalError("unsupported type: \(reason)", at: syntax.location) }
    let known = Array(MetalType.builtins.keys) + Array(structs.keys) + Array(scope.aliases.keys)
    let hint = suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
    throw MetalError("unknown type name '\(name)'\(hint)", at: syntax.location)
  }

  /// The value of an integer constant expression (an array length).
  func constantInt(_ e: ExprSyntax) throws -> Int {
    let translator = MetalTranslator(program: self, position: [Expr(Float(0)), Expr(Float(0))])
    translator.frames.append(MetalTranslator.Frame(function: Self.fileScope, returnType: .void))
    let message = "unsupported: an array length that is not an integer constant (a literal, macro or file-scope constant)"
    guard let v = try? translator.evaluate(e) else { throw MetalError(message, at: e.location) }
    guard v.type.isNumeric, v.scalars.count == 1, let c = v.scalars[0].constantValue, c == c.rounded(), c >= 0 else {
      throw MetalError("array length must be a non-negative integer constant", at: e.location)
    }
    return Int(c)
  }

  /// The lanes of a constant expression converted to `type` (a parameter's default value).
  /// - Throws: when it is not a constant of a type that converts to `type`.
  func constantLanes(_ e: ExprSyntax, as type: MetalType) throws -> [Float] {
    let translator = MetalTranslator(program: self, position: [Expr(Float(0)), Expr(Float(0))])
    translator.frames.append(MetalTranslator.Frame(function: Self.fileScope, returnType: .void))
    let message = "unsupported: a default argument that is not a constant (a literal, macro or file-scope constant)"
    guard let v = try? translator.convert(try translator.evaluate(e), to: type, at: e.location, explicit: true) else {
      throw MetalError(message, at: e.location)
    }
    let lanes = v.scalars.compactMap(\.constantValue)
    guard lanes.count == v.scalars.count else { throw MetalError(message, at: e.location) }
    return lanes
  }

  static let fileScope = FunctionSyntax(
    name: "<file scope>", returnType: TypeSyntax(name: "void", location: SourceLocation(file: 0, line: 0, column: 0)),
    parameters: [], body: [], isStitchable: false, location: SourceLocation(file: 0, line: 0, column: 0))

  /// Evaluates file-scope `constant`/`constexpr` declarations in order; later ones may use earlier ones.
  private func evaluateGlobals() throws {
    let translator = MetalTranslator(program: self, position: [Expr(Float(0)), Expr(Float(0))])
    translator.frames.append(MetalTranslator.Frame(function: Self.fileScope, returnType: .void))
    for g in scope.globals {
      guard case .declaration(let type, let declarators) = g.kind else { continue }
      let writable =
        !type.qualifiers.contains("constant") && !type.qualifiers.contains("const")
        && !type.qualifiers.contains("constexpr")
      if writable, try resolve(type) != .sampler {
        throw MetalError(
          "unsupported: a file-scope variable must be 'constant', 'const' or 'constexpr'", at: g.location)
      }
      try translator.execute(g)
      for d in declarators { globals[d.name] = translator.lookup(d.name) }
    }
  }
}

extension FunctionSyntax {
  /// Takes the default argument of each parameter that has none from
  /// `declaration`, another declaration of the same function.
  mutating func inheritDefaults(from declaration: FunctionSyntax) {
    for k in parameters.indices where parameters[k].defaultValue == nil && k < declaration.parameters.count {
      parameters[k].defaultValue = declaration.parameters[k].defaultValue
    }
  }
}

extension MetalProgram {
  /// `unit` with the definitions it lacks from `others`, first one first
  /// (see ``init(unit:files:half:linked:)``).
  static func link(_ unit: TranslationUnit, _ others: [TranslationUnit]) -> TranslationUnit {
    var scope = unit
    var defined = Set(unit.functions.filter { !$0.body.isEmpty }.map(\.name))
    var structs = Set(unit.structs.map(\.name))
    var globals = Set(unit.globals.flatMap(Self.declaredNames))
    for other in others {
      for f in other.functions where !f.body.isEmpty && !f.isStitchable && !defined.contains(f.name) {
        scope.functions.append(f)
      }
      defined.formUnion(other.functions.filter { !$0.body.isEmpty && !$0.isStitchable }.map(\.name))
      for s in other.structs where structs.insert(s.name).inserted { scope.structs.append(s) }
      for (name, type) in other.aliases where scope.aliases[name] == nil { scope.aliases[name] = type }
      for g in other.globals {
        let names = Self.declaredNames(g)
        guard !names.isEmpty, names.allSatisfy({ !globals.contains($0) }) else { continue }
        globals.formUnion(names)
        scope.globals.append(g)
      }
    }
    return scope
  }

  /// The variables a file-scope declaration declares.
  static func declaredNames(_ s: StmtSyntax) -> [String] {
    if case .declaration(_, let ds) = s.kind { return ds.map(\.name) }
    return []
  }
}
