import FX
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import Foundation

// MARK: - The generator

/// A seeded generator of random, well-typed effect graphs over random input
/// images — a testing utility (`fxc fuzz`, the differential tests).
///
/// A case has 1–5 stages of every kind (color, distortion, layer, multi-input
/// combine) forming a chain or a DAG over 1–2 inputs (input 1 may differ in size
/// and format from input 0), every filter × address mode, expression trees of
/// limited depth over float/float2/3/4, int and bool(N) values using every op
/// family of the language, local values shared within a stage, adversarial
/// constants (0, −0, ±1, 0.5, ±1e30, 1e-30, denormals, NaN, ±∞) and sample
/// positions both at `position + integer offset` and data-dependent. Inputs are
/// RGBA8, RGBA16 or RGBA32F, the latter sometimes with NaN, ±∞ and huge values.
///
/// The same seed gives the same case on every platform (``SplitMix64``).
public struct RandomGraph: Sendable {
  public var seed: UInt64
  /// Image sizes: width 1…maxWidth (and one time in five 7…9 or 15…17, a vector
  /// body plus a tail at 8 and 16 lanes), height 1…maxHeight. Input 0 sets the
  /// output size; input 1 has its own.
  public var maxWidth = 9, maxHeight = 7
  public var maxStages = 5
  /// Depth of a stage's returned expression tree.
  public var maxDepth = 4
  /// Dense taps sometimes at offsets near ±2^23, where `position + k` is no longer exact.
  public var largeOffsets = true

  public init(seed: UInt64) { self.seed = seed }

  /// The case for ``seed``.
  public func make() -> FuzzCase {
    var g = Generator(rng: SplitMix64(seed: seed), config: self)
    return g.makeCase()
  }

  /// The case for ``seed``, as the tuple of its graph, source text and input images.
  public func makeGraph() -> (Image, description: String, inputs: [ImageBuffer]) {
    let c = make()
    return (c.image, c.description, c.buffers)
  }
}

struct Generator {
  var rng: SplitMix64
  let config: RandomGraph

  // The stage being generated.
  var kind: FuzzCase.Kind = .color
  var layerCount = 0
  var locals: [ValueType] = []
  var samplesLeft = 0
  var paramCount = 0
  /// The types of the accumulators of the loops enclosing the expression being generated.
  var loops: [ValueType] = []
  /// How adversarial this case is: 0 plain values, 1 some special values, 2 many (and hostile pixels).
  var level = 0

  mutating func below(_ n: Int) -> Int { rng.below(n) }
  mutating func chance(_ p: Double) -> Bool { rng.chance(p) }
  mutating func pick<T>(_ a: [T]) -> T { rng.pick(a) }

  static let plainFloats: [Float] = [0, -0.0, 1, -1, 0.5, 2, 0.25, 3]
  static let specialFloats: [Float] = [
    0, -0.0, 1, -1, 0.5, -0.5, 2, 1e30, -1e30, 1e-30, -1e-30, .nan, .infinity, -.infinity,
    3, 0.25, 255, 16_777_216, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0x1.fffffep-1, 8_388_607.5, -4_194_304.5,
  ]

  mutating func floatConstant() -> Float {
    if chance([0.0, 0.2, 0.45][level]) { return pick(Self.specialFloats) }
    if chance(0.3) { return pick(Self.plainFloats) }
    if chance(0.3) { return Float(below(9)) - 4 }
    return Float(below(2001) - 1000) / 100
  }

  static let specialInts: [Int32] = [0, 1, -1, 2, 3, 7, 8, 31, 32, 33, -31, 255, .max, .min, -1_640_531_535]

  mutating func intConstant() -> Int32 {
    if chance(0.4) { return pick(Self.specialInts) }
    if chance(0.2) { return Int32(truncatingIfNeeded: rng.next()) }
    return Int32(below(201) - 100)
  }

  /// Widths 1…maxWidth, and sometimes around 8 and 16 lanes (vector body plus a tail on AVX2 and AVX-512).
  mutating func width() -> Int {
    chance(0.8) ? 1 + below(config.maxWidth) : pick([15, 16, 17, 7, 8, 9])
  }

