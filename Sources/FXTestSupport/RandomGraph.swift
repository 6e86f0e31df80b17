import Foundation
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import FX

// A testing utility: random, well-typed effect graphs for differential testing
// of the compiler against the staged interpreter (DESIGN §4), with shrinking of
// failing cases to a small reproducer. Used by `fxc fuzz` and by FXTests.
//
//     let c = RandomGraph(seed: 42).make()
//     print(c)                                     // Swift source over the FX API
//     if let d = Differential.check(c) {           // staged vs lowered vs JIT
//       let (small, why) = Differential.shrink(c, failing: d)
//       print(small, why)                          // the smallest case that still fails
//     }

// MARK: - Random numbers

/// SplitMix64 (Steele, Lea, Flood 2014): 64 bits of state, the same stream on
/// every platform and Swift version. Every draw of the generator goes through
/// the helpers below (never `Int.random(in:using:)`, whose algorithm the
/// standard library does not promise to keep), so a seed names one graph forever.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  public var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in `0..<n` (n ≥ 1), by the high half of a 64×64-bit product.
  public mutating func below(_ n: Int) -> Int {
    precondition(n >= 1)
    return Int(next().multipliedFullWidth(by: UInt64(n)).high)
  }
  /// True with probability `p`.
  public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) * 0x1p-53 < p }
  /// Uniform in [0, 1), 24 random bits.
  public mutating func unit() -> Float { Float(next() >> 40) * 0x1p-24 }
  public mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }

  /// The seed of case `index` of a run started with `seed` (independent streams).
  public static func derive(_ seed: UInt64, _ index: Int) -> UInt64 {
    var g = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
    return g.next()
  }
}

// MARK: - The case: a graph kept as data

/// A random expression of the effect language, kept as data so that it can be
/// printed, rebuilt into an ``Expr`` and shrunk. Every node carries its type.
public struct FuzzExpr: Sendable {
  public enum Op: Sendable, Equatable {
    /// A scalar constant, float by bit pattern (so that NaN and −0 survive).
    case float(bits: UInt32)
    case int(Int32)
    case bool(Bool)
    case position, size
    /// The input color of a color effect.
    case color
    /// `v<k>`, an earlier local value of the stage.
    case local(Int)
    /// The graph's parameter k.
    case param(Int)
    /// `layers[k].size`.
    case layerSize(Int)
    /// `layers[k].sample(args[0])`, with the layer's sampler (nil) or this one.
    case sample(Int, Sampler?)
    /// A built-in function of the language (`sin`, `select`, `ushr`, …).
    case call(String)
    /// An infix operator (`+`, `<`, `&&`, `<<`, …).
    case infix(String)
    /// A prefix operator (`-`, `!`, `~`).
    case prefix(String)
    case swizzle(String)
    /// `floatN(args…)`.
    case vector(Int)
  }

  public var op: Op
  public var args: [FuzzExpr]
  public var type: ValueType

  init(_ op: Op, _ args: [FuzzExpr] = [], _ type: ValueType) {
    self.op = op
    self.args = args
    self.type = type
  }

  static func float(_ v: Float) -> FuzzExpr { FuzzExpr(.float(bits: v.bitPattern), [], .float) }
  static func int(_ v: Int32) -> FuzzExpr { FuzzExpr(.int(v), [], .int) }
  static func bool(_ v: Bool) -> FuzzExpr { FuzzExpr(.bool(v), [], .bool) }

  /// Nodes in the tree (for sizes and shrinking).
  var size: Int { 1 + args.reduce(0) { $0 + $1.size } }

  var isConstant: Bool {
    switch op {
    case .float, .int, .bool: return true
    case .vector: return args.allSatisfy(\.isConstant)
    default: return false
    }
  }
}

/// One generated test case: inputs, parameters and a DAG of 1…5 stages.
/// ``description`` prints it as Swift source over the FX API.
public struct FuzzCase: Sendable, CustomStringConvertible {
  public enum Kind: String, Sendable { case color, distortion, layer, combine }

  public enum Source: Sendable, Equatable {
    case input(Int)
    case stage(Int)
  }

  public struct Input: Sendable {
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    /// Row-major pixels (for rgba8 and rgba16, multiples of 1/255 and 1/65535).
    public var pixels: [SIMD4<Float>]
  }

  public struct ParamSpec: Sendable {
    public var value: Float
    public var uniform: Bool
  }

  public struct Stage: Sendable {
    public var kind: Kind
    /// The layer sampler (layer, combine, distortion); color effects read `nearest` at `position`.
    public var sampler: Sampler
    /// One image (color, distortion, layer) or several (combine).
    public var sources: [Source]
    /// `let v<k> = …`, each may use earlier ones.
    public var locals: [FuzzExpr]
    /// The float4 color, or the float2 sample position of a distortion.
    public var body: FuzzExpr
  }

  /// The seed that generated the case (shrunk cases keep it).
  public var seed: UInt64
  public var inputs: [Input]
  public var params: [ParamSpec]
  public var stages: [Stage]
  public var output: Source
  /// Which lowering options the JIT compiles with: 0 default, 1 forceInline, 2 forceMaterialise.
  public var jitSchedule: Int

