import FXDSL
import FXIR

// Recognising counted loops, and the syntax facts loops need: which
// variables a statement may assign, whether it returns.

/// A loop `for (int i = start; i op bound; i += stride)` with its trip count.
struct CountedLoop {
  var name: String
  var kind: ScalarType
  var start: Expr
  var stride: Int
  var count: Expr
  /// The trip count when it is a constant, else ``MetalTranslator/countedLoopLimit``.
  var limit: Int
  /// Whether ``limit`` is the trip count (start and bound are constants), not a cut-off.
  var isExact: Bool
  /// Whether the loop declares its counter (`for (int i = …`), rather than
  /// counting a variable declared before it (`for (; i < n; i++)`), whose
  /// final value the code after the loop reads.
  var declaresCounter = true
}

extension MetalTranslator {
  /// The counted form of a `for` loop, if it has one (see MetalTranslator+Loops.swift).
  func countedForm(_ initial: StmtSyntax?, _ condition: ExprSyntax?, _ step: ExprSyntax?, assigned: Set<String>) throws
    -> CountedLoop?
  {
    guard let condition, let step else { return nil }
    let name: String
    if let initial, case .declaration(_, let ds) = initial.kind {
      guard ds.count == 1 else { return nil }
      name = ds[0].name
    } else {
      // `for (; i < n; i++)`, `for (i = 0; i < n; i++)`: a counter declared before the loop (already initialised).
      guard case .binary(_, let l, let r) = condition.kind else { return nil }
      if case .name(let n) = l.kind {
        name = n
      } else if case .name(let n) = r.kind {
        name = n
      } else {
        return nil
      }
    }
    let declares = initial.map { if case .declaration = $0.kind { true } else { false } } ?? false
    guard !assigned.contains(name), let v = lookup(name), case .vector(let kind, 1) = v.type, kind.isInteger,
      let stride = Self.loopStride(of: step, name), case .binary(var op, let l, let r) = condition.kind
    else { return nil }
    let boundSyntax: ExprSyntax
    if case .name(name) = l.kind {
      boundSyntax = r
    } else if case .name(name) = r.kind {
      boundSyntax = l
      op = ["<": ">", ">": "<", "<=": ">=", ">=": "<="][op] ?? op
    } else {
      return nil
    }
    var used = Set<String>()
    Assignments.names(boundSyntax, into: &used)
    guard used.isDisjoint(with: assigned), !used.contains(name) else { return nil }
    let bound = try evaluate(boundSyntax)
    guard bound.type.isNumeric, bound.scalars.count == 1, let bk = bound.type.scalarType else { return nil }
    var e = bound.scalars[0]
    if bk.isFloating {
      switch op {
      case "<", ">=": e = int(ceil(e))
      case "<=", ">": e = int(floor(e))
      default: return nil
      }
    } else if bk == .bool {
      return nil
    }
    let start = v.scalars[0]
    let distance: Expr
    switch (op, stride > 0) {
    case ("<", true): distance = e - start
    case ("<=", true): distance = e - start + Expr.int(1)
    case ("!=", true) where stride == 1: distance = e - start
    case (">", false): distance = start - e
    case (">=", false): distance = start - e + Expr.int(1)
    case ("!=", false) where stride == -1: distance = start - e
    default: return nil
    }
    let k = Swift.abs(stride)
    let count = k == 1 ? distance : quotient(distance + Expr.int(k - 1), Expr.int(k))
    var limit = Self.countedLoopLimit
    var isExact = false
    if let s = start.foldedValue, let b = e.foldedValue {
      isExact = true
      let d = Int(op == "<" || op == "<=" || (op == "!=" && stride > 0) ? b - s : s - b) + (op.hasSuffix("=") && op != "!=" ? 1 : 0)
      limit = Swift.max(0, (d + k - 1) / k)
    }
    return CountedLoop(
      name: name, kind: kind, start: start, stride: stride, count: count, limit: limit, isExact: isExact,
      declaresCounter: declares)
  }

