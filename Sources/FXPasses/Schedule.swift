import FXIR

/// Inline vs materialise (DESIGN §4, Halide's `compute_inline` vs `compute_root`).
///
/// Inlining a stage into its consumers re-evaluates it at every texel they read:
/// `E(s)` evaluations per output pixel, where a consumer contributes
/// `E(consumer) × taps` — one per tap at an integer offset from `position`
/// (a pixel center), four per bilinear tap elsewhere, one per nearest tap.
/// Materialising computes the stage once per pixel into an RGBA32F buffer and
/// its consumers load from it. With `cost(s)` the stage's own node count, a
/// stage is materialised when recomputation costs more than the buffer
/// round trip: `(E(s) − 1) · cost(s) > bufferCost`.
///
/// A second limit keeps compile time linear in the graph's size: LLVM's
/// time on one straight-line kernel grows about as its size squared (a
/// chain of 4,000 `sepia`s, 4× the code of 1,000, took 13.5× as long), so a
/// stage whose inlining would make its consumers' fused pass larger than
/// ``maxFusedNodes`` (its code, loop bodies once) is materialised instead.
///
/// The choice never changes the result: both schedules sample at pixel
/// centers exactly as the staged semantics does.
public struct Schedule: Sendable {
  /// Stages computed into their own buffer, ascending.
  public var materialised: [Int]
  /// One line per stage: its evaluations per pixel, cost and the decision.
  public var notes: [String]

  /// Extra arithmetic one buffer round trip is worth (store + load of 16 bytes
  /// per pixel plus a pass over the image), in IR nodes.
  public static let bufferCost = 64

  /// The most code (IR nodes of the fused stages, a loop body counted once)
  /// one pass is given by inlining: about 100 `sepia`s, 75 ms of LLVM.
  public static let maxFusedNodes = 4_096

  /// Decides for every stage of `graph`. `forceMaterialise` / `forceInline`
  /// (for tests and `fxc dump`) override the cost model.
  public static func decide(_ graph: EffectGraph, forceMaterialise: Bool = false, forceInline: Bool = false)
    -> Schedule
  {
    let n = graph.stages.count
    var evaluations = [Double](repeating: 0, count: n)
    var isRoot = [Bool](repeating: false, count: n)
    if case .stage(let out) = graph.output { evaluations[out] = 1 }
    var notes: [String] = []
    // The pass each stage is computed in (a materialised stage or the output: its own), its code
    // so far, and the stages that read each stage.
    var pass = Array(0..<n)
    var fused = [Int](repeating: 0, count: n)
    var readers = [[Int]](repeating: [], count: n)
    for s in stride(from: n - 1, through: 0, by: -1) {
      let own = cost(of: graph.stages[s].program)
      let size = codeSize(of: graph.stages[s].program)
      let e = evaluations[s]
      let isOutput = graph.output == .stage(s)
      let passes = Set(readers[s].map { pass[$0] })
      let tooLarge = !forceInline && passes.contains { fused[$0] + size > maxFusedNodes }
      let root =
        !isOutput && e > 0
        && (forceMaterialise || tooLarge || (!forceInline && (e - 1) * Double(own) > Double(bufferCost)))
      isRoot[s] = root
      if root || isOutput || passes.isEmpty {
        fused[s] = size
      } else {
        pass[s] = readers[s][0]
        pass[s] = pass[pass[s]]
        for p in passes { fused[p] += size }
      }
      let why =
        isOutput
        ? "output"
        : !root
          ? "inline: \(format(e)) evaluation\(e == 1 ? "" : "s") × \(own) nodes"
          : tooLarge && !forceMaterialise
            ? "materialise: inlined, its readers' pass would exceed \(maxFusedNodes) nodes of code (compile time)"
            : "materialise: \(format(e)) evaluation\(e == 1 ? "" : "s") × \(own) nodes > buffer round trip"
      notes.append("s\(s) '\(graph.stages[s].name)': \(why)")
      let perEval = root ? 1 : e
      for (ref, taps) in taps(of: graph.stages[s].program) {
        if case .stage(let p) = ref {
          evaluations[p] += perEval * taps
          readers[p].append(s)
        }
      }
    }
    return Schedule(materialised: (0..<n).filter { isRoot[$0] }, notes: notes.reversed())
  }

  /// Arithmetic of one evaluation of `program`, in IR nodes: its own nodes plus
  /// what its reads expand to (a whole-pixel tap is a load and an index clamp;
  /// a filtered sample at a computed position is four loads, the address mode
  /// and the bilinear weights, about 40 nodes).
  static func cost(of program: Program) -> Int {
    let samples = taps(of: program)
    let reads = samples.values.reduce(0, +)
    var loops = 0.0
    forEachLoop(in: program) { loop, trips in loops += trips * Double(cost(of: loop.body)) }
    return program.liveCount + Int(reads) * 10 + Int(Swift.min(loops, 1e9))
  }

  /// The code of `program` in IR nodes: its live nodes and each distinct
  /// loop's body once (what LLVM compiles, unlike ``cost(of:)``'s work).
  static func codeSize(of program: Program) -> Int {
    var size = program.liveCount
    forEachLoop(in: program) { loop, _ in size += codeSize(of: loop.body) }
    return size
  }

