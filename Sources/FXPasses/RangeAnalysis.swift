import FXIR
import Glibc

/// What is proved about one node's value at every pixel: an interval and
/// whether it may be NaN. For a float node the interval bounds every non-NaN
/// value (±∞ included, so `finite` means both bounds are finite); for an int
/// node it bounds the value; bool nodes carry nothing.
public struct ValueFacts: Sendable, Equatable, CustomStringConvertible {
  public var lo: Double
  public var hi: Double
  public var mayBeNaN: Bool

  public init(_ lo: Double, _ hi: Double, nan: Bool = false) {
    self.lo = lo
    self.hi = hi
    mayBeNaN = nan
  }

  /// Anything at all: a float read from an rgba32f buffer, a bool.
  public static let unknown = ValueFacts(-.infinity, .infinity, nan: true)
  /// Any int32.
  static let anyInt = ValueFacts(Double(Int32.min), Double(Int32.max))

  /// The largest magnitude of a non-NaN value: +∞ when it may be ±∞ or is not bounded.
  public var finiteMagnitude: Double { lo > -.infinity && hi < .infinity ? Swift.max(Swift.abs(lo), Swift.abs(hi)) : .infinity }
  /// Never NaN and never ±∞.
  public var isFinite: Bool { !mayBeNaN && lo > -.infinity && hi < .infinity }
  /// Never NaN and within `range`.
  public func within(_ range: ClosedRange<Double>) -> Bool { !mayBeNaN && lo >= range.lowerBound && hi <= range.upperBound }

  public var description: String { "[\(lo), \(hi)]\(mayBeNaN ? " or NaN" : "")" }

  func union(_ o: ValueFacts) -> ValueFacts { ValueFacts(Swift.min(lo, o.lo), Swift.max(hi, o.hi), nan: mayBeNaN || o.mayBeNaN) }
}

/// A forward interval and NaN analysis over a kernel's pass programs
/// (classic abstract interpretation over intervals, as in Halide's bounds
/// inference and LLVM's `computeKnownFPClass`), pass by pass so an
/// intermediate's loads carry what its pass stored.
///
/// Sources of facts: unorm loads are in [0, 1] and never NaN (an 8- or 16-bit
/// buffer holds integers); uniforms are finite (``CompiledPipeline`` refuses
/// others); pixel indices and sizes are within ``maxExtent``. Each op's
/// transfer function follows its ``Semantics`` meaning: float arithmetic
/// bounds are computed in Double and rounded outward to Float (rounding is
/// monotone, so the fp32 result stays inside), the transcendentals — which
/// fxc computes to within an ulp or two — are widened by a relative 1e-6.
/// Everything proved holds for every pixel and every parameter value, so code
/// that relies on it computes exactly what the interpreter computes.
public enum RangeAnalysis {
  /// Largest image side (``FXImage/ImageBuffer/maxDimension``).
  public static let maxExtent = Double(1 << 20)

  /// Facts for every node of every pass; `unormBuffers` are the buffers stored
  /// as 8- or 16-bit unorm (inputs and output in those formats).
  public static func run(_ kernel: Kernel, unormBuffers: Set<Int>) -> [[ValueFacts]] {
    var stored: [Int: [ValueFacts]] = [:]  // buffer → per channel, from the pass that wrote it
    var result: [[ValueFacts]] = []
    for pass in kernel.loopNests {
      let facts = analyse(pass.program) { buffer, channel in
        if unormBuffers.contains(buffer) { return ValueFacts(0, 1) }
        return stored[buffer]?[channel] ?? .unknown
      }
      stored[pass.output] = pass.program.outputs.map { facts[Int($0.index)] }
      result.append(facts)
    }
    return result
  }

  /// Facts for every node of `program`; `load` gives a buffer channel's facts.
  public static func analyse(_ program: Program, load: (Int, Int) -> ValueFacts) -> [ValueFacts] {
    analyse(
      program,
      load: { op in
        guard case .load(let b, let c) = op else { return .unknown }
        return load(b, c)
      }, loop: nil)
  }