  mutating func makeCase() -> FuzzCase {
    level = below(20) < 8 ? 0 : below(20) < 12 ? 1 : 2
    let inputCount = chance(0.35) ? 2 : 1
    var inputs: [FuzzCase.Input] = []
    for _ in 0..<inputCount {
      let w = width(), h = 1 + below(config.maxHeight)
      inputs.append(makeInput(w, h, chance(0.65) ? .rgba32f : chance(0.75) ? .rgba8 : .rgba16))
    }
    if inputCount == 2 && chance(0.3) {  // sometimes the same size as input 0
      inputs[1] = makeInput(inputs[0].width, inputs[0].height, inputs[1].format)
    }
    paramCount = below(3)
    let params = (0..<paramCount).map { _ -> FuzzCase.ParamSpec in
      let uniform = chance(0.5)
      var v = floatConstant()
      if uniform && !v.isFinite { v = 0.5 }  // uniforms must be finite (CompiledPipeline.run)
      return .init(value: v, uniform: uniform)
    }
    let stageCount = 1 + below(config.maxStages)
    var stages: [FuzzCase.Stage] = []
    for i in 0..<stageCount {
      let available = (0..<inputCount).map { FuzzCase.Source.input($0) } + (0..<i).map { FuzzCase.Source.stage($0) }
      let primary: FuzzCase.Source = i > 0 && chance(0.75) ? .stage(i - 1) : pick(available)
      let r = below(10)
      kind = r < 3 ? .color : r < 5 ? .distortion : r < 8 ? .layer : .combine
      var sources = [primary]
      if kind == .combine {
        for _ in 0..<(1 + below(2)) { sources.append(pick(available)) }
      }
      let sampler = Sampler(filter: pick(Sampler.Filter.allCases), address: pick(Sampler.AddressMode.allCases))
      layerCount = kind == .layer ? 1 : kind == .combine ? sources.count : 0
      samplesLeft = kind == .layer || kind == .combine ? 1 + below(4) : 0
      locals = []
      var localExprs: [FuzzExpr] = []
      for _ in 0..<below(4) {
        let t = pick([ValueType.float, .float, .float2, .float3, .float4, .float4, .int, .bool, ValueType(.bool, 3)])
        localExprs.append(expr(t, 1 + below(config.maxDepth - 1)))
        locals.append(t)
      }
      var body = kind == .distortion ? samplePosition(config.maxDepth) : expr(.float4, config.maxDepth)
      // Most bodies read their input(s): mix one read in when the tree does not.
      func reads(_ e: FuzzExpr) -> Bool {
        Shrinker.visit(e) {
          if case .sample = $0.op { return true }
          if case .local(let k) = $0.op { return reads(localExprs[k]) }
          return $0.op == .color
        }
      }
      if kind != .distortion && !reads(body) && chance(0.9) {
        let read = kind == .color ? FuzzExpr(.color, [], .float4) : sample(1)
        body = FuzzExpr(.infix(pick(["+", "*", "-"])), [read, body], .float4)
      }
      // Unused locals never reach the IR (the front end lowers from the body): drop them.
      stages.append(
        Shrinker.withoutUnusedLocals(
          .init(kind: kind, sampler: sampler, sources: sources, locals: localExprs, body: body)))
    }
    var c = FuzzCase(
      seed: config.seed, inputs: inputs, params: params, stages: stages, output: .stage(stageCount - 1),
      jitSchedule: below(4) == 0 ? 1 + below(2) : 0)
    storedOutput(&c)
    geometryCut(&c)
    scanCut(&c)
    return c
  }

  /// The output's format, and sometimes a last stage whose colour is proved
  /// to lie in a range far wider than 0…1 with alpha 1, so the store's own
  /// clamping (saturating packs, dropped clamps) is what decides the bytes.
  /// Drawn from a stream of their own, so every seed keeps the graph it had
  /// before these were added.
  mutating func storedOutput(_ c: inout FuzzCase) {
    var r = SplitMix64(seed: SplitMix64.derive(config.seed, -1))
    let format = r.pick([PixelFormat.rgba32f, .rgba32f, .rgba8, .rgba8, .rgba16])
    c.outputFormat = format
    guard format != .rgba32f, r.chance(0.5), let last = c.stages.indices.last, c.stages[last].kind != .distortion else { return }
    // Bounds around the packs' edges: 128.5 (a signed 16-bit word), 257 (65,535/255), 2³¹/255.
    let lo = r.pick([Float(-300), -1, 0, -1e5, 0.5, -8.5e6])
    let hi = r.pick([Float(200), 128.5, 129, 2, 257, 1e5, 8.4e6, 300])
    let body = c.stages[last].body
    let bounded = FuzzExpr(
      .call("clamp"),
      [FuzzExpr(.swizzle("xyz"), [body], ft(3)), FuzzExpr(.vector(3), [.float(lo)], ft(3)), FuzzExpr(.vector(3), [.float(max(lo, hi))], ft(3))],
      ft(3))
    c.stages[last].body = FuzzExpr(.vector(4), [bounded, .float(1)], .float4)
  }

