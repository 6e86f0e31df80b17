import FXIR

/// Lowers a scheduled graph to a ``Kernel``: every stage the schedule inlines is
/// evaluated at the pixel centers its consumers' filters read (DESIGN §4), every
/// `sample` is expanded into integer texel reads through its address mode
/// (DESIGN §3, the same formula as ``Sampler`` and the interpreter's reference
/// sampler), and every read of an input or a materialised stage becomes a
/// `load` at an index that is in bounds by construction.
///
/// A texel's alpha from an input in `opaqueInputs` is the constant 1 — exactly
/// what a load returns from an opaque RGBA8, RGBA16 or RGBA32F image (255·(1/255)
/// and 65535·(1/65535) round to 1 in fp32), so the kernel computes the same
/// pixels on such an image, while the constant folds away every operation on alpha.
///
/// Buffers with straight alpha (DESIGN §1, amended 2026-12-01: 8- and 16-bit
/// images hold what the file holds): a texel of an input in
/// `straightAlphaInputs` is premultiplied in fp32 right after its load
/// (`c·a`), and with `straightAlphaOutput` the last pass un-premultiplies in
/// fp32 right before the store quantises (`c / a` where `a > 0`, else 0). An opaque input
/// needs neither: its alpha is the constant 1 and both steps fold away.
public enum LowerToKernel {
  public static func run(
    _ graph: EffectGraph, _ schedule: Schedule, opaqueInputs: Set<Int> = [], straightAlphaInputs: Set<Int> = [],
    straightAlphaOutput: Bool = false
  ) -> Kernel {
    let inputCount = max(graph.inputs.count, 1)
    var buffers: [Int: Int] = [:]
    for (i, s) in schedule.materialised.enumerated() { buffers[s] = inputCount + i }
    var loopNests: [Kernel.LoopNest] = []
    let outputBuffer = inputCount + schedule.materialised.count
    let targets: [(ImageRef, Int)] =
      schedule.materialised.map { (.stage($0), buffers[$0]!) } + [(graph.output, outputBuffer)]
    for (ref, buffer) in targets {
      var b = LoopNestBuilder(
        graph: graph, buffers: buffers, inputCount: inputCount, opaqueInputs: opaqueInputs, straightAlphaInputs: straightAlphaInputs)
      let x = b.p.add(.pixelX), y = b.p.add(.pixelY)
      b.inRange = [Axis(id: x, isX: true), Axis(id: y, isX: false)]
      if case .stage(let s) = ref {
        b.p.outputs = b.evaluate(stage: s, x, y)
      } else {
        // A graph whose output is an input reads it like a color effect does
        // (nearest, clamp to edge) at the output size — input 0's.
        b.p.outputs = b.read(ref, .clampToEdge, x, 0, y, 0)
      }
      if buffer == outputBuffer && straightAlphaOutput { b.p.outputs = b.unpremultiply(b.p.outputs) }
      var name = graph.inputs.first ?? "input"
      if case .stage(let s) = ref { name = graph.stages[s].name }
      loopNests.append(Kernel.LoopNest(name: name, program: b.p, output: buffer))
    }
    return Kernel(
      inputCount: inputCount, intermediates: schedule.materialised, loopNests: loopNests,
      uniformCount: graph.uniforms.count, scheduleNotes: schedule.notes,
      straightAlphaInputs: straightAlphaInputs, straightAlphaOutput: straightAlphaOutput)
  }
}

/// An index node known to lie in `0..<width` (isX) or `0..<height` of the output.
struct Axis: Hashable {
  var id: NodeID
  var isX: Bool
}

/// Builds one pass program.
struct LoopNestBuilder {
  let graph: EffectGraph
  /// Materialised stage → buffer index.
  let buffers: [Int: Int]
  let inputCount: Int
  /// Inputs whose alpha is 1 everywhere.
  let opaqueInputs: Set<Int>
  /// Inputs whose buffers hold straight alpha: color is premultiplied after the load.
  let straightAlphaInputs: Set<Int>
  var p = Program()
  var inRange: Set<Axis> = []
  var stageMemo: [StageAt: [NodeID]] = [:]
  /// In a loop body's builder: the enclosing program's values of the source
  /// loop's captures, and the values this body captures (nodes of the
  /// enclosing program, with their kinds).
  var sourceCaptures: [NodeID] = []
  var captured: [(id: NodeID, kind: ScalarKind)] = []
  var captureMemo: [NodeID: NodeID] = [:]
  var foldMemo: [FoldAt: [NodeID]] = [:]