  /// The effect graph, built afresh through the public API (`Effect.color`, `Image.combine`, …).
  public var image: Image {
    let params = self.params.enumerated().map { Param("u\($0.offset)", value: $0.element.value, uniform: $0.element.uniform) }
    var images: [Image] = []
    func resolve(_ s: Source) -> Image {
      switch s {
      case .input(let k): return .input(k)
      case .stage(let k): return images[k]
      }
    }
    for (i, st) in stages.enumerated() {
      let name = "s\(i)"
      let sources = st.sources.map(resolve)
      let img: Image
      switch st.kind {
      case .color:
        img = Effect.color(name) { p, c in Self.build(st, params, p, c, []) }(sources[0])
      case .distortion:
        img = Effect.distortion(name, sampler: st.sampler) { p in Self.build(st, params, p, nil, []) }(sources[0])
      case .layer:
        img = Effect.layer(name, sampler: st.sampler) { p, layer in Self.build(st, params, p, nil, [layer]) }(sources[0])
      case .combine:
        img = Image.combine(name, sources, sampler: st.sampler) { p, layers in Self.build(st, params, p, nil, layers) }
      }
      images.append(img)
    }
    return resolve(output)
  }

  /// The input images, as buffers of their formats.
  public var buffers: [ImageBuffer] {
    inputs.map { spec in
      let b = try! ImageBuffer(width: spec.width, height: spec.height, format: spec.format)
      for y in 0..<spec.height { for x in 0..<spec.width { b[x, y] = spec.pixels[y * spec.width + x] } }
      return b
    }
  }

  static func build(_ st: Stage, _ params: [Param], _ position: Expr, _ color: Expr?, _ layers: [Layer]) -> Expr {
    var locals: [Expr] = []
    func b(_ e: FuzzExpr) -> Expr {
      let a = e.args.map(b)
      switch e.op {
      case .float(let bits): return Expr(Float(bitPattern: bits))
      case .int(let v): return .int(Int(v))
      case .bool(let v): return Expr(booleanLiteral: v)
      case .position: return position
      case .size: return .size
      case .color: return color!
      case .local(let k): return locals[k]
      case .param(let k): return Expr(params[k])
      case .layerSize(let k): return layers[k].size
      case .sample(let k, let s): return s.map { layers[k].sample(a[0], $0) } ?? layers[k].sample(a[0])
      case .swizzle(let s): return a[0].swizzle(s)
      case .vector(let n):
        switch n {
        case 2: return float2Parts(a)
        case 3: return float3Parts(a)
        default: return float4Parts(a)
        }
      case .prefix(let o):
        switch o {
        case "-": return -a[0]
        case "!": return !a[0]
        default: return ~a[0]
        }
      case .infix(let o):
        switch o {
        case "+": return a[0] + a[1]
        case "-": return a[0] - a[1]
        case "*": return a[0] * a[1]
        case "/": return a[0] / a[1]
        case "<": return a[0] < a[1]
        case "<=": return a[0] <= a[1]
        case ">": return a[0] > a[1]
        case ">=": return a[0] >= a[1]
        case "==": return a[0] == a[1]
        case "!=": return a[0] != a[1]
        case "&&": return a[0] && a[1]
        case "||": return a[0] || a[1]
        case "&": return a[0] & a[1]
        case "|": return a[0] | a[1]
        case "^": return a[0] ^ a[1]
        case "<<": return a[0] << a[1]
        case ">>": return a[0] >> a[1]
        default: preconditionFailure("unknown operator \(o)")
        }
      case .call(let f):
        switch f {
        case "min": return min(a[0], a[1])
        case "max": return max(a[0], a[1])
        case "clamp": return clamp(a[0], a[1], a[2])
        case "saturate": return saturate(a[0])
        case "mix": return mix(a[0], a[1], a[2])
        case "step": return step(a[0], a[1])
        case "smoothstep": return smoothstep(a[0], a[1], a[2])
        case "floor": return floor(a[0])
        case "ceil": return ceil(a[0])
        case "fract": return fract(a[0])
        case "abs": return abs(a[0])
        case "sqrt": return sqrt(a[0])
        case "sin": return sin(a[0])
        case "cos": return cos(a[0])
        case "exp": return exp(a[0])
        case "log": return log(a[0])
        case "pow": return pow(a[0], a[1])
        case "atan2": return atan2(a[0], a[1])
        case "dot": return dot(a[0], a[1])
        case "length": return length(a[0])
        case "distance": return distance(a[0], a[1])
        case "normalize": return normalize(a[0])
        case "select": return select(a[0], a[1], a[2])
        case "isnan": return isnan(a[0])
        case "isfinite": return isfinite(a[0])
        case "int": return int(a[0])
        case "float": return float(a[0])
        case "floatFromUnsigned": return floatFromUnsigned(a[0])
        case "ushr": return ushr(a[0], a[1])
        default: preconditionFailure("unknown function \(f)")
        }
      }
    }
    for l in st.locals { locals.append(b(l)) }
    return b(st.body)
  }
}

// Variadic constructors, spread from an array.
private func float2Parts(_ a: [Expr]) -> Expr { a.count == 1 ? float2(a[0]) : float2(a[0], a[1]) }
private func float3Parts(_ a: [Expr]) -> Expr {
  switch a.count {
  case 1: return float3(a[0])
  case 2: return float3(a[0], a[1])
  default: return float3(a[0], a[1], a[2])
  }
}
private func float4Parts(_ a: [Expr]) -> Expr {
  switch a.count {
  case 1: return float4(a[0])
  case 2: return float4(a[0], a[1])
  case 3: return float4(a[0], a[1], a[2])
  default: return float4(a[0], a[1], a[2], a[3])
  }
}