  /// Facts for every node of a stage's program (before lowering: it samples
  /// images instead of loading buffers); `sample` gives what one `sample`
  /// op can return.
  public static func analyse(_ program: Program, sample: (ImageRef, Sampler, Int) -> ValueFacts) -> [ValueFacts] {
    analyse(
      program,
      load: { op in
        guard case .sample(let ref, let sampler, let c) = op else { return .unknown }
        return sample(ref, sampler, c)
      }, loop: nil)
  }

  /// What a loop body's leaves hold in one iteration: the index, the
  /// accumulators on entry, the captured values; `iterations`: how many
  /// times this body is analysed (the enclosing loops' counts multiplied).
  struct LoopFacts {
    var index: ValueFacts
    var accumulators: [ValueFacts]
    var captures: [ValueFacts]
    var iterations: Int
  }

  /// The most iterations a fold's body is followed for (``foldFacts``), the
  /// iterations of the loops around it multiplied in.
  public static let maxFollowedIterations = 512

  static func analyse(_ program: Program, load: (Op) -> ValueFacts, loop: LoopFacts?) -> [ValueFacts] {
    var f: [ValueFacts] = []
    f.reserveCapacity(program.count)
    var folds: [LoopSimplify.Key: [ValueFacts]] = [:]
    for node in program.nodes {
      let a = node.args.map { f[Int($0.index)] }
      let isFloat = node.kind == .float || (node.args.first.map { program[$0].kind == .float } ?? false)
      if let fraction = fractionFacts(node, program, f) {
        f.append(fraction)
      } else if node.kind == .bool {
        f.append(.unknown)
      } else {
        switch node.op {
        case .fold(let body, let k):
          let key = LoopSimplify.Key(loop: body, args: node.args)
          if folds[key] == nil { folds[key] = foldFacts(body, a, load: load, enclosing: loop?.iterations ?? 1) }
          f.append(folds[key]![k])
        case .loopIndex: f.append(loop?.index ?? .anyInt)
        case .loopAccumulator(let k, _): f.append(loop?.accumulators[k] ?? .unknown)
        case .loopCapture(let k, _): f.append(loop?.captures[k] ?? .unknown)
        case .table(let t):
          // The entries the index can select (all of them unless it is one value).
          let entries = a[0].lo == a[0].hi ? [t.value(at: Int32(a[0].lo))] : t.values
          let facts = entries.map { transfer(.constant($0), [], isFloat: isFloat, load: load) }
          f.append(facts.dropFirst().reduce(facts[0]) { $0.union($1) })
        default: f.append(transfer(node.op, a, isFloat: isFloat, load: load))
        }
      }
    }
    return f
  }

  /// The facts of a fold's accumulators, given its operands' facts `a`: with
  /// constant bounds and at most ``maxFollowedIterations`` iterations, the
  /// body's transfer functions applied iteration by iteration (the index one
  /// value each time, so a table of weights gives its entry), from the
  /// initial values' facts — what the loop computes, as the interpreter runs
  /// it; anything at all otherwise. (A Gaussian of values in 0…1 is then in
  /// 0…1 and never NaN, a little wider for the rounding.) A loop with an
  /// exit may stop after any iteration: the facts of all of them together.
  static func foldFacts(_ loop: Loop, _ a: [ValueFacts], load: (Op) -> ValueFacts, enclosing: Int = 1) -> [ValueFacts] {
    let unknown = loop.accumulators.map { _ in ValueFacts.unknown }
    guard a[0].lo == a[0].hi, a[1].lo == a[1].hi else { return unknown }
    let range = Semantics.loopRange(Int32(a[0].lo), Int32(a[1].lo), limit: loop.limit)
    guard range.count * enclosing <= maxFollowedIterations else { return unknown }
    var facts = LoopFacts(
      index: .anyInt, accumulators: Array(a[loop.firstInitial..<loop.firstCapture]), captures: Array(a[loop.firstCapture...]),
      iterations: Swift.max(1, range.count * enclosing))
    // With an exit the loop may stop after any iteration: the union of every iteration's facts.
    var union = facts.accumulators
    for i in range {
      facts.index = ValueFacts(Double(i), Double(i))
      let body = analyse(loop.body, load: load, loop: facts)
      facts.accumulators = loop.body.outputs.map { body[Int($0.index)] }
      union = zip(union, facts.accumulators).map { $0.union($1) }
    }
    return loop.exit == nil ? facts.accumulators : union
  }

