import FXIR

/// The images and values a program reads.
struct EvalContext {
  var width: Int32
  var height: Int32
  var uniforms: [Float]
  /// Graph inputs (sample(.input(k)), inputWidth(k)).
  var inputs: [Raster]
  /// Stage rasters computed so far (staged evaluation).
  var stages: [Raster] = []
  /// Kernel buffers by index (kernel evaluation).
  var buffers: [Raster] = []
  /// Counts the loop iterations pixels run, when given.
  var loopIterations: LoopIterations? = nil
}

/// The iterations of loop bodies that pixels ran in an interpreter run (a
/// pixel's iteration counts once, in every loop, nested ones included): what
/// a loop costs, counted rather than timed.
public final class LoopIterations {
  /// Pixel-iterations so far.
  public private(set) var count = 0
  public init() {}
  func add(_ n: Int) { count += n }
}

/// One node's values over a span of pixels.
enum Column {
  case float([Float])
  case int([Int32])
  case bool([Bool])

  var f: [Float] {
    if case .float(let v) = self { return v }
    preconditionFailure("internal error: expected a float column")
  }
  var i: [Int32] {
    if case .int(let v) = self { return v }
    preconditionFailure("internal error: expected an int column")
  }
  var b: [Bool] {
    if case .bool(let v) = self { return v }
    preconditionFailure("internal error: expected a bool column")
  }
}

/// Evaluates a program node by node over a span of `n` pixels of one row — a
/// whole column of values per node, no per-pixel tree walking or boxing. Each
/// pure op's meaning comes from its ``OpSpec`` (the same functions the
/// constant folder uses); only reads and built-ins are evaluated here.
struct SpanEvaluator {
  let program: Program
  let live: [Bool]

  init(_ program: Program) {
    self.program = program
    live = program.live()
  }

  /// The outputs (RGBA) for pixels `x0..<x0+n` of row `y`.
  /// `observe`, when given, sees every live float node's values.
  func run(row y: Int32, from x0: Int32, count n: Int, _ ctx: EvalContext, observe: ((Int, [Float]) -> Void)? = nil) -> [[Float]] {
    columns(row: y, from: x0, count: n, ctx, observe: observe).map(\.f)
  }

  /// The outputs' columns; `loop` gives a loop body its index, accumulators and captured values.
  func columns(
    row y: Int32, from x0: Int32, count n: Int, _ ctx: EvalContext, loop: LoopState? = nil,
    observe: ((Int, [Float]) -> Void)? = nil
  ) -> [Column] {
    var values = [Column?](repeating: nil, count: program.count)
    var memo = Memo()
    for (k, node) in program.nodes.enumerated() where live[k] {
      let a = node.args.map { values[Int($0.index)]! }
      switch node.op {
      case .loopIndex: values[k] = .int(Array(repeating: loop!.index, count: n))
      case .loopAccumulator(let i, _): values[k] = loop!.accumulators[i]
      case .loopCapture(let i, _): values[k] = loop!.captures[i]
      case .fold(let l, let result):
        let key = FoldKey(loop: l, args: node.args)
        if memo.folds[key] == nil { memo.folds[key] = fold(l, a, y: y, x0: x0, n: n, ctx) }
        values[k] = memo.folds[key]![result]
      default: values[k] = evaluate(node, a, y: y, x0: x0, n: n, ctx, &memo.samples)
      }
      if let observe, case .float(let v) = values[k]! { observe(k, v) }
    }
    return program.outputs.map { values[Int($0.index)]! }
  }

  /// What a loop body reads besides the pixel's built-ins.
  struct LoopState {
    var index: Int32
    var accumulators: [Column]
    var captures: [Column]
  }

  struct Memo {
    var samples: [SampleKey: [SIMD4<Float>]] = [:]
    var folds: [FoldKey: [Column]] = [:]
  }

  struct SampleKey: Hashable {
    var ref: ImageRef, sampler: Sampler, x: NodeID, y: NodeID
  }

  struct FoldKey: Hashable {
    var loop: Loop, args: [NodeID]
  }

  /// A fold over the span (``Loop``): every pixel runs its own range
  /// (``Semantics/loopRange(_:_:limit:)``); the body is evaluated for the
  /// union of the ranges, in ascending order, and a pixel keeps the body's
  /// values only for its own indices, and with an ``Loop/exit`` only until
  /// its exit flag is true. The loop ends when no pixel has work left.
  func fold(_ loop: Loop, _ a: [Column], y: Int32, x0: Int32, n: Int, _ ctx: EvalContext) -> [Column] {
    let lo = a[0].i, hi = a[1].i
    let ranges = (0..<n).map { Semantics.loopRange(lo[$0], hi[$0], limit: loop.limit) }
    var state = LoopState(
      index: 0, accumulators: Array(a[loop.firstInitial..<loop.firstCapture]), captures: Array(a[loop.firstCapture...]))
    guard let start = ranges.filter({ !$0.isEmpty }).map(\.lowerBound).min(), let end = ranges.map(\.upperBound).max()
    else { return state.accumulators }
    let body = SpanEvaluator(loop.body)
    for i in start..<end {
      var active = ranges.map { $0.contains(i) }
      if let exit = loop.exit {
        let stopped = state.accumulators[exit].b
        active = active.indices.map { active[$0] && !stopped[$0] }
        // No pixel that has not stopped has an index left.
        if active.indices.allSatisfy({ stopped[$0] || ranges[$0].upperBound <= i }) { break }
      }
      state.index = i
      ctx.loopIterations?.add(active.lazy.filter { $0 }.count)
      let next = body.columns(row: y, from: x0, count: n, ctx, loop: state)
      state.accumulators = zip(state.accumulators, next).map { old, new in Self.merge(active, new, old) }
    }
    return state.accumulators
  }