  mutating func makeInput(_ w: Int, _ h: Int, _ format: PixelFormat) -> FuzzCase.Input {
    var pixels: [SIMD4<Float>] = []
    let style = level == 0 ? below(2) : level == 1 ? below(3) : 2 + below(2)
    for _ in 0..<(w * h) {
      var p = SIMD4<Float>()
      if format != .rgba32f {
        let scale: Float = format == .rgba8 ? 255 : 65535
        for c in 0..<4 { p[c] = Float(below(Int(scale) + 1)) / scale }
        if style == 0 { p = SIMD4(p.x * p.w, p.y * p.w, p.z * p.w, p.w) }
        for c in 0..<4 { p[c] = (p[c] * scale).rounded() / scale }
      } else {
        let a: Float = pick([0, 0.5, 1, 1, rng.unit()])
        p = SIMD4(rng.unit() * a, rng.unit() * a, rng.unit() * a, a)
        if style >= 2 {  // adversarial channels
          for c in 0..<4 where chance(style == 3 ? 0.3 : 0.1) {
            p[c] = pick([.nan, .infinity, -.infinity, 1e30, -1e30, -0.0, 1e-30, 2, -1, .leastNonzeroMagnitude, 65504])
          }
        }
      }
      pixels.append(p)
    }
    return .init(width: w, height: h, format: format, pixels: pixels)
  }

  // MARK: expressions

  /// Sample positions: `position + integer offset` (dense taps), `position + fraction`, or data-dependent.
  mutating func samplePosition(_ d: Int) -> FuzzExpr {
    if !loops.isEmpty, chance(0.4) {
      // A tap at the loop index: `position ± (i, 0)`, `(0, i)` or `(i, i)`;
      // in two loops, `(i, j)` (inner, outer: what the 2-D split looks for).
      func index(_ level: Int) -> FuzzExpr { FuzzExpr(.call("float"), [FuzzExpr(.loopIndex(level), [], .int)], .float) }
      let i = index(below(loops.count))
      let zero = FuzzExpr.float(0)
      let choices = [[i, zero], [zero, i], [i, i]] + (loops.count == 2 ? [[index(1), index(0)], [index(1), index(0)]] : [])
      let off = FuzzExpr(.vector(2), pick(choices), .float2)
      return FuzzExpr(.infix(chance(0.7) ? "+" : "-"), [FuzzExpr(.position, [], .float2), off], .float2)
    }
    if loops.isEmpty, layerCount > 0, samplesLeft > 1, chance(0.1) {
      // Displaced by what a loop reads (mostly taps at its index): the shift varies along the row
      // through the loop's body alone, mostly only in y, so that a vector's columns stay
      // consecutive (fxc fuzz seed 11751977387946507995).
      let result = tapLoop()
      let lane = FuzzExpr(.swizzle(pick(["x", "y", "z", "w"])), [result], .float)
      let shift =
        chance(0.7)
        ? FuzzExpr(.vector(2), [.float(pick([0, 1, -2, 0.5])), lane], .float2)
        : FuzzExpr(.swizzle(pick(["xw", "xy", "zw", "wy"])), [result], .float2)
      return FuzzExpr(.infix("+"), [FuzzExpr(.position, [], .float2), shift], .float2)
    }
    let r = below(20)
    if r < 3 { return FuzzExpr(.position, [], .float2) }
    if r < 10 {
      let k = { (g: inout Generator) -> Float in
        if g.config.largeOffsets && g.chance(0.04) { return g.pick([8_388_607, -8_388_607, 8_388_600, 4_194_304, -4_194_305, 1_000_000, 65_536]) }
        return g.chance(0.3) ? 0 : Float(g.below(7) - 3)
      }
      let off = FuzzExpr(.vector(2), [.float(k(&self)), .float(k(&self))], .float2)
      return FuzzExpr(.infix(chance(0.8) ? "+" : "-"), [FuzzExpr(.position, [], .float2), off], .float2)
    }
    if r < 12 {
      let f = { (g: inout Generator) -> Float in g.pick([0, 0.5, -0.5, 0.25, 1.5, -2.75, 0.001]) }
      let off = FuzzExpr(.vector(2), [.float(f(&self)), .float(f(&self))], .float2)
      return FuzzExpr(.infix("+"), [FuzzExpr(.position, [], .float2), off], .float2)
    }
    // Data-dependent: a displacement of `position`, a scaling of it, or anything.
    if r < 16 { return FuzzExpr(.infix("+"), [FuzzExpr(.position, [], .float2), floatExpr(operandLanes(2), d - 1)], .float2) }
    if r < 18 { return FuzzExpr(.infix("*"), [FuzzExpr(.position, [], .float2), floatExpr(operandLanes(2), d - 1)], .float2) }
    return floatExpr(2, d)
  }