  /// `x − floor(x)` (a bilinear weight, `fract`) is in [0, 1] for finite `x`
  /// — 1 itself when a tiny negative `x` rounds up — which intervals alone
  /// cannot see (they forget that both operands are the same `x`).
  static func fractionFacts(_ node: Node, _ program: Program, _ f: [ValueFacts]) -> ValueFacts? {
    guard node.op == .sub, node.kind == .float, program[node.args[1]].op == .floor, program[node.args[1]].args[0] == node.args[0] else {
      return nil
    }
    let x = f[Int(node.args[0].index)]
    return ValueFacts(0, 1, nan: !x.isFinite)
  }

  static func transfer(_ op: Op, _ a: [ValueFacts], isFloat: Bool, load: (Op) -> ValueFacts) -> ValueFacts {
    switch op {
    case .constant(let s):
      switch s {
      case .float(let bits):
        let v = Float(bitPattern: bits)
        return v.isNaN ? ValueFacts(.infinity, -.infinity, nan: true) : ValueFacts(Double(v), Double(v))
      case .int(let n): return ValueFacts(Double(n), Double(n))
      case .bool: return .unknown
      }
    case .pixelX, .pixelY: return ValueFacts(0, maxExtent - 1)
    case .width, .height, .inputWidth, .inputHeight: return ValueFacts(1, maxExtent)
    case .uniform: return ValueFacts(-Double(Float.greatestFiniteMagnitude), Double(Float.greatestFiniteMagnitude))
    case .load, .sample: return load(op)
    // Loops: followed by `analyse` (``foldFacts``); here, anything.
    case .fold, .loopIndex, .loopAccumulator, .loopCapture, .table: return .unknown
    case .select: return a[1].union(a[2])
    case .toFloat, .toFloatUnsigned:
      return op == .toFloatUnsigned && a[0].lo < 0 ? ValueFacts(0, 4_294_967_296) : float(a[0].lo, a[0].hi, nan: false)
    case .floatBits: return ValueFacts(Double(Int32.min), Double(Int32.max))
    case .bitsFloat: return ValueFacts(-.infinity, .infinity, nan: true)
    case .toInt:
      // Saturating, NaN → 0 (Semantics.toInt).
      let lo = a[0].mayBeNaN ? Swift.min(0, a[0].lo) : a[0].lo, hi = a[0].mayBeNaN ? Swift.max(0, a[0].hi) : a[0].hi
      return ValueFacts(clampInt(lo.rounded(.towardZero)), clampInt(hi.rounded(.towardZero)))
    default: return isFloat ? floatOp(op, a) : intOp(op, a)
    }
  }

