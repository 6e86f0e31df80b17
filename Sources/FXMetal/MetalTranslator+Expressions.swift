import FXDSL
import FXIR

// Expressions: literals, names, operators, assignments and calls.

extension MetalTranslator {
  func evaluate(_ e: ExprSyntax) throws -> MetalValue {
    switch e.kind {
    case .integer(let v, let unsigned):
      if !unsigned, v > UInt64(Int32.max), v <= UInt64(UInt32.max) { return .vector(.uint, [.int(Int(v))]) }
      guard v <= UInt64(UInt32.max) else { throw MetalError("integer literal is too large for 32 bits", at: e.location) }
      return .vector(unsigned ? .uint : .int, [.int(Int(v))])
    case .floating(let v, let half): return roundedHalf(.vector(half ? .half : .float, [Expr(Float(v))]))
    case .boolean(let b): return .vector(.bool, [Expr(booleanLiteral: b)])
    case .name(let n): return try named(n, at: e.location)
    case .binary(let op, let a, let b):
      if op == "&&" || op == "||" { return try logical(op, a, b) }
      return try binary(op, try evaluate(a), try evaluate(b), at: e.location)
    case .unary(let op, let a):
      if op == "++" || op == "--" {
        let p = try place(a)
        let new = try binary(String(op.first!), try read(p), .vector(.int, [.int(1)]), at: e.location)
        try write(p, new, at: e.location)
        return try read(p)
      }
      return try unary(op, try evaluate(a), at: e.location)
    case .postfix(let op, let a):
      let p = try place(a)
      let old = try read(p)
      try write(p, try binary(String(op.first!), old, .vector(.int, [.int(1)]), at: e.location), at: e.location)
      return old
    case .assign(let op, let target, let source): return try assign(op, target, source, at: e.location)
    case .conditional(let c, let a, let b):
      let k = try condition(c)
      if let constant = constantBool(k) { return try evaluate(constant ? a : b) }
      // Each side's side effects happen only where it is chosen (C++ evaluates one).
      let (x, y) = try unify(try evaluate(a, where: k), try evaluate(b, where: negation(k)), at: e.location)
      return MetalValue(x.type, zip(x.scalars, y.scalars).map { choose(k, $0, $1) })
    case .call(let callee, let arguments): return try call(callee, arguments, at: e.location)
    case .typeName(let t):
      throw MetalError("type '\(t)' used as a value; call it to construct one: \(t)(…)", at: e.location)
    case .templateName(let name, _):
      throw MetalError("function template '\(name)' used as a value; call it: \(name)<…>(…)", at: e.location)
    case .member, .index: return try read(try place(e))
    case .cast(let t, let v): return try convert(try evaluate(v), to: try resolve(t), at: e.location, explicit: true)
    case .bitCast(let t, let v): return try bitCast(try evaluate(v), to: try resolve(t), at: e.location)
    case .initializerList:
      throw MetalError("an initializer list needs a declared type here", at: e.location)
    case .comma(let a, let b):
      _ = try evaluate(a)
      return try evaluate(b)
    case .sizeOf(let t, let v):
      let type = try t.map { try resolve($0) } ?? (try evaluate(v!)).type
      guard let size = type.byteSize else { throw MetalError("unsupported: sizeof(\(type))", at: e.location) }
      return .vector(.uint, [.int(size)])
    }
  }

  /// A variable, a file-scope constant, or a named constant of the Metal library.
  func named(_ name: String, at location: SourceLocation) throws -> MetalValue {
    if let v = lookup(name) { return v }
    if let v = program.globals[name] { return v }
    let bare = name.hasPrefix("metal::") ? String(name.dropFirst(7)) : name
    if let v = lookup(bare) ?? program.globals[bare] { return v }
    if let c = MetalBuiltins.constants[bare] { return .vector(.float, [Expr(c)]) }
    if program.functions[bare] != nil || MetalBuiltins.names.contains(bare) {
      throw MetalError("function '\(bare)' used as a value", at: location)
    }
    let hint = suggestion(for: bare, among: visibleNames()).map { "; did you mean '\($0)'?" } ?? ""
    throw MetalError("use of undeclared identifier '\(bare)'\(hint)", at: location)
  }

  /// `&&` and `||` on scalars. The right side is computed for every pixel,
  /// but its side effects (`t++`, an assignment, a call that writes) happen
  /// only where C++ evaluates it: where the left side did not decide.
  private func logical(_ op: String, _ a: ExprSyntax, _ b: ExprSyntax) throws -> MetalValue {
    let x = try condition(a)
    if let k = constantBool(x), k == (op == "||") { return .vector(.bool, [x]) }
    let evaluated = op == "&&" ? x : negation(x)
    frame.conditions.append(evaluated)
    let y: Expr
    do {
      defer { frame.conditions.removeLast() }
      y = try condition(b)
    }
    if op == "&&" { return .vector(.bool, [conjunction(x, y)!]) }
    if let k = constantBool(x) { return .vector(.bool, [k ? x : y]) }
    if let k = constantBool(y) { return .vector(.bool, [k ? y : x]) }
    return .vector(.bool, [x || y])
  }

  /// `e` evaluated with its side effects confined to where `c` holds.
  private func evaluate(_ e: ExprSyntax, where c: Expr) throws -> MetalValue {
    frame.conditions.append(c)
    defer { frame.conditions.removeLast() }
    return try evaluate(e)
  }

  private func assign(_ op: String, _ target: ExprSyntax, _ source: ExprSyntax, at location: SourceLocation) throws
    -> MetalValue
  {
    let p = try place(target)
    var value: MetalValue
    if op == "=" {
      value = try initialize(p.type, from: source)
    } else {
      value = try binary(String(op.dropLast()), try read(p), try evaluate(source), at: location)
    }
    value = try convert(value, to: p.type, at: location)
    try write(p, value, at: location)
    return value
  }

  /// Two values brought to one type for `?:`: numeric values by the usual conversions; others must match.
  func unify(_ a: MetalValue, _ b: MetalValue, at location: SourceLocation) throws -> (MetalValue, MetalValue) {
    if a.type == b.type { return (a, b) }
    guard case .vector(let s, let n) = a.type, case .vector(let t, let m) = b.type, n == m || n == 1 || m == 1 else {
      throw MetalError("incompatible operand types \(a.type) and \(b.type)", at: location)
    }
    let k = Operators.common(s, t)
    let lanes = max(n, m)
    return (
      try convert(a, to: .vector(k, lanes), at: location), try convert(b, to: .vector(k, lanes), at: location)
    )
  }
}
