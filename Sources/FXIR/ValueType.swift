/// The type of an ``Expr``: a scalar kind and 1…4 lanes (`float`, `float2`…,
/// `int`, `bool3`, … as in Metal).
public struct ValueType: Hashable, Sendable, CustomStringConvertible {
  public var scalar: ScalarKind
  public var lanes: Int

  public init(_ scalar: ScalarKind, _ lanes: Int = 1) {
    self.scalar = scalar
    self.lanes = lanes
  }

  public static let float = ValueType(.float)
  public static let float2 = ValueType(.float, 2)
  public static let float3 = ValueType(.float, 3)
  public static let float4 = ValueType(.float, 4)
  public static let int = ValueType(.int)
  public static let bool = ValueType(.bool)

  public var description: String { lanes == 1 ? "\(scalar)" : "\(scalar)\(lanes)" }
}