  static func floatOp(_ op: Op, _ a: [ValueFacts]) -> ValueFacts {
    let nan = a.contains { $0.mayBeNaN }
    switch op {
    case .add, .sub:
      let y = op == .add ? a[1] : ValueFacts(-a[1].hi, -a[1].lo, nan: a[1].mayBeNaN)
      let infMinusInf = (a[0].hi == .infinity && y.lo == -.infinity) || (a[0].lo == -.infinity && y.hi == .infinity)
      return float(a[0].lo + y.lo, a[0].hi + y.hi, nan: nan || infMinusInf)
    case .mul:
      let zeroTimesInf = (a[0].contains(0) && a[1].hasInfinity) || (a[1].contains(0) && a[0].hasInfinity)
      let p = [a[0].lo * a[1].lo, a[0].lo * a[1].hi, a[0].hi * a[1].lo, a[0].hi * a[1].hi].filter { !$0.isNaN }
      return float(p.min() ?? -.infinity, p.max() ?? .infinity, nan: nan || zeroTimesInf)
    case .fma:
      // The exact product lies in the (outward-rounded) facts of the rounded
      // one, and rounding is monotone: the sum's facts bound the fused result.
      return floatOp(.add, [floatOp(.mul, [a[0], a[1]]), a[2]])
    case .div:
      let zeroByZero = a[0].contains(0) && a[1].contains(0)
      let infByInf = a[0].hasInfinity && a[1].hasInfinity
      // Intervals do not track the sign of zero: a divisor that may be 0 may be
      // −0, and x / −0 is −∞ (a fuzz case: smoothstep with edges u·0 and 0).
      guard !a[1].contains(0) else { return ValueFacts(-.infinity, .infinity, nan: nan || zeroByZero || infByInf) }
      let q = [a[0].lo / a[1].lo, a[0].lo / a[1].hi, a[0].hi / a[1].lo, a[0].hi / a[1].hi].filter { !$0.isNaN }
      return float(q.min() ?? -.infinity, q.max() ?? .infinity, nan: nan || infByInf)
    case .neg: return ValueFacts(-a[0].hi, -a[0].lo, nan: nan)
    case .abs:
      if a[0].lo >= 0 { return ValueFacts(a[0].lo, a[0].hi, nan: nan) }
      if a[0].hi <= 0 { return ValueFacts(-a[0].hi, -a[0].lo, nan: nan) }
      return ValueFacts(0, Swift.max(-a[0].lo, a[0].hi), nan: nan)
    case .min, .max:
      // Semantics.min/max: a NaN operand yields the other one.
      let lo = op == .min ? Swift.min(a[0].lo, a[1].lo) : Swift.max(a[0].lo, a[1].lo)
      let hi = op == .min ? Swift.min(a[0].hi, a[1].hi) : Swift.max(a[0].hi, a[1].hi)
      var r = ValueFacts(lo, hi, nan: a[0].mayBeNaN && a[1].mayBeNaN)
      if a[0].mayBeNaN { r = r.union(ValueFacts(a[1].lo, a[1].hi)) }
      if a[1].mayBeNaN { r = r.union(ValueFacts(a[0].lo, a[0].hi)) }
      return r
    case .floor: return ValueFacts(a[0].lo.rounded(.down), a[0].hi.rounded(.down), nan: nan)
    case .roundHalf:
      // Monotone: the binary16 values of floats just outside the bounds bracket the result.
      func bound(_ v: Double, up: Bool) -> Double {
        guard v.isFinite else { return v }
        let f = up ? Float(v).nextUp : Float(v).nextDown
        return Double(Semantics.roundHalf(f))
      }
      return ValueFacts(bound(a[0].lo, up: false), bound(a[0].hi, up: true), nan: nan)
    case .ceil: return ValueFacts(a[0].lo.rounded(.up), a[0].hi.rounded(.up), nan: nan)
    case .sqrt: return float(Swift.max(0, a[0].lo).squareRoot(), a[0].hi.squareRoot(), nan: nan || a[0].lo < 0)
    case .sin, .cos: return widened(-1, 1, nan: nan || a[0].hasInfinity)
    case .exp: return widened(exp(a[0].lo), exp(a[0].hi), nan: nan, floor: 0)
    case .log: return widened(a[0].lo <= 0 ? -.infinity : log(a[0].lo), log(a[0].hi), nan: nan || a[0].lo < 0)
    case .pow:
      // x ≥ 0 and finite operands: never NaN (Semantics.pow); monotone in x for a fixed exponent.
      // A NaN constant's facts are an empty interval, so x's NaN flag must be asked too.
      // An x that may be 0 (facts do not tell −0 from +0) with an exponent that may be
      // negative: pow(−0, −1) is −∞, below every bound here.
      let ordinary = !a[0].mayBeNaN && a[0].lo >= 0 && (a[0].lo > 0 || a[1].lo >= 0) && a[0].hi < .infinity && a[1].isFinite
      guard ordinary else { return .unknown }
      if a[1].lo == a[1].hi {
        // Between the true values at the ends, give or take Transcendentals.pow's
        // bound, 1.5·(1 + |y·log₂x|) ulp, largest at an end (|log₂x| is).
        let e = a[1].lo, ends = [a[0].lo, a[0].hi], p = ends.map { Glibc.pow($0, e) }
        let t = ends.map { $0 == 0 ? 0 : Swift.abs(e * Glibc.log2($0)) }.max()!
        let margin = (1.5 * (1 + t) + 1) * 0x1p-23 * p.map(Swift.abs).max()!
        return widened(p.min()! - margin, p.max()! + margin, nan: false, floor: 0)
      }
      return ValueFacts(0, .infinity)
    case .atan2: return widened(-Double.pi, Double.pi, nan: nan)
    default: return .unknown
    }
  }

