import FXDSL
import FXIR

// Calls: constructors and casts, helper functions (inlined), built-ins,
// and the methods of layers and textures.

extension MetalTranslator {
  func call(_ callee: ExprSyntax, _ arguments: [ExprSyntax], at location: SourceLocation) throws -> MetalValue {
    switch callee.kind {
    case .typeName(let t):
      let type = try resolve(t)
      if type == .sampler { return try samplerValue(arguments, at: location) }
      if arguments.count == 1, case .initializerList = arguments[0].kind {
        return try initialize(type, from: arguments[0])
      }
      return try construct(type, try arguments.map { try evaluate($0) }, at: location)
    case .name(let name):
      let bare = name.hasPrefix("metal::") ? String(name.dropFirst(7)) : name
      if let candidates = program.functions[bare] ?? program.functions[String(bare.split(separator: ":").last ?? "")] {
        return try callUser(bare, candidates, arguments, at: location)
      }
      if bare == "sampler" { return try samplerValue(arguments, at: location) }
      if let out = Self.outParameterBuiltins[bare], arguments.count == 2 {
        return try callWithOutParameter(out, arguments, at: location)
      }
      if let f = MetalBuiltins.function(bare) { return roundedHalf(try f(try arguments.map { try evaluate($0) }, location)) }
      if ["dfdx", "dfdy", "fwidth"].contains(bare) { return roundedHalf(try derivative(bare, arguments, at: location)) }
      if bare == "as_type" || bare.hasPrefix("as_type") {
        throw MetalError("unsupported: as_type (reinterpreting bits)", at: location)
      }
      let all = program.functionNames + MetalBuiltins.names
      let hint = suggestion(for: bare, among: all).map { "; did you mean '\($0)'?" } ?? ""
      throw MetalError("use of undeclared function '\(bare)'\(hint)", at: location)
    case .templateName(let name, let explicit):
      let candidates = (program.functions[name] ?? []).filter { !$0.templateOrder.isEmpty }
      guard !candidates.isEmpty else { throw MetalError("'\(name)' is not a function template", at: location) }
      return try callUser(name, candidates, arguments, explicit: explicit, at: location)
    case .member(let base, let method):
      return roundedHalf(try callMethod(try evaluate(base), method, try arguments.map { try evaluate($0) }, at: location))
    default:
      throw MetalError("called object is not a function", at: location)
    }
  }

  private func callUser(
    _ name: String, _ candidates: [FunctionSyntax], _ arguments: [ExprSyntax], explicit: [TemplateArgument] = [],
    at location: SourceLocation
  ) throws -> MetalValue {
    let defined = candidates.filter { f in
      !f.body.isEmpty && f.parameters.count >= arguments.count
        && f.parameters.dropFirst(arguments.count).allSatisfy { $0.defaultValue != nil }
    }
    guard !defined.isEmpty else {
      if candidates.allSatisfy(\.body.isEmpty) {
        throw MetalError("'\(name)' is declared but not defined in this file or its #includes", at: location)
      }
      let counts = Set(candidates.map(\.parameters.count)).sorted().map(String.init).joined(separator: " or ")
      throw MetalError("'\(name)' takes \(counts) arguments, got \(arguments.count)", at: location)
    }
    var values = try arguments.enumerated().map { k, a in
      guard case .initializerList = a.kind else { return try evaluate(a) }
      // `f({1, 2})`: the list initialises the parameter's type, which every candidate must agree on.
      let types = Set(try defined.map { try resolve($0.parameters[k].type).description })
      guard types.count == 1 else { throw MetalError("an initializer list needs a declared type here", at: a.location) }
      return try initialize(try resolve(defined[0].parameters[k].type), from: a)
    }
    let function = defined.count == 1 ? defined[0] : bestOverload(defined, values)
    for p in function.parameters.dropFirst(values.count) {  // defaults, evaluated at file scope
      let saved = frames
      frames = [Frame(function: MetalProgram.fileScope, returnType: .void)]
      defer { frames = saved }
      values.append(try evaluate(p.defaultValue!))
    }
    let (types, constants) = try templateArguments(function, explicit, at: location)
    if !function.templateParameters.isEmpty {
      templateBindings.append(try deduce(function, values, given: types, at: location))
    }
    defer { if !function.templateParameters.isEmpty { templateBindings.removeLast() } }
    var bound: [MetalValue] = []
    for (p, v) in zip(function.parameters, values) {
      let type = try resolve(p.type)
      if type.isHandle {
        guard v.type == type || (type == .texture && v.type == .texture) else {
          throw MetalError("cannot pass \(v.type) as \(type) to '\(name)'", at: location)
        }
        bound.append(v)
      } else {
        bound.append(try convert(v, to: type, at: location))
      }
    }
    let (result, finals) = try call(function, bound, constants: constants, at: location)
    for (k, p) in function.parameters.prefix(arguments.count).enumerated() where p.type.isReference {
      if p.type.qualifiers.contains("const") { continue }
      try write(try place(arguments[k]), finals[k], at: arguments[k].location)
    }
    return result
  }