  struct StageAt: Hashable {
    var stage: Int
    var x: NodeID, y: NodeID
  }

  struct FoldAt: Hashable {
    var loop: Loop
    var args: [NodeID]
  }

  init(graph: EffectGraph, buffers: [Int: Int], inputCount: Int, opaqueInputs: Set<Int>, straightAlphaInputs: Set<Int>) {
    self.graph = graph
    self.buffers = buffers
    self.inputCount = inputCount
    self.opaqueInputs = opaqueInputs
    self.straightAlphaInputs = straightAlphaInputs
  }

  /// Value `outer` of the enclosing program, as a captured value of this body.
  mutating func captureOuter(_ outer: NodeID, _ kind: ScalarKind) -> NodeID {
    if let c = captureMemo[outer] { return c }
    captured.append((outer, kind))
    let c = p.add(.loopCapture(captured.count - 1, kind))
    captureMemo[outer] = c
    return c
  }

  /// `loop` (a stage-level loop with operands `args`, nodes of this program)
  /// instantiated at texel (i, j): its body lowered like a stage by a builder
  /// of its own, which reads pixelX/pixelY itself when (i, j) are this
  /// program's and captures them otherwise. Every result of the new loop.
  mutating func fold(_ loop: Loop, _ args: [NodeID], _ i: NodeID, _ j: NodeID) -> [NodeID] {
    let key = FoldAt(loop: loop, args: args + [i, j])
    if let m = foldMemo[key] { return m }
    var body = LoopNestBuilder(
      graph: graph, buffers: buffers, inputCount: inputCount, opaqueInputs: opaqueInputs, straightAlphaInputs: straightAlphaInputs)
    body.sourceCaptures = Array(args[loop.firstCapture...])
    func coordinate(_ v: NodeID, isX: Bool) -> NodeID {
      let pixel: Op = isX ? .pixelX : .pixelY
      let inner = p[v].op == pixel ? body.p.add(pixel) : body.captureOuter(v, .int)
      if inRange.contains(Axis(id: v, isX: isX)) { body.inRange.insert(Axis(id: inner, isX: isX)) }
      return inner
    }
    let bi = coordinate(i, isX: true), bj = coordinate(j, isX: false)
    body.p.outputs = body.instantiate(loop.body, bi, bj)
    let lowered = Loop(
      body: body.p, accumulators: loop.accumulators, captures: body.captured.map(\.kind), limit: loop.limit,
      exit: loop.exit)
    let operands = Array(args[..<loop.firstCapture]) + body.captured.map(\.id)
    let results = loop.accumulators.indices.map { p.add(.fold(lowered, result: $0), operands) }
    foldMemo[key] = results
    return results
  }

  /// The four channels of `ref` at texel (i, j), which is in bounds of `ref`.
  mutating func texel(_ ref: ImageRef, _ i: NodeID, _ j: NodeID) -> [NodeID] {
    switch ref {
    case .input(let k):
      if opaqueInputs.contains(k) {
        return (0..<3).map { p.add(.load(buffer: k, channel: $0), [i, j]) } + [p.constant(Float(1))]
      }
      let loads = (0..<4).map { p.add(.load(buffer: k, channel: $0), [i, j]) }
      guard straightAlphaInputs.contains(k) else { return loads }
      return loads.prefix(3).map { p.add(.mul, [$0, loads[3]]) } + [loads[3]]
    case .stage(let s):
      if let b = buffers[s] { return (0..<4).map { p.add(.load(buffer: b, channel: $0), [i, j]) } }
      return evaluate(stage: s, i, j)
    }
  }

  /// Straight color from premultiplied `rgba`, as the store of a
  /// straight-alpha buffer needs it: `c / a` where `a > 0`, else 0
  /// (NaN alpha gives 0); alpha unchanged (the store clamps it).
  mutating func unpremultiply(_ rgba: [NodeID]) -> [NodeID] {
    let a = rgba[3], zero = p.constant(Float(0))
    let visible = p.add(.gt, [a, zero])
    // Where a > 0, a ≥ the least subnormal, so the max changes nothing the
    // select keeps; it lets the range analysis prove the quotient never NaN.
    let stored = p.add(.max, [a, p.constant(Float.leastNonzeroMagnitude)])
    return rgba.prefix(3).map { p.add(.select, [visible, p.add(.div, [$0, stored]), zero]) } + [a]
  }

