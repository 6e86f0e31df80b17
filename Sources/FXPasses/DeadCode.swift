import FXIR

/// Dead-code elimination over stages (DESIGN §6): a stage whose pixels are its
/// input's pixels unchanged (every channel `c` is `sample(X).c` at `position`,
/// e.g. a color effect whose amount folded to 0) is replaced by `X`, and stages
/// the output no longer reaches are removed. Dead nodes inside a program are
/// already dropped by ``Simplify``.
public enum DeadCode {
  public struct Stats: Sendable {
    public var identities = 0
    public var unreachable = 0
  }

  public static func run(_ graph: EffectGraph) -> (EffectGraph, Stats) {
    var stats = Stats()
    var g = graph
    // 1. Identity stages forward their source.
    var forward: [Int: ImageRef] = [:]
    func resolve(_ r: ImageRef) -> ImageRef {
      if case .stage(let s) = r, let f = forward[s] { return f }
      return r
    }
    for s in g.stages.indices {
      g.stages[s].program = rename(g.stages[s].program, resolve)
      if let source = identitySource(g.stages[s].program) {
        forward[s] = resolve(source)
        stats.identities += 1
      }
    }
    g.output = resolve(g.output)
    // 2. Keep only stages the output reaches, renumbered in order.
    var reached = Set<Int>()
    var work: [ImageRef] = [g.output]
    while let r = work.popLast() {
      guard case .stage(let s) = r, reached.insert(s).inserted else { continue }
      g.stages[s].program.visitDeep { n in
        if case .sample(let ref, _, _) = n.op { work.append(ref) }
      }
    }
    let kept = g.stages.indices.filter { reached.contains($0) }
    stats.unreachable = g.stages.count - kept.count
    guard stats.unreachable > 0 else { return (g, stats) }
    var number: [Int: Int] = [:]
    for (i, s) in kept.enumerated() { number[s] = i }
    func renumber(_ r: ImageRef) -> ImageRef {
      if case .stage(let s) = r { return .stage(number[s]!) }
      return r
    }
    g.stages = kept.map { s in
      var stage = g.stages[s]
      stage.program = rename(stage.program, renumber)
      return stage
    }
    g.output = renumber(g.output)
    return (g, stats)
  }

  /// The image a program copies unchanged, if it does: four outputs
  /// `sample(X, sampler, c)` at `position` exactly (a whole-pixel read of the
  /// same pixel under any filter and address mode), X a stage or input 0.
  static func identitySource(_ p: Program) -> ImageRef? {
    var source: ImageRef?
    for (c, out) in p.outputs.enumerated() {
      // Only a source of the output's size (a stage, input 0) is read exactly at
      // every pixel center; another input would be resampled by the address mode.
      guard case .sample(let ref, _, let channel) = p[out].op, channel == c, ref != .input(0) ? !isInput(ref) : true,
        p[p[out].args[0]].op == .positionX, p[p[out].args[1]].op == .positionY,
        source == nil || source == ref
      else { return nil }
      source = ref
    }
    return source
  }

  static func isInput(_ r: ImageRef) -> Bool {
    if case .input = r { return true }
    return false
  }

  /// The program with every sampled image renamed by `f`.
  static func rename(_ p: Program, _ f: (ImageRef) -> ImageRef) -> Program {
    guard p.containsDeep({ if case .sample(let r, _, _) = $0 { f(r) != r } else { false } }) else { return p }
    return SeparableSplit.remap(p, f)
  }
}