  mutating func expr(_ t: ValueType, _ d: Int) -> FuzzExpr {
    switch t.scalar {
    case .float: return floatExpr(t.lanes, d)
    case .int: return intExpr(d)
    case .bool: return boolExpr(t.lanes, d)
    }
  }

  /// Lanes of an operand of an n-lane lane-wise op: n, or a broadcast scalar.
  mutating func operandLanes(_ n: Int) -> Int { n > 1 && chance(0.25) ? 1 : n }

  func ft(_ n: Int) -> ValueType { ValueType(.float, n) }

  mutating func swizzleName(_ from: Int, _ n: Int) -> String {
    let letters = Array(chance(0.5) ? "xyzw" : "rgba")
    return String((0..<n).map { _ in letters[below(from)] })
  }

  /// `e` (of m float lanes) made n lanes by a swizzle.
  mutating func fit(_ e: FuzzExpr, _ n: Int) -> FuzzExpr {
    if e.type.lanes == n && chance(0.8) { return e }
    if e.type.lanes == 1 && n > 1 && chance(0.5) { return FuzzExpr(.vector(n), [e], ft(n)) }
    return FuzzExpr(.swizzle(swizzleName(e.type.lanes, n)), [e], ValueType(e.type.scalar, n))
  }

  mutating func floatLeaf(_ n: Int) -> FuzzExpr {
    if !loops.isEmpty, chance(0.25) {
      let level = below(loops.count)
      if chance(0.5) { return fit(FuzzExpr(.call("float"), [FuzzExpr(.loopIndex(level), [], .int)], .float), n) }
      return fit(FuzzExpr(.accumulator(level), [], loops[level]), n)
    }
    let r = below(100)
    if r < 25, let l = localOf(.float) { return fit(l, n) }
    if r < 37 {
      let c = FuzzExpr.float(floatConstant())
      return n == 1 ? c : FuzzExpr(.vector(n), [c], ft(n))
    }
    if r < 57 { return fit(FuzzExpr(.position, [], .float2), n) }
    if r < 61 { return fit(FuzzExpr(.size, [], .float2), n) }
    if r < 65, layerCount > 0 { return fit(FuzzExpr(.layerSize(below(layerCount)), [], .float2), n) }
    if r < 70, paramCount > 0 { return fit(FuzzExpr(.param(below(paramCount)), [], .float), n) }
    if kind == .color { return fit(FuzzExpr(.color, [], .float4), n) }
    if layerCount > 0, samplesLeft > 0 { return fit(sample(1), n) }
    return fit(FuzzExpr(.position, [], .float2), n)
  }

  /// A local of scalar kind `k` (any lanes), if one exists.
  mutating func localOf(_ k: ScalarKind, lanes: Int? = nil) -> FuzzExpr? {
    let ok = locals.indices.filter { locals[$0].scalar == k && (lanes == nil || locals[$0].lanes == lanes) }
    guard !ok.isEmpty else { return nil }
    let i = pick(ok)
    return FuzzExpr(.local(i), [], locals[i])
  }

  mutating func sample(_ d: Int) -> FuzzExpr {
    samplesLeft -= 1
    let sampler: Sampler? =
      chance(0.6) ? nil : Sampler(filter: pick(Sampler.Filter.allCases), address: pick(Sampler.AddressMode.allCases))
    return FuzzExpr(.sample(below(layerCount), sampler), [samplePosition(d)], .float4)
  }