  /// A layer's `sample(p)`, a texture's `sample(s, p)`, `read(p)`, `get_width()`, `get_height()`.
  func callMethod(_ base: MetalValue, _ method: String, _ arguments: [MetalValue], at location: SourceLocation) throws -> MetalValue {
    switch (base.handle, method) {
    case (.layer(let layer)?, "sample"):
      guard arguments.count == 1 else { throw MetalError("sample takes one float2 position", at: location) }
      let p = try convert(arguments[0], to: .float2, at: location)
      return Self.lanes(layer.sample(float2(p.scalars[0], p.scalars[1])), kind: .half)
    case (.texture(let texture)?, "sample"):
      guard arguments.count >= 2, case .sampler(let s)? = arguments[0].handle else {
        throw MetalError("a texture's sample takes (sampler, float2 coordinates)", at: location)
      }
      if arguments.count > 2 { throw MetalError("unsupported: sample with a level, bias or offset", at: location) }
      let uv = try convert(arguments[1], to: .float2, at: location).scalars
      let p = s.normalized ? float2(uv[0] * texture.size.x, uv[1] * texture.size.y) : float2(uv[0], uv[1])
      return Self.lanes(texture.sample(p, s.sampler), kind: .half)
    case (.texture(let texture)?, "read"):
      guard arguments.count == 1, arguments[0].type.lanes == 2 else {
        throw MetalError("a texture's read takes one uint2 coordinate", at: location)
      }
      let c = try convert(arguments[0], to: .vector(.uint, 2), at: location).scalars
      let p = float2(floatFromUnsigned(c[0]) + 0.5, floatFromUnsigned(c[1]) + 0.5)
      return Self.lanes(texture.sample(p, .nearest), kind: .half)
    case (.texture(let texture)?, "get_width"): return .vector(.uint, [int(texture.size.x)])
    case (.texture(let texture)?, "get_height"): return .vector(.uint, [int(texture.size.y)])
    default:
      throw MetalError("no method '\(method)' on a value of type \(base.type)", at: location)
    }
  }

