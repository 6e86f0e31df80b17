import FXDSL
import FXIR

// Common, geometric, relational and matrix functions.

extension MetalBuiltins {
  static let common: [String: Function] = [
    "mix": { try lanewise("mix", $0, $1, arity: 3, floatOnly: true) { mix($0[0], $0[1], $0[2]) } },
    "smoothstep": { try lanewise("smoothstep", $0, $1, arity: 3, floatOnly: true) { smoothstep($0[0], $0[1], $0[2]) } },
    "clamp": { try ordered("clamp", $0, $1, arity: 3) { k, l in minimum(maximum(l[0], l[1], k), l[2], k) } },
    "min": { try ordered("min", $0, $1, arity: 2) { k, l in minimum(l[0], l[1], k) } },
    "max": { try ordered("max", $0, $1, arity: 2) { k, l in maximum(l[0], l[1], k) } },
    "min3": { try ordered("min3", $0, $1, arity: 3) { k, l in minimum(minimum(l[0], l[1], k), l[2], k) } },
    "max3": { try ordered("max3", $0, $1, arity: 3) { k, l in maximum(maximum(l[0], l[1], k), l[2], k) } },
    "median3": {
      try ordered("median3", $0, $1, arity: 3) { k, l in
        maximum(minimum(l[0], l[1], k), minimum(maximum(l[0], l[1], k), l[2], k), k)
      }
    },
    "fmin3": { try lanewise("fmin3", $0, $1, arity: 3, floatOnly: true) { min(min($0[0], $0[1]), $0[2]) } },
    "fmax3": { try lanewise("fmax3", $0, $1, arity: 3, floatOnly: true) { max(max($0[0], $0[1]), $0[2]) } },
    "fmedian3": {
      try lanewise("fmedian3", $0, $1, arity: 3, floatOnly: true) { max(min($0[0], $0[1]), min(max($0[0], $0[1]), $0[2])) }
    },
    "abs": { try ordered("abs", $0, $1, arity: 1) { k, l in k == .uint ? l[0] : abs(l[0]) } },
    "sign": {
      try lanewise("sign", $0, $1, arity: 1, floatOnly: true) { l in
        let x = l[0]
        return select(x > 0, 1, select(x < 0, -1, select(isnan(x), 0, x)))
      }
    },
    // Not fused: fxc's strict mode gives a·b + c rounded twice.
    "fma": { try lanewise("fma", $0, $1, arity: 3, floatOnly: true) { fma($0[0], $0[1], $0[2]) } },
    "mad": { try lanewise("mad", $0, $1, arity: 3, floatOnly: true) { $0[0] * $0[1] + $0[2] } },
    "select": metalSelect,
    "transpose": transpose,
    "determinant": determinant,
  ]

  /// A lane-wise function that needs the operands' kind (`uint` orders differently from `int`).
  private static func ordered(
    _ name: String, _ args: [MetalValue], _ location: SourceLocation, arity: Int, _ f: (ScalarType, [Expr]) -> Expr
  ) throws -> MetalValue {
    let (kind, lanes) = try shaped(name, args, location, arity: arity, floatOnly: false)
    return .vector(kind, (0..<lanes[0].count).map { i in f(kind, lanes.map { $0[i] }) })
  }

  /// `min` in `kind`'s order: Metal's fmin for floats, unsigned for `uint`.
  static func minimum(_ a: Expr, _ b: Expr, _ kind: ScalarType) -> Expr {
    kind == .uint ? select((a ^ Operators.signBit) < (b ^ Operators.signBit), a, b) : min(a, b)
  }

  /// `max` in `kind`'s order.
  static func maximum(_ a: Expr, _ b: Expr, _ kind: ScalarType) -> Expr {
    kind == .uint ? select((a ^ Operators.signBit) > (b ^ Operators.signBit), a, b) : max(a, b)
  }

  /// Metal's `select(a, b, c)`: `c ? b : a`, lane by lane (a scalar `c` picks whole vectors).
  private static func metalSelect(_ args: [MetalValue], _ location: SourceLocation) throws -> MetalValue {
    guard args.count == 3 else { throw MetalError("select takes 3 arguments, got \(args.count)", at: location) }
    guard case .vector(.bool, let m) = args[2].type else {
      throw MetalError("select's third argument must be bool or a bool vector, got \(args[2].type)", at: location)
    }
    let (kind, lanes) = try shaped("select", Array(args.prefix(2)), location, arity: 2, floatOnly: false)
    let n = max(lanes[0].count, m)
    func lane(_ l: [Expr], _ i: Int) -> Expr { l.count == 1 ? l[0] : l[i] }
    let out = (0..<n).map { i in choose(lane(args[2].scalars, i), lane(lanes[1], i), lane(lanes[0], i)) }
    return .vector(kind, out)
  }

  private static func transpose(_ args: [MetalValue], _ location: SourceLocation) throws -> MetalValue {
    guard args.count == 1, case .matrix(let k, let c, let r) = args[0].type else {
      throw MetalError("transpose takes one matrix", at: location)
    }
    let m = args[0].scalars
    return MetalValue(.matrix(k, columns: r, rows: c), (0..<r).flatMap { i in (0..<c).map { j in m[j * r + i] } })
  }