// MARK: - Printing

extension ImageBuffer {
  /// A small image from literal pixels, row-major, for reproducers: channels in
  /// the format's own units (0…255 for rgba8, 0…65535 for rgba16, floats for rgba32f).
  public static func pixels(_ width: Int, _ height: Int, _ format: PixelFormat, _ values: [(Float, Float, Float, Float)])
    -> ImageBuffer
  {
    precondition(values.count == width * height, "\(values.count) pixels given for \(width)×\(height)")
    let b = try! ImageBuffer(width: width, height: height, format: format)
    let scale: Float = format == .rgba8 ? 255 : format == .rgba16 ? 65535 : 1
    for (i, v) in values.enumerated() {
      b[i % width, i / width] = SIMD4(v.0, v.1, v.2, v.3) / scale
    }
    return b
  }
}

extension FuzzCase {
  /// The case as Swift source over the FX API: the input images, then the graph.
  public var description: String {
    var s = "// fxc fuzz case, seed \(seed)\n"
    for (k, spec) in inputs.enumerated() {
      s += "let in\(k) = \(Self.source(of: spec))  // \(spec.width)×\(spec.height)\n"
    }
    return s + graphSource
  }

  /// The graph alone, as Swift source: parameters, stages, output.
  public var graphSource: String {
    var s = ""
    for (k, p) in params.enumerated() {
      s += p.uniform
        ? "let u\(k) = Param.uniform(\"u\(k)\", \(Self.literal(p.value)))\n"
        : "let u\(k) = Param(\"u\(k)\", value: \(Self.literal(p.value)))\n"
    }
    func src(_ x: Source) -> String {
      switch x {
      case .input(let k): return "Image.input(\(k))"
      case .stage(let k): return "s\(k)"
      }
    }
    for (i, st) in stages.enumerated() {
      let sampler = "sampler: \(Self.source(of: st.sampler))"
      switch st.kind {
      case .color: s += "let s\(i) = Effect.color(\"s\(i)\") { position, color in\n"
      case .distortion: s += "let s\(i) = Effect.distortion(\"s\(i)\", \(sampler)) { position in\n"
      case .layer: s += "let s\(i) = Effect.layer(\"s\(i)\", \(sampler)) { position, layer in\n"
      case .combine:
        s += "let s\(i) = Image.combine(\"s\(i)\", [\(st.sources.map(src).joined(separator: ", "))], \(sampler)) { position, layers in\n"
      }
      let printer = Printer(kind: st.kind)
      for (k, l) in st.locals.enumerated() { s += "  let v\(k): Expr = \(printer.print(l))\n" }
      s += "  return \(printer.print(st.body))\n"
      s += st.kind == .combine ? "}\n" : "}(\(src(st.sources[0])))\n"
    }
    s += "let output = \(src(output))"
    if jitSchedule != 0 { s += "  // the JIT compiles it with \(jitSchedule == 1 ? "forceInline" : "forceMaterialise")" }
    return s
  }

  /// The graph and input formats (no pixels): a key for caching compiled pipelines.
  var graphKey: String { graphSource + inputs.map { "\($0.format)" }.joined(separator: ",") }

  static func source(of s: Sampler) -> String { "Sampler(filter: .\(s.filter), address: .\(s.address))" }

  /// A float as Swift source that reads back to the same bits.
  static func literal(_ v: Float) -> String {
    if v.isNaN { return "Float.nan" }
    if v == .infinity { return "Float.infinity" }
    if v == -.infinity { return "-Float.infinity" }
    if v == 0 && v.sign == .minus { return "-0.0" }
    if v.isSubnormal {  // a literal would warn that it underflows
      if v.magnitude == .leastNonzeroMagnitude { return v < 0 ? "-Float.leastNonzeroMagnitude" : "Float.leastNonzeroMagnitude" }
      return "Float(bitPattern: 0x\(String(v.bitPattern, radix: 16)))"
    }
    return "\(v)"
  }

  static func source(of spec: Input) -> String {
    var s = "ImageBuffer.pixels(\(spec.width), \(spec.height), .\(spec.format), ["
    let rows = (0..<spec.height).map { y in
      (0..<spec.width).map { x -> String in
        let p = spec.pixels[y * spec.width + x]
        if spec.format != .rgba32f {
          let scale: Float = spec.format == .rgba8 ? 255 : 65535
          return "(" + (0..<4).map { "\(Int((p[$0] * scale).rounded()))" }.joined(separator: ", ") + ")"
        }
        return "(" + (0..<4).map { literal(p[$0]) }.joined(separator: ", ") + ")"
      }.joined(separator: ", ")
    }
    if rows.count == 1 && rows[0].count < 90 { return s + rows[0] + "])" }
    s += "\n" + rows.map { "    " + $0 }.joined(separator: ",\n") + "])"
    return s
  }
}

struct Printer {
  var kind: FuzzCase.Kind

