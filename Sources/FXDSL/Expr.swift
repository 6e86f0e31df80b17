import FXIR

/// A node of the front end's expression DAG. Immutable; shared freely.
final class ExprNode {
  enum Kind {
    case constant(Scalar, fromIntegerLiteral: Bool)
    case position
    case size
    case param(Param)
    /// Lanes of the operands, concatenated (`float4(rgb, a)`).
    case vector([ExprNode])
    case swizzle(ExprNode, [Int])
    /// A scalar op applied lane-wise; scalar operands broadcast.
    case lanewise(Op, [ExprNode])
    /// `image.sample(p)` → float4.
    case sample(ImageNode, Sampler, ExprNode)
    /// The size of an image, float2.
    case imageSize(ImageNode)
    /// An ill-typed construction; carries the first error.
    case invalid(GraphError)
    /// A loop's index and accumulator `k` (only inside its body), and its final accumulator `k`.
    case loopIndex(LoopLink)
    case loopAccumulator(LoopLink, Int)
    case foldResult(LoopNode, Int)
  }

  let kind: Kind
  let type: ValueType

  init(_ kind: Kind, _ type: ValueType) {
    self.kind = kind
    self.type = type
  }

  var error: GraphError? {
    if case .invalid(let e) = kind { return e }
    return nil
  }
}

/// A typed expression of the effect language: a value per pixel, built with
/// Swift operators and Metal-named functions (`mix`, `smoothstep`, `fract`, …)
/// so that an effect reads like a shader.
///
/// Building never traps: an ill-typed expression (`float3 + float4`, a swizzle
/// `.q`) becomes an invalid value whose error — what and where — is thrown when
/// the graph is checked (``EffectGraph/init(output:)``).
///
/// Integer literals are floats unless combined with an `int` expression
/// (`x * 2` is a float product, `cell & 3` an int mask), as a shader writer
/// expects.
@dynamicMemberLookup
public struct Expr: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  CustomStringConvertible
{
  let node: ExprNode

  init(_ node: ExprNode) { self.node = node }
  init(_ kind: ExprNode.Kind, _ type: ValueType) { self.node = ExprNode(kind, type) }

  public init(floatLiteral value: Float) { self.init(.constant(.float(value), fromIntegerLiteral: false), .float) }
  public init(integerLiteral value: Int) {
    self.init(.constant(.float(Float(value)), fromIntegerLiteral: true), .float)
  }
  public init(booleanLiteral value: Bool) { self.init(.constant(.bool(value), fromIntegerLiteral: false), .bool) }

  /// A float constant.
  public init(_ value: Float) { self.init(floatLiteral: value) }
  /// A float constant (converted from Double).
  public init(_ value: Double) { self.init(floatLiteral: Float(value)) }
  /// A 32-bit integer constant (`Expr.int(0x9E3779B1)` wraps into Int32 like a `uint` literal in Metal).
  public static func int(_ value: Int) -> Expr {
    Expr(.constant(.int(Int32(truncatingIfNeeded: value)), fromIntegerLiteral: false), .int)
  }
  /// A declared parameter: folded when constant, a kernel argument when uniform.
  public init(_ param: Param) { self.init(.param(param), .float) }

  static func invalid(_ message: String, _ location: CodeLocation? = nil) -> Expr {
    Expr(.invalid(GraphError(message, location: location)), .float)
  }

  /// An expression of type `type` that stands for `error`: building a graph
  /// that contains it throws a ``GraphError`` whose message is the error's
  /// description. For a front end whose effect bodies can fail (a Metal
  /// shader), so that a failure is reported, never replaced by a fallback.
  public static func failure(_ error: any Error, type: ValueType) -> Expr {
    var e = GraphError("\(error)")
    e.category = "error"
    return Expr(.invalid(e), type)
  }

  /// The type of this expression.
  public var type: ValueType { node.type }

  /// The pixel center being computed, in pixels (`(i + 0.5, j + 0.5)`), float2.
  public static var position: Expr { Expr(.position, .float2) }
  /// The output size `(width, height)` in pixels, float2.
  public static var size: Expr { Expr(.size, .float2) }

