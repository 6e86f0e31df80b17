/// Index of a node in a ``Program``.
public struct NodeID: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var index: Int32
  public init(_ index: Int) { self.index = Int32(index) }
  public static func < (a: NodeID, b: NodeID) -> Bool { a.index < b.index }
  public var description: String { "%\(index)" }
}

/// One scalar operation: its op, its result kind and its operands.
public struct Node: Hashable, Sendable {
  public var op: Op
  public var kind: ScalarKind
  public var args: [NodeID]
}

/// A flat, hash-consed table of scalar nodes (a DAG in topological order: every
/// operand precedes its user). Adding a node that already exists returns the
/// existing one, so common subexpressions merge as they are built.
///
/// `outputs` name the values the program computes: four floats (RGBA,
/// premultiplied) for an effect stage or a kernel pass.
public struct Program: Sendable, Hashable, CustomStringConvertible {
  public private(set) var nodes: [Node] = []
  private var index: [Node: NodeID] = [:]
  public var outputs: [NodeID] = []
  /// How many computations adding found already present and shared (common
  /// subexpressions merged by hash-consing), since the program was created.
  public private(set) var merged = 0

  public init() {}

  /// Programs are equal when their nodes and outputs are (hash-consing state aside).
  public static func == (a: Program, b: Program) -> Bool { a.outputs == b.outputs && a.nodes == b.nodes }
  public func hash(into hasher: inout Hasher) {
    hasher.combine(outputs)
    hasher.combine(nodes)
  }

  public subscript(id: NodeID) -> Node { nodes[Int(id.index)] }
  public var count: Int { nodes.count }

  /// Adds (or finds) a node. Operand kinds are checked: a mismatch is a bug in
  /// the caller (the front end checks user types first), so it traps.
  @discardableResult
  public mutating func add(_ op: Op, _ args: [NodeID] = []) -> NodeID {
    let kinds = args.map { self[$0].kind }
    switch op.resultKind(kinds) {
    case .success(let kind): return insert(Node(op: op, kind: kind, args: args))
    case .failure(let e): preconditionFailure("internal IR error: \(e)")
    }
  }

  private mutating func insert(_ node: Node) -> NodeID {
    if let id = index[node] {
      if node.op.isPure && !node.args.isEmpty { merged += 1 }
      return id
    }
    let id = NodeID(nodes.count)
    nodes.append(node)
    index[node] = id
    return id
  }

  public mutating func constant(_ v: Float) -> NodeID { add(.constant(.float(v))) }
  public mutating func constant(_ v: Int32) -> NodeID { add(.constant(.int(v))) }
  public mutating func constant(_ v: Bool) -> NodeID { add(.constant(.bool(v))) }

  /// The constant value of a node, if it is a constant.
  public func constantValue(_ id: NodeID) -> Scalar? {
    if case .constant(let s) = self[id].op { return s }
    return nil
  }

  /// The nodes reachable from `outputs` (what dead-code elimination keeps).
  public func live() -> [Bool] {
    var live = [Bool](repeating: false, count: nodes.count)
    for o in outputs { live[Int(o.index)] = true }
    for i in stride(from: nodes.count - 1, through: 0, by: -1) where live[i] {
      for a in nodes[i].args { live[Int(a.index)] = true }
    }
    return live
  }

  /// Checks the invariants: operands precede users, kinds agree with the op's
  /// signature, outputs exist, loops are well formed, and a loop body's
  /// leaves (`inLoop`) exist in its loop — a program outside a loop has none.
  /// Returns a description of the first violation.
  public func verify(inLoop loop: Loop? = nil) -> String? {
    var checked = Set<ObjectIdentifier>()
    for (i, n) in nodes.enumerated() {
      for a in n.args where Int(a.index) >= i { return "node %\(i) uses %\(a.index), which does not precede it" }
      guard case .success(let k) = n.op.resultKind(n.args.map { self[$0].kind }), k == n.kind else {
        return "node %\(i) (\(n.op.name)) has ill-kinded operands"
      }
      switch n.op {
      case .loopIndex where loop == nil, .loopAccumulator where loop == nil, .loopCapture where loop == nil:
        return "node %\(i) (\(n.op.name)) outside a loop body"
      case .loopAccumulator(let k, let kind) where loop!.accumulators.indices.contains(k) ? loop!.accumulators[k] != kind : true:
        return "node %\(i) reads accumulator \(k) as \(kind), which the loop does not have"
      case .loopCapture(let k, let kind) where loop!.captures.indices.contains(k) ? loop!.captures[k] != kind : true:
        return "node %\(i) reads captured value \(k) as \(kind), which the loop does not have"
      case .fold(let inner, _) where checked.insert(ObjectIdentifier(inner)).inserted:
        if let e = inner.verify() { return "node %\(i): \(e)" }
      default: break
      }
    }
    for o in outputs where Int(o.index) >= nodes.count { return "output \(o) does not exist" }
    return nil
  }

  /// One line per live node: `%7 = mul %3, %6 : float`; a fold names its
  /// loop (`L0`), and each loop's body follows, indented.
  public var description: String {
    var loops: [Loop] = []
    var numbers: [ObjectIdentifier: Int] = [:]
    var lines: [String] = []
    func list(_ p: Program, indent: String) {
      let live = p.live()
      for (i, n) in p.nodes.enumerated() where live[i] {
        var name = n.op.name
        if case .fold(let loop, let k) = n.op {
          if numbers[ObjectIdentifier(loop)] == nil {
            numbers[ObjectIdentifier(loop)] = loops.count
            loops.append(loop)
          }
          name = "fold[L\(numbers[ObjectIdentifier(loop)]!)].\(k)"
        }
        let args = n.args.map(\.description).joined(separator: ", ")
        lines.append("\(indent)%\(i) = \(name)\(args.isEmpty ? "" : " " + args) : \(n.kind)")
      }
      lines.append(indent + "return " + p.outputs.map(\.description).joined(separator: ", "))
    }
    list(self, indent: "  ")
    var next = 0
    while next < loops.count {
      let loop = loops[next]
      lines.append("  L\(next) = \(loop):")
      list(loop.body, indent: "    ")
      next += 1
    }
    return lines.joined(separator: "\n")
  }

  /// Number of live nodes, by category, for `fxc dump` and cost models.
  public var liveCount: Int { live().lazy.filter { $0 }.count }
}
