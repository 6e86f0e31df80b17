import FX
import FXImage
import FXInterpreter

/// Every catalogue effect with its parameters at the ends of their documented
/// ranges, the floats just inside them, 0, −0 and the smallest subnormals
/// where the range holds them, the default and random values between (issue
/// 16: "total parameters"). Each case is checked like a random graph
/// (``Differential``: staged interpreter vs lowered kernels vs JIT) and, on a
/// finite input, for a finite output: a value inside its documented range must
/// never give NaN weights, an empty kernel or an overflow.
///
///     let findings = CatalogueFuzz.run(CatalogueFuzz.cases(seed: 1), evaluations: [.lowered, .jit])
public enum CatalogueFuzz {
  /// One effect with one choice of parameter values (non-numbers at their defaults).
  public struct Case: Sendable, CustomStringConvertible {
    public var effect: EffectSpec
    public var values: [Float]
    /// Whether the numbers are uniforms (one kernel for every value) rather than constants.
    public var uniform: Bool

    /// The effect call, `gaussianBlur(sigma: 1e-45)`, with `[uniform]` when it is one.
    public var description: String {
      var args: [String] = []
      for (p, v) in zip(effect.parameters, values) where p.isNumber { args.append("\(p.name): \(v)") }
      return "\(effect.name)(\(args.joined(separator: ", ")))" + (uniform ? " [uniform]" : "")
    }

    /// The effect with these values.
    public func make() -> Effect {
      let arguments: [ParameterValue] = zip(effect.parameters, values).map { p, v in
        guard p.isNumber else { return p.defaultArgument }
        return .number(uniform && p.allowsUniform ? Expr(Param.uniform(p.name, v)) : Expr(v))
      }
      return effect.make(arguments)
    }
  }

  /// A case that disagrees or gives a non-finite output.
  public struct Finding: Sendable, CustomStringConvertible {
    public var c: Case
    public var problem: String
    public var description: String { "\(c): \(problem)" }
  }

  /// The values drawn for a number parameter: both ends, the floats next to
  /// them inside the range, 0, −0 and ± the smallest subnormal where inside,
  /// the default and `random` values drawn uniformly inside.
  public static func edgeValues(_ p: ParameterSpec, random: Int, rng: inout SplitMix64) -> [Float] {
    let r = p.range
    let lo = r.lowerBound, hi = r.upperBound
    var values: [Float] = [lo, hi, lo.nextUp, hi.nextDown, p.defaultValue]
    let special: [Float] = [0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude]
    values += special.filter(r.contains)
    for _ in 0..<random {
      let t = Float(rng.below(1 << 24)) / Float(1 << 24)
      values.append(lo + (hi - lo) * t)
    }
    var seen = Set<UInt32>()
    return values.filter { r.contains($0) && seen.insert($0.bitPattern).inserted }
  }

  /// For every effect of `effects`, for every number parameter, each of its
  /// edge values with the others at their defaults; then every parameter at
  /// its lower end, and every one at its upper end. Each as constants and,
  /// where the effect has uniform parameters, as uniforms.
  public static func cases(seed: UInt64, random: Int = 2, effects: [EffectSpec] = Catalogue.effects) -> [Case] {
    var rng = SplitMix64(seed: seed)
    var all: [Case] = []
    for effect in effects {
      let defaults = effect.parameters.map(\.defaultValue)
      var choices: [[Float]] = []
      for (i, p) in effect.parameters.enumerated() where p.isNumber {
        for v in edgeValues(p, random: random, rng: &rng) {
          var values = defaults
          values[i] = v
          choices.append(values)
        }
      }
      choices.append(effect.parameters.map { $0.isNumber ? $0.range.lowerBound : $0.defaultValue })
      choices.append(effect.parameters.map { $0.isNumber ? $0.range.upperBound : $0.defaultValue })
      let uniforms = effect.parameters.contains { $0.isNumber && $0.allowsUniform }
      for values in choices {
        all.append(Case(effect: effect, values: values, uniform: false))
        if uniforms { all.append(Case(effect: effect, values: values, uniform: true)) }
      }
    }
    return all
  }