  mutating func floatExpr(_ n: Int, _ d: Int) -> FuzzExpr {
    if d <= 0 || chance(0.15) { return floatLeaf(n) }
    let t = ft(n)
    if loops.count < 2, chance(0.05) { return loop(n, d) }
    switch below(100) {
    case 0..<14:
      let f = pick(["-", "abs", "floor", "ceil", "fract", "sqrt", "sin", "cos", "exp", "log", "saturate", "roundHalf"])
      let a = floatExpr(n, d - 1)
      return f == "-" ? FuzzExpr(.prefix("-"), [a], t) : FuzzExpr(.call(f), [a], t)
    case 14..<36:
      let (a, b) = twoOperands(n, d)
      return FuzzExpr(.infix(pick(["+", "-", "*", "/", "*", "+"])), [a, b], t)
    case 36..<46: return binaryCall(n, d)
    case 46..<54:
      switch below(4) {
      case 3: return FuzzExpr(.call("fma"), [floatExpr(n, d - 1), floatExpr(operandLanes(n), d - 1), floatExpr(operandLanes(n), d - 1)], t)
      case 0: return FuzzExpr(.call("clamp"), [floatExpr(n, d - 1), floatExpr(operandLanes(n), d - 1), floatExpr(operandLanes(n), d - 1)], t)
      case 1: return FuzzExpr(.call("mix"), [floatExpr(n, d - 1), floatExpr(operandLanes(n), d - 1), floatExpr(operandLanes(n), d - 1)], t)
      default: return FuzzExpr(.call("smoothstep"), [floatExpr(operandLanes(n), d - 1), floatExpr(operandLanes(n), d - 1), floatExpr(n, d - 1)], t)
      }
    case 54..<62:
      let c = boolExpr(operandLanes(n), d - 1)
      return FuzzExpr(.call("select"), [c, floatExpr(n, d - 1), floatExpr(operandLanes(n), d - 1)], t)
    case 62..<68:
      let m = 1 + below(4)
      return FuzzExpr(.swizzle(swizzleName(m, n)), [floatExpr(m, d - 1)], t)
    case 68..<75:
      if n > 1 {
        if chance(0.15) { return FuzzExpr(.vector(n), [floatExpr(1, d - 1)], t) }
        var parts: [FuzzExpr] = []
        var left = n
        while left > 0 {
          let k = 1 + below(left == n ? n - 1 : left)
          parts.append(floatExpr(k, d - 1))
          left -= k
        }
        return FuzzExpr(.vector(n), parts, t)
      }
      let m = 1 + below(4)
      switch below(3) {
      case 0: return FuzzExpr(.call("dot"), [floatExpr(m, d - 1), floatExpr(m, d - 1)], t)
      case 1: return FuzzExpr(.call("length"), [floatExpr(m, d - 1)], t)
      default: return FuzzExpr(.call("distance"), [floatExpr(m, d - 1), floatExpr(m, d - 1)], t)
      }
    case 75..<79:
      return FuzzExpr(.call("normalize"), [floatExpr(n, d - 1)], t)
    case 79..<86:
      let f = chance(0.8) ? "float" : "floatFromUnsigned"
      return fit(FuzzExpr(.call(f), [intExpr(d - 1)], .float), n)
    case 86..<89:
      return identity(floatExpr(n, d - 1), d)
    case 89..<91:
      // Consumers that tell −0 from +0, and ±∞ apart.
      let e = floatExpr(n, d - 1)
      switch below(3) {
      case 0: return FuzzExpr(.infix("/"), [.float(1), e], t)
      case 1: return FuzzExpr(.call("atan2"), [e, FuzzExpr.float(-1)], t)
      default: return FuzzExpr(.call("pow"), [e, FuzzExpr.float(-1)], t)
      }
    case 91..<97:
      if layerCount > 0, samplesLeft > 0 { return fit(sample(d - 1), n) }
      if kind == .color { return fit(FuzzExpr(.color, [], .float4), n) }
      return floatLeaf(n)
    default:
      if let l = localOf(.float) { return fit(l, n) }
      return floatLeaf(n)
    }
  }

