import FXIR

/// Separable-convolution splitting (DESIGN §6).
///
/// A stage whose every channel `c` is `Σ w(i, j) · sample(src, position + (i, j)).c`
/// over integer offsets, with the same constant weights for the four channels,
/// one source and one sampler, and a weight matrix of rank 1
/// (`w(i, j) = h(i) · v(j)`), becomes two stages: a horizontal pass
/// `H = Σ h(i) · sample(src, position + (i, 0))` and a vertical pass
/// `Σ v(j) · sample(H, position + (0, j))`. Taps per pixel fall from
/// `nx · ny` to `nx + ny`.
///
/// With ``LoweringOptions/splitLoops``, a 2-D loop of that form
/// (``LoopSplit``) becomes two 1-D loops.
///
/// It is exact under every address mode because sampling resolves x and y
/// independently (DESIGN §3) and a whole-pixel offset reads one texel under
/// either filter. It refuses whatever it cannot prove: non-constant weights
/// (a radius varying per pixel), offsets that are not whole pixels or depend
/// on data, rank > 1, several sources or samplers, and a source input whose
/// size differs from the output's (the intermediate would have the wrong rows).
public enum SeparableSplit {
  /// Relative tolerance of the rank-1 test: `|w(i,j) − h(i)·v(j)| ≤ 1e-5 · max|w|`.
  /// Float products of separable weights differ from an exact rank-1 matrix by a
  /// few ulps (~1e-7 relative); a genuinely rank-2 kernel differs by far more.
  public static let rankTolerance: Float = 1e-5

  /// One recognised convolution: its taps and, when separable, the factors.
  public struct Convolution: Equatable, Sendable {
    public var source: ImageRef
    public var sampler: Sampler
    public var xs: ClosedRange<Int32>
    public var ys: ClosedRange<Int32>
    /// Row-major `ys.count × xs.count` weights.
    public var weights: [Float]
    /// Row-major: whether the stage samples that offset at all (a weight of
    /// 0 may stand for a tap it reads: 0·NaN is NaN, so the tap must stay);
    /// nil: where the weight is not 0.
    public var sampled: [Bool]? = nil
    /// By channel, whether the stage's sum adds a +0 (a loop's or a sum's
    /// initial 0): such a sum is never −0 (under round-to-nearest, +0 + −0
    /// is +0), so the split's result adds the same +0, or taps that are all
    /// −0 would give −0 where the stage gives +0 (`atan2(±0, −1)` is ±π:
    /// fxc fuzz seed 4548297256851871898).
    public var addsPositiveZero = [false, false, false, false]
    /// The most terms one channel's sum adds (a weighted tap, or a +0), and
    /// the largest `Σ |weight|` over one channel's terms, each term counted
    /// apart (two terms at one offset may cancel): what bounds the stage's
    /// own rounding and its partial sums (``prove(_:_:_:sourceBound:)``).
    public var terms = 0
    public var termMagnitude: Double = 0

    /// Row-major: whether each offset of the grid is sampled.
    var sampledGrid: [Bool] { sampled ?? weights.map { $0 != 0 } }

    /// Columns and rows of the grid that the stage samples.
    var sampledColumns: [Bool] {
      let grid = sampledGrid, nx = xs.count
      var columns = [Bool](repeating: false, count: nx)
      for (k, s) in grid.enumerated() where s { columns[k % nx] = true }
      return columns
    }
    var sampledRows: [Bool] {
      let grid = sampledGrid, nx = xs.count
      var rows = [Bool](repeating: false, count: ys.count)
      for (k, s) in grid.enumerated() where s { rows[k / nx] = true }
      return rows
    }

    /// Whether the sampled offsets are every pair of a sampled column and a
    /// sampled row: what two 1-D passes read. Otherwise they would read a
    /// pixel the stage does not (a NaN or ∞ there would reach the result
    /// through a weight of 0), or skip one it does.
    var samplesARectangle: Bool {
      let grid = sampledGrid, columns = sampledColumns, rows = sampledRows, nx = xs.count
      for (k, s) in grid.enumerated() where s != (columns[k % nx] && rows[k / nx]) { return false }
      return true
    }
  }