  static func intOp(_ op: Op, _ a: [ValueFacts]) -> ValueFacts {
    switch op {
    case .add: return int(a[0].lo + a[1].lo, a[0].hi + a[1].hi)
    case .sub: return int(a[0].lo - a[1].hi, a[0].hi - a[1].lo)
    case .mul:
      let p = [a[0].lo * a[1].lo, a[0].lo * a[1].hi, a[0].hi * a[1].lo, a[0].hi * a[1].hi]
      return int(p.min()!, p.max()!)
    case .neg: return int(-a[0].hi, -a[0].lo)
    case .min: return ValueFacts(Swift.min(a[0].lo, a[1].lo), Swift.min(a[0].hi, a[1].hi))
    case .max: return ValueFacts(Swift.max(a[0].lo, a[1].lo), Swift.max(a[0].hi, a[1].hi))
    case .abs: return a[0].lo >= 0 ? a[0] : .anyInt  // |Int32.min| wraps
    case .mod: return ValueFacts(0, Swift.max(0, a[1].hi - 1))  // Euclidean; a divisor ≤ 0 gives 0
    default: return .anyInt
    }
  }

  /// Bounds of an fp32 result whose exact value lies in [lo, hi]: rounded outward to Float.
  static func float(_ lo: Double, _ hi: Double, nan: Bool) -> ValueFacts {
    ValueFacts(lo.isNaN ? -.infinity : outward(lo, down: true), hi.isNaN ? .infinity : outward(hi, down: false), nan: nan)
  }

  static func widened(_ lo: Double, _ hi: Double, nan: Bool, floor: Double = -.infinity) -> ValueFacts {
    float(Swift.max(floor, lo - Swift.abs(lo) * 1e-6 - 1e-30), hi + Swift.abs(hi) * 1e-6 + 1e-30, nan: nan)
  }

  static func outward(_ v: Double, down: Bool) -> Double {
    let f = Float(v)  // nearest; beyond Float's range: ±∞
    if down { return Double(f) > v ? Double(f.nextDown) : Double(f) }
    return Double(f) < v ? Double(f.nextUp) : Double(f)
  }

  static func int(_ lo: Double, _ hi: Double) -> ValueFacts {
    lo < Double(Int32.min) || hi > Double(Int32.max) ? .anyInt : ValueFacts(lo, hi)  // may wrap: anything
  }

  static func clampInt(_ v: Double) -> Double { Swift.min(Double(Int32.max), Swift.max(Double(Int32.min), v)) }
}

extension ValueFacts {
  func contains(_ v: Double) -> Bool { lo <= v && v <= hi }
  var hasInfinity: Bool { lo == -.infinity || hi == .infinity }
}