  /// The overload a call means, by how well the arguments fit: a parameter of
  /// the argument's type best, then one of its lane count, then a scalar
  /// broadcast to a vector; fewer default arguments break ties, then the order.
  private func bestOverload(_ candidates: [FunctionSyntax], _ values: [MetalValue]) -> FunctionSyntax {
    func score(_ f: FunctionSyntax) -> Int? {
      var score = -(f.parameters.count - values.count)
      for (p, v) in zip(f.parameters, values) {
        guard let t = try? resolve(p.type) else { continue }  // a template parameter fits anything
        if t == v.type {
          score += 100
        } else if t.lanes == v.type.lanes {
          score += 10
        } else if v.type.lanes != 1 {
          return nil
        }
      }
      return score
    }
    let scored = candidates.enumerated().compactMap { k, f in score(f).map { (k, $0) } }
    guard let best = scored.max(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 > $1.0) }) else { return candidates[0] }
    return candidates[best.0]
  }

  /// The types of a function template's parameters: those given, then from
  /// the arguments of the parameters declared with them.
  private func deduce(_ function: FunctionSyntax, _ values: [MetalValue], given: [String: MetalType], at location: SourceLocation)
    throws -> [String: MetalType]
  {
    var binding = given
    for (p, v) in zip(function.parameters, values) where function.templateParameters.contains(p.type.name) {
      if binding[p.type.name] == nil { binding[p.type.name] = v.type }
    }
    for name in function.templateParameters where binding[name] == nil {
      throw MetalError("cannot deduce the template parameter '\(name)' of '\(function.name)' from the arguments", at: location)
    }
    return binding
  }

  /// Built-ins that return one result and write another through their second
  /// argument (a `thread T &`): `modf(x, whole)` returns the fraction and
  /// writes the whole part; `sincos(x, c)` returns the sine and writes the cosine.
  static let outParameterBuiltins: [String: (Expr) -> (result: Expr, out: Expr)] = [
    "modf": { x in
      let whole = MetalBuiltins.trunc(x)
      return (select(abs(x) == Expr(Float.infinity), 0, x - whole), whole)
    },
    "sincos": { x in (sin(x), cos(x)) },
  ]

  private func callWithOutParameter(
    _ f: (Expr) -> (result: Expr, out: Expr), _ arguments: [ExprSyntax], at location: SourceLocation
  ) throws -> MetalValue {
    let x = try evaluate(arguments[0])
    guard case .vector(let s, _) = x.type else { throw MetalError("expected a float or a float vector, got \(x.type)", at: location) }
    let kind: ScalarType = s.isFloating ? s : .float
    let lanes = x.scalars.map { f(convertScalar($0, from: s, to: kind)) }
    let target = try place(arguments[1])
    try write(target, .vector(kind, lanes.map(\.out)), at: arguments[1].location)
    return .vector(kind, lanes.map(\.result))
  }

  /// A float4 expression as a 4-lane value of `kind`.
  static func lanes(_ e: Expr, kind: ScalarType) -> MetalValue {
    .vector(kind, ["x", "y", "z", "w"].map { e.swizzle($0) })
  }
}

extension MetalTranslator {
  /// The explicit arguments of a call of a function template (`f<float, 3>`),
  /// bound in the template's parameter order: types, and the values of its
  /// `int N` parameters (every one of which must be given).
  func templateArguments(_ function: FunctionSyntax, _ explicit: [TemplateArgument], at location: SourceLocation) throws
    -> (types: [String: MetalType], values: [String: MetalValue])
  {
    guard explicit.count <= function.templateOrder.count else {
      throw MetalError(
        "'\(function.name)' takes \(function.templateOrder.count) template arguments, got \(explicit.count)", at: location)
    }
    var types: [String: MetalType] = [:]
    var values: [String: MetalValue] = [:]
    for (name, argument) in zip(function.templateOrder, explicit) {
      switch argument {
      case .type(let t) where function.templateParameters.contains(name):
        types[name] = try resolve(t)
      case .value(let e) where !function.templateParameters.contains(name):
        let declared = function.templateValues.first { $0.name == name }!
        let v = try evaluate(e)
        guard v.type.isNumeric, v.scalars.count == 1 else {
          throw MetalError("template argument '\(name)' of '\(function.name)' must be a scalar, got \(v.type)", at: e.location)
        }
        values[name] = try convert(v, to: try resolve(declared.type), at: e.location)
      default:
        let kind = function.templateParameters.contains(name) ? "a type" : "a value"
        throw MetalError("template argument '\(name)' of '\(function.name)' must be \(kind)", at: location)
      }
    }
    for p in function.templateValues where values[p.name] == nil {
      throw MetalError(
        "cannot deduce the template parameter '\(p.name)' of '\(function.name)'; give it: \(function.name)<…>(…)", at: location)
    }
    return (types, values)
  }
}