  /// Why a stage was not split, for `fxc dump` and tests.
  public enum Refusal: Error, Equatable, Sendable {
    case notAConvolution(String)
    case tooSmall
    case rankAboveOne(residual: Float)
    case sourceSizeDiffers
    /// The values sampled are not proved finite and bounded (an rgba32f
    /// input, a stage that may reach ±∞): an intermediate sum of the two
    /// passes could overflow where the stage's does not.
    case unboundedSource
    /// A partial sum of either form may reach this magnitude, too close to
    /// overflow for the two to be proved alike.
    case mayOverflow(Double)
    /// The proved bound on how far the passes' result can be from the
    /// stage's exceeds DESIGN §4's 1e-4.
    case errorBound(Double)
  }

  /// Splits every separable stage (2-D loops too with `loops`, ``LoweringOptions/splitLoops``);
  /// returns the new graph and one line per decision. `unormInputs`: the
  /// inputs stored as 8- or 16-bit unorm, whose values are proved to be in
  /// [0, 1] (``GraphFacts``); a stage is split only where the values it
  /// samples are proved bounded (``prove(_:_:_:sourceBound:)``).
  public static func run(_ graph: EffectGraph, loops: Bool = false, unormInputs: Set<Int> = []) -> (EffectGraph, [String]) {
    var g = graph
    var facts: GraphFacts?
    var notes: [String] = []
    var s = 0
    while s < g.stages.count {
      switch analyse(g.stages[s].program) {
      case .failure(let refusal):
        if case .notAConvolution = refusal {} else { notes.append("s\(s) '\(g.stages[s].name)': not split: \(refusal)") }
        if loops, g.stages[s].program.hasLoops, let (note, split) = splitLoops(&g, stage: s) {
          notes.append(note)
          if split { s += 1 }
        }
      case .success(let conv):
        switch factor(conv) {
        case .failure(let refusal):
          notes.append("s\(s) '\(g.stages[s].name)': not split: \(refusal)")
        case .success(let (h, v)):
          if case .input(let k) = conv.source, k != 0 {
            notes.append("s\(s) '\(g.stages[s].name)': not split: \(Refusal.sourceSizeDiffers)")
            break
          }
          if facts == nil { facts = GraphFacts(g, unormInputs: unormInputs) }
          let bound = (0..<4).map { facts!.facts(of: conv.source, $0).finiteMagnitude }.max()!
          if let refusal = prove(conv, h, v, sourceBound: bound) {
            notes.append("s\(s) '\(g.stages[s].name)': not split: \(refusal)")
            break
          }
          notes.append(
            "s\(s) '\(g.stages[s].name)': split convolution \(conv.xs.count)×\(conv.ys.count) → \(conv.xs.count)+\(conv.ys.count) taps")
          g = split(g, stage: s, conv, h, v)
          facts = nil  // the stages are renumbered
          s += 1
        }
      }
      s += 1
    }
    return (g, notes)
  }

