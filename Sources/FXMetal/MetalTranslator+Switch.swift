import FXDSL
import FXIR

// `switch` as predicated sections. The subject is evaluated once; a section
// runs where one of its labels equals the subject (`default`: where none of
// the switch's labels does), or where the section before it ran on into it
// without a `break` (C's fall-through). `break` sets the switch's own flag,
// which switches the rest of it off as a loop's flag does; `continue` belongs
// to the enclosing loop.

extension MetalTranslator {
  func switchStatement(_ subject: ExprSyntax, _ sections: [SwitchSection], at location: SourceLocation) throws {
    let v = try evaluate(subject)
    guard v.scalars.count == 1, let kind = v.type.scalarType, !kind.isFloating else {
      throw MetalError("a switch condition must be an integer scalar, got \(v.type)", at: subject.location)
    }
    let type: ScalarType = kind == .bool ? .int : kind
    let x = convertScalar(v.scalars[0], from: kind, to: type)
    let matches = try sections.map { try match(x, type, $0) }
    try checkLabels(sections)
    let any = matches.reduce(Expr(booleanLiteral: false), disjunction)

    let entry = active()
    let breakFlag = hidden("switchBreak")
    declare(breakFlag, MetalValue(.bool, [Expr(booleanLiteral: false)]))
    frame.conditions.append(entry ?? Expr(booleanLiteral: true))
    frame.loopFlags.append((breakFlag: breakFlag, continueFlag: frame.loopFlags.last?.continueFlag ?? ""))
    defer {
      frame.loopFlags.removeLast()
      frame.conditions.removeLast()
    }
    var running = Expr(booleanLiteral: false)
    for (section, m) in zip(sections, matches) {
      let starts = section.labels.contains { $0 == nil } ? disjunction(m, negation(any)) : m
      running = disjunction(running, starts)
      try branch(running) {
        for t in section.body {
          if isDead { break }
          try execute(t)
        }
      }
    }
  }

  /// Where the subject `x` equals one of the section's `case` values.
  private func match(_ x: Expr, _ type: ScalarType, _ section: SwitchSection) throws -> Expr {
    var m = Expr(booleanLiteral: false)
    for case let label? in section.labels {
      let value = try caseValue(label)
      m = disjunction(m, x == convertScalar(value.expr, from: value.kind, to: type))
    }
    return m
  }

  /// A `case` label's value: an integer scalar, a constant in C (a literal, a
  /// macro, a file-scope constant); a value known only when the function runs
  /// (an argument bound to a uniform) compares the same way, so the front end
  /// accepts it rather than fail for some bindings only.
  private func caseValue(_ label: ExprSyntax) throws -> (expr: Expr, kind: ScalarType, value: Float?) {
    let l = try evaluate(label)
    guard l.scalars.count == 1, let k = l.type.scalarType, !k.isFloating else {
      throw MetalError("a case label must be an integer constant, got \(l.type)", at: label.location)
    }
    return (l.scalars[0], k, l.scalars[0].constantValue)
  }

  /// Refuses a value labelled twice and a second `default`.
  private func checkLabels(_ sections: [SwitchSection]) throws {
    var seen = Set<Float>()
    var sawDefault = false
    for section in sections {
      for label in section.labels {
        guard let label else {
          if sawDefault { throw MetalError("multiple 'default' labels in one switch", at: section.location) }
          sawDefault = true
          continue
        }
        guard let c = try caseValue(label).value else { continue }
        guard seen.insert(c).inserted else {
          throw MetalError("duplicate case value '\(Int(c))'", at: label.location)
        }
      }
    }
  }
}

/// `a || b`, folded when either side is a constant.
func disjunction(_ a: Expr, _ b: Expr) -> Expr {
  if let c = constantBool(a) { return c ? a : b }
  if let c = constantBool(b) { return c ? b : a }
  return a || b
}
