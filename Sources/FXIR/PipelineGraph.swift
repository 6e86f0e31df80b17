/// A stage that is not a function of the pixel's position alone, at which
/// a fused graph is cut (docs/design.md §4): a geometry stage (another size),
/// a scan (a recurrence along rows or columns) or a reduction (the whole
/// image read before a pixel is written).
public enum Cut: Hashable, Sendable, CustomStringConvertible {
  case geometry(Geometry)
  case scan(Scan)
  case reduction(Reduction)

  /// The output's size for an input of `width × height` (a scan keeps it).
  /// - Throws: ``GeometryError`` as ``Geometry/outputSize(width:height:)``.
  public func outputSize(width: Int, height: Int) throws -> (width: Int, height: Int) {
    switch self {
    case .geometry(let g): try g.outputSize(width: width, height: height)
    case .scan, .reduction: (width, height)
    }
  }

  public var description: String {
    switch self {
    case .geometry(let g): "geometry: \(g)"
    case .scan(let s): "\(s)"
    case .reduction(let r): "\(r)"
    }
  }
}

/// A graph cut at its geometry stages and scans (docs/design.md §4): a first
/// ``EffectGraph`` from the inputs, then for each cut, in order, the cut's
/// stage and the graph after it, whose input 0 is that stage's result
/// (inputs 1… stay the pipeline's own). Each graph keeps one size and is
/// fused and compiled as before; the cut stages run between them.
public struct PipelineGraph: Sendable {
  /// One cut stage and the graph that reads its result as input 0.
  public struct Step: Sendable {
    public var cut: Cut
    public var graph: EffectGraph

    public init(cut: Cut, graph: EffectGraph) {
      self.cut = cut
      self.graph = graph
    }
  }

  /// The graph up to the first cut (all of it, when there is none).
  public var head: EffectGraph
  public var steps: [Step]
  /// Whether the front end offered two ways to some image (a blur's scans
  /// or its loop) and this graph took one: compiling for an output deeper
  /// than 8 bits takes the other (FXDSL's `PipelineGraph(output:precise:)`).
  public var hasAlternatives = false

  public init(head: EffectGraph, steps: [Step]) {
    self.head = head
    self.steps = steps
  }

  /// Whether the graph is cut at all (a geometry stage or a scan).
  public var hasCuts: Bool { !steps.isEmpty }

  /// Whether some stage changes the size.
  public var changesSize: Bool {
    steps.contains { if case .geometry = $0.cut { true } else { false } }
  }

  /// Every graph, first to last.
  public var graphs: [EffectGraph] { [head] + steps.map(\.graph) }

  /// The graphs and stages in order, for `fxc dump`.
  public var description: String {
    var s = "segment 0 (the input's size):\n\(head)"
    for (i, step) in steps.enumerated() {
      s += "\n\n\(step.cut)\nsegment \(i + 1):\n\(step.graph)"
    }
    return s
  }
}