  /// The constant value, if this is a scalar constant.
  public var constantValue: Float? {
    if case .constant(let s, _) = node.kind { return s.floatValue }
    if case .param(let p) = node.kind, !p.isUniform { return p.value }
    return nil
  }

  /// The value of a scalar expression made of constants and pure lane-wise
  /// ops (`min(0, 8) - 0`), computed by the ops' meaning (``Semantics``)
  /// without changing the expression; nil when it depends on a pixel, a
  /// uniform or a read, or is nested more than 32 ops deep.
  public var foldedValue: Float? { Self.fold(node, depth: 32)?.floatValue }

  private static func fold(_ node: ExprNode, depth: Int) -> Scalar? {
    guard node.type.lanes == 1, depth > 0 else { return nil }
    switch node.kind {
    case .constant(let s, _): return s
    case .param(let p) where !p.isUniform: return .float(p.value)
    case .lanewise(let op, let args):
      var scalars: [Scalar] = []
      for a in args {
        guard let s = fold(a, depth: depth - 1) else { return nil }
        scalars.append(s)
      }
      return Semantics.evaluate(op, scalars)
    default: return nil
    }
  }

  // MARK: lanes

  /// Swizzles with Metal's names: `.x`, `.rgb`, `.bgra`, `.xy`… (`xyzw` or `rgba`
  /// letters, not mixed, 1…4 of them, each in range).
  public subscript(dynamicMember name: String) -> Expr { swizzle(name) }

  /// The swizzle named by `name`; invalid if `name` is not a valid swizzle of this type.
  public func swizzle(_ name: String) -> Expr {
    if let e = node.error { return Expr(.invalid(e), .float) }
    let sets = ["xyzw", "rgba"]
    for set in sets {
      let letters = Array(set)
      let idx = name.map { letters.firstIndex(of: $0) }
      if !name.isEmpty, name.count <= 4, idx.allSatisfy({ $0 != nil && $0! < type.lanes }) {
        let lanes = idx.map { $0! }
        if lanes == Array(0..<type.lanes) { return self }
        return Expr(.swizzle(node, lanes), ValueType(type.scalar, lanes.count))
      }
    }
    return .invalid("'.\(name)' is not a swizzle of a \(type) value")
  }

  /// Lane `i` as a scalar.
  func lane(_ i: Int) -> Expr {
    type.lanes == 1 ? self : Expr(.swizzle(node, [i]), ValueType(type.scalar))
  }

  public var description: String { "Expr<\(type)>" }
}

/// The type rules of lane-wise operations, shared by every operator and built-in.
extension Expr {
  /// Applies `op` lane by lane. Scalars broadcast; an integer literal meeting an
  /// int operand becomes an int. `name` is what the user wrote, for messages.
  static func lanewise(_ op: Op, _ operands: [Expr], name: String, at location: CodeLocation? = nil) -> Expr {
    if let e = operands.lazy.compactMap(\.node.error).first { return Expr(.invalid(e), .float) }
    var args = operands
    if args.contains(where: { $0.type.scalar == .int }) {
      args = args.map { a in
        if case .constant(let s, true) = a.node.kind { return .int(Int(s.floatValue)) }
        return a
      }
    }
    let lanes = args.map(\.type.lanes).max() ?? 1
    let signature = args.map(\.type.description).joined(separator: ", ")
    guard args.allSatisfy({ $0.type.lanes == 1 || $0.type.lanes == lanes }) else {
      return .invalid("\(name) cannot combine (\(signature)): lane counts differ", location)
    }
    switch op.resultKind(args.map(\.type.scalar)) {
    case .success(let k):
      return Expr(.lanewise(op, args.map(\.node)), ValueType(k, lanes))
    case .failure:
      return .invalid("\(name) cannot take (\(signature))", location)
    }
  }
}

extension Param {
  /// This parameter as an expression.
  public var expr: Expr { Expr(self) }
}