  /// A fold over bounds that are constants (sometimes far outside the
  /// limit), from a uniform or per pixel, whose update is mostly a sum or a
  /// maximum of a term that may read the index, the accumulator and taps at
  /// the index; nested at most two deep. One in three stops early
  /// (``Loop/exit``): a flag from the pixel before the loop (some pixels do
  /// not run it at all), then a comparison of the index or the accumulator
  /// after each iteration.
  mutating func loop(_ n: Int, _ d: Int) -> FuzzExpr {
    if n == 4, loops.isEmpty, layerCount > 0, samplesLeft > 0, chance(0.3) { return separable2D() }
    let t = ft(n)
    let exit = chance(1.0 / 3)
    // An exit loop mostly runs a few iterations, so that pixels stop at different ones.
    let limit = exit && chance(0.7) ? pick([3, 5, 8]) : pick([0, 1, 2, 3, 5])
    func bound() -> FuzzExpr {
      switch below(5) {
      case 0, 1: return .int(Int32(below(9)) - 4)
      case 2: return .int(pick([-1000, 1000, .min, .max]))
      case 3 where paramCount > 0: return FuzzExpr(.call("int"), [FuzzExpr(.param(below(paramCount)), [], .float)], .int)
      default:
        let x = FuzzExpr(.call("int"), [FuzzExpr(.swizzle(pick(["x", "y"])), [FuzzExpr(.position, [], .float2)], .float)], .int)
        return FuzzExpr(.infix("&"), [x, .int(3)], .int)
      }
    }
    let lo = exit && chance(0.7) ? FuzzExpr.int(-Int32(below(limit + 1))) : bound()
    let hi = exit && chance(0.7) ? FuzzExpr.int(Int32(limit)) : bound()
    let initial = floatExpr(n, d - 1)
    let stopBefore = exit ? (chance(0.5) ? FuzzExpr.bool(false) : boolExpr(1, 1)) : nil
    loops.append(t)
    let term = floatExpr(n, d - 1)
    let acc = FuzzExpr(.accumulator(loops.count - 1), [], t)
    let update: FuzzExpr
    switch below(4) {
    case 0, 1: update = FuzzExpr(.infix("+"), [acc, term], t)
    case 2: update = FuzzExpr(.call("max"), [acc, term], t)
    default: update = term
    }
    var stopAfter: FuzzExpr?
    if exit {
      let index = FuzzExpr(.loopIndex(loops.count - 1), [], .int)
      let level = loops.count - 1
      switch below(4) {
      case 0: stopAfter = FuzzExpr(.infix(pick([">=", "=="])), [index, .int(Int32(below(5)) - 2)], .bool)
      case 1:
        // Where the pixel decides: the index against a per-pixel value.
        let float = FuzzExpr(.call("float"), [index], .float)
        stopAfter = FuzzExpr(.infix(pick([">=", ">"])), [float, floatLeaf(1)], .bool)
      case 2:
        // The accumulator's first lane against a threshold (a while loop's condition).
        let lane = n == 1 ? FuzzExpr(.accumulator(level), [], t) : FuzzExpr(.swizzle("x"), [FuzzExpr(.accumulator(level), [], t)], .float)
        stopAfter = FuzzExpr(.infix(pick([">", "<", ">="])), [lane, floatLeaf(1)], .bool)
      default: stopAfter = boolExpr(1, 2)
      }
    }
    loops.removeLast()
    if let stopBefore, let stopAfter { return FuzzExpr(.fold(limit: limit, exit: true), [lo, hi, initial, update, stopBefore, stopAfter], t) }
    return FuzzExpr(.fold(limit: limit, exit: false), [lo, hi, initial, update], t)
  }

  /// A loop over a few constant indices whose update is a sample at
  /// `position + (0, i)` or `(i, 0)`, or their sum: a result that varies along
  /// the row through the loop's body only.
  mutating func tapLoop() -> FuzzExpr {
    samplesLeft -= 1
    let limit = pick([1, 2, 3])
    loops.append(.float4)
    let i = FuzzExpr(.call("float"), [FuzzExpr(.loopIndex(loops.count - 1), [], .int)], .float)
    let offset = FuzzExpr(.vector(2), chance(0.5) ? [.float(0), i] : [i, .float(0)], .float2)
    let position = FuzzExpr(.infix("+"), [FuzzExpr(.position, [], .float2), offset], .float2)
    let term = FuzzExpr(.sample(below(layerCount), nil), [position], .float4)
    let acc = FuzzExpr(.accumulator(loops.count - 1), [], .float4)
    loops.removeLast()
    let update = chance(0.5) ? term : FuzzExpr(.infix("+"), [acc, term], .float4)
    let bounds: [FuzzExpr] = [.int(-Int32(limit)), .int(Int32(limit) + 1)]
    return FuzzExpr(.fold(limit: limit, exit: false), bounds + [FuzzExpr(.vector(4), [.float(0)], .float4), update], .float4)
  }