  /// A float counter that starts at a whole number and steps by one (`x++`,
  /// `x += 2`), which the body leaves alone: its values are exact whole
  /// numbers, so they can be computed from the iteration number.
  func floatCounter(_ initial: StmtSyntax?, _ step: ExprSyntax?, assigned: Set<String>) -> (
    name: String, kind: ScalarType, start: Float, step: Float
  )? {
    guard let initial, case .declaration(_, let ds) = initial.kind, ds.count == 1, let step,
      !assigned.contains(ds[0].name), let v = lookup(ds[0].name), case .vector(let kind, 1) = v.type, kind.isFloating,
      let start = v.scalars[0].constantValue, start == start.rounded(), Swift.abs(start) < 1_048_576,
      let k = Self.loopStride(of: step, ds[0].name)
    else { return nil }
    return (ds[0].name, kind, start, Float(k))
  }

  /// The constant step of `i++`, `++i`, `i--`, `i += k`, `i -= k`, `i = i + k`.
  static func loopStride(of step: ExprSyntax, _ name: String) -> Int? {
    func constant(_ e: ExprSyntax) -> Int? {
      if case .integer(let v, _) = e.kind, v < 1 << 20 { return Int(v) }
      return nil
    }
    switch step.kind {
    case .postfix(let op, let e), .unary(let op, let e):
      guard case .name(name) = e.kind, op == "++" || op == "--" else { return nil }
      return op == "++" ? 1 : -1
    case .assign(let op, let target, let value):
      guard case .name(name) = target.kind else { return nil }
      if op == "+=", let k = constant(value), k > 0 { return k }
      if op == "-=", let k = constant(value), k > 0 { return -k }
      if op == "=", case .binary(let o, let a, let b) = value.kind, case .name(name) = a.kind, let k = constant(b), k > 0 {
        return o == "+" ? k : o == "-" ? -k : nil
      }
      return nil
    default: return nil
    }
  }

  /// The trip count of `for (T i = a; i op b; i += k)` when `a`, `b` and `k`
  /// are constants, counted in `T`'s arithmetic. Only where nothing else
  /// can change it: the body (`assigned`: what the body and the condition may
  /// assign) leaves `i` and the bound's variables alone, and the condition has
  /// no side effect (evaluating its bound here must not run one).
  func constantTripCount(_ initial: StmtSyntax?, _ condition: ExprSyntax?, _ step: ExprSyntax?, assigned: Set<String>) -> Int? {
    guard let initial, case .declaration(_, let ds) = initial.kind, ds.count == 1, let condition, let step,
      !assigned.contains(ds[0].name),
      let v = lookup(ds[0].name), v.type.isNumeric, v.scalars.count == 1, let start = v.scalars[0].constantValue,
      case .binary(let op, let l, let r) = condition.kind, case .name(ds[0].name) = l.kind
    else { return nil }
    var conditionAssigns = Set<String>(), boundReads = Set<String>()
    Assignments.collect(condition, into: &conditionAssigns, writers: program.referenceTakers)
    Assignments.names(r, into: &boundReads)
    guard conditionAssigns.isEmpty, boundReads.isDisjoint(with: assigned), let bound = try? evaluate(r),
      bound.scalars.count == 1, let b = bound.scalars[0].constantValue
    else { return nil }
    var k: Float
    // The step must step the counter (`x++`, `x += 0.5`), by a constant.
    switch step.kind {
    case .postfix(let o, let e), .unary(let o, let e):
      guard case .name(ds[0].name) = e.kind, o == "++" || o == "--" else { return nil }
      k = o == "++" ? 1 : -1
    case .assign(let o, let target, let value):
      guard case .name(ds[0].name) = target.kind, o == "+=" || o == "-=" else { return nil }
      var reads = Set<String>(), writes = Set<String>()
      Assignments.names(value, into: &reads)
      Assignments.collect(value, into: &writes, writers: program.referenceTakers)
      guard writes.isEmpty, reads.isDisjoint(with: assigned.union([ds[0].name])) else { return nil }
      guard let s = try? evaluate(value), s.scalars.count == 1, let c = s.scalars[0].constantValue else { return nil }
      k = o == "+=" ? c : -c
    default: return nil
    }
    var x = start
    var n = 0
    let holds: (Float) -> Bool = {
      switch op {
      case "<": $0 < b
      case "<=": $0 <= b
      case ">": $0 > b
      case ">=": $0 >= b
      case "!=": $0 != b
      default: false
      }
    }
    while holds(x) {
      n += 1
      x += k
      if n > Int(Loop.maxLimit) { return nil }
    }
    return n
  }
}

