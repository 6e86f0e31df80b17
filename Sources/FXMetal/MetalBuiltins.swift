import FXDSL
import FXIR
import Foundation

/// The Metal standard library functions fxc knows (Metal Shading Language
/// Specification §6: math, common, geometric, relational, matrix), each
/// written with FXDSL's Metal-named built-ins and primitive ops. `half`
/// versions compute in fp32. `fast::`, `precise::` and `metal::` prefixes are
/// accepted and mean the same function.
enum MetalBuiltins {
  typealias Function = ([MetalValue], SourceLocation) throws -> MetalValue

  static let table: [String: Function] = {
    var t: [String: Function] = [:]
    for (name, f) in floatUnary { t[name] = { try unaryFloat(name, $0, $1, f) } }
    for (name, f) in floatBinary { t[name] = { try lanewise(name, $0, $1, arity: 2, floatOnly: true) { f($0[0], $0[1]) } } }
    t.merge(common) { a, _ in a }
    t.merge(geometric) { a, _ in a }
    t.merge(relational) { a, _ in a }
    return t
  }()

  static var names: [String] { Array(table.keys) }

  /// Named constants: `M_PI_F`, `M_PI_H`, `MAXFLOAT`, `INFINITY`…
  static let constants: [String: Float] = [
    "M_PI_F": .pi, "M_PI_H": .pi, "M_PI": .pi, "M_PI_2_F": .pi / 2, "M_PI_2_H": .pi / 2, "M_PI_4_F": .pi / 4,
    "M_1_PI_F": 1 / .pi, "M_2_PI_F": 2 / .pi, "M_E_F": Float(M_E), "M_E_H": Float(M_E), "M_SQRT2_F": Float(2).squareRoot(),
    "M_SQRT1_2_F": Float(0.5).squareRoot(), "M_LN2_F": Float(M_LN2), "M_LN10_F": Float(M_LN10),
    "M_LOG2E_F": Float(M_LOG2E), "M_LOG10E_F": Float(M_LOG10E), "MAXFLOAT": .greatestFiniteMagnitude,
    "FLT_MAX": .greatestFiniteMagnitude, "HUGE_VALF": .infinity, "INFINITY": .infinity, "NAN": .nan,
    "FLT_EPSILON": .ulpOfOne, "HALF_MAX": 65504, "FLT_MIN": .leastNormalMagnitude,
  ]

  /// The function called `name` (after `fast::`, `precise::`, `metal::`), if it is a built-in.
  static func function(_ name: String) -> Function? {
    var bare = name
    for prefix in ["metal::", "fast::", "precise::"] where bare.hasPrefix(prefix) { bare.removeFirst(prefix.count) }
    return table[bare]
  }

  // MARK: argument shapes

  /// The arguments as lanes of one kind and length (scalars broadcast): the
  /// common kind (float where `floatOnly` and the arguments are integers).
  static func shaped(_ name: String, _ args: [MetalValue], _ location: SourceLocation, arity: Int, floatOnly: Bool) throws
    -> (kind: ScalarType, lanes: [[Expr]])
  {
    guard args.count == arity else {
      throw MetalError("\(name) takes \(arity) argument\(arity == 1 ? "" : "s"), got \(args.count)", at: location)
    }
    var kind = ScalarType.bool
    var n = 1
    for a in args {
      guard case .vector(let s, let m) = a.type else {
        throw MetalError("no matching function for call to '\(name)' with a \(a.type) argument", at: location)
      }
      guard m == n || m == 1 || n == 1 else {
        throw MetalError("\(name): arguments of different lengths (\(args.map(\.type.description).joined(separator: ", ")))", at: location)
      }
      n = max(n, m)
      kind = kind.rank >= s.rank ? kind : s
    }
    if kind == .bool { kind = .int }
    if floatOnly, !kind.isFloating { kind = .float }
    let lanes = args.map { a -> [Expr] in
      let converted = a.scalars.map { convertScalar($0, from: a.type.scalarType!, to: kind) }
      return converted.count == n ? converted : Array(repeating: converted[0], count: n)
    }
    return (kind, lanes)
  }

