import FXDSL
import FXIR

// Statements: declarations, assignments under the current condition, if/else
// as two predicated branches, and early exits as flags.

extension MetalTranslator {
  func execute(_ s: StmtSyntax) throws {
    if isDead { return }
    switch s.kind {
    case .empty: return
    case .expression(let e): _ = try evaluate(e)
    case .declaration(let type, let declarators): try declare(type, declarators)
    case .block(let body):
      try withScope {
        for t in body {
          if isDead { break }
          try execute(t)
        }
      }
    case .ifElse(let test, let then, let otherwise):
      let c = try condition(test)
      if let k = constantBool(c) {
        if k { try withScope { try execute(then) } } else if let otherwise { try withScope { try execute(otherwise) } }
        return
      }
      try branch(c) { try execute(then) }
      if let otherwise { try branch(negation(c)) { try execute(otherwise) } }
    case .forLoop(let initial, let condition, let step, let body):
      try withScope { try forLoop(initial, condition, step, body, at: s.location) }
    case .whileLoop(let condition, let body):
      try withScope { try generalLoop("while", condition: condition, step: nil, body: body, checkFirst: true, at: s.location) }
    case .doWhile(let body, let condition):
      try withScope { try generalLoop("do", condition: condition, step: nil, body: body, checkFirst: false, at: s.location) }
    case .switchStatement(let subject, let sections):
      try withScope { try switchStatement(subject, sections, at: s.location) }
    case .breakStatement:
      guard let loop = frame.loopFlags.last else { throw MetalError("'break' outside a loop or switch", at: s.location) }
      raise(loop.breakFlag)
    case .continueStatement:
      guard let loop = frame.loopFlags.last, !loop.continueFlag.isEmpty else {
        throw MetalError("'continue' outside a loop", at: s.location)
      }
      raise(loop.continueFlag)
    case .returnStatement(let value): try returnStatement(value, at: s.location)
    }
  }

  /// Runs `body` in a new scope under the extra condition `c`.
  func branch(_ c: Expr, _ body: () throws -> Void) throws {
    frame.conditions.append(c)
    defer { frame.conditions.removeLast() }
    try withScope(body)
  }

  /// A condition as a scalar bool.
  func condition(_ e: ExprSyntax) throws -> Expr {
    let v = try evaluate(e)
    guard v.type.isNumeric, v.scalars.count == 1, let k = v.type.scalarType else {
      throw MetalError("a condition must be a scalar, got \(v.type) (use any() or all() for vectors)", at: e.location)
    }
    return convertScalar(v.scalars[0], from: k, to: .bool)
  }

  private func returnStatement(_ value: ExprSyntax?, at location: SourceLocation) throws {
    if frame.function.name == MetalProgram.fileScope.name { throw MetalError("'return' outside a function", at: location) }
    if let value {
      guard frame.returnType != .void else {
        throw MetalError("void function '\(frame.function.name)' should not return a value", at: value.location)
      }
      let v = try initialize(frame.returnType, from: value)  // `return {a, b};` initialises the return type
      let old = lookup(Self.returnValue)!
      let a = active()
      store(Self.returnValue, MetalValue(old.type, zip(v.scalars, old.scalars).map { choose(a, $0, $1) }))
    } else if frame.returnType != .void {
      throw MetalError("non-void function '\(frame.function.name)' should return a value", at: location)
    }
    raise(Self.returnFlag)
  }

  private func declare(_ typeSyntax: TypeSyntax, _ declarators: [Declarator]) throws {
    if typeSyntax.name == "auto", typeSyntax.arguments.isEmpty { return try declareDeduced(typeSyntax, declarators) }
    let base = try resolve(typeSyntax)
    if typeSyntax.isReference { throw MetalError("unsupported: local references", at: typeSyntax.location) }
    for d in declarators {
      if base == .sampler {
        declare(d.name, try samplerValue(d.constructorArguments ?? [], at: d.location))
        continue
      }
      guard base != .void, !base.isHandle else {
        throw MetalError("unsupported: a local variable of type \(base)", at: d.location)
      }
      var type = base
      if d.isArray {
        if let length = d.arrayLength {
          type = .array(base, try program.constantInt(length))
        } else if let initial = d.initializer, case .initializerList(let items) = initial.kind {
          type = .array(base, items.count)
        } else {
          throw MetalError("an array needs a length or an initializer list", at: d.location)
        }
      }
      var value = MetalValue.zero(type)
      if let initial = d.initializer {
        value = try initialize(type, from: initial)
      } else if let arguments = d.constructorArguments {
        value = try construct(type, arguments.map { try evaluate($0) }, at: d.location)
      }
      declare(d.name, value)
    }
  }