  /// `Σ_j Σ_i h(i)·v(j)·sample(position + (i, j))` from 0, with weights of
  /// one index each (sometimes of both): the shape the (opt-in) 2-D loop
  /// split looks for, here a 2-D loop of the default lowering.
  mutating func separable2D() -> FuzzExpr {
    let t = ft(4)
    let limit = pick([1, 2, 3])
    let lo = FuzzExpr.int(Int32(-below(limit + 1))), hi = FuzzExpr.int(Int32(below(limit + 2)))
    func index(_ level: Int) -> FuzzExpr { FuzzExpr(.call("float"), [FuzzExpr(.loopIndex(level), [], .int)], .float) }
    func weight(_ level: Int) -> FuzzExpr {
      switch below(5) {
      case 0: return .float(floatConstant())
      case 1: return FuzzExpr(.call("exp"), [FuzzExpr(.infix("*"), [FuzzExpr(.prefix("-"), [index(level)], .float), index(level)], .float)], .float)
      case 2: return FuzzExpr(.infix("+"), [index(level), .float(floatConstant())], .float)
      case 3: return FuzzExpr(.infix("*"), [index(0), index(1)], .float)  // both indices: refused
      default: return paramCount > 0 ? FuzzExpr(.param(below(paramCount)), [], .float) : index(level)
      }
    }
    loops = [t, t]
    samplesLeft -= 1
    let position = FuzzExpr(.infix("+"), [FuzzExpr(.position, [], .float2), FuzzExpr(.vector(2), [index(1), index(0)], .float2)], .float2)
    let tap = FuzzExpr(
      .sample(below(layerCount), chance(0.6) ? nil : Sampler(filter: pick(Sampler.Filter.allCases), address: pick(Sampler.AddressMode.allCases))),
      [position], t)
    let term = FuzzExpr(.infix("*"), [FuzzExpr(.infix("*"), [weight(1), weight(0)], .float), tap], t)
    let zero = FuzzExpr(.vector(4), [.float(0)], t)
    let inner = FuzzExpr(.fold(limit: limit, exit: false), [lo, hi, zero, FuzzExpr(.infix("+"), [FuzzExpr(.accumulator(1), [], t), term], t)], t)
    loops = [t]
    let outer = FuzzExpr(.fold(limit: limit, exit: false), [lo, hi, zero, FuzzExpr(.infix("+"), [FuzzExpr(.accumulator(0), [], t), inner], t)], t)
    loops = []
    return outer
  }

  /// `e` under an algebraic identity that the simplifier may rewrite (`e + 0`,
  /// `1 * e`, `select(c, e, e)`, `min(e, e)`, …): the staged meaning is kept as written.
  mutating func identity(_ e: FuzzExpr, _ d: Int) -> FuzzExpr {
    let t = e.type
    func c(_ v: Float) -> FuzzExpr { .float(v) }
    switch below(11) {
    case 0: return FuzzExpr(.infix("+"), [e, c(0)], t)
    case 1: return FuzzExpr(.infix("+"), [c(0), e], t)
    case 2: return FuzzExpr(.infix("-"), [e, c(0)], t)
    case 3: return FuzzExpr(.infix("*"), [e, c(1)], t)
    case 4: return FuzzExpr(.infix("*"), [c(1), e], t)
    case 5: return FuzzExpr(.infix("/"), [e, c(1)], t)
    case 6: return FuzzExpr(.call("select"), [boolExpr(operandLanes(t.lanes), d - 1), e, e], t)
    case 7: return FuzzExpr(.call(pick(["min", "max"])), [e, e], t)
    case 8: return FuzzExpr(.infix("+"), [e, c(-0.0)], t)
    case 9: return FuzzExpr(.infix("-"), [e, c(-0.0)], t)
    default:
      return fit(FuzzExpr(.call("floor"), [FuzzExpr(.call("float"), [intExpr(d - 1)], .float)], .float), t.lanes)
    }
  }

  /// `min`, `max`, `pow`, `atan2` or `step` of two operands. Beside min and
  /// max, often an operand whose sign LLVM reasons about next to their NaN
  /// test, and a constant: LLVM 19 folded `min(abs(x), 0)` into `x > 0 ? 0 :
  /// abs(x)` (fxc fuzz seed 8530264826734248012: 1 graph of 45,000 found it
  /// before, 1 of 3,000 with this).
  mutating func binaryCall(_ n: Int, _ d: Int) -> FuzzExpr {
    let f = pick(["min", "max", "pow", "atan2", "step"])
    var (a, b) = twoOperands(n, d)
    if f == "min" || f == "max", chance(0.3) {
      a = FuzzExpr(.call("abs"), [a], a.type)
      if chance(0.3) { a = FuzzExpr(.prefix("-"), [a], a.type) }
      if chance(0.5) {
        let c = FuzzExpr.float(pick([0, -0.0, 0.5, 1, 2, -1]))
        b = b.type.lanes == 1 ? c : FuzzExpr(.vector(b.type.lanes), [c], b.type)
      }
      if chance(0.5) { swap(&a, &b) }
    }
    return FuzzExpr(.call(f), [a, b], ft(n))
  }