  /// Two 9×7 premultiplied rgba32f images: gradients and noise, with opaque,
  /// translucent and transparent pixels (the second for transitions).
  public static func inputs(seed: UInt64) -> [ImageBuffer] {
    var rng = SplitMix64(seed: seed)
    return (0..<2).map { _ in
      let image = try! ImageBuffer(width: 9, height: 7, format: .rgba32f)
      for y in 0..<7 {
        for x in 0..<9 {
          let a: Float = [1, 1, 0.5, 0, Float(rng.below(256)) / 255][rng.below(5)]
          let c = SIMD3<Float>((0..<3).map { _ in Float(rng.below(256)) / 255 })
          image[x, y] = SIMD4(c * a, a)
        }
      }
      return image
    }
  }

  /// Checks one case; the problem, or nil.
  public static func check(_ c: Case, inputs: [ImageBuffer], evaluations: [Differential.Evaluation], target: Target = .host)
    -> String?
  {
    let output = c.make()(Image.input(0))
    // A geometry stage's sizes are validated, not clamped: refusing one (a
    // fraction of a pixel) with a GraphError is a clear outcome.
    // Compiled below for float outputs: the graph those take (a blur's loops, not its scans).
    let sized = try? PipelineGraph(output: output, precise: true)
    if c.effect.changesSize && sized == nil { return nil }
    if let sized, sized.hasCuts {
      return checkSized(sized, output: output, inputs: inputs, jit: !evaluations.isEmpty, target: target)
    }
    if !evaluations.isEmpty, let d = Differential.check(output, inputs: inputs, evaluations: evaluations, target: target) {
      return d.description
    }
    do {
      let graph = try EffectGraph(output: output)
      let staged = try Interpreter.runStaged(graph, inputs: inputs, uniforms: graph.uniforms.map(\.value))
      for y in 0..<staged.height {
        for x in 0..<staged.width where !(0..<4).allSatisfy({ staged[x, y][$0].isFinite }) {
          return "a finite input gives a non-finite output \(staged[x, y]) at (\(x), \(y))"
        }
      }
    } catch {
      return "staged evaluation threw \(error)"
    }
    return nil
  }

  /// A case that changes size: a size no stage can take is a clear error
  /// (fine); a result over a megapixel is not evaluated (its size rule was
  /// checked); otherwise the staged result must be finite and, with `jit`,
  /// the compiled pipeline within 1e-4 of it (relative above 1).
  static func checkSized(_ sized: PipelineGraph, output: Image, inputs: [ImageBuffer], jit: Bool, target: Target) -> String? {
    var size = (width: inputs[0].width, height: inputs[0].height)
    for step in sized.steps {
      do { size = try step.cut.outputSize(width: size.width, height: size.height) } catch { return nil }
    }
    guard size.width * size.height <= 1 << 20 else { return nil }
    let inputs = Array(inputs.prefix(Swift.max(sized.head.inputs.count, 1)))
    do {
      let staged = try Interpreter.runStaged(sized, inputs: inputs)
      for y in 0..<staged.height {
        for x in 0..<staged.width where !(0..<4).allSatisfy({ staged[x, y][$0].isFinite }) {
          return "a finite input gives a non-finite output \(staged[x, y]) at (\(x), \(y))"
        }
      }
      guard jit else { return nil }
      let compiled = try Pipeline(output: output).compile(
        inputFormats: inputs.map(\.format), outputFormat: .rgba32f, cache: nil, target: target)
      let out = try compiled.run(inputs)
      for y in 0..<staged.height {
        for x in 0..<staged.width {
          let (o, e) = (out[x, y], staged[x, y])
          for c in 0..<4 where Swift.abs(o[c] - e[c]) > 1e-4 * Swift.max(1, Swift.abs(e[c])) {
            return "jit \(o) against staged \(e) at (\(x), \(y))"
          }
        }
      }
    } catch {
      return "evaluation threw \(error)"
    }
    return nil
  }

  /// Checks every case; the findings, in order.
  public static func run(
    _ cases: [Case], inputs: [ImageBuffer] = inputs(seed: 1), evaluations: [Differential.Evaluation], target: Target = .host
  ) -> [Finding] {
    cases.compactMap { c in check(c, inputs: inputs, evaluations: evaluations, target: target).map { Finding(c: c, problem: $0) } }
  }
}