  /// `auto x = e;` (C++ [dcl.spec.auto]): each variable takes its initializer's type.
  private func declareDeduced(_ typeSyntax: TypeSyntax, _ declarators: [Declarator]) throws {
    if typeSyntax.isReference { throw MetalError("unsupported: local references", at: typeSyntax.location) }
    for d in declarators {
      guard let initial = d.initializer, !d.isArray else {
        throw MetalError("'auto' needs an initializer to deduce the type of '\(d.name)' from", at: d.location)
      }
      if case .initializerList = initial.kind {
        throw MetalError("'auto' cannot deduce a type from a braced initializer list", at: initial.location)
      }
      let value = try evaluate(initial)
      guard value.type != .void else { throw MetalError("'auto' variable '\(d.name)' initialised from void", at: d.location) }
      declare(d.name, value)
    }
  }

  /// A value of `type` from an initializer: an expression, or a braced list of
  /// elements (arrays), fields (structs) or scalars (vectors, matrices).
  func initialize(_ type: MetalType, from e: ExprSyntax) throws -> MetalValue {
    guard case .initializerList(let items) = e.kind else { return try convert(try evaluate(e), to: type, at: e.location) }
    switch type {
    case .array(let element, let n):
      guard items.count <= n else { throw MetalError("too many elements for \(type): \(items.count)", at: e.location) }
      let values = try items.map { try initialize(element, from: $0) }
      let rest = Array(repeating: MetalValue.zero(element), count: n - items.count)
      return MetalValue(type, (values + rest).flatMap(\.scalars))
    case .structure(_, let fields):
      guard items.count <= fields.count else { throw MetalError("too many fields for \(type)", at: e.location) }
      var scalars: [Expr] = []
      for (k, field) in fields.enumerated() {
        scalars += k < items.count ? try initialize(field.type, from: items[k]).scalars : MetalValue.zero(field.type).scalars
      }
      return MetalValue(type, scalars)
    default:
      return try construct(type, items.map { try evaluate($0) }, at: e.location)
    }
  }

  /// `constexpr sampler s(filter::linear, address::repeat, coord::pixel)`.
  func samplerValue(_ arguments: [ExprSyntax], at location: SourceLocation) throws -> MetalValue {
    var s = TextureSampler()
    for a in arguments {
      guard case .name(let option) = a.kind else {
        throw MetalError("unsupported sampler argument; fxc reads filter::, address::, coord:: options", at: a.location)
      }
      var parts = option.split(separator: ":").map(String.init)
      if parts.first == "metal" { parts.removeFirst() }
      guard parts.count == 2 else { throw MetalError("unknown sampler option '\(option)'", at: a.location) }
      switch (parts[0], parts[1]) {
      case ("filter", "linear"), ("mag_filter", "linear"), ("min_filter", "linear"): s.sampler.filter = .linear
      case ("filter", "nearest"), ("mag_filter", "nearest"), ("min_filter", "nearest"): s.sampler.filter = .nearest
      case ("address", let mode), ("s_address", let mode), ("t_address", let mode):
        switch mode {
        case "clamp_to_edge": s.sampler.address = .clampToEdge
        case "clamp_to_zero", "clamp_to_border": s.sampler.address = .transparent
        case "repeat": s.sampler.address = .repeat
        case "mirrored_repeat": s.sampler.address = .mirror
        default: throw MetalError("unsupported sampler address mode '\(mode)'", at: a.location)
        }
      case ("coord", "pixel"): s.normalized = false
      case ("coord", "normalized"): s.normalized = true
      case ("mip_filter", _), ("max_anisotropy", _), ("border_color", _), ("lod_clamp", _): break
      default: throw MetalError("unknown sampler option '\(option)'", at: a.location)
      }
    }
    return MetalValue(handle: .sampler(s), type: .sampler)
  }
}