/// What a pass's code may rely on, from its ``ValueFacts`` (for ``LoopNestPlan``).
public struct RangeProofs: Sendable {
  /// Every node's facts.
  public var facts: [ValueFacts]
  /// Float min/max nodes that always equal one operand (a clamp that cannot
  /// act): node → the operand's index in its arguments. The emitter forwards it.
  public var forwarded: [Int: Int]
  /// Float min/max nodes whose first operand is never NaN: one compare and
  /// select (minps/maxps), no NaN test.
  public var singleInstruction: Set<Int>
  /// `pow` nodes whose operands are proved inside its ordinary path
  /// (``Transcendentals/powIsOrdinary(_:_:)``, where −0 acts as +0): the
  /// emitter drops the test and the special-case branch.
  public var ordinaryPow: Set<Int>
  /// Ordinary `pow` nodes whose exponent `y·log₂x` is proved in −125…127
  /// for every x > 0 (``powExponentIsNormal(_:_:)``): `2^(y·log₂x)` is then
  /// a normal float, so the emitter drops the clamp of the exponent and
  /// scales by 2ᵏ once instead of in two halves — the same bits.
  public var normalPow: Set<Int>

  /// Nodes whose value reaches a discontinuous op (floor, ceil, a conversion
  /// to int, a comparison: a texel index or a branch, where a rounding-level
  /// change moves the result by a whole texel), a transcendental (which
  /// may amplify it without bound), a division by a value that may be 0
  /// (`x / |x|` — a normalize — is NaN at 0 and ±1 a rounding away), a
  /// square root of a value that may be 0 or below (0 against NaN a
  /// rounding away), a product with a value that may be infinite (0 · ∞ is
  /// NaN) or a float's bits. Relaxed code leaves them strict.
  public var feedsDiscontinuity: [Bool]

  /// The proofs for `program` given its nodes' `facts`; `live` limits them to
  /// live nodes. `outputsFeedingDiscontinuity`: the program's outputs (by
  /// position) whose value a later pass reads into a discontinuous op
  /// (``Kernel/Pass``es planned from the last, ``loadsFeedingDiscontinuity(_:)``).
  public init(_ program: Program, facts: [ValueFacts], live: [Bool], outputsFeedingDiscontinuity: Set<Int> = []) {
    self.facts = facts
    forwarded = [:]
    singleInstruction = []
    ordinaryPow = []
    normalPow = []
    var feeds = [Bool](repeating: false, count: program.count)
    for k in outputsFeedingDiscontinuity { feeds[Int(program.outputs[k].index)] = true }
    for i in program.nodes.indices.reversed() where live[i] {
      let n = program.nodes[i]
      let discontinuous: Bool =
        switch n.op {
        case .floor, .ceil, .toInt, .roundHalf, .lt, .le, .gt, .ge, .eq, .ne: true
        // Ill-conditioned where the operands are large (pow(1 − ε, 3e38) is 0).
        case .pow, .exp, .log, .atan2, .sin, .cos: true
        case .mod, .isNaN, .floatBits: true
        case .div: facts[Int(n.args[1].index)].contains(0)
        // 0 · ∞ is NaN, a rounding away it is ±∞.
        case .mul, .fma: n.kind == .float && n.args.prefix(2).contains { facts[Int($0.index)].hasInfinity }
        case .sqrt: facts[Int(n.args[0].index)].lo <= 0
        default: false
        }
      if discontinuous || feeds[i] { for a in n.args { feeds[Int(a.index)] = true } }
    }
    feedsDiscontinuity = feeds
    for (i, n) in program.nodes.enumerated() where live[i] && n.kind == .float && (n.op == .min || n.op == .max) {
      let a = facts[Int(n.args[0].index)], b = facts[Int(n.args[1].index)]
      // Semantics: min(a, b) = isnan(a) ? b : (b < a ? b : a); max with >.
      if n.op == .max ? (!a.mayBeNaN && a.lo >= b.hi) : (!a.mayBeNaN && a.hi <= b.lo) {
        forwarded[i] = 0
      } else if n.op == .max ? (!b.mayBeNaN && b.lo > a.hi) : (!b.mayBeNaN && b.hi < a.lo) {
        forwarded[i] = 1
      } else if !a.mayBeNaN {
        singleInstruction.insert(i)
      }
    }
    for (i, n) in program.nodes.enumerated() where live[i] && n.op == .pow {
      let x = facts[Int(n.args[0].index)], y = facts[Int(n.args[1].index)]
      guard Self.powIsOrdinary(x, y) else { continue }
      ordinaryPow.insert(i)
      if Self.powExponentIsNormal(x, y) { normalPow.insert(i) }
    }
  }

