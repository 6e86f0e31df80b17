import Dispatch
import FXIR

/// A compiler bug: a pass left IR that fails verification. Thrown (not a
/// trap) so that a release build reports it and the caller can fall back;
/// it is never a property of the user's graph.
public struct InternalError: Error, CustomStringConvertible {
  /// The pass after which verification failed.
  public var pass: String
  /// What the verifier found.
  public var problem: String
  public var description: String { "internal compiler error: IR invalid after pass '\(pass)': \(problem)" }
}

/// What each pass did, in order — what `fxc dump --passes` prints.
public struct LoweringLog: Sendable {
  public struct Entry: Sendable {
    public var pass: String
    public var summary: String
    /// Wall time of the pass in milliseconds (0 for a logged decision).
    public var milliseconds: Double
    /// Whether the pass changed the IR; an unchanged one prints "(unchanged)".
    public var changed: Bool
    /// The program after the pass, as text — rendered only when asked for
    /// (`fxc dump`): a large blur's IR is tens of thousands of lines.
    public var ir: String { render() }
    let render: @Sendable () -> String
  }
  public var entries: [Entry] = []
}

/// IR a pass works on: the effect graph before scheduling, the kernel after.
protocol PassIR: Sendable, CustomStringConvertible {
  /// Every program, for the verifier.
  var programs: [Program] { get }
  /// Whether `other` is the same IR, node for node (what "(unchanged)" means).
  func sameIR(as other: Self) -> Bool
}

extension EffectGraph: PassIR {
  var programs: [Program] { stages.map(\.program) }
  func sameIR(as other: EffectGraph) -> Bool {
    stages.count == other.stages.count && output == other.output
      && zip(stages, other.stages).allSatisfy { $0.name == $1.name && $0.program.sameNodes(as: $1.program) }
  }
}

extension Kernel: PassIR {
  var programs: [Program] { loopNests.map(\.program) }
  func sameIR(as other: Kernel) -> Bool {
    loopNests.count == other.loopNests.count && intermediates == other.intermediates
      && zip(loopNests, other.loopNests).allSatisfy { $0.output == $1.output && $0.program.sameNodes(as: $1.program) }
  }
}

extension Program {
  /// Whether the live nodes of both programs are the same computation, node
  /// for node in order, whatever their numbering: what the printer shows, so
  /// a pass that only dropped dead nodes or renumbered is "(unchanged)".
  func sameNodes(as other: Program) -> Bool {
    if nodes == other.nodes && outputs == other.outputs { return true }
    /// Live nodes in order, operands as positions among the live nodes.
    func canonical(_ p: Program) -> (nodes: [(Op, ScalarKind, [Int32])], outputs: [Int32]) {
      let live = p.live()
      var index = [Int32](repeating: -1, count: p.count)
      var out: [(Op, ScalarKind, [Int32])] = []
      for (i, n) in p.nodes.enumerated() where live[i] {
        index[i] = Int32(out.count)
        out.append((n.op, n.kind, n.args.map { index[Int($0.index)] }))
      }
      return (out, p.outputs.map { index[Int($0.index)] })
    }
    let (a, b) = (canonical(self), canonical(other))
    return a.outputs == b.outputs && a.nodes.count == b.nodes.count
      && zip(a.nodes, b.nodes).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
  }
}

/// Runs passes one shape: `(IR) → (IR, summary, notes)`. Each is timed, its
/// result verified (``InternalError`` names the pass), compared with its
/// input ("(unchanged)") and logged.
struct PassManager {
  private(set) var log = LoweringLog()

  /// Runs `pass` on `ir` and replaces it with the result.
  mutating func run<IR: PassIR>(
    _ name: String, _ ir: inout IR, _ pass: (IR) throws -> (IR, String, [String])
  ) throws {
    let start = DispatchTime.now().uptimeNanoseconds
    let (result, summary, notes) = try pass(ir)
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    try verify(result, after: name)
    let changed = !result.sameIR(as: ir)
    ir = result
    append(name, summary, ms, changed) { [result] in (notes.isEmpty ? "" : notes.joined(separator: "\n") + "\n") + result.description }
  }

  /// ``run(_:_:_:)`` for a pass without notes.
  mutating func run<IR: PassIR>(_ name: String, _ ir: inout IR, _ pass: (IR) throws -> (IR, String)) throws {
    try run(name, &ir) { ir in
      let (result, summary) = try pass(ir)
      return (result, summary, [])
    }
  }

  /// Runs the pass from the graph to the kernel.
  mutating func lower(_ name: String, _ graph: EffectGraph, _ pass: (EffectGraph) throws -> (Kernel, String)) throws -> Kernel {
    let start = DispatchTime.now().uptimeNanoseconds
    let (kernel, summary) = try pass(graph)
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    try verify(kernel, after: name)
    append(name, summary, ms, true) { [kernel] in kernel.description }
    return kernel
  }

  /// Logs IR as it stands (the input), or a decision as text (the schedule).
  mutating func record<IR: PassIR>(_ name: String, summary: String, ir: IR) {
    append(name, summary, 0, true) { [ir] in ir.description }
  }

  mutating func record(_ name: String, summary: String, text: String) {
    append(name, summary, 0, true) { text }
  }

  private mutating func append(_ name: String, _ summary: String, _ ms: Double, _ changed: Bool, _ render: @escaping @Sendable () -> String) {
    log.entries.append(.init(pass: name, summary: summary, milliseconds: ms, changed: changed, render: render))
  }

  private func verify<IR: PassIR>(_ ir: IR, after pass: String) throws {
    for p in ir.programs {
      if let problem = p.verify() { throw InternalError(pass: pass, problem: problem) }
    }
  }
}