  /// Calls `f` with each distinct loop of `program` (not those nested in its
  /// bodies) and its trip count: exact for constant bounds, else the most
  /// its limit allows.
  public static func forEachLoop(in program: Program, _ f: (Loop, Double) -> Void) {
    struct Key: Hashable { var loop: Loop, args: [NodeID] }
    var seen = Set<Key>()
    let live = program.live()
    for (i, node) in program.nodes.enumerated() where live[i] {
      guard case .fold(let loop, _) = node.op, seen.insert(Key(loop: loop, args: node.args)).inserted else { continue }
      f(loop, trips(loop, node.args, in: program))
    }
  }

  /// Iterations of `loop` with operands `args` in `program`.
  public static func trips(_ loop: Loop, _ args: [NodeID], in program: Program) -> Double {
    if case .int(let lo)? = program.constantValue(args[0]), case .int(let hi)? = program.constantValue(args[1]) {
      return Double(Semantics.loopRange(lo, hi, limit: loop.limit).count)
    }
    return 2 * Double(loop.limit) + 1
  }

  /// Texel evaluations of each image that one evaluation of `program` makes
  /// (also the random-graph generator's cost estimate); a sample in a loop
  /// body counts once per iteration.
  public static func taps(of program: Program) -> [ImageRef: Double] {
    struct Tap: Hashable { var ref: ImageRef, x: NodeID, y: NodeID }
    var seen = Set<Tap>()
    var result: [ImageRef: Double] = [:]
    let live = program.live()
    for (i, node) in program.nodes.enumerated() where live[i] {
      guard case .sample(let ref, let sampler, _) = node.op, seen.insert(Tap(ref: ref, x: node.args[0], y: node.args[1])).inserted
      else { continue }
      let aligned = PixelOffset.tap(node.args[0], .x, in: program) != nil && PixelOffset.tap(node.args[1], .y, in: program) != nil
      result[ref, default: 0] += aligned || sampler.filter == .nearest ? 1 : 4
    }
    forEachLoop(in: program) { loop, trips in
      for (ref, n) in taps(of: loop.body) { result[ref, default: 0] += trips * n }
    }
    return result
  }

  static func format(_ v: Double) -> String { v == v.rounded() ? "\(Int(v))" : String(v) }
}

/// Recognises sample coordinates at a whole-pixel offset from `position`
/// (`position.x + k`, k an integer): such a read is one texel, a dense load.
public enum PixelOffset {
  public enum Axis { case x, y }

  /// The integer `k` when `id` is `position.<axis> + k` (or `- k`), else nil.
  public static func of(_ id: NodeID, _ axis: Axis, in p: Program) -> Int32? {
    let pos: Op = axis == .x ? .positionX : .positionY
    let node = p[id]
    if node.op == pos { return 0 }
    guard node.args.count == 2, node.op == .add || node.op == .sub else { return nil }
    func integral(_ a: NodeID) -> Int32? {
      guard case .float(let bits)? = p.constantValue(a) else { return nil }
      let v = Float(bitPattern: bits)
      // |k| < 2^22 keeps `i + 0.5 + k` exact in fp32 for every index i < 2^20
      // (ImageBuffer.maxDimension), so the sample is exactly texel i + k.
      return v == v.rounded() && abs(v) < 4_194_304 ? Int32(v) : nil
    }
    if p[node.args[0]].op == pos, let k = integral(node.args[1]) { return node.op == .add ? k : -k }
    if node.op == .add, p[node.args[1]].op == pos, let k = integral(node.args[0]) { return k }
    return nil
  }

  /// A whole-pixel offset from `position`: a constant, or an int node of the
  /// program (negated when `negated`) plus a constant.
  public enum Tap: Equatable, Sendable {
    case constant(Int32)
    case dynamic(NodeID, Int32, negated: Bool)
  }

  /// The offset when `id` is `position.<axis> + k` (``of(_:_:in:)``) or, in a
  /// loop body, `position.<axis> ± float(i)` with `i` the loop index or the
  /// index plus an int constant `c`, |c| < 2²⁰: then |i| ≤ 2²² + 2²⁰
  /// (``Loop/maxLimit``) keeps `position + float(i)` exact in fp32, so the
  /// sample is exactly texel `pixel + i`.
  public static func tap(_ id: NodeID, _ axis: Axis, in p: Program) -> Tap? {
    if let k = of(id, axis, in: p) { return .constant(k) }
    let pos: Op = axis == .x ? .positionX : .positionY
    let node = p[id]
    guard node.op == .add || node.op == .sub else { return nil }
    let other: NodeID
    if p[node.args[0]].op == pos {
      other = node.args[1]
    } else if node.op == .add, p[node.args[1]].op == pos {
      other = node.args[0]
    } else {
      return nil
    }
    let negated = node.op == .sub
    guard p[other].op == .toFloat else { return nil }
    let e = p[other].args[0]
    if p[e].op == .loopIndex { return .dynamic(e, 0, negated: negated) }
    let n = p[e]
    guard n.op == .add || n.op == .sub, p[n.args[0]].op == .loopIndex, case .int(let c)? = p.constantValue(n.args[1]),
      abs(c) < 1 << 20
    else { return nil }
    let k = n.op == .add ? c : -c
    return .dynamic(n.args[0], negated ? -k : k, negated: negated)
  }
}
