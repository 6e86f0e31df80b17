import FX
import FXImage

/// Every `[[ stitchable ]]` function of a shader library, bound to argument
/// values drawn for each parameter's kind, checked like a random graph
/// (``Differential``: staged interpreter vs lowered kernels vs JIT, on the
/// CPU or, with a CUDA target, on the GPU). What `fxc fuzz --shaders` runs:
/// a user's own collection, or the corpus of the tests on a GPU machine.
///
/// The values: each declared default; 0; 1; and `random` draws per case,
/// floats in [−2, 8) (a shader's sizes, angles and amounts), colours with
/// channels in [0, 1] premultiplied, arrays of four floats or three
/// colours; a `float2` is also bound to the layer's size once; a texture is
/// input 1. Once as constants and once as uniforms (the animated case:
/// one kernel for every value), where the shader has float parameters.
public enum ShaderFuzz {
  /// One function with one choice of values, by lane.
  public struct Case: Sendable, CustomStringConvertible {
    public var function: String
    /// Per parameter: the lanes (a float or colour parameter), the array's
    /// elements, or nothing (a texture; the size).
    public var values: [[Float]]
    /// Whether the `float2` parameters take the layer's size instead.
    public var size: Bool
    public var uniform: Bool

    public var description: String {
      let args = values.map { $0.isEmpty ? "·" : "(" + $0.map { "\($0)" }.joined(separator: ", ") + ")" }
      return "\(function)(\(args.joined(separator: ", ")))" + (size ? " [size]" : "") + (uniform ? " [uniform]" : "")
    }

    /// The shader's effect with these values.
    /// - Throws: ``MetalDiagnostic`` when the function does not bind.
    public func make(_ library: ShaderLibrary) throws -> Effect {
      let f = try library.function(named: function)
      var arguments: [ShaderArgument] = []
      for (k, (p, v)) in zip(f.parameters, values).enumerated() {
        func lane(_ i: Int) -> Expr { uniform ? Expr(Param.uniform("u\(k).\(i)", v[i])) : Expr(v[i]) }
        switch p.kind {
        case .float(let lanes) where lanes == 2 && size: arguments.append(.size)
        case .float(let lanes):
          switch lanes {
          case 1: arguments.append(.float(lane(0)))
          case 2: arguments.append(.float2(lane(0), lane(1)))
          case 3: arguments.append(.float3(lane(0), lane(1), lane(2)))
          default: arguments.append(.float4(lane(0), lane(1), lane(2), lane(3)))
          }
        case .color: arguments.append(.float4(lane(0), lane(1), lane(2), lane(3)))
        case .floatArray: arguments.append(.floatArray(elements: v.map { Expr($0) }))
        case .colorArray: arguments.append(.colorArray(stride(from: 0, to: v.count, by: 4).map { Color(v[$0], v[$0 + 1], v[$0 + 2], v[$0 + 3]) }))
        case .image: arguments.append(.image(Image.input(1)))
        }
      }
      return try f.bind(arguments).effect
    }
  }

  /// The cases of every function of `library` that compiles (see the type's docs).
  public static func cases(_ library: ShaderLibrary, seed: UInt64, random: Int = 2) -> [Case] {
    var rng = SplitMix64(seed: seed)
    func unit() -> Float { Float(rng.below(1 << 24)) / Float(1 << 24) }
    func color() -> [Float] {
      let a = unit()
      return [unit() * a, unit() * a, unit() * a, a]
    }
    var all: [Case] = []
    for f in library.functions {
      func values(_ draw: (ShaderParameter, Int) -> Float) -> [[Float]] {
        f.parameters.map { p in
          switch p.kind {
          case .float(let lanes): return (0..<lanes).map { draw(p, $0) }
          case .color: return color()
          case .floatArray: return (0..<4).map { _ in -2 + 10 * unit() }
          case .colorArray: return (0..<3).flatMap { _ in color() }
          case .image: return []
          }
        }
      }
      var choices: [[[Float]]] = []
      if f.parameters.allSatisfy({ $0.defaultValue != nil }) {
        choices.append(f.parameters.map { $0.defaultValue! })
      }
      choices.append(values { _, _ in 0 })
      choices.append(values { _, _ in 1 })
      for _ in 0..<random { choices.append(values { _, _ in -2 + 10 * unit() }) }
      let floats = f.parameters.contains { if case .float = $0.kind { true } else { $0.kind == .color } }
      let pairs = f.parameters.contains { $0.kind == .float(lanes: 2) }
      for v in choices {
        all.append(Case(function: f.name, values: v, size: false, uniform: false))
        if floats { all.append(Case(function: f.name, values: v, size: false, uniform: true)) }
      }
      if pairs, let v = choices.last { all.append(Case(function: f.name, values: v, size: true, uniform: false)) }
    }
    return all
  }

  /// Checks one case on ``CatalogueFuzz/inputs(seed:)``, the JIT in
  /// `floatMode` and `schedule` (nil: the target's own); the problem, or nil.
  public static func check(
    _ c: Case, library: ShaderLibrary, inputs: [ImageBuffer], evaluations: [Differential.Evaluation], target: Target = .host,
    floatMode: FloatMode = .strict, schedule: KernelSchedule? = nil
  ) -> String? {
    let effect: Effect
    do { effect = try c.make(library) } catch { return "does not bind: \(error)" }
    let d = Differential.check(
      effect(Image.input(0)), inputs: inputs, evaluations: evaluations, target: target, floatMode: floatMode, schedule: schedule)
    return d?.description
  }
}