  /// Stage `s` inlined at pixel (i, j): its program copied with `position` = (i + 0.5, j + 0.5).
  mutating func evaluate(stage s: Int, _ i: NodeID, _ j: NodeID) -> [NodeID] {
    let key = StageAt(stage: s, x: i, y: j)
    if let m = stageMemo[key] { return m }
    let r = instantiate(graph.stages[s].program, i, j)
    stageMemo[key] = r
    return r
  }

  /// The outputs of stage-level program `src` (a stage or a loop body) at
  /// texel (i, j), as nodes of this program.
  mutating func instantiate(_ src: Program, _ i: NodeID, _ j: NodeID) -> [NodeID] {
    var map = [NodeID](repeating: NodeID(0), count: src.count)
    struct SampleKey: Hashable { var ref: ImageRef, sampler: Sampler, x: NodeID, y: NodeID }
    var sampled: [SampleKey: [NodeID]] = [:]
    let live = src.live()
    for (n, node) in src.nodes.enumerated() where live[n] {
      let args = node.args.map { map[Int($0.index)] }
      switch node.op {
      case .positionX: map[n] = p.add(.add, [p.add(.toFloat, [i]), p.constant(Float(0.5))])
      case .positionY: map[n] = p.add(.add, [p.add(.toFloat, [j]), p.constant(Float(0.5))])
      case .inputWidth(0): map[n] = p.add(.width)
      case .inputHeight(0): map[n] = p.add(.height)
      case .sample(let ref, let sampler, let c):
        let key = SampleKey(ref: ref, sampler: sampler, x: args[0], y: args[1])
        if sampled[key] == nil {
          if let tx = PixelOffset.tap(node.args[0], .x, in: src), let ty = PixelOffset.tap(node.args[1], .y, in: src) {
            // A whole-pixel tap: the offset's int node (a loop index) is this program's.
            func offset(_ t: PixelOffset.Tap) -> (Int32, NodeID?) {
              switch t {
              case .constant(let k): return (k, nil)
              case .dynamic(let e, let k, let negated):
                let v = map[Int(e.index)]
                return (k, negated ? p.add(.neg, [v]) : v)
              }
            }
            let (kx, ex) = offset(tx), (ky, ey) = offset(ty)
            sampled[key] = read(ref, sampler.address, i, kx, j, ky, dynamic: (ex, ey))
          } else {
            sampled[key] = sample(ref, sampler, args[0], args[1])
          }
        }
        map[n] = sampled[key]![c]
      case .loopIndex, .loopAccumulator: map[n] = p.add(node.op)
      case .loopCapture(let k, let kind): map[n] = captureOuter(sourceCaptures[k], kind)
      case .fold(let loop, let k): map[n] = fold(loop, args, i, j)[k]
      default: map[n] = p.add(node.op, args)
      }
    }
    return src.outputs.map { map[Int($0.index)] }
  }

  /// The size of `ref` along an axis, and whether it is the output's size.
  mutating func extent(_ ref: ImageRef, isX: Bool) -> (NodeID, Bool) {
    if case .input(let k) = ref, k != 0 { return (p.add(isX ? .inputWidth(k) : .inputHeight(k)), false) }
    return (p.add(isX ? .width : .height), true)
  }

  /// Resolves integer coordinate `i + k` along one axis through `mode`:
  /// the in-bounds index, and (transparent mode) whether it was inside.
  mutating func resolve(
    _ i: NodeID, _ k: Int32, _ ref: ImageRef, isX: Bool, _ mode: Sampler.AddressMode, dynamic: NodeID? = nil
  ) -> (NodeID, NodeID?) {
    let (n, isOutput) = extent(ref, isX: isX)
    if k == 0, dynamic == nil, isOutput, inRange.contains(Axis(id: i, isX: isX)) { return (i, nil) }
    var v = dynamic.map { p.add(.add, [i, $0]) } ?? i
    if k != 0 { v = p.add(.add, [v, p.constant(k)]) }
    let zero = p.constant(Int32(0)), one = p.constant(Int32(1))
    var inside: NodeID? = nil
    let r: NodeID
    switch mode {
    case .clampToEdge: r = ClampToEdge.emit(v, extent: n, in: &p)
    case .transparent:
      r = ClampToEdge.emit(v, extent: n, in: &p)
      inside = p.add(.and, [p.add(.ge, [v, zero]), p.add(.lt, [v, n])])
    case .repeat: r = p.add(.mod, [v, n])
    case .mirror:
      let twice = p.add(.add, [n, n])
      let m = p.add(.mod, [v, twice])
      r = p.add(.select, [p.add(.lt, [m, n]), m, p.add(.sub, [p.add(.sub, [twice, one]), m])])
    }
    if isOutput { inRange.insert(Axis(id: r, isX: isX)) }
    return (r, inside)
  }

