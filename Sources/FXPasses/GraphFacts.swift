import FXIR

/// What is proved about every stage's output before lowering, channel by
/// channel: ``RangeAnalysis`` run over the stage programs in order, each
/// `sample` carrying what its image holds through its sampler.
///
/// An input stored as 8- or 16-bit unorm holds [0, 1] and never NaN (an
/// integer buffer, premultiplied in fp32 after the load: DESIGN §1); any
/// other input (rgba32f) may hold anything.
public struct GraphFacts: Sendable {
  /// Per stage, per channel.
  public let stages: [[ValueFacts]]
  let unormInputs: Set<Int>

  public init(_ graph: EffectGraph, unormInputs: Set<Int>) {
    self.unormInputs = unormInputs
    var stages: [[ValueFacts]] = []
    for stage in graph.stages {
      let known = stages
      let facts = RangeAnalysis.analyse(stage.program) { ref, sampler, channel in
        Self.sampled(Self.facts(of: ref, channel, stages: known, unormInputs: unormInputs), by: sampler)
      }
      stages.append(stage.program.outputs.map { facts[Int($0.index)] })
    }
    self.stages = stages
  }

  /// What channel `channel` of `ref` holds at every pixel.
  public func facts(of ref: ImageRef, _ channel: Int) -> ValueFacts {
    Self.facts(of: ref, channel, stages: stages, unormInputs: unormInputs)
  }

  static func facts(of ref: ImageRef, _ channel: Int, stages: [[ValueFacts]], unormInputs: Set<Int>) -> ValueFacts {
    switch ref {
    case .input(let k): return unormInputs.contains(k) ? ValueFacts(0, 1) : .unknown
    // A stage reads only earlier stages; anything else is not proved.
    case .stage(let s): return s < stages.count ? stages[s][channel] : .unknown
    }
  }

  /// What a `sample` through `sampler` returns from texels with facts `f`
  /// (the reference, `Raster.sample`): a texel, or 0 (a NaN position, a
  /// transparent border); under the linear filter, `a·(1 − t) + b·t` with
  /// `0 < t < 1`, which stays within the texels' interval but for two
  /// roundings (widened by a relative 2⁻²¹), and is NaN from an infinite texel
  /// (`∞ − ∞`).
  static func sampled(_ f: ValueFacts, by sampler: Sampler) -> ValueFacts {
    var r = f.union(ValueFacts(0, 0))
    guard sampler.filter == .linear else { return r }
    let widen = 0x1p-21
    r = ValueFacts(r.lo - Swift.abs(r.lo) * widen, r.hi + Swift.abs(r.hi) * widen, nan: r.mayBeNaN || !r.isFinite)
    return r
  }
}
