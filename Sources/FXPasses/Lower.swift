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
  /// Inputs known to be opaque (alpha 1 at every pixel, as a JPEG is): their
  /// alpha reads as the constant 1, and work on alpha that only depends on it
  /// folds away (a blur of an opaque photo blurs three channels, not four).
  /// The kernel then gives the same pixels on an opaque image; on an image
  /// that is not opaque it computes as if its alpha were 1 (color unchanged,
  /// still premultiplied). ``ImageBuffer/isOpaque`` tells which inputs qualify.
  public var opaqueInputs: Set<Int> = []
  public init() {}
}

/// What each pass did, in order — what `fxc dump --passes` prints.
public struct LoweringLog: Sendable {
  public struct Entry: Sendable {
    public var pass: String
    public var summary: String
    /// The program after the pass, as text — rendered only when asked for
    /// (`fxc dump`): a large blur's IR is tens of thousands of lines.
    public var ir: String { render() }
    let render: @Sendable () -> String

    init(pass: String, summary: String, ir: @escaping @Sendable () -> String) {
      self.pass = pass
      self.summary = summary
      self.render = ir
    }
  }
  public var entries: [Entry] = []
}

/// The lowering pipeline, straight-line: each pass a named function, logged and
/// verified after it runs (DSL → graph → passes → schedule → kernel).
public enum Lower {
  public static func run(_ graph: EffectGraph, options: LoweringOptions = LoweringOptions()) -> (Kernel, LoweringLog) {
    var log = LoweringLog()
    var g = graph
    let input = g
    log.entries.append(.init(pass: "input", summary: "\(g.stages.count) stages", ir: { [input] in input.description }))

    if options.simplify {
      var total = Simplify.Stats()
      for i in g.stages.indices {
        let (p, stats) = Simplify.run(g.stages[i].program)
        g.stages[i].program = p
        total.add(stats)
      }
      verify(g.stages.map(\.program), after: "simplify stages")
      let simplified = g
      log.entries.append(
        .init(pass: "simplify stages", summary: "folded \(total.folded) nodes, \(total.rewriteSummary)", ir: { [simplified] in simplified.description }))
    }

    if options.simplify {
      let (pruned, stats) = DeadCode.run(g)
      g = pruned
      verify(g.stages.map(\.program), after: "dead code")
      log.entries.append(
        .init(pass: "dead code", summary: "removed \(stats.identities) identity stage\(stats.identities == 1 ? "" : "s"), \(stats.unreachable) unreachable", ir: { [pruned] in pruned.description }))
    }

    if options.splitSeparable {
      let (split, notes) = SeparableSplit.run(g)
      let count = split.stages.count - g.stages.count
      g = split
      verify(g.stages.map(\.program), after: "separable split")
      log.entries.append(
        .init(pass: "separable split", summary: "split \(count) convolution\(count == 1 ? "" : "s")",
          ir: { [split, notes] in (notes.isEmpty ? "" : notes.joined(separator: "\n") + "\n") + split.description }))
    }

    var schedule = Schedule.decide(g, forceMaterialise: options.forceMaterialise, forceInline: options.forceInline)
    if !options.forceMaterialise, !options.forceInline, let wrapped = WrapInput.run(g) {
      let s = Schedule.decide(wrapped)
      if s.materialised.first == 0 {
        g = wrapped
        schedule = s
        log.entries.append(.init(pass: "wrap input", summary: "input 0 read at many taps: convert it once to a planar copy", ir: { [wrapped] in wrapped.description }))
      }
    }
    let decided = schedule
    log.entries.append(
      .init(pass: "schedule", summary: "materialise \(schedule.materialised.map { "s\($0)" })", ir: { [decided] in decided.notes.joined(separator: "\n") }))

    var kernel = LowerToKernel.run(g, schedule, opaqueInputs: options.opaqueInputs)
    verify(kernel.passes.map(\.program), after: "lower to kernel")
    let merged = kernel.passes.reduce(0) { $0 + $1.program.merged }
    let lowered = kernel
    log.entries.append(
      .init(pass: "lower to kernel", summary: "\(kernel.passes.count) pass\(kernel.passes.count == 1 ? "" : "es"), CSE merged \(merged) repeated computations across fused stages", ir: { [lowered] in lowered.description }))

    if options.simplify {
      var total = Simplify.Stats()
      for i in kernel.passes.indices {
        let (p, stats) = Simplify.run(kernel.passes[i].program)
        kernel.passes[i].program = p
        total.add(stats)
      }
      verify(kernel.passes.map(\.program), after: "simplify kernel")
      let final = kernel
      log.entries.append(
        .init(pass: "simplify kernel", summary: "folded \(total.folded) nodes, \(total.rewriteSummary)", ir: { [final] in final.description }))

      let (propagated, replaced) = ConstantChannels.run(kernel)
      if replaced > 0 {
        kernel = propagated
        verify(kernel.passes.map(\.program), after: "constant channels")
        log.entries.append(
          .init(pass: "constant channels", summary: "\(replaced) load\(replaced == 1 ? "" : "s") of a channel its pass computes as a constant replaced by the constant", ir: { [propagated] in propagated.description }))
      }
    }
    return (kernel, log)
  }

  /// Internal invariants; a violation is a compiler bug, so it traps with the pass named.
  static func verify(_ programs: [Program], after pass: String) {
    for p in programs {
      if let problem = p.verify() { preconditionFailure("IR invalid after \(pass): \(problem)") }
    }
  }
}