/// Syntax facts about statements, for loops.
enum Assignments {
  /// Adds every variable `s` may assign (the root of each assigned lvalue, and
  /// every variable passed to a function that may take it by reference: any
  /// function, or those in `writers`, the program's functions with a
  /// reference parameter).
  static func collect(_ s: StmtSyntax, into names: inout Set<String>, writers: Set<String>? = nil) {
    switch s.kind {
    case .expression(let e): collect(e, into: &names, writers: writers)
    case .declaration(_, let ds): for d in ds { if let i = d.initializer { collect(i, into: &names, writers: writers) } }
    case .block(let body): for t in body { collect(t, into: &names, writers: writers) }
    case .ifElse(let c, let a, let b):
      collect(c, into: &names, writers: writers)
      collect(a, into: &names, writers: writers)
      if let b { collect(b, into: &names, writers: writers) }
    case .forLoop(let i, let c, let st, let body):
      if let i { collect(i, into: &names, writers: writers) }
      if let c { collect(c, into: &names, writers: writers) }
      if let st { collect(st, into: &names, writers: writers) }
      collect(body, into: &names, writers: writers)
    case .whileLoop(let c, let body), .doWhile(let body, let c):
      collect(c, into: &names, writers: writers)
      collect(body, into: &names, writers: writers)
    case .switchStatement(let subject, let sections):
      collect(subject, into: &names, writers: writers)
      for section in sections { for t in section.body { collect(t, into: &names, writers: writers) } }
    case .returnStatement(let e): if let e { collect(e, into: &names, writers: writers) }
    case .breakStatement, .continueStatement, .empty: break
    }
  }

  static func collect(_ e: ExprSyntax, into names: inout Set<String>, writers: Set<String>? = nil) {
    switch e.kind {
    case .assign(_, let target, let value):
      if let root = root(target) { names.insert(root) }
      collect(target, into: &names, writers: writers)
      collect(value, into: &names, writers: writers)
    case .unary(let op, let a), .postfix(let op, let a):
      if op == "++" || op == "--", let root = root(a) { names.insert(root) }
      collect(a, into: &names, writers: writers)
    case .call(let callee, let args):
      let user: Bool
      switch callee.kind {
      // Only a function with a reference parameter can write its argument (`writers`: those of the program).
      case .name(let f):
        user =
          MetalBuiltins.function(f) == nil
          && (writers.map { $0.contains(f) } != false || MetalTranslator.outParameterBuiltins[f] != nil)
      case .templateName(let f, _): user = writers.map { $0.contains(f) } != false
      default: user = false
      }
      if user { for a in args { if let root = root(a) { names.insert(root) } } }
      for a in args { collect(a, into: &names, writers: writers) }
    default:
      for child in children(e) { collect(child, into: &names, writers: writers) }
    }
  }

  /// Every name `e` reads.
  static func names(_ e: ExprSyntax, into names: inout Set<String>) {
    if case .name(let n) = e.kind { names.insert(n) }
    for child in children(e) { self.names(child, into: &names) }
  }

  static func children(_ e: ExprSyntax) -> [ExprSyntax] {
    switch e.kind {
    case .binary(_, let a, let b), .assign(_, let a, let b), .comma(let a, let b), .index(let a, let b): [a, b]
    case .unary(_, let a), .postfix(_, let a), .member(let a, _), .cast(_, let a), .bitCast(_, let a): [a]
    case .conditional(let a, let b, let c): [a, b, c]
    case .call(let callee, let args): [callee] + args
    case .initializerList(let items): items
    case .templateName(_, let arguments):
      arguments.compactMap {
        if case .value(let e) = $0 { return e }
        return nil
      }
    default: []
    }
  }

  /// The variable an lvalue expression is part of.
  static func root(_ e: ExprSyntax) -> String? {
    switch e.kind {
    case .name(let n): n
    case .member(let a, _), .index(let a, _): root(a)
    default: nil
    }
  }

  /// Whether `s` contains a `return`.
  static func returns(_ s: StmtSyntax) -> Bool {
    switch s.kind {
    case .returnStatement: true
    case .block(let body): body.contains(where: returns)
    case .ifElse(_, let a, let b): returns(a) || (b.map(returns) ?? false)
    case .forLoop(_, _, _, let body), .whileLoop(_, let body), .doWhile(let body, _): returns(body)
    case .switchStatement(_, let sections): sections.contains { $0.body.contains(where: returns) }
    default: false
    }
  }
}

