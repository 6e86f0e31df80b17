import FX
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import Foundation

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
    /// `Expr.fold(from: args[0], to: args[1], limit:, initial: [args[2]]) { i, acc in [args[3]] }[0]`:
    /// the update reads `loopIndex`/`accumulator` of its loop (level = nesting depth, 0 outermost).
    /// With `exit`, a loop that stops early (``Loop/exit``): `initial: [args[2], args[4]], exit: 1`,
    /// the body `[args[3], args[5]]` (the flag before the loop, then after each iteration).
    case fold(limit: Int, exit: Bool)
    /// The index (int) and the accumulator of the enclosing loop at `level`;
    /// outside it (after shrinking) the constant 0.
    case loopIndex(Int)
    case accumulator(Int)
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
  public enum Kind: String, Sendable { case color, distortion, layer, combine, geometry, scan }

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
    /// A geometry stage's map (docs/design.md §4): its one source through it; the body is unused.
    public var geometry: Geometry? = nil
    /// A scan (docs/design.md §4): its one source through it; the body is unused.
    public var scan: Scan? = nil
    /// A reduction (kind `.scan` too): its one source through it.
    public var reduction: Reduction? = nil
  }

  /// The seed that generated the case (shrunk cases keep it).
  public var seed: UInt64
  public var inputs: [Input]
  public var params: [ParamSpec]
  public var stages: [Stage]
  public var output: Source
  /// Which lowering options the JIT compiles with: 0 default, 1 forceInline, 2 forceMaterialise.
  public var jitSchedule: Int
  /// The format the JIT stores its output in (DESIGN §1's quantising store
  /// for rgba8 and rgba16), compared with the staged result quantised the same way.
  public var outputFormat: PixelFormat = .rgba32f

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
      case .geometry:
        img = sources[0].geometry(st.geometry!)
      case .scan:
        img = st.reduction.map { sources[0].reduce($0) } ?? sources[0].scan(st.scan!)
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
    let loops = LoopScope()
    func b(_ e: FuzzExpr) -> Expr {
      if let l = loops.build(e, b) { return l }
      let a = e.args.map(b)
      switch e.op {
      case .fold, .loopIndex, .accumulator: preconditionFailure("built by LoopScope")
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
      case .prefix(let o): return o == "-" ? -a[0] : o == "!" ? !a[0] : ~a[0]
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
        case "fma": return fma(a[0], a[1], a[2])
        case "step": return step(a[0], a[1])
        case "smoothstep": return smoothstep(a[0], a[1], a[2])
        case "floor": return floor(a[0])
        case "ceil": return ceil(a[0])
        case "fract": return fract(a[0])
        case "roundHalf": return roundHalf(a[0])
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

/// The loops enclosing the expression being built: each one's index and
/// accumulator, outermost first. A leaf of a loop that does not enclose it
/// (a shrunk case) is 0.
final class LoopScope {
  var scope: [(index: Expr, accumulator: Expr)] = []

  /// `e` built when it is a fold, an index or an accumulator; nil otherwise.
  func build(_ e: FuzzExpr, _ b: (FuzzExpr) -> Expr) -> Expr? {
    switch e.op {
    case .fold(let limit, let exit):
      let bounds = e.args[..<3].map(b)
      let initial = exit ? [bounds[2], b(e.args[4])] : [bounds[2]]
      return Expr.fold(from: bounds[0], to: bounds[1], limit: limit, initial: initial, exit: exit ? 1 : nil) { i, acc in
        scope.append((i, acc[0]))
        defer { scope.removeLast() }
        return exit ? [b(e.args[3]), b(e.args[5])] : [b(e.args[3])]
      }[0]
    case .loopIndex(let level): return level < scope.count ? scope[level].index : .int(0)
    case .accumulator(let level):
      if level < scope.count { return scope[level].accumulator }
      let z = Expr(Float(0))
      return e.type.lanes == 1 ? z : e.type.lanes == 2 ? float2Parts([z]) : e.type.lanes == 3 ? float3Parts([z]) : float4Parts([z])
    default: return nil
    }
  }
}

// Variadic constructors, spread from an array.
func float2Parts(_ a: [Expr]) -> Expr { a.count == 1 ? float2(a[0]) : float2(a[0], a[1]) }
func float3Parts(_ a: [Expr]) -> Expr {
  switch a.count {
  case 1: return float3(a[0])
  case 2: return float3(a[0], a[1])
  default: return float3(a[0], a[1], a[2])
  }
}
func float4Parts(_ a: [Expr]) -> Expr {
  switch a.count {
  case 1: return float4(a[0])
  case 2: return float4(a[0], a[1])
  case 3: return float4(a[0], a[1], a[2])
  default: return float4(a[0], a[1], a[2], a[3])
  }
}