  /// The texel of `ref` at integer (i + kx, j + ky) under `mode`.
  /// `dynamic` adds int nodes (loop indices) to the offsets.
  mutating func read(
    _ ref: ImageRef, _ mode: Sampler.AddressMode, _ i: NodeID, _ kx: Int32, _ j: NodeID, _ ky: Int32,
    dynamic: (NodeID?, NodeID?) = (nil, nil)
  ) -> [NodeID] {
    let (ri, insideX) = resolve(i, kx, ref, isX: true, mode, dynamic: dynamic.0)
    let (rj, insideY) = resolve(j, ky, ref, isX: false, mode, dynamic: dynamic.1)
    let t = texel(ref, ri, rj)
    let inside = [insideX, insideY].compactMap { $0 }
    guard !inside.isEmpty else { return t }
    let cond = inside.count == 2 ? p.add(.and, inside) : inside[0]
    let zero = p.constant(Float(0))
    return t.map { p.add(.select, [cond, $0, zero]) }
  }

  /// `lerp(a, b, t)` of the sampling definition, `fma(b, t, a·(1 − t))`: `a`
  /// exactly when `t == 0`, so a texel with zero weight is never read (∞·0
  /// would make NaN).
  mutating func lerp(_ a: NodeID, _ b: NodeID, _ t: NodeID, _ oneMinusT: NodeID, _ tIsZero: NodeID) -> NodeID {
    let blend = p.add(.fma, [b, t, p.add(.mul, [a, oneMinusT])])
    return p.add(.select, [tIsZero, a, blend])
  }

  /// DESIGN §3 sampling at a continuous position (px, py): NaN → transparent;
  /// coordinates clamped to ±2^24; nearest = floor; linear blends the four
  /// texels around (px − 0.5, py − 0.5), x first, then y.
  mutating func sample(_ ref: ImageRef, _ sampler: Sampler, _ px: NodeID, _ py: NodeID) -> [NodeID] {
    let limit = Sampler.coordinateLimit
    let isNaN = p.add(.or, [p.add(.isNaN, [px]), p.add(.isNaN, [py])])
    func clampCoord(_ v: NodeID, _ p: inout Program) -> NodeID {
      p.add(.min, [p.add(.max, [v, p.constant(-limit)]), p.constant(limit)])
    }
    let cx = clampCoord(px, &p), cy = clampCoord(py, &p)
    var result: [NodeID]
    switch sampler.filter {
    case .nearest:
      let i = p.add(.toInt, [p.add(.floor, [cx])]), j = p.add(.toInt, [p.add(.floor, [cy])])
      result = read(ref, sampler.address, i, 0, j, 0)
    case .linear:
      let half = p.constant(Float(0.5)), one = p.constant(Float(1)), fzero = p.constant(Float(0))
      let fx = p.add(.sub, [cx, half]), fy = p.add(.sub, [cy, half])
      let x0 = p.add(.floor, [fx]), y0 = p.add(.floor, [fy])
      let tx = p.add(.sub, [fx, x0]), ty = p.add(.sub, [fy, y0])
      let sx = p.add(.sub, [one, tx]), sy = p.add(.sub, [one, ty])
      let zx = p.add(.eq, [tx, fzero]), zy = p.add(.eq, [ty, fzero])
      let i0 = p.add(.toInt, [x0]), j0 = p.add(.toInt, [y0])
      let t00 = read(ref, sampler.address, i0, 0, j0, 0)
      let t10 = read(ref, sampler.address, i0, 1, j0, 0)
      let t01 = read(ref, sampler.address, i0, 0, j0, 1)
      let t11 = read(ref, sampler.address, i0, 1, j0, 1)
      result = (0..<4).map { c in
        let top = lerp(t00[c], t10[c], tx, sx, zx)
        let bottom = lerp(t01[c], t11[c], tx, sx, zx)
        return lerp(top, bottom, ty, sy, zy)
      }
    }
    let zero = p.constant(Float(0))
    return result.map { p.add(.select, [isNaN, zero, $0]) }
  }
}