  /// Recognises `program` as a convolution, or says why not.
  public static func analyse(_ p: Program) -> Result<Convolution, Refusal> {
    var source: ImageRef?, sampler: Sampler?
    var channelWeights: [[SIMD2<Int32>: Float]] = []
    var positiveZero = [false, false, false, false]
    var terms = 0, magnitude: Double = 0
    for (c, out) in p.outputs.enumerated() {
      var weights: [SIMD2<Int32>: Float] = [:]
      var channelTerms = 0, channelMagnitude: Double = 0
      var stack = [out]
      while let id = stack.popLast() {
        let node = p[id]
        if node.op == .add {
          stack += node.args
          continue
        }
        if case .float(let b)? = p.constantValue(id), Float(bitPattern: b) == 0 {
          positiveZero[c] = true
          channelTerms += 1
          continue
        }
        var weight: Float = 1, tap = id
        if node.op == .mul {
          if case .float(let b)? = p.constantValue(node.args[0]) {
            weight = Float(bitPattern: b)
            tap = node.args[1]
          } else if case .float(let b)? = p.constantValue(node.args[1]) {
            weight = Float(bitPattern: b)
            tap = node.args[0]
          } else {
            return .failure(.notAConvolution("a product of two non-constants"))
          }
        }
        guard case .sample(let ref, let smp, let channel) = p[tap].op, channel == c else {
          return .failure(.notAConvolution("a term that is not a weighted sample of the same channel"))
        }
        guard let i = PixelOffset.of(p[tap].args[0], .x, in: p), let j = PixelOffset.of(p[tap].args[1], .y, in: p) else {
          return .failure(.notAConvolution("a sample not at a whole-pixel offset from position"))
        }
        guard source == nil || (source == ref && sampler == smp) else {
          return .failure(.notAConvolution("samples of several images or samplers"))
        }
        source = ref
        sampler = smp
        weights[SIMD2(i, j), default: 0] += weight
        channelTerms += 1
        channelMagnitude += Double(Swift.abs(weight))
      }
      channelWeights.append(weights)
      terms = Swift.max(terms, channelTerms)
      magnitude = Swift.max(magnitude, channelMagnitude)
    }
    // Every offset sampled is a key of the weights, whatever its weight (0 included).
    guard let source, let sampler, channelWeights.count == 4, channelWeights.allSatisfy({ $0 == channelWeights[0] })
    else { return .failure(.notAConvolution("channels with different weights")) }
    let taps = channelWeights[0]
    let xs = taps.keys.map(\.x), ys = taps.keys.map(\.y)
    let xr = xs.min()!...xs.max()!, yr = ys.min()!...ys.max()!
    var w = [Float](repeating: 0, count: xr.count * yr.count)
    var sampled = [Bool](repeating: false, count: w.count)
    for (k, v) in taps {
      w[Int(k.y - yr.lowerBound) * xr.count + Int(k.x - xr.lowerBound)] = v
      sampled[Int(k.y - yr.lowerBound) * xr.count + Int(k.x - xr.lowerBound)] = true
    }
    return .success(
      Convolution(
        source: source, sampler: sampler, xs: xr, ys: yr, weights: w, sampled: sampled, addsPositiveZero: positiveZero,
        terms: terms, termMagnitude: magnitude))
  }

  /// The factors `(h, v)` with `w(i, j) ≈ h(i)·v(j)`, or the refusal.
  public static func factor(_ c: Convolution) -> Result<([Float], [Float]), Refusal> {
    let nx = c.xs.count, ny = c.ys.count
    guard nx >= 2, ny >= 2 else { return .failure(.tooSmall) }
    let pivot = c.weights.indices.max { abs(c.weights[$0]) < abs(c.weights[$1]) }!
    let scale = abs(c.weights[pivot])
    guard scale > 0, scale.isFinite else { return .failure(.notAConvolution("zero or non-finite weights")) }
    let pj = pivot / nx, pi = pivot % nx
    let h = (0..<nx).map { c.weights[pj * nx + $0] }
    let v = (0..<ny).map { c.weights[$0 * nx + pi] / c.weights[pivot] }
    var residual: Float = 0
    for j in 0..<ny { for i in 0..<nx { residual = max(residual, abs(c.weights[j * nx + i] - h[i] * v[j])) } }
    guard residual <= rankTolerance * scale else { return .failure(.rankAboveOne(residual: residual / scale)) }
    guard c.samplesARectangle else {
      return .failure(.notAConvolution("taps that are not every pair of a sampled column and row"))
    }
    return .success((h, v))
  }

