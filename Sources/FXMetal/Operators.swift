import FXDSL
import FXIR

/// Metal's operators on scalars and vectors, with C's integer meanings.
enum Operators {
  /// The usual arithmetic conversions: the operands' common kind (bool promotes to int).
  static func common(_ a: ScalarType, _ b: ScalarType) -> ScalarType {
    let k = a.rank >= b.rank ? a : b
    return k == .bool ? .int : k
  }

  static let signBit = Expr.int(Int(Int32.min))

  /// One lane of `a op b`, both of kind `k` (already converted).
  static func scalar(_ op: String, _ a: Expr, _ b: Expr, _ k: ScalarType) -> Expr? {
    let unsigned = k == .uint
    switch op {
    case "+": return a + b
    case "-": return a - b
    case "*": return a * b
    case "/": return k.isFloating ? a / b : unsigned ? unsignedQuotient(a, b) : quotient(a, b)
    case "%": return k.isFloating ? nil : unsigned ? unsignedRemainder(a, b) : remainder(a, b)
    case "<", ">", "<=", ">=":
      let (x, y) = unsigned ? (a ^ signBit, b ^ signBit) : (a, b)
      switch op {
      case "<": return x < y
      case ">": return x > y
      case "<=": return x <= y
      default: return x >= y
      }
    case "==": return a == b
    case "!=": return a != b
    case "&": return k.isInteger ? a & b : nil
    case "|": return k.isInteger ? a | b : nil
    case "^": return k.isInteger ? a ^ b : nil
    case "<<": return k.isInteger ? a << b : nil
    case ">>": return k.isInteger ? (unsigned ? ushr(a, b) : a >> b) : nil
    default: return nil
    }
  }

  static let comparisons: Set<String> = ["<", ">", "<=", ">=", "==", "!="]
}

extension MetalTranslator {
  /// `a op b` on scalars, vectors (lane by lane; a scalar operand broadcasts) and matrices;
  /// a `half` result rounded (``HalfPrecision``).
  func binary(_ op: String, _ a: MetalValue, _ b: MetalValue, at location: SourceLocation) throws -> MetalValue {
    roundedHalf(try unroundedBinary(op, a, b, at: location))
  }

  private func unroundedBinary(_ op: String, _ a: MetalValue, _ b: MetalValue, at location: SourceLocation) throws -> MetalValue {
    if case .matrix = a.type { return try matrixBinary(op, a, b, at: location) }
    if case .matrix = b.type { return try matrixBinary(op, a, b, at: location) }
    guard case .vector(let s, let n) = a.type, case .vector(let t, let m) = b.type else {
      throw MetalError("invalid operands to binary '\(op)' (\(a.type) and \(b.type))", at: location)
    }
    guard n == m || n == 1 || m == 1 else {
      throw MetalError("invalid operands to binary '\(op)': \(a.type) and \(b.type) have different lengths", at: location)
    }
    let lanes = max(n, m)
    // Shifts keep the left operand's type; the rest use the common kind.
    let shift = op == "<<" || op == ">>"
    var k = shift ? (s == .bool ? .int : s) : Operators.common(s, t)
    if s == .bool, t == .bool, ["==", "!="].contains(op) { k = .bool }
    if ["&", "|", "^"].contains(op), s == .bool, t == .bool {
      k = .bool
      let x = try convert(a, to: .vector(.bool, lanes), at: location).scalars
      let y = try convert(b, to: .vector(.bool, lanes), at: location).scalars
      let lanesOut = zip(x, y).map { op == "&" ? $0 && $1 : op == "|" ? $0 || $1 : $0 != $1 }
      return .vector(.bool, lanesOut)
    }
    let x = try convert(a, to: .vector(k, lanes), at: location).scalars
    let y = try convert(b, to: .vector(k, lanes), at: location).scalars
    var out: [Expr] = []
    for (p, q) in zip(x, y) {
      guard let r = Operators.scalar(op, p, q, k) else {
        let hint = op == "%" && k.isFloating ? "; use fmod for floating-point remainders" : ""
        throw MetalError("invalid operands to binary '\(op)' (\(a.type) and \(b.type))\(hint)", at: location)
      }
      out.append(r)
    }
    return .vector(Operators.comparisons.contains(op) ? .bool : k, out)
  }