  private static func determinant(_ args: [MetalValue], _ location: SourceLocation) throws -> MetalValue {
    guard args.count == 1, case .matrix(let k, let c, let r) = args[0].type, c == r, c <= 3 else {
      throw MetalError("unsupported: determinant of anything but a 2×2 or 3×3 matrix", at: location)
    }
    let m = args[0].scalars
    func e(_ col: Int, _ row: Int) -> Expr { m[col * r + row] }
    if c == 2 { return .vector(k, [e(0, 0) * e(1, 1) - e(1, 0) * e(0, 1)]) }
    let d =
      e(0, 0) * (e(1, 1) * e(2, 2) - e(2, 1) * e(1, 2)) - e(1, 0) * (e(0, 1) * e(2, 2) - e(2, 1) * e(0, 2)) + e(2, 0)
      * (e(0, 1) * e(1, 2) - e(1, 1) * e(0, 2))
    return .vector(k, [d])
  }

  // MARK: geometric

  static func dotLanes(_ a: [Expr], _ b: [Expr]) -> Expr {
    zip(a, b).dropFirst().reduce(a[0] * b[0]) { $0 + $1.0 * $1.1 }
  }

  /// Two float vectors of one length.
  private static func pair(_ name: String, _ args: [MetalValue], _ location: SourceLocation, arity: Int = 2) throws
    -> (ScalarType, [[Expr]])
  {
    let (kind, lanes) = try shaped(name, args, location, arity: arity, floatOnly: true)
    return (kind, lanes)
  }

  static let geometric: [String: Function] = [
    "dot": { args, at in
      let (k, l) = try pair("dot", args, at)
      return .vector(k, [dotLanes(l[0], l[1])])
    },
    "length": { args, at in
      let (k, l) = try pair("length", args, at, arity: 1)
      return .vector(k, [sqrt(dotLanes(l[0], l[0]))])
    },
    "length_squared": { args, at in
      let (k, l) = try pair("length_squared", args, at, arity: 1)
      return .vector(k, [dotLanes(l[0], l[0])])
    },
    "distance": { args, at in
      let (k, l) = try pair("distance", args, at)
      let d = zip(l[0], l[1]).map { $0 - $1 }
      return .vector(k, [sqrt(dotLanes(d, d))])
    },
    "distance_squared": { args, at in
      let (k, l) = try pair("distance_squared", args, at)
      let d = zip(l[0], l[1]).map { $0 - $1 }
      return .vector(k, [dotLanes(d, d)])
    },
    "normalize": { args, at in
      let (k, l) = try pair("normalize", args, at, arity: 1)
      let n = sqrt(dotLanes(l[0], l[0]))
      return .vector(k, l[0].map { $0 / n })
    },
    "cross": { args, at in
      let (k, l) = try pair("cross", args, at)
      guard l[0].count == 3 else { throw MetalError("cross takes two 3-vectors", at: at) }
      let (a, b) = (l[0], l[1])
      return .vector(k, [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
    },
    "reflect": { args, at in
      let (k, l) = try pair("reflect", args, at)
      let d = dotLanes(l[1], l[0])
      return .vector(k, zip(l[0], l[1]).map { i, n in i - 2 * d * n })
    },
    "refract": refract,
    "faceforward": { args, at in
      let (k, l) = try pair("faceforward", args, at, arity: 3)
      let front = dotLanes(l[2], l[1]) < 0
      return .vector(k, l[0].map { choose(front, $0, -$0) })
    },
  ]

  /// `refract(I, N, eta)`: `k = 1 − η²(1 − (N·I)²)`; 0 when `k < 0`, else `ηI − (η(N·I) + √k)N`.
  private static func refract(_ args: [MetalValue], _ location: SourceLocation) throws -> MetalValue {
    guard args.count == 3, args[2].scalars.count == 1 else {
      throw MetalError("refract takes (vector I, vector N, scalar eta)", at: location)
    }
    let (k, l) = try pair("refract", Array(args.prefix(2)), location)
    let eta = convertScalar(args[2].scalars[0], from: args[2].type.scalarType ?? .float, to: .float)
    let d = dotLanes(l[1], l[0])
    let kk = 1 - eta * eta * (1 - d * d)
    let out = zip(l[0], l[1]).map { i, n in select(kk < 0, 0, eta * i - (eta * d + sqrt(max(kk, 0))) * n) }
    return .vector(k, out)
  }

  // MARK: relational

  static let relational: [String: Function] = [
    "any": { args, at in try reduceBool("any", args, at) { $0 || $1 } },
    "all": { args, at in try reduceBool("all", args, at) { $0 && $1 } },
    "isnan": { try lanewise("isnan", $0, $1, arity: 1, floatOnly: true, result: .bool) { isnan($0[0]) } },
    "isinf": { try lanewise("isinf", $0, $1, arity: 1, floatOnly: true, result: .bool) { abs($0[0]) == Expr(Float.infinity) } },
    "isfinite": { try lanewise("isfinite", $0, $1, arity: 1, floatOnly: true, result: .bool) { isfinite($0[0]) } },
    "signbit": {
      try lanewise("signbit", $0, $1, arity: 1, floatOnly: true, result: .bool) { l in l[0] < 0 || (l[0] == 0 && 1 / l[0] < 0) }
    },
  ]

  private static func reduceBool(_ name: String, _ args: [MetalValue], _ location: SourceLocation, _ f: (Expr, Expr) -> Expr)
    throws -> MetalValue
  {
    guard args.count == 1, case .vector(let s, _) = args[0].type else {
      throw MetalError("\(name) takes one bool vector", at: location)
    }
    let lanes = args[0].scalars.map { convertScalar($0, from: s, to: .bool) }
    return .vector(.bool, [lanes.dropFirst().reduce(lanes[0], f)])
  }
}