  /// Why the two passes with factors `(h, v)` cannot be proved to agree with
  /// the stage, when every value the stage samples is NaN or within
  /// ±`sourceBound`; nil when they provably agree within DESIGN §4's 1e-4,
  /// NaN where the stage is NaN and never ±∞ where it is finite.
  ///
  /// The two forms sum in different orders: the passes compute each row's
  /// `Σ h(i)·x` and then `Σ v(j)·row`, the stage `Σ w(i, j)·x`. Reordering is
  /// exact in the reals and close in floats, but only while nothing
  /// overflows: a row sum that overflows to ∞ times `v(j) = 0` is NaN where
  /// the stage adds 0 (fxc fuzz seed 3006862463388251103, weights 3.4e38),
  /// and a cancelling sum of large values loses what the stage keeps. So the
  /// proof asks for bounded values `b`, then:
  /// - no overflow: every partial sum of either form is at most
  ///   `b · max(Σ|w|, 2·max(Σ|h|, 1)·max(Σ|v|, 1))` (a mirrored pair `a + b`
  ///   sums two values before its weight), kept below half of `Float`'s
  ///   largest; then a NaN reaches both results from the same taps (both
  ///   read every sampled tap) and neither is ±∞;
  /// - accuracy: a sum of `n` rounded terms is within `(n + 1)·ε·Σ|term|` of
  ///   the real sum (Higham, *Accuracy and Stability of Numerical
  ///   Algorithms*, §4.2; ε = 2⁻²⁴), for the stage's terms and the two
  ///   passes' `nx + ny` taps, plus the factors' residual `Σ |w − h·v|·b`:
  ///   at most 1e-4 in all.
  public static func prove(_ c: Convolution, _ h: [Float], _ v: [Float], sourceBound b: Double) -> Refusal? {
    guard b.isFinite else { return .unboundedSource }
    let sh = h.reduce(0) { $0 + Double(Swift.abs($1)) }, sv = v.reduce(0) { $0 + Double(Swift.abs($1)) }
    let largest = b * Swift.max(Swift.max(c.termMagnitude, 1), 2 * Swift.max(sh, 1) * Swift.max(sv, 1))
    guard largest < Double(Float.greatestFiniteMagnitude) / 2 else { return .mayOverflow(largest) }
    let epsilon = 0x1p-24, nx = c.xs.count, ny = c.ys.count, grid = c.sampledGrid
    var residual: Double = 0
    for j in 0..<ny { for i in 0..<nx where grid[j * nx + i] { residual += Swift.abs(Double(c.weights[j * nx + i]) - Double(h[i]) * Double(v[j])) } }
    let stage = Double(c.terms + 2) * epsilon * c.termMagnitude
    let passes = Double(nx + ny + 4) * epsilon * sh * sv
    let bound = b * (stage + passes + residual)
    return bound <= 1e-4 ? nil : .errorBound(bound)
  }

  /// Replaces stage `s` by H (new stage `s`) and V (stage `s + 1`).
  static func split(_ g: EffectGraph, stage s: Int, _ c: Convolution, _ h: [Float], _ v: [Float]) -> EffectGraph {
    let horizontal = pass(c.source, c.sampler, offsets: c.xs, weights: h, sampled: c.sampledColumns, axis: .x)
    var vertical = pass(
      .stage(s), Sampler(filter: .nearest, address: c.sampler.address), offsets: c.ys, weights: v, sampled: c.sampledRows,
      axis: .y)
    for k in vertical.outputs.indices where c.addsPositiveZero[k] {
      vertical.outputs[k] = vertical.add(.add, [vertical.outputs[k], vertical.constant(Float(0))])
    }
    return replace(g, stage: s, horizontal: horizontal, vertical: vertical)
  }

  /// Splits stage `s` when it is a separable 2-D loop (``LoopSplit``); the
  /// note for `fxc dump` and whether it split; nil when it is not a 2-D loop at all.
  static func splitLoops(_ g: inout EffectGraph, stage s: Int) -> (String, Bool)? {
    let name = "s\(s) '\(g.stages[s].name)'"
    switch LoopSplit.analyse(g.stages[s].program) {
    case .failure(let r):
      return r.why.hasPrefix("not a loop of four") || r.why.hasPrefix("not one loop") ? nil : ("\(name): 2-D loop not split: \(r.why)", false)
    case .success(let split):
      if case .input(let k) = split.source, k != 0 { return ("\(name): 2-D loop not split: \(Refusal.sourceSizeDiffers)", false) }
      g = replace(g, stage: s, horizontal: split.horizontal, vertical: split.vertical(.stage(s)))
      return ("\(name): split 2-D loop (i −\(split.limits.0)…\(split.limits.0), j −\(split.limits.1)…\(split.limits.1)) → two 1-D loops", true)
    }
  }