  func print(_ e: FuzzExpr) -> String {
    let a = e.args.map(print)
    switch e.op {
    case .float(let bits):
      let v = Float(bitPattern: bits)
      return bareLiteral(v) ? FuzzCase.literal(v) : "Expr(\(FuzzCase.literal(v)))"
    case .int(let v): return "Expr.int(\(v))"
    case .bool(let v): return "Expr(booleanLiteral: \(v))"
    case .position: return "position"
    case .size: return "Expr.size"
    case .color: return "color"
    case .local(let k): return "v\(k)"
    case .param(let k): return "Expr(u\(k))"
    case .layerSize(let k): return "\(layer(k)).size"
    case .sample(let k, let s):
      return "\(layer(k)).sample(\(a[0])\(s.map { ", " + FuzzCase.source(of: $0) } ?? ""))"
    case .call(let f): return "\(f)(\(a.joined(separator: ", ")))"
    case .infix(let o): return "(\(a[0]) \(o) \(a[1]))"
    case .prefix(let o): return "\(o)\(operand(e.args[0], a[0]))"
    case .swizzle(let s): return "\(operand(e.args[0], a[0])).\(s)"
    case .vector(let n): return "float\(n)(\(a.joined(separator: ", ")))"
    }
  }

  /// Whether `v` prints as a plain Swift float literal (not NaN, ±∞, −0 or subnormal).
  func bareLiteral(_ v: Float) -> Bool { v.isNormal || (v == 0 && v.sign == .plus) }

  func layer(_ k: Int) -> String { kind == .combine ? "layers[\(k)]" : "layer" }