  /// The (buffer, channel) pairs whose loads in `program` feed a discontinuous
  /// op — every load in the body of a fold that does — : the pass that wrote
  /// those channels keeps them strict too.
  public func loadsFeedingDiscontinuity(_ program: Program) -> Set<BufferChannel> {
    var out: Set<BufferChannel> = []
    func all(_ body: Program) {
      for n in body.nodes {
        if case .load(let buffer, let channel) = n.op { out.insert(BufferChannel(buffer: buffer, channel: channel)) }
        if case .fold(let loop, _) = n.op { all(loop.body) }
      }
    }
    for (i, n) in program.nodes.enumerated() where feedsDiscontinuity[i] {
      if case .load(let buffer, let channel) = n.op { out.insert(BufferChannel(buffer: buffer, channel: channel)) }
      if case .fold(let loop, _) = n.op { all(loop.body) }
    }
    return out
  }

  /// One channel of one buffer.
  public struct BufferChannel: Hashable, Sendable {
    public var buffer: Int
    public var channel: Int
  }

  /// Whether, for an ordinary `pow(x, y)` (``powIsOrdinary(_:_:)``), the
  /// exponent `t = y·log₂x` that ``Transcendentals`` computes lies in
  /// −125…127 for every x > 0 of the facts (x = 0 takes its own case). Then
  /// its clamp to ``Transcendentals/exp2ArgumentRange`` does not act, and with
  /// `k = round(t)` in −125…127 and `p = 2^(t − k)` in [0.7, 1.42], `p·2ᵏ` is
  /// a normal float: scaling by 2ᵏ at once is exact, as the two exact halves
  /// are. `log₂x` is bounded by the binade of x's ends with a binade to
  /// spare on each side (the computed `e + log₂m` is within 10⁻⁶ of the true one).
  public static func powExponentIsNormal(_ x: ValueFacts, _ y: ValueFacts) -> Bool {
    guard x.hi > 0 else { return false }
    let smallest = Double(Float.leastNonzeroMagnitude)
    let logs = [Double(Swift.max(x.lo, smallest).exponent - 1), Double(Swift.max(x.hi, smallest).exponent + 2)]
    let products = logs.flatMap { l in [y.lo * l, y.hi * l] }
    return products.allSatisfy { (-125.0...127.0).contains($0) }
  }

  /// Whether `pow(x, y)` is proved to take the ordinary path: x never NaN, in
  /// `[0, ∞)`, y finite, and x never −0 — which the facts do not track, so
  /// either `x > 0` or y is one value that is not an odd integer (where
  /// `pow(−0, y)` is `pow(+0, y)`, C11 F.10.4.4, so −0 may take the ordinary path).
  public static func powIsOrdinary(_ x: ValueFacts, _ y: ValueFacts) -> Bool {
    guard !x.mayBeNaN && x.lo >= 0 && x.hi < .infinity && y.isFinite else { return false }
    let oddInteger = y.lo.rounded() == y.lo && (y.lo / 2).rounded() != y.lo / 2
    return x.lo > 0 || (y.lo == y.hi && !oddInteger)
  }

  /// Bound on |value| of the nodes relaxed float code may touch (2⁶⁰): far
  /// from overflow, so contracting, reassociating or taking a reciprocal
  /// cannot turn a finite result into ±∞ or NaN, or the reverse.
  public static let relaxedMagnitude = Double(1 << 60)