  /// Two operands of an n-lane lane-wise op, at least one with n lanes.
  mutating func twoOperands(_ n: Int, _ d: Int) -> (FuzzExpr, FuzzExpr) {
    let la = operandLanes(n)
    let lb = la == 1 ? n : operandLanes(n)
    return (floatExpr(la, d - 1), floatExpr(lb, d - 1))
  }

  mutating func intExpr(_ d: Int) -> FuzzExpr {
    if d <= 0 || chance(0.2) {
      if !loops.isEmpty, chance(0.3) { return FuzzExpr(.loopIndex(below(loops.count)), [], .int) }
      let r = below(10)
      if r < 2, let l = localOf(.int) { return l }
      if r < 6 { return .int(intConstant()) }
      return FuzzExpr(.call("int"), [floatLeaf(1)], .int)
    }
    switch below(10) {
    case 0, 1: return FuzzExpr(.call("int"), [floatExpr(1, d - 1)], .int)
    case 2, 3, 4:
      return FuzzExpr(.infix(pick(["&", "|", "^", "+", "-", "*"])), [intExpr(d - 1), intExpr(d - 1)], .int)
    case 5:
      let amount = chance(0.6) ? FuzzExpr.int(Int32(below(40) - 4)) : intExpr(d - 1)
      return chance(0.33)
        ? FuzzExpr(.call("ushr"), [intExpr(d - 1), amount], .int)
        : FuzzExpr(.infix(pick(["<<", ">>"])), [intExpr(d - 1), amount], .int)
    case 6: return FuzzExpr(.prefix(pick(["~", "-"])), [intExpr(d - 1)], .int)
    case 7: return FuzzExpr(.call(pick(["min", "max"])), [intExpr(d - 1), intExpr(d - 1)], .int)
    case 8: return FuzzExpr(.call("abs"), [intExpr(d - 1)], .int)
    default: return FuzzExpr(.call("select"), [boolExpr(1, d - 1), intExpr(d - 1), intExpr(d - 1)], .int)
    }
  }

  mutating func boolExpr(_ n: Int, _ d: Int) -> FuzzExpr {
    let t = ValueType(.bool, n)
    let cmp = ["<", "<=", ">", ">=", "==", "!="]
    if d <= 0 || chance(0.15) {
      if let l = localOf(.bool, lanes: n), chance(0.5) { return l }
      if n == 1 && chance(0.3) { return .bool(chance(0.5)) }
      return FuzzExpr(.infix(pick(cmp)), [floatLeaf(n), floatLeaf(operandLanes(n))], t)
    }
    switch below(10) {
    case 0, 1, 2:
      let (a, b) = twoOperands(n, d)
      return FuzzExpr(.infix(pick(cmp)), [a, b], t)
    case 3:
      if n == 1 { return FuzzExpr(.infix(pick(cmp)), [intExpr(d - 1), intExpr(d - 1)], t) }
      return FuzzExpr(.call("isnan"), [floatExpr(n, d - 1)], t)
    case 4, 5:
      let la = operandLanes(n)
      let lb = la == 1 ? n : operandLanes(n)
      return FuzzExpr(.infix(pick(["&&", "||", "^", "==", "!="])), [boolExpr(la, d - 1), boolExpr(lb, d - 1)], t)
    case 6: return FuzzExpr(.prefix(pick(["!", "~"])), [boolExpr(n, d - 1)], t)
    case 7: return FuzzExpr(.call(pick(["isnan", "isfinite"])), [floatExpr(n, d - 1)], t)
    case 8:
      return FuzzExpr(.call("select"), [boolExpr(operandLanes(n), d - 1), boolExpr(n, d - 1), boolExpr(operandLanes(n), d - 1)], t)
    default:
      let m = n == 1 ? 1 + below(4) : n
      return n == 1 && m > 1
        ? FuzzExpr(.swizzle(swizzleName(m, 1)), [boolExpr(m, d - 1)], t)
        : FuzzExpr(.infix(pick(cmp)), [floatExpr(n, d - 1), floatExpr(operandLanes(n), d - 1)], t)
    }
  }
}