  /// The operand of a prefix operator or a swizzle: a constant as an `Expr`
  /// (so that `-Expr(5.0)` stays a negation and `Expr(2.0).xy` a swizzle), a
  /// prefix expression in parentheses.
  func operand(_ e: FuzzExpr, _ text: String) -> String {
    switch e.op {
    case .float(let bits):
      let v = Float(bitPattern: bits)
      return bareLiteral(v) ? "Expr(\(FuzzCase.literal(v)))" : text
    case .prefix: return "(\(text))"
    default: return text
    }
  }
}

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
      stages.append(Shrinker.withoutUnusedLocals(
        .init(kind: kind, sampler: sampler, sources: sources, locals: localExprs, body: body)))
    }
    return FuzzCase(
      seed: config.seed, inputs: inputs, params: params, stages: stages, output: .stage(stageCount - 1),
      jitSchedule: below(4) == 0 ? 1 + below(2) : 0)
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
    switch below(100) {
    case 0..<14:
      let f = pick(["-", "abs", "floor", "ceil", "fract", "sqrt", "sin", "cos", "exp", "log", "saturate"])
      let a = floatExpr(n, d - 1)
      return f == "-" ? FuzzExpr(.prefix("-"), [a], t) : FuzzExpr(.call(f), [a], t)
    case 14..<36:
      let (a, b) = twoOperands(n, d)
      return FuzzExpr(.infix(pick(["+", "-", "*", "/", "*", "+"])), [a, b], t)
    case 36..<46:
      let f = pick(["min", "max", "pow", "atan2", "step"])
      let (a, b) = twoOperands(n, d)
      return FuzzExpr(.call(f), [a, b], t)
    case 46..<54:
      switch below(3) {
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

  /// Two operands of an n-lane lane-wise op, at least one with n lanes.
  mutating func twoOperands(_ n: Int, _ d: Int) -> (FuzzExpr, FuzzExpr) {
    let la = operandLanes(n)
    let lb = la == 1 ? n : operandLanes(n)
    return (floatExpr(la, d - 1), floatExpr(lb, d - 1))
  }

  mutating func intExpr(_ d: Int) -> FuzzExpr {
    if d <= 0 || chance(0.2) {
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

// MARK: - Comparison

/// How two renderings of one graph are compared (DESIGN §4, made NaN-aware).
public enum ImageComparison {
  /// A channel where two images disagree.
  public struct Mismatch: Sendable, CustomStringConvertible {
    public var x: Int, y: Int, channel: Int
    public var expected: Float, actual: Float
    /// Channels that disagree, of all compared.
    public var count: Int, total: Int
    /// Set when the images differ in size (then nothing else is compared).
    public var sizes: (expected: (Int, Int), actual: (Int, Int))?
    public var description: String {
      if let s = sizes { return "the images differ in size: expected \(s.expected.0)×\(s.expected.1), got \(s.actual.0)×\(s.actual.1)" }
      return "pixel (\(x), \(y)) channel \(Array("rgba")[channel]): expected \(expected) (bits 0x\(String(expected.bitPattern, radix: 16))), "
        + "got \(actual) (bits 0x\(String(actual.bitPattern, radix: 16))); \(count) of \(total) channels differ"
    }
  }

  /// Whether two channel values agree. NaN on both sides agrees (DESIGN §4:
  /// "within 1e-4" presumes equal values, and NaN equals nothing); ±∞ must be
  /// matched exactly; otherwise `|a − b| ≤ 1e-4 · max(1, |a|, |b|)`. The
  /// tolerance is **relative** above 1: an absolute 1e-4 is meaningless for
  /// values near 1e30, whose spacing is ~1e23, and is what DESIGN's 1e-4 means
  /// for the nominal 0…1 range.
  @inlinable
  public static func agree(_ a: Float, _ b: Float) -> Bool {
    if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
    if a == b { return true }
    if a.isInfinite || b.isInfinite { return false }
    let scale = Swift.max(1, Swift.max(Swift.abs(a), Swift.abs(b)))
    // In Double, so that |a − b| cannot overflow for ±3.4e38.
    return Swift.abs(Double(a) - Double(b)) <= 1e-4 * Double(scale)
  }

  /// The first disagreeing channel (row-major), or nil when the images agree.
  public static func compare(expected: ImageBuffer, actual: ImageBuffer) -> Mismatch? {
    guard expected.width == actual.width, expected.height == actual.height else {
      return Mismatch(x: 0, y: 0, channel: 0, expected: 0, actual: 0, count: 1, total: 1,
        sizes: ((expected.width, expected.height), (actual.width, actual.height)))
    }
    var first: Mismatch?
    var count = 0
    for y in 0..<expected.height {
      for x in 0..<expected.width {
        let p = expected[x, y], q = actual[x, y]
        for c in 0..<4 where !agree(p[c], q[c]) {
          count += 1
          if first == nil { first = Mismatch(x: x, y: y, channel: c, expected: p[c], actual: q[c], count: 0, total: 0) }
        }
      }
    }
    first?.count = count
    first?.total = expected.width * expected.height * 4
    return first
  }
}

// MARK: - Differential check

/// Runs a ``FuzzCase`` three ways and compares: (a) the staged interpreter —
/// the oracle; (b) the interpreter on the lowered kernel, with the default
/// schedule, forced inlining, forced materialisation and without
/// simplification; (c) the JIT.
public enum Differential {
  /// One way of evaluating a graph, compared against staged evaluation.
  public enum Evaluation: String, Sendable, CaseIterable {
    case lowered = "lowered (default schedule)"
    case loweredInline = "lowered (forceInline)"
    case loweredMaterialise = "lowered (forceMaterialise)"
    case loweredUnsimplified = "lowered (no simplification)"
    case jit = "JIT"
    /// The graph did not type-check or a run threw (a generator or API bug).
    case error = "error"

    public static let interpreted: [Evaluation] = [.lowered, .loweredInline, .loweredMaterialise, .loweredUnsimplified]
  }

  public struct Disagreement: Sendable, CustomStringConvertible {
    public var evaluation: Evaluation
    public var message: String
    public var description: String { "\(evaluation.rawValue) disagrees with the staged interpreter: \(message)" }
  }

  /// Inlining everything costs about this many node evaluations per pixel; above
  /// the limit the forceInline checks are skipped (exponential recomputation).
  public static let inlineLimit = 60_000.0
  /// The JIT's compile time grows with the kernel: a case marked forceInline is
  /// compiled with the default schedule when its inlined kernel has more nodes.
  public static let jitInlineLimit = 1_500.0

  /// Compares the evaluations in `evaluations` with staged evaluation; the first disagreement, or nil.
  public static func check(
    _ c: FuzzCase, evaluations: [Evaluation] = Evaluation.interpreted + [.jit], cache: PipelineCache? = nil,
    target: Target = .host
  ) -> Disagreement? {
    check(
      c.image, inputs: c.buffers, evaluations: evaluations, jitSchedule: c.jitSchedule, cache: cache.map { ($0, c.graphKey) },
      target: target)
  }

  /// Compares the evaluations in `evaluations` of the graph computing `output`
  /// with its staged evaluation on `inputs` (extra inputs are ignored); the first
  /// disagreement, or nil. `jitSchedule` picks the JIT's lowering options: 0
  /// default, 1 forceInline (when affordable), 2 forceMaterialise.
  public static func check(
    _ output: Image, inputs all: [ImageBuffer], evaluations: [Evaluation] = Evaluation.interpreted + [.jit],
    jitSchedule: Int = 0, target: Target = .host
  ) -> Disagreement? {
    check(output, inputs: all, evaluations: evaluations, jitSchedule: jitSchedule, cache: nil, target: target)
  }

  static func check(
    _ img: Image, inputs all: [ImageBuffer], evaluations: [Evaluation], jitSchedule: Int,
    cache: (PipelineCache, String)?, target: Target
  ) -> Disagreement? {
    let graph: EffectGraph
    do { graph = try EffectGraph(output: img) } catch {
      return Disagreement(evaluation: .error, message: "the graph does not check: \(error)")
    }
    let inputs = Array(all.prefix(Swift.max(1, graph.inputs.count)))
    let uniforms = graph.uniforms.map(\.value)
    let reference: ImageBuffer
    do { reference = try Interpreter.runStaged(graph, inputs: inputs, uniforms: uniforms) } catch {
      return Disagreement(evaluation: .error, message: "staged evaluation threw \(error)")
    }
    let cost = inlineCost(graph)
    for e in evaluations {
      var options = LoweringOptions()
      let out: ImageBuffer
      do {
        switch e {
        case .error: continue
        case .lowered: break
        case .loweredInline:
          guard cost <= inlineLimit else { continue }
          options.forceInline = true
        case .loweredMaterialise: options.forceMaterialise = true
        case .loweredUnsimplified: options.simplify = false
        case .jit:
          if jitSchedule == 1 && cost <= inlineLimit {
            var inline = options
            inline.forceInline = true
            let nodes = try Lower.run(graph, options: inline).0.passes.reduce(0) { $0 + $1.program.liveCount }
            options.forceInline = Double(nodes) <= jitInlineLimit
          }
          if jitSchedule == 2 { options.forceMaterialise = true }
        }
        if e == .jit {
          let key = cache.map { $0.1 + "\(options)\(target.name)" }
          let compiled: CompiledPipeline
          if let key, let hit = cache?.0.get(key) {
            compiled = hit
          } else {
            compiled = try Pipeline(output: img).compile(
              inputFormats: inputs.map(\.format), outputFormat: .rgba32f, options: options, target: target)
            if let key { cache?.0.put(key, compiled) }
          }
          guard compiled.backend == .jit else {
            return Disagreement(evaluation: .jit, message: "LLVM could not compile the kernel (the pipeline fell back to the interpreter)")
          }
          out = try compiled.run(inputs)
        } else {
          let (kernel, _) = try Lower.run(graph, options: options)
          out = try Interpreter.run(kernel, inputs: inputs, uniforms: uniforms, params: graph.uniforms, format: .rgba32f)
        }
      } catch {
        return Disagreement(evaluation: e == .jit ? .jit : .error, message: "\(e.rawValue) threw \(error)")
      }
      if let m = ImageComparison.compare(expected: reference, actual: out) {
        return Disagreement(evaluation: e, message: "\(m)")
      }
    }
    return nil
  }

  /// Node evaluations per output pixel when every stage is inlined (the
  /// schedule's own estimate with forceInline: four texels per bilinear tap
  /// off the pixel grid, one otherwise).
  public static func inlineCost(_ g: EffectGraph) -> Double {
    guard case .stage(let out) = g.output else { return 0 }
    var e = [Double](repeating: 0, count: g.stages.count)
    e[out] = 1
    var total = 0.0
    for s in stride(from: g.stages.count - 1, through: 0, by: -1) where e[s] > 0 {
      total += e[s] * Double(g.stages[s].program.liveCount)
      for (ref, taps) in Schedule.taps(of: g.stages[s].program) {
        if case .stage(let p) = ref { e[p] += e[s] * taps }
      }
    }
    return total
  }

  /// A memo of compiled pipelines, so that shrinking does not recompile a graph
  /// whose inputs alone changed. Thread-safe.
  public final class PipelineCache: @unchecked Sendable {
    private var entries: [String: CompiledPipeline] = [:]
    private let lock = NSLock()
    public init() {}
    func get(_ k: String) -> CompiledPipeline? { lock.withLock { entries[k] } }
    func put(_ k: String, _ v: CompiledPipeline) {
      lock.withLock {
        if entries.count > 64 { entries.removeAll() }
        entries[k] = v
      }
    }
  }

  // MARK: shrinking

  /// Reduces a failing case while it still fails the same way: fewer stages,
  /// fewer locals, smaller expressions (a subtree replaced by an operand of its
  /// type or by a constant), simpler samplers, smaller and plainer images.
  /// Returns the smallest failing case found and its disagreement.
  public static func shrink(
    _ c: FuzzCase, failing d: Disagreement, maxAttempts: Int = 2000, cache: PipelineCache = PipelineCache(),
    target: Target = .host
  ) -> (FuzzCase, Disagreement) {
    let evaluations = d.evaluation == .error ? Evaluation.interpreted + [.jit] : [d.evaluation]
    var last = d
    let small = shrink(c, maxAttempts: maxAttempts) { candidate in
      guard let f = check(candidate, evaluations: evaluations, cache: cache, target: target), f.evaluation == d.evaluation else { return false }
      last = f
      return true
    }
    // `last` belongs to the last candidate that failed, which is `small`.
    return (small, check(small, evaluations: evaluations, cache: cache, target: target) ?? last)
  }

  /// Greedy reduction of `c` while `fails` holds: the first candidate (from
  /// ``Shrinker``: graph structure, then expressions, then images) that still
  /// fails is taken, until none does or `maxAttempts` candidates were tried.
  public static func shrink(_ c: FuzzCase, maxAttempts: Int = 2000, while fails: (FuzzCase) -> Bool) -> FuzzCase {
    var best = c
    var attempts = 0
    var progress = true
    while progress && attempts < maxAttempts {
      progress = false
      for family in [Shrinker.graphCandidates, Shrinker.exprCandidates, Shrinker.imageCandidates] {
        // After a success the list is rebuilt and the scan goes on from the same
        // place: the candidates before it were just tried, and would mostly fail again.
        var list = family(best)
        var i = 0
        while i < list.count && attempts < maxAttempts {
          attempts += 1
          if fails(list[i]) {
            best = list[i]
            progress = true
            list = family(best)
          } else {
            i += 1
          }
        }
      }
    }
    return best
  }
}

/// Candidate reductions of a case, simplest first. Every candidate is well-typed.
enum Shrinker {
  /// Fewer stages, unused locals removed, simpler samplers, unused input dropped.
  static func graphCandidates(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    guard case .stage(let last) = c.output else { return out }
    // An earlier stage as the output.
    for s in 0..<last { out.append(pruned(with(c) { $0.output = .stage(s) })) }
    // Bypass a stage: its users read its first source instead.
    for s in 0...last {
      let replacement = c.stages[s].sources[0]
      var d = c
      for i in d.stages.indices {
        d.stages[i].sources = d.stages[i].sources.map { $0 == .stage(s) ? replacement : $0 }
      }
      if d.output == .stage(s) {
        // The output may be input 0 itself (the empty chain), never an input of another size.
        guard replacement != .input(1) else { continue }
        d.output = replacement
      }
      out.append(pruned(d))
    }
    // Input 0 read instead of input 1.
    if c.stages.contains(where: { $0.sources.contains(.input(1)) }) {
      var d = c
      for i in d.stages.indices { d.stages[i].sources = d.stages[i].sources.map { $0 == .input(1) ? .input(0) : $0 } }
      out.append(d)
    }
    // Input 1, when nothing reads it.
    if c.inputs.count > 1 && !c.stages.contains(where: { $0.sources.contains(.input(1)) }) {
      out.append(with(c) { $0.inputs.removeLast() })
    }
    // A combine reading fewer images.
    for s in 0...last where c.stages[s].kind == .combine && c.stages[s].sources.count > 1 {
      for k in c.stages[s].sources.indices where !uses(layer: k, c.stages[s]) {
        var d = c
        d.stages[s].sources.remove(at: k)
        d.stages[s] = renumberLayers(d.stages[s], removed: k)
        out.append(d)
      }
    }
    // A combine of one image as a layer effect.
    for s in 0...last where c.stages[s].kind == .combine && c.stages[s].sources.count == 1 {
      out.append(with(c) { $0.stages[s].kind = .layer })
    }
    // Unused locals.
    for s in 0...last {
      for k in c.stages[s].locals.indices.reversed() where !uses(local: k, c.stages[s]) {
        var d = c
        d.stages[s].locals.remove(at: k)
        d.stages[s] = renumberLocals(d.stages[s], removed: k)
        out.append(d)
      }
    }
    // Plainer samplers.
    for s in 0...last where c.stages[s].sampler != .linear && c.stages[s].kind != .color {
      out.append(with(c) { $0.stages[s].sampler = .linear })
      if c.stages[s].sampler.filter != .linear {
        out.append(with(c) { $0.stages[s].sampler.filter = .linear })
      }
      if c.stages[s].sampler.address != .clampToEdge {
        out.append(with(c) { $0.stages[s].sampler.address = .clampToEdge })
      }
    }
    // Unused parameters.
    for k in c.params.indices.reversed() where !c.stages.contains(where: { st in
      (st.locals + [st.body]).contains { visit($0) { $0.op == .param(k) } }
    }) {
      var d = with(c) { $0.params.remove(at: k) }
      let f: (FuzzExpr.Op) -> FuzzExpr.Op = { op in
        if case .param(let i) = op, i > k { return .param(i - 1) }
        return op
      }
      for s in d.stages.indices {
        d.stages[s].locals = d.stages[s].locals.map { rewrite($0, f) }
        d.stages[s].body = rewrite(d.stages[s].body, f)
      }
      out.append(d)
    }
    if c.jitSchedule != 0 { out.append(with(c) { $0.jitSchedule = 0 }) }
    return out
  }

  static func isStage(_ s: FuzzCase.Source) -> Bool {
    if case .stage = s { return true }
    return false
  }

  static func with(_ c: FuzzCase, _ f: (inout FuzzCase) -> Void) -> FuzzCase {
    var d = c
    f(&d)
    return d
  }

  /// Drops stages the output does not reach, renumbering the rest.
  static func pruned(_ c: FuzzCase) -> FuzzCase {
    var live = [Bool](repeating: false, count: c.stages.count)
    if case .stage(let o) = c.output { live[o] = true }
    for s in stride(from: c.stages.count - 1, through: 0, by: -1) where live[s] {
      for case .stage(let p) in c.stages[s].sources { live[p] = true }
    }
    var index = [Int](repeating: -1, count: c.stages.count)
    var d = c
    d.stages = []
    for s in c.stages.indices where live[s] {
      index[s] = d.stages.count
      d.stages.append(c.stages[s])
    }
    func map(_ x: FuzzCase.Source) -> FuzzCase.Source {
      if case .stage(let k) = x { return .stage(index[k]) }
      return x
    }
    for i in d.stages.indices { d.stages[i].sources = d.stages[i].sources.map(map) }
    d.output = map(d.output)
    return d
  }

  static func visit(_ e: FuzzExpr, _ f: (FuzzExpr) -> Bool) -> Bool {
    if f(e) { return true }
    return e.args.contains { visit($0, f) }
  }

  static func uses(local k: Int, _ st: FuzzCase.Stage) -> Bool {
    (st.locals + [st.body]).contains { visit($0) { $0.op == .local(k) } }
  }

  static func uses(layer k: Int, _ st: FuzzCase.Stage) -> Bool {
    (st.locals + [st.body]).contains {
      visit($0) {
        if case .sample(let l, _) = $0.op, l == k { return true }
        return $0.op == .layerSize(k)
      }
    }
  }

  static func rewrite(_ e: FuzzExpr, _ f: (FuzzExpr.Op) -> FuzzExpr.Op) -> FuzzExpr {
    FuzzExpr(f(e.op), e.args.map { rewrite($0, f) }, e.type)
  }

  static func rewriteNodes(_ e: FuzzExpr, _ f: (FuzzExpr) -> FuzzExpr?) -> FuzzExpr {
    if let r = f(e) { return r }
    var d = e
    d.args = e.args.map { rewriteNodes($0, f) }
    return d
  }

  static func withoutUnusedLocals(_ st: FuzzCase.Stage) -> FuzzCase.Stage {
    var s = st
    for k in s.locals.indices.reversed() where !uses(local: k, s) {
      s.locals.remove(at: k)
      s = renumberLocals(s, removed: k)
    }
    return s
  }

  static func renumberLocals(_ st: FuzzCase.Stage, removed k: Int) -> FuzzCase.Stage {
    var s = st
    let f: (FuzzExpr.Op) -> FuzzExpr.Op = { op in
      if case .local(let i) = op, i > k { return .local(i - 1) }
      return op
    }
    s.locals = s.locals.map { rewrite($0, f) }
    s.body = rewrite(s.body, f)
    return s
  }

  static func renumberLayers(_ st: FuzzCase.Stage, removed k: Int) -> FuzzCase.Stage {
    var s = st
    let f: (FuzzExpr.Op) -> FuzzExpr.Op = { op in
      if case .sample(let i, let sm) = op, i > k { return .sample(i - 1, sm) }
      if case .layerSize(let i) = op, i > k { return .layerSize(i - 1) }
      return op
    }
    s.locals = s.locals.map { rewrite($0, f) }
    s.body = rewrite(s.body, f)
    return s
  }

  /// Every expression of the case with one subtree replaced by something smaller of the same type.
  static func exprCandidates(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    for s in c.stages.indices {
      let st = c.stages[s]
      for k in 0...st.locals.count {
        let root = k < st.locals.count ? st.locals[k] : st.body
        // A local inlined at its uses.
        for l in st.locals.indices where visit(root, { $0.op == .local(l) }) {
          let inlined = rewriteNodes(root) { $0.op == .local(l) ? st.locals[l] : nil }
          var d = c
          if k < st.locals.count { d.stages[s].locals[k] = inlined } else { d.stages[s].body = inlined }
          out.append(d)
        }
        for replaced in smaller(root) {
          var d = c
          if k < st.locals.count { d.stages[s].locals[k] = replaced } else { d.stages[s].body = replaced }
          out.append(d)
        }
      }
    }
    return out
  }

  /// `e` with one node replaced, outermost nodes first.
  static func smaller(_ e: FuzzExpr) -> [FuzzExpr] {
    var out = replacements(e)
    for (i, a) in e.args.enumerated() {
      for r in smaller(a) {
        var d = e
        d.args[i] = r
        out.append(d)
      }
    }
    return out
  }

  /// Smaller expressions of `e`'s type to put in its place.
  static func replacements(_ e: FuzzExpr) -> [FuzzExpr] {
    var out: [FuzzExpr] = []
    // An operand of the same type.
    for a in e.args where a.type == e.type && !(a.size >= e.size) { out.append(a) }
    // A sample with the layer's own sampler.
    if case .sample(let k, .some) = e.op { out.append(FuzzExpr(.sample(k, nil), e.args, e.type)) }
    // A constant.
    let isSimple: Bool = {
      switch e.op {
      case .float(let b): return [Float(0), 1, 0.5].contains(Float(bitPattern: b))
      case .int(let v): return v == 0 || v == 1
      case .bool: return true
      case .position, .size, .color, .param, .layerSize: return true
      case .vector: return e.args.count == 1 && e.args[0].isConstant
      default: return false
      }
    }()
    if !isSimple {
      switch e.type.scalar {
      case .float:
        for v: Float in [0, 1, 0.5] {
          out.append(e.type.lanes == 1 ? .float(v) : FuzzExpr(.vector(e.type.lanes), [.float(v)], e.type))
        }
      case .int: out += [.int(0), .int(1)]
      case .bool:
        if e.type.lanes == 1 { out += [.bool(true), .bool(false)] }
      }
    } else if case .float(let b) = e.op, Float(bitPattern: b) != 0 {
      out.append(.float(0))
    }
    if e.type == .float2, e.size > 1 { out.append(FuzzExpr(.position, [], .float2)) }
    return out
  }

  /// Smaller images, and plainer pixels.
  static func imageCandidates(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    for k in c.inputs.indices {
      let spec = c.inputs[k]
      var sizes: [(Int, Int)] = [(1, 1), (spec.width, 1), (1, spec.height), ((spec.width + 1) / 2, spec.height),
        (spec.width, (spec.height + 1) / 2), (spec.width - 1, spec.height), (spec.width, spec.height - 1)]
      sizes = sizes.filter { $0.0 >= 1 && $0.1 >= 1 && ($0.0 < spec.width || $0.1 < spec.height) }
      for (w, h) in sizes {
        out.append(with(c) { $0.inputs[k] = cropped(spec, w, h) })
      }
    }
    // Pixels only ever get plainer: the number of pixels that are neither zero
    // nor `plain` and then the number of non-zero channels go down, so this terminates.
    let plain = SIMD4<Float>(0.5, 0.25, 0.125, 1)
    for k in c.inputs.indices {
      let spec = c.inputs[k]
      if spec.pixels.contains(where: { $0 != .zero }) {
        out.append(with(c) { $0.inputs[k].pixels = Array(repeating: .zero, count: spec.pixels.count) })
      }
      if spec.pixels.contains(where: { $0 != .zero && $0 != plain }) {
        out.append(with(c) { $0.inputs[k].pixels = spec.pixels.map { $0 == .zero ? .zero : plain } })
      }
      for i in spec.pixels.indices where spec.pixels[i] != .zero {
        out.append(with(c) { $0.inputs[k].pixels[i] = .zero })
        if spec.pixels[i] == plain { continue }
        out.append(with(c) { $0.inputs[k].pixels[i] = plain })
        for ch in 0..<4 where spec.pixels[i][ch] != 0 {
          out.append(with(c) { $0.inputs[k].pixels[i][ch] = 0 })
        }
      }
    }
    return out
  }

  static func cropped(_ spec: FuzzCase.Input, _ w: Int, _ h: Int) -> FuzzCase.Input {
    var s = spec
    s.width = w
    s.height = h
    s.pixels = (0..<h).flatMap { y in (0..<w).map { x in spec.pixels[y * spec.width + x] } }
    return s
  }
}