  /// The graph with stage `s` replaced by `horizontal` (stage `s`) and
  /// `vertical` (stage `s + 1`, reading stage `s`), later stages renumbered.
  static func replace(_ g: EffectGraph, stage s: Int, horizontal: Program, vertical: Program) -> EffectGraph {
    var out = g
    func shifted(_ r: ImageRef) -> ImageRef {
      if case .stage(let k) = r, k >= s { return .stage(k + 1) }
      return r
    }
    for k in out.stages.indices where k > s { out.stages[k].program = remap(out.stages[k].program, shifted) }
    if case .stage(let k) = out.output, k >= s { out.output = .stage(k + 1) }
    let name = g.stages[s].name
    out.stages[s] = Stage(name: name + " (horizontal)", kind: .layer, program: horizontal)
    out.stages.insert(Stage(name: name + " (vertical)", kind: .layer, program: vertical), at: s + 1)
    return out
  }

  /// `Σ weights[k] · sample(src, position + offset k along axis)` for each
  /// channel, over the offsets `sampled` (a weight of 0 included: its tap
  /// still carries a NaN or ∞ into the sum, as in the stage it replaces).
  static func pass(
    _ src: ImageRef, _ sampler: Sampler, offsets: ClosedRange<Int32>, weights: [Float], sampled: [Bool], axis: PixelOffset.Axis
  ) -> Program {
    var p = Program()
    let x = p.add(.positionX), y = p.add(.positionY)
    let taps = Array(offsets)
    p.outputs = (0..<4).map { c in
      func tap(_ k: Int) -> NodeID {
        let d = p.constant(Float(taps[k]))
        let px = axis == .x && taps[k] != 0 ? p.add(.add, [x, d]) : x
        let py = axis == .y && taps[k] != 0 ? p.add(.add, [y, d]) : y
        return p.add(.sample(src, sampler, channel: c), [px, py])
      }
      func weighted(_ w: Float, _ v: NodeID) -> NodeID { w == 1 ? v : p.add(.mul, [p.constant(w), v]) }
      // A symmetric kernel (a Gaussian) multiplies each pair of mirrored taps
      // once: w·(a + b) instead of w·a + w·b, half the multiplies.
      var terms: [NodeID] = []
      var k = 0, j = taps.count - 1
      while k <= j {
        if sampled[k] || sampled[j] {
          if k < j, sampled[k], sampled[j], taps[k] == -taps[j], weights[k] == weights[j] {
            terms.append(weighted(weights[k], p.add(.add, [tap(k), tap(j)])))
          } else {
            if sampled[k] { terms.append(weighted(weights[k], tap(k))) }
            if k < j, sampled[j] { terms.append(weighted(weights[j], tap(j))) }
          }
        }
        k += 1
        j -= 1
      }
      return sum(terms, &p)
    }
    return p
  }

  static func sum(_ terms: [NodeID], _ p: inout Program) -> NodeID {
    if terms.isEmpty { return p.constant(Float(0)) }
    if terms.count == 1 { return terms[0] }
    let mid = terms.count / 2
    return p.add(.add, [sum(Array(terms[..<mid]), &p), sum(Array(terms[mid...]), &p)])
  }

  /// The program with every `sample` of a stage renamed by `f`.
  static func remap(_ p: Program, _ f: (ImageRef) -> ImageRef) -> Program {
    p.mapOpsDeep { op in
      if case .sample(let r, let s, let c) = op { return .sample(f(r), s, channel: c) }
      return op
    }
  }
}