  /// `new` where `active`, else `old`.
  static func merge(_ active: [Bool], _ new: Column, _ old: Column) -> Column {
    switch (new, old) {
    case (.float(let u), .float(let v)): .float(active.indices.map { active[$0] ? u[$0] : v[$0] })
    case (.int(let u), .int(let v)): .int(active.indices.map { active[$0] ? u[$0] : v[$0] })
    default:
      .bool(active.indices.map { active[$0] ? new.b[$0] : old.b[$0] })
    }
  }

  func evaluate(
    _ node: Node, _ a: [Column], y: Int32, x0: Int32, n: Int, _ ctx: EvalContext,
    _ samples: inout [SampleKey: [SIMD4<Float>]]
  ) -> Column {
    switch node.op {
    case .constant(let s):
      switch s {
      case .float: return .float(Array(repeating: s.floatValue, count: n))
      case .int(let v): return .int(Array(repeating: v, count: n))
      case .bool(let v): return .bool(Array(repeating: v, count: n))
      }
    case .positionX: return .float((0..<n).map { Float(x0 + Int32($0)) + 0.5 })
    case .positionY: return .float(Array(repeating: Float(y) + 0.5, count: n))
    case .pixelX: return .int((0..<n).map { x0 + Int32($0) })
    case .pixelY: return .int(Array(repeating: y, count: n))
    case .width: return .int(Array(repeating: ctx.width, count: n))
    case .height: return .int(Array(repeating: ctx.height, count: n))
    case .inputWidth(let k): return .int(Array(repeating: ctx.inputs[k].width, count: n))
    case .inputHeight(let k): return .int(Array(repeating: ctx.inputs[k].height, count: n))
    case .uniform(let k): return .float(Array(repeating: ctx.uniforms[k], count: n))
    case .sample(let ref, let sampler, let c):
      let key = SampleKey(ref: ref, sampler: sampler, x: node.args[0], y: node.args[1])
      if samples[key] == nil {
        let raster: Raster
        switch ref {
        case .input(let k): raster = ctx.inputs[k]
        case .stage(let s): raster = ctx.stages[s]
        }
        let px = a[0].f, py = a[1].f
        samples[key] = (0..<n).map { raster.sample(px[$0], py[$0], sampler) }
      }
      return .float(samples[key]!.map { $0[c] })
    case .load(let b, let c):
      let buffer = ctx.buffers[b]
      let ix = a[0].i, iy = a[1].i
      return .float(
        (0..<n).map {
          precondition(
            ix[$0] >= 0 && ix[$0] < buffer.width && iy[$0] >= 0 && iy[$0] < buffer.height,
            "internal error: load outside buffer \(b)")
          return buffer[ix[$0], iy[$0]][c]
        })
    case .select:
      let c = a[0].b
      switch (a[1], a[2]) {
      case (.float(let u), .float(let v)): return .float((0..<n).map { c[$0] ? u[$0] : v[$0] })
      case (.int(let u), .int(let v)): return .int((0..<n).map { c[$0] ? u[$0] : v[$0] })
      default:
        let u = a[1].b, v = a[2].b
        return .bool((0..<n).map { c[$0] ? u[$0] : v[$0] })
      }
    default:
      return pure(node, a, n: n)
    }
  }

  /// Pure ops: the table's scalar meaning (``OpSpec/Meaning``, the same
  /// functions the constant folder uses), applied over the span.
  func pure(_ node: Node, _ a: [Column], n: Int) -> Column {
    guard let m = node.op.spec.meaning else { preconditionFailure("internal error: \(node.op.name) is not pure") }
    switch (a.count, a[0]) {
    case (1, .float(let x)):
      if let f = m.float1 { return .float(x.map(f)) }
      if let f = m.floatTest { return .bool(x.map(f)) }
      if let f = m.toInt { return .int(x.map(f)) }
    case (1, .int(let x)):
      if let f = m.int1 { return .int(x.map(f)) }
      if let f = m.toFloat { return .float(x.map(f)) }
    case (1, .bool(let x)):
      if let f = m.bool1 { return .bool(x.map(f)) }
    case (2, .float(let x)):
      let y = a[1].f
      if let f = m.float2 { return .float((0..<n).map { f(x[$0], y[$0]) }) }
      if let f = m.floatCompare { return .bool((0..<n).map { f(x[$0], y[$0]) }) }
    case (2, .int(let x)):
      let y = a[1].i
      if let f = m.int2 { return .int((0..<n).map { f(x[$0], y[$0]) }) }
      if let f = m.intCompare { return .bool((0..<n).map { f(x[$0], y[$0]) }) }
    case (2, .bool(let x)):
      let y = a[1].b
      if let f = m.bool2 { return .bool((0..<n).map { f(x[$0], y[$0]) }) }
    case (3, .float(let x)):
      let y = a[1].f, z = a[2].f
      if let f = m.float3 { return .float((0..<n).map { f(x[$0], y[$0], z[$0]) }) }
    default: break
    }
    preconditionFailure("internal error: \(node.op.name) has no meaning for its operands")
  }
}