  /// Whether node `id` (with operands `args`) may be emitted with the relaxed
  /// mode's fast-math flags: it and its operands are proved never NaN and
  /// within ±``relaxedMagnitude``, a divisor is proved away from 0 by 2⁻⁶⁰,
  /// and the value does not reach a texel index or a comparison (``feedsDiscontinuity``).
  public func mayRelax(_ op: Op, _ id: Int, _ args: [NodeID]) -> Bool {
    guard !feedsDiscontinuity[id] else { return false }
    let bound = Self.relaxedMagnitude
    let all = [facts[id]] + args.map { facts[Int($0.index)] }
    guard all.allSatisfy({ $0.within(-bound...bound) }) else { return false }
    if op == .div {
      let d = facts[Int(args[1].index)]
      if d.lo <= 1 / bound && d.hi >= -1 / bound { return false }  // its reciprocal could overflow
    }
    return true
  }

  /// How the store of an 8- or 16-bit output quantises `value`: no clamp when it
  /// is proved in 0…1, a plain compare-and-select per bound when never NaN.
  public func quantise(_ value: NodeID) -> Quantise {
    let f = facts[Int(value.index)]
    return f.within(0...1) ? .inRange : f.mayBeNaN ? .full : .clampOnly
  }

  /// Whether `value` is proved below `bound` (it may be NaN).
  public func isBelow(_ value: NodeID, _ bound: Double) -> Bool { facts[Int(value.index)].hi < bound }

  public enum Quantise: String, Sendable {
    /// Proved in 0…1, never NaN: scale and round only.
    case inRange = "in 0…1: no clamp"
    /// Never NaN: clamp with one max and one min instruction.
    case clampOnly = "never NaN: max/min only"
    /// NaN → 0, then clamp (DESIGN §1).
    case full = "may be NaN: NaN → 0, clamp"
  }
}

/// Which float values of a program may be −0 — what `y + x·0 = y` needs
/// (for `y = −0` it is +0 when `x·0` is +0). Structural, from IEEE 754's
/// signed-zero rules in round-to-nearest and the signs the ``ValueFacts``
/// allow: a sum is −0 only when both addends are (an exact zero sum of
/// nonzero values is +0), a product or quotient only when its operands may
/// have opposite signs (an underflow keeps the sign), `min`/`max`/`select`
/// return an operand, and a conversion from an integer or an 8/16-bit load
/// is never −0. Everything else may be, unless its facts exclude 0.
public enum NegativeZero {
  /// For each node of `program`: whether it may be −0. `unormBuffers` as for
  /// ``RangeAnalysis/run(_:unormBuffers:)``; `facts` are the program's.
  public static func analyse(_ program: Program, facts: [ValueFacts], unormBuffers: Set<Int>) -> [Bool] {
    var may = [Bool](repeating: true, count: program.count)
    for (i, node) in program.nodes.enumerated() {
      let a = node.args.map { Int($0.index) }
      guard node.kind == .float else {
        may[i] = false
        continue
      }
      // May have its sign bit set (negative or −0) / clear (positive or +0).
      func negativeSigned(_ k: Int) -> Bool { facts[k].lo < 0 || may[k] }
      func positiveSigned(_ k: Int) -> Bool { facts[k].hi >= 0 }
      func oppositeSigns(_ x: Int, _ y: Int) -> Bool {
        (negativeSigned(x) && positiveSigned(y)) || (positiveSigned(x) && negativeSigned(y))
      }
      switch node.op {
      case .constant(.float(let bits)): may[i] = bits == (-Float(0)).bitPattern
      case .toFloat, .toFloatUnsigned, .abs: may[i] = false
      case .load(let buffer, _): may[i] = !unormBuffers.contains(buffer)
      case .add: may[i] = may[a[0]] && may[a[1]]
      case .sub: may[i] = may[a[0]] && facts[a[1]].contains(0)
      case .mul, .div: may[i] = oppositeSigns(a[0], a[1])
      case .fma: may[i] = oppositeSigns(a[0], a[1]) && may[a[2]]
      case .neg: may[i] = facts[a[0]].contains(0)
      case .min, .max, .sqrt: may[i] = a.contains { may[$0] }
      case .roundHalf: may[i] = negativeSigned(a[0]) && facts[i].contains(0)
      case .select: may[i] = may[a[1]] || may[a[2]]
      default: may[i] = facts[i].contains(0)
      }
    }
    return may
  }
}