  /// `op a`; a `half` result rounded (``HalfPrecision``).
  func unary(_ op: String, _ a: MetalValue, at location: SourceLocation) throws -> MetalValue {
    roundedHalf(try unroundedUnary(op, a, at: location))
  }

  private func unroundedUnary(_ op: String, _ a: MetalValue, at location: SourceLocation) throws -> MetalValue {
    if case .matrix = a.type, op == "-" { return MetalValue(a.type, a.scalars.map { -$0 }) }
    guard case .vector(let s, let n) = a.type else {
      throw MetalError("invalid argument type \(a.type) to unary '\(op)'", at: location)
    }
    switch op {
    case "+": return a
    case "-":
      // A negated literal stays a constant (`-2` bounds a loop with a known trip count).
      let k = s == .bool ? ScalarType.int : s
      return .vector(
        k,
        try convert(a, to: .vector(k, n), at: location).scalars.map { x in
          guard let c = x.constantValue, c.isFinite, k != .bool else { return -x }
          return k.isFloating ? Expr(-c) : Expr.int(-Int(c))
        })
    case "!": return .vector(.bool, try convert(a, to: .vector(.bool, n), at: location).scalars.map { negation($0) })
    case "~":
      guard s.isInteger || s == .bool else { throw MetalError("invalid argument type \(a.type) to unary '~'", at: location) }
      let k = s == .bool ? ScalarType.int : s
      return .vector(k, try convert(a, to: .vector(k, n), at: location).scalars.map { ~$0 })
    default: throw MetalError("unsupported unary operator '\(op)'", at: location)
    }
  }

  /// Matrix arithmetic: `m * v`, `v * m`, `m * m`, and lane-wise `+ - * /` with scalars or a matrix of one shape.
  private func matrixBinary(_ op: String, _ a: MetalValue, _ b: MetalValue, at location: SourceLocation) throws -> MetalValue {
    func columns(_ v: MetalValue, _ rows: Int) -> [[Expr]] {
      stride(from: 0, to: v.scalars.count, by: rows).map { Array(v.scalars[$0..<($0 + rows)]) }
    }
    func dotted(_ x: [Expr], _ y: [Expr]) -> Expr { zip(x, y).dropFirst().reduce(x[0] * y[0]) { $0 + $1.0 * $1.1 } }
    switch (a.type, b.type, op) {
    case (.matrix(let s, let c, let r), .vector(_, let n), "*") where n == c:
      let v = try convert(b, to: .vector(s, n), at: location).scalars
      let cols = columns(a, r)
      return .vector(s, (0..<r).map { row in dotted(cols.map { $0[row] }, v) })
    case (.vector(_, let n), .matrix(let s, let c, let r), "*") where n == r:
      let v = try convert(a, to: .vector(s, n), at: location).scalars
      return .vector(s, columns(b, r).prefix(c).map { dotted(v, $0) })
    case (.matrix(let s, let c, let r), .matrix(_, let c2, let r2), "*") where c == r2:
      let left = columns(a, r), right = columns(b, r2)
      let out = (0..<c2).flatMap { j in (0..<r).map { row in dotted(left.map { $0[row] }, right[j]) } }
      return MetalValue(.matrix(s, columns: c2, rows: r), out)
    case (.matrix, .matrix, "+"), (.matrix, .matrix, "-"):
      guard a.type == b.type else { break }
      return MetalValue(a.type, zip(a.scalars, b.scalars).map { op == "+" ? $0 + $1 : $0 - $1 })
    case (.matrix, .vector(_, 1), _), (.vector(_, 1), .matrix, _):
      guard ["+", "-", "*", "/"].contains(op) else { break }
      let matrixFirst: Bool
      if case .matrix = a.type { matrixFirst = true } else { matrixFirst = false }
      let m = matrixFirst ? a : b
      let k = try convert(matrixFirst ? b : a, to: .float, at: location).scalars[0]
      let out = m.scalars.map { x -> Expr in
        let (p, q) = matrixFirst ? (x, k) : (k, x)
        return Operators.scalar(op, p, q, .float)!
      }
      return MetalValue(m.type, out)
    default: break
    }
    throw MetalError("invalid operands to binary '\(op)' (\(a.type) and \(b.type))", at: location)
  }
}
