import FXIR

extension PipelineGraph {
  /// Lowers the graph that computes `output`, cutting it at geometry stages and scans.
  /// - Throws: ``GraphError`` for an ill-typed expression, or a graph this
  ///   cut cannot express: a stage that reads the results of two geometry
  ///   stages, or reads input 0 as well as a geometry stage's result.
  /// - Parameter precise: of two alternatives (``Image/either(fast:precise:)``)
  ///   take the precise one — for an output deeper than 8 bits.
  public init(output: Image, constants: Set<Param> = [], precise: Bool = false) throws {
    var steps: [Step] = []
    var root = output.node
    let head: EffectGraph
    var alternatives = false
    while true {
      let (order, found) = GraphLowering.completionOrder(root, precise: precise)
      alternatives = alternatives || found
      let cuts = order.compactMap { node -> (Cut, ImageNode, ImageNode)? in
        if case .cut(let c, let input) = node.source { return (c, node, input) }
        return nil
      }
      guard let (cut, node, input) = cuts.first else {
        var lowering = GraphLowering(constants: constants)
        lowering.precise = precise
        head = try EffectGraph(lowering, order: order, output: root)
        break
      }
      if cuts.count > 1 {
        throw GraphError("a stage reads the results of both '\(cut)' and '\(cuts[1].0)' (not supported yet)")
      }
      var lowering = GraphLowering(constants: constants)
      lowering.precise = precise
      lowering.cut = cut
      lowering.done[ObjectIdentifier(node)] = .input(0)
      lowering.inputNames[0] = "\(cut)"
      steps.insert(Step(cut: cut, graph: try EffectGraph(lowering, order: order, output: root)), at: 0)
      root = input
    }
    // Every graph reads the pipeline's inputs 1… (a composite's overlay after a
    // resize), so all name the same inputs: one list of input images runs them all.
    var names = head.inputs
    for step in steps where step.graph.inputs.count > names.count { names += step.graph.inputs[names.count...] }
    var padded = head
    padded.inputs = names
    self.init(
      head: padded,
      steps: steps.map { step in
        var step = step
        step.graph.inputs = [step.graph.inputs[0]] + names.dropFirst()
        return step
      })
    hasAlternatives = alternatives
  }
}

extension EffectGraph {
  /// The graph `lowering` completes for `output`, lowering `order`'s images in turn.
  init(_ lowering: GraphLowering, order: [ImageNode], output: ImageNode) throws {
    var lowering = lowering
    for node in order { _ = try lowering.image(node) }
    let ref = try lowering.image(output)
    let count = (lowering.inputNames.keys.max() ?? 0) + 1
    self.init(
      inputs: (0..<count).map { lowering.inputNames[$0] ?? "input\($0)" }, stages: lowering.stages, output: ref,
      uniforms: lowering.uniforms)
  }
}
