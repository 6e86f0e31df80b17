import FXDSL
import FXIR

/// A value while a function is lowered: its Metal type and its scalars,
/// flattened (a vector's lanes, a matrix's columns one after another, an
/// array's elements, a struct's fields), each a scalar FXDSL ``Expr``
/// (bool; int for `int` and `uint`; float for `float` and `half`) — or, for
/// a layer, texture, sampler or buffer, its handle.
struct MetalValue {
  var type: MetalType
  var scalars: [Expr]
  var handle: Handle?

  enum Handle {
    case layer(Layer)
    /// An `.image` argument: the graph input it reads.
    case texture(Layer)
    case sampler(TextureSampler)
    /// A `.floatArray` / `.colorArray` argument: its elements' scalars.
    case buffer([Expr])
  }

  init(_ type: MetalType, _ scalars: [Expr]) {
    self.type = type
    self.scalars = scalars
  }

  init(handle: Handle, type: MetalType) {
    self.type = type
    self.scalars = []
    self.handle = handle
  }

  /// A scalar or vector of `kind`.
  static func vector(_ kind: ScalarType, _ lanes: [Expr]) -> MetalValue { MetalValue(.vector(kind, lanes.count), lanes) }

  /// The zero of a type (Metal leaves uninitialised locals undefined; fxc makes them 0).
  static func zero(_ type: MetalType) -> MetalValue {
    MetalValue(type, type.scalarKinds.map { zeroScalar($0) })
  }
}

/// A `constexpr sampler`: Metal's filter and address mode, and whether
/// coordinates are normalised (`coord::normalized`, Metal's default) or in pixels.
struct TextureSampler {
  var sampler = Sampler(filter: .nearest, address: .clampToEdge)
  var normalized = true
}

func zeroScalar(_ kind: ScalarType) -> Expr {
  switch kind {
  case .bool: Expr(booleanLiteral: false)
  case .int, .uint: Expr.int(0)
  case .half, .float: Expr(Float(0))
  }
}

/// A bool constant's value, if `e` is one.
func constantBool(_ e: Expr) -> Bool? {
  guard e.type == .bool, let c = e.constantValue else { return nil }
  return c != 0
}

/// `a && b`, folded when either side is a constant.
func conjunction(_ a: Expr?, _ b: Expr?) -> Expr? {
  guard let a else { return b }
  guard let b else { return a }
  if let c = constantBool(a) { return c ? b : a }
  if let c = constantBool(b) { return c ? a : b }
  return a && b
}

/// `!a`, folded for a constant.
func negation(_ a: Expr) -> Expr {
  if let c = constantBool(a) { return Expr(booleanLiteral: !c) }
  return !a
}

/// `c ? a : b` on one scalar, folded when `c` is a constant or both sides are the same node.
func choose(_ c: Expr?, _ a: Expr, _ b: Expr) -> Expr {
  guard let c else { return a }
  if let k = constantBool(c) { return k ? a : b }
  if let x = constantBool(a), let y = constantBool(b) { return x == y ? a : x ? c : negation(c) }
  return select(c, a, b)
}

/// Converts one scalar between Metal's kinds, as C and Metal do: truncation
/// toward zero from float (saturating), `uint` bits read as unsigned, `x != 0` to bool.
func convertScalar(_ e: Expr, from: ScalarType, to: ScalarType) -> Expr {
  if from == to || (from.isFloating && to.isFloating) || (from.isInteger && to.isInteger) { return e }
  // A small whole constant converts to a constant (`float y = -2` keeps a loop's trip count known).
  if let c = e.constantValue, c == c.rounded(), Swift.abs(c) < 16_777_216, from != .bool, to != .bool,
    from == .int || (from.isFloating && c >= 0) || (from == .uint && c >= 0)
  {
    return to.isFloating ? Expr(c) : Expr.int(Int(c))
  }
  switch (from, to) {
  case (.bool, .int), (.bool, .uint): return choose(e, .int(1), .int(0))
  case (.bool, _): return choose(e, Expr(Float(1)), Expr(Float(0)))
  case (_, .bool): return from.isFloating ? e != Expr(Float(0)) : e != Expr.int(0)
  case (.int, _): return float(e)
  case (.uint, _): return floatFromUnsigned(e)
  case (_, .int): return int(e)
  default:
    // float → uint: values from 2³¹ up wrap into the int's negative range, as their bits.
    let big = e >= Expr(Float(2_147_483_648))
    return select(big, int(e - Expr(Float(4_294_967_296))), int(max(e, Expr(Float(0)))))
  }
}