  /// A function applied lane by lane; `f` gets one lane of every argument.
  static func lanewise(
    _ name: String, _ args: [MetalValue], _ location: SourceLocation, arity: Int, floatOnly: Bool,
    result: ScalarType? = nil, _ f: ([Expr]) -> Expr
  ) throws -> MetalValue {
    let (kind, lanes) = try shaped(name, args, location, arity: arity, floatOnly: floatOnly)
    let n = lanes[0].count
    return .vector(result ?? kind, (0..<n).map { i in f(lanes.map { $0[i] }) })
  }

  private static func unaryFloat(_ name: String, _ args: [MetalValue], _ location: SourceLocation, _ f: (Expr) -> Expr) throws
    -> MetalValue
  {
    try lanewise(name, args, location, arity: 1, floatOnly: true) { f($0[0]) }
  }

  // MARK: math

  static func trunc(_ x: Expr) -> Expr { select(x < 0, ceil(x), floor(x)) }

  static let floatUnary: [String: (Expr) -> Expr] = [
    "sin": { sin($0) }, "cos": { cos($0) }, "tan": { sin($0) / cos($0) },
    "asin": { atan2($0, sqrt((1 - $0) * (1 + $0))) }, "acos": { atan2(sqrt((1 - $0) * (1 + $0)), $0) },
    "atan": { atan2($0, Expr(Float(1))) },
    "sinh": { (exp($0) - exp(-$0)) * 0.5 }, "cosh": { (exp($0) + exp(-$0)) * 0.5 },
    "tanh": { x in
      let e = exp(x * 2)
      return select(abs(x) < 0.01, x - x * x * x / 3, select(abs(x) > 10, select(x < 0, -1, 1), (e - 1) / (e + 1)))
    },
    "exp": { exp($0) }, "exp2": { pow(Expr(Float(2)), $0) }, "exp10": { pow(Expr(Float(10)), $0) },
    "log": { log($0) }, "log2": { log($0) * Expr(Float(1 / M_LN2)) }, "log10": { log($0) * Expr(Float(1 / M_LN10)) },
    "sqrt": { sqrt($0) }, "rsqrt": { 1 / sqrt($0) }, "floor": { floor($0) }, "ceil": { ceil($0) },
    "trunc": { trunc($0) }, "fract": { fract($0) }, "fabs": { abs($0) }, "saturate": { saturate($0) },
    "round": { x in
      let t = trunc(x)
      return select(abs(x - t) >= 0.5, t + select(x < 0, -1, 1), t)
    },
    "rint": { x in
      let t = floor(x), d = x - t
      let even = t - 2 * floor(t * 0.5) == 0
      return select(d > 0.5, t + 1, select(d < 0.5, t, select(even, t, t + 1)))
    },
    "sinpi": { sin($0 * Expr(Float.pi)) }, "cospi": { cos($0 * Expr(Float.pi)) },
    "tanpi": { sin($0 * Expr(Float.pi)) / cos($0 * Expr(Float.pi)) },
    "asinh": { x in select(x < 0, -1, 1) * log(abs(x) + sqrt(x * x + 1)) }, "acosh": { x in log(x + sqrt(x * x - 1)) },
    "atanh": { x in log((1 + x) / (1 - x)) * 0.5 },
    "degrees": { $0 * Expr(Float(180 / Double.pi)) }, "radians": { $0 * Expr(Float(Double.pi / 180)) },
  ]

  static let floatBinary: [String: (Expr, Expr) -> Expr] = [
    "pow": { pow($0, $1) }, "powr": { pow($0, $1) }, "atan2": { atan2($0, $1) },
    "fmod": { x, y in x - y * trunc(x / y) }, "fmin": { min($0, $1) }, "fmax": { max($0, $1) },
    "step": { step($0, $1) }, "ldexp": { x, k in x * pow(Expr(Float(2)), k) }, "fdim": { x, y in select(x > y, x - y, 0) },
    "copysign": { x, y in select(y < 0 || (y == 0 && 1 / y < 0), -abs(x), abs(x)) },
  ]
}
