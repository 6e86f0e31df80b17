/// One effect application, lowered to the scalar IR: a program whose four
/// outputs are the stage's premultiplied RGBA at `position`.
public struct Stage: Sendable {
  public var name: String
  public var kind: EffectKind
  public var program: Program

  public init(name: String, kind: EffectKind, program: Program) {
    self.name = name
    self.kind = kind
    self.program = program
  }
}

/// A checked effect graph in the scalar IR: the form every pass, the
/// interpreter and the code generator start from.
///
/// Stages are in topological order (a stage samples only inputs and earlier
/// stages). Every stage produces an image of the **output size**, which is the
/// size of input 0 (DESIGN §4); other inputs keep their own sizes.
public struct EffectGraph: Sendable, CustomStringConvertible {
  /// Names of the graph's inputs; `inputs[k]` is read by `sample(in k)`.
  public var inputs: [String]
  public var stages: [Stage]
  /// What the graph computes: a stage, or an input unchanged (the empty chain).
  public var output: ImageRef
  /// The uniform parameters; `Op.uniform(k)` reads `uniforms[k]`.
  public var uniforms: [Param]

  /// A graph as a front end lowered it (the Swift DSL's `EffectGraph(output:)`, FXDSL).
  public init(inputs: [String], stages: [Stage], output: ImageRef, uniforms: [Param]) {
    self.inputs = inputs
    self.stages = stages
    self.output = output
    self.uniforms = uniforms
  }

  /// The graph's text form for `fxc dump`.
  public var description: String {
    var s = "graph: inputs \(inputs.enumerated().map { "in\($0.offset)=\($0.element)" }.joined(separator: ", "))"
    if !uniforms.isEmpty { s += "; uniforms " + uniforms.enumerated().map { "[\($0.offset)] \($0.element.name)" }.joined(separator: ", ") }
    for (i, st) in stages.enumerated() {
      s += "\ns\(i) = \(st.kind) effect '\(st.name)' (\(st.program.liveCount) nodes)\n\(st.program)"
    }
    return s + "\noutput \(output)"
  }
}
