import FXIR

/// Options of the lowering pipeline.
public struct LoweringOptions: Sendable, Hashable {
  /// Run constant folding and algebraic simplification (off only to test the passes themselves).
  public var simplify = true
  /// Materialise every stage with more than one evaluation per pixel / inline everything (tests, `fxc dump`).
  public var forceMaterialise = false
  public var forceInline = false
  /// Split separable convolutions into a horizontal and a vertical pass.
  public var splitSeparable = true
  /// Also split separable 2-D loops (``splitSeparable`` must be on). Off by
  /// default: it reassociates — each row's sum times `v(j)` instead of every
  /// tap times `h(i)·v(j)` — which stays within rounding for data of moderate
  /// range, but a cancelling sum of large values can move by more than
  /// DESIGN §4's 1e-4 (fxc fuzz, seed 2028: taps of 1.45e7 whose weighted sum
  /// is 8 came out 0). The catalogue's blurs are two 1-D loops already.
  public var splitLoops = false
  /// Inputs known to be opaque (alpha 1 at every pixel, as a JPEG is): their
  /// alpha reads as the constant 1, and work on alpha that only depends on it
  /// folds away (a blur of an opaque photo blurs three channels, not four).
  /// The kernel then gives the same pixels on an opaque image; on an image
  /// that is not opaque it computes as if its alpha were 1 (color unchanged,
  /// still premultiplied). ``ImageBuffer/isOpaque`` tells which inputs qualify.
  public var opaqueInputs: Set<Int> = []
  /// Inputs whose buffers hold straight alpha (8- and 16-bit: DESIGN §1): the
  /// kernel premultiplies their color in fp32 after each load.
  /// ``Pipeline/compile(inputFormats:outputFormat:backend:options:cache:target:)``
  /// sets it from the formats.
  public var straightAlphaInputs: Set<Int> = []
  /// Whether the output buffer holds straight alpha: the kernel un-premultiplies
  /// in fp32 before the store. Set from the output format by `compile`.
  public var straightAlphaOutput = false
  public init() {}
}

/// The lowering pipeline, straight-line: each pass a named step of a
/// ``PassManager``, timed, verified and logged after it runs (DSL → graph →
/// passes → schedule → kernel).
public enum Lower {
  /// Lowers `graph` to a kernel, with the log of every pass.
  ///
  /// - Throws: ``InternalError`` naming the pass after which the IR failed
  ///   verification — a bug in fxc, never a property of the user's graph;
  ///   ``ResourceError`` when the thread the passes run on cannot be started.
  public static func run(_ graph: EffectGraph, options: LoweringOptions = LoweringOptions()) throws -> (Kernel, LoweringLog) {
    // Inlining recurses once per fused stage: a long chain gets a large stack.
    try withLargeStack(bytes: loweringStackBytes(stages: graph.stages.count)) { try passes(graph, options) }
  }

  static func passes(_ graph: EffectGraph, _ options: LoweringOptions) throws -> (Kernel, LoweringLog) {
    var passes = PassManager()
    var g = graph
    passes.record("input", summary: "\(g.stages.count) stages", ir: g)

    if options.simplify {
      try passes.run("simplify stages", &g) { g in
        var g = g
        let total = simplify(&g.stages, \.program)
        return (g, "folded \(total.folded) nodes, \(total.rewriteSummary)")
      }
      try passes.run("dead code", &g) { g in
        let (pruned, stats) = DeadCode.run(g)
        return (pruned, "removed \(stats.identities) identity stage\(stats.identities == 1 ? "" : "s"), \(stats.unreachable) unreachable")
      }
    }
    if options.splitSeparable {
      try passes.run("separable split", &g) { g in
        let (split, notes) = SeparableSplit.run(g, loops: options.splitLoops, unormInputs: options.straightAlphaInputs)
        let count = split.stages.count - g.stages.count
        return (split, "split \(count) convolution\(count == 1 ? "" : "s")", notes)
      }
    }

    var schedule = Schedule.decide(g, forceMaterialise: options.forceMaterialise, forceInline: options.forceInline)
    if !options.forceMaterialise, !options.forceInline, let wrapped = WrapInput.run(g) {
      let s = Schedule.decide(wrapped)
      if s.materialised.first == 0 {
        try passes.run("wrap input", &g) { _ in (wrapped, "input 0 read at many taps: convert it once to a planar copy") }
        schedule = s
      }
    }
    passes.record("schedule", summary: "materialise \(schedule.materialised.map { "s\($0)" })", text: schedule.notes.joined(separator: "\n"))

    var kernel = try passes.lower("lower to kernel", g) { g in
      let kernel = LowerToKernel.run(
        g, schedule, opaqueInputs: options.opaqueInputs, straightAlphaInputs: options.straightAlphaInputs,
        straightAlphaOutput: options.straightAlphaOutput)
      let merged = kernel.loopNests.reduce(0) { $0 + $1.program.merged }
      return (
        kernel,
        "\(kernel.loopNests.count) loop nest\(kernel.loopNests.count == 1 ? "" : "s"), CSE merged \(merged) repeated computations across fused stages"
      )
    }

    if options.simplify {
      try passes.run("simplify kernel", &kernel) { kernel in
        var kernel = kernel
        let total = simplify(&kernel.loopNests, \.program)
        return (kernel, "folded \(total.folded) nodes, \(total.rewriteSummary)")
      }
      try passes.run("constant channels", &kernel) { kernel in
        let (propagated, replaced) = ConstantChannels.run(kernel)
        return (propagated, "\(replaced) load\(replaced == 1 ? "" : "s") of a channel its pass computes as a constant replaced by the constant")
      }
      // What the ranges prove constant (an opaque alpha through a bilinear
      // sample) reaches the passes that load it, and may let the ranges prove
      // more there (that pass's own bilinear sample of the now constant
      // channel): alternate until no load is replaced, at most once per pass.
      for _ in 0...kernel.loopNests.count {
        try passes.run("range simplify", &kernel) { kernel in
          let (rewritten, counts) = RangeSimplify.run(kernel)
          let summary = counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
          return (rewritten, counts.isEmpty ? "nothing the value ranges license" : summary)
        }
        var replacedAny = false
        try passes.run("constant channels", &kernel) { kernel in
          let (propagated, replaced) = ConstantChannels.run(kernel)
          replacedAny = replaced > 0
          return (propagated, "\(replaced) load\(replaced == 1 ? "" : "s") of a channel its pass computes as a constant replaced by the constant")
        }
        if !replacedAny { break }
      }
    }
    return (kernel, passes.log)
  }

  /// Simplifies the program of every stage or pass in `items`; the summed statistics.
  static func simplify<Item>(_ items: inout [Item], _ program: WritableKeyPath<Item, Program>) -> Simplify.Stats {
    var total = Simplify.Stats()
    for i in items.indices {
      let (p, stats) = Simplify.run(items[i][keyPath: program])
      items[i][keyPath: program] = p
      total.add(stats)
    }
    return total
  }
}