extension MetalTranslator {
  /// An upper bound on the iterations of `for (… x = a; x op b; x += s)`
  /// with a float counter where no counted form fits (a step that is a
  /// variable: `for (half d = step; d <= radius; d += step)`):
  /// `⌊(b − a + drift)/s⌋ + 2` per pixel (one for `<=`'s last, one to spare;
  /// `drift` bounds the rounding of the repeated addition), at most
  /// ``generalLoopLimit`` — an int expression, or nil when the loop has no
  /// such form. The fold still checks the condition
  /// every iteration (its break flag), so a bound above the real count only
  /// runs iterations that change nothing; it must never be below it, hence
  /// the limit wherever `s` or the bound is not finite or `s` points away.
  func tripBound(_ initial: StmtSyntax?, _ condition: ExprSyntax?, _ step: ExprSyntax?, assigned: Set<String>) throws -> Expr? {
    guard let condition, let step, case .binary(var op, let l, let r) = condition.kind, ["<", "<=", ">", ">="].contains(op)
    else { return nil }
    var conditionWrites = Set<String>()
    Assignments.collect(condition, into: &conditionWrites, writers: program.referenceTakers)
    guard conditionWrites.isEmpty else { return nil }
    let name: String
    let boundSyntax: ExprSyntax
    if case .name(let n) = l.kind {
      (name, boundSyntax) = (n, r)
    } else if case .name(let n) = r.kind {
      (name, boundSyntax) = (n, l)
      op = ["<": ">", ">": "<", "<=": ">=", ">=": "<="][op]!
    } else {
      return nil
    }
    if let initial, case .declaration(_, let ds) = initial.kind, !(ds.count == 1 && ds[0].name == name) { return nil }
    guard !assigned.contains(name) else { return nil }
    // The step: x++, x--, x += s, x -= s, x = x + s, x = x − s, with s free of side effects and loop-invariant.
    var stepSyntax: ExprSyntax?
    var sign: Float = 1
    switch step.kind {
    case .postfix(let o, let e), .unary(let o, let e):
      guard case .name(name) = e.kind, o == "++" || o == "--" else { return nil }
      sign = o == "++" ? 1 : -1
    case .assign(let o, let target, let value):
      guard case .name(name) = target.kind else { return nil }
      if o == "+=" || o == "-=" {
        (stepSyntax, sign) = (value, o == "+=" ? 1 : -1)
      } else if o == "=", case .binary(let b, let x, let v) = value.kind, case .name(name) = x.kind, b == "+" || b == "-" {
        (stepSyntax, sign) = (v, b == "+" ? 1 : -1)
      } else {
        return nil
      }
    default: return nil
    }
    var reads = Set<String>(), writes = Set<String>()
    Assignments.names(boundSyntax, into: &reads)
    if let stepSyntax {
      Assignments.names(stepSyntax, into: &reads)
      Assignments.collect(stepSyntax, into: &writes, writers: program.referenceTakers)
    }
    guard writes.isEmpty, reads.isDisjoint(with: assigned.union([name])), let counter = lookup(name),
      counter.type.isNumeric, counter.scalars.count == 1, let kind = counter.type.scalarType, kind.isFloating
    else { return nil }
    func scalar(_ e: ExprSyntax) throws -> Expr? {
      let v = try evaluate(e)
      guard v.type.isNumeric, v.scalars.count == 1, let k = v.type.scalarType, k != .bool else { return nil }
      return convertScalar(v.scalars[0], from: k, to: .float)
    }
    guard let b = try scalar(boundSyntax) else { return nil }
    let s = try stepSyntax.map { try scalar($0) } ?? Expr(Float(1))
    guard let s else { return nil }
    let a = convertScalar(counter.scalars[0], from: kind, to: .float)
    let signed = s * Expr(sign)
    let upward = op == "<" || op == "<="
    let distance = upward ? b - a : a - b
    let stride = upward ? signed : -signed
    let limit = Expr(Float(Self.generalLoopLimit))
    // Each addition x + s rounds by at most 2⁻²⁴·|x|, and |x| stays within |a| + |b| + |s|:
    // over 1,024 additions the counter lags k·s by at most 2⁻¹⁴·(|a| + |b| + |s|).
    let drift = (abs(a) + abs(b) + abs(s)) * Expr(Float(0x1p-13))
    let estimate = floor((distance + drift) / stride) + 2
    let sound = isfinite(estimate) && stride > 0
    return FXDSL.int(select(sound, clamp(estimate, 0, limit), limit))
  }
}
