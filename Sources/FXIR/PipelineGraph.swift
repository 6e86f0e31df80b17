/// A graph whose stages may change the image's size, cut at its geometry
/// stages (docs/design.md §4): a first ``EffectGraph`` from the inputs, then
/// for each geometry stage, in order, the stage and the graph after it, whose
/// input 0 is the geometry stage's result (inputs 1… stay the pipeline's own).
/// Each graph keeps one size and is fused and compiled as before; the
/// geometry stages run between them.
public struct PipelineGraph: Sendable {
  /// One geometry stage and the graph that reads its result as input 0.
  public struct Step: Sendable {
    public var geometry: Geometry
    public var graph: EffectGraph

    public init(geometry: Geometry, graph: EffectGraph) {
      self.geometry = geometry
      self.graph = graph
    }
  }

  /// The graph up to the first geometry stage (all of it, when there is none).
  public var head: EffectGraph
  public var steps: [Step]

  public init(head: EffectGraph, steps: [Step]) {
    self.head = head
    self.steps = steps
  }

  /// Whether some stage changes the size.
  public var changesSize: Bool { !steps.isEmpty }

  /// Every graph, first to last.
  public var graphs: [EffectGraph] { [head] + steps.map(\.graph) }

  /// The graphs and stages in order, for `fxc dump`.
  public var description: String {
    var s = "segment 0 (the input's size):\n\(head)"
    for (i, step) in steps.enumerated() {
      s += "\n\ngeometry: \(step.geometry)\nsegment \(i + 1) (its size):\n\(step.graph)"
    }
    return s
  }
}
