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
  /// How `half` arithmetic is computed (``HalfPrecision``).
  let half: HalfPrecision

  /// Preprocesses, parses and resolves `text` (the file at `url`, shown as `path`).
  init(text: String, path: String, url: URL?, files: SourceFiles, half: HalfPrecision = .float) throws {
    self.files = files
    self.half = half
    var preprocessor = Preprocessor(files: files)
    let tokens = try preprocessor.run(text, path: path, url: url)
    var parser = Parser(tokens: tokens)
    unit = try parser.parse()
    var table: [String: [FunctionSyntax]] = [:]
    for f in unit.functions {
      // A prototype is replaced by its definition.
      if f.body.isEmpty, table[f.name]?.contains(where: { $0.parameters.count == f.parameters.count }) == true { continue }
      table[f.name, default: []].removeAll { $0.body.isEmpty && $0.parameters.count == f.parameters.count }
      table[f.name, default: []].append(f)
    }
    functions = table
    for s in unit.structs {
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
    if let alias = unit.aliases[name] { return try resolve(alias) }
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
      guard element == "half" || element == "float" else {
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
    let known = Array(MetalType.builtins.keys) + Array(structs.keys) + Array(unit.aliases.keys)
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
    for g in unit.globals {
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
