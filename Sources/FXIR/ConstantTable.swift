/// The values of an ``Op/table(_:)``: one scalar per index `first…first+n−1`,
/// all of one kind (float or int). An index outside reads the nearest end, so
/// a table is defined for every int and emitted code never reads past it.
///
/// ``LoopSimplify`` makes one for a loop accumulator whose every value is
/// known at compile time but which the loop's other work reads each
/// iteration (a Gaussian's weight `w·r`, with `r` itself multiplied by a
/// constant each step): the table holds the accumulator's value on entry to
/// each iteration, computed by ``Semantics`` in the loop's order, so reading
/// it gives the bits the recurrence gives.
public struct ConstantTable: Hashable, Sendable, CustomStringConvertible {
  /// The index of ``values``' first element.
  public let first: Int32
  public let values: [Scalar]

  /// - Precondition: `values` is not empty and holds floats only or ints only.
  public init(first: Int32, values: [Scalar]) {
    precondition(!values.isEmpty && (values.allSatisfy { $0.kind == .float } || values.allSatisfy { $0.kind == .int }))
    self.first = first
    self.values = values
  }

  public var kind: ScalarKind { values[0].kind }

  /// The value at `index`, the nearest end's outside `first…first+n−1`.
  public func value(at index: Int32) -> Scalar {
    let i = Int64(index) - Int64(first)
    return values[Int(Swift.min(Swift.max(i, 0), Int64(values.count - 1)))]
  }

  public var description: String {
    let shown = values.prefix(6).map(\.description).joined(separator: ", ")
    return "table[\(first)…\(Int(first) + values.count - 1): \(shown)\(values.count > 6 ? ", …" : "")]"
  }
}
