import FXIR
import FXImage
import FXPasses

/// Errors from running a graph or kernel on images.
public struct RunError: Error, CustomStringConvertible, Equatable {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// The reference implementation: DESIGN §4's staged evaluation, and the same
/// evaluator over a lowered ``Kernel`` (to test every pass against the oracle).
public enum Interpreter {
  /// Staged evaluation — the meaning of the graph. Every stage becomes a full
  /// RGBA32F raster of the output size (the size of `inputs[0]`); each stage
  /// samples earlier rasters with the reference sampler.
  /// - Parameters:
  ///   - inputs: one buffer per graph input, any format.
  ///   - uniforms: values of `graph.uniforms`, in order (missing ones take the parameter's value).
  ///   - loopIterations: when given, counts the iterations of loop bodies the pixels run.
  /// - Returns: an RGBA32F buffer of the output size (also when the graph's
  ///   output is an input of another size: it is read at the output's pixel
  ///   centers, nearest, clamped to its edge).
  /// - Throws: ``RunError`` when inputs are missing.
  public static func runStaged(
    _ graph: EffectGraph, inputs: [ImageBuffer], uniforms: [Float] = [], loopIterations: LoopIterations? = nil
  ) throws -> ImageBuffer {
    var ctx = try context(inputCount: graph.inputs.count, inputs, uniforms: uniforms, params: graph.uniforms)
    ctx.loopIterations = loopIterations
    let w = Int(ctx.width), h = Int(ctx.height)
    for stage in graph.stages {
      let evaluator = SpanEvaluator(stage.program)
      var raster = Raster(width: w, height: h)
      for y in 0..<h {
        let rgba = evaluator.run(row: Int32(y), from: 0, count: w, ctx)
        for x in 0..<w { raster.pixels[y * w + x] = SIMD4(rgba[0][x], rgba[1][x], rgba[2][x], rgba[3][x]) }
      }
      ctx.stages.append(raster)
    }
    switch graph.output {
    case .input(let k):
      // The output has the output size: an input as the output is read the way
      // a color effect reads its input (nearest, clamp to edge).
      var raster = Raster(width: w, height: h)
      for y in 0..<h {
        for x in 0..<w {
          raster.pixels[y * w + x] = ctx.inputs[k].sample(Float(x) + 0.5, Float(y) + 0.5, Sampler(filter: .nearest))
        }
      }
      return raster.buffer(.rgba32f)
    case .stage(let s): return ctx.stages[s].buffer(.rgba32f)
    }
  }

  /// Runs a lowered kernel pass by pass (the "interpreter on the optimised
  /// graph"); the output is stored in `format`. A kernel's loads read what its
  /// buffers store: an input it premultiplies itself
  /// (``Kernel/straightAlphaInputs``) is read as stored, any other as premultiplied.
  /// - Parameter observe: when given, called with (pass, node, values of a row)
  ///   for every live float node — for tests of analyses such as ``RangeAnalysis``.
  /// - Throws: ``RunError`` when inputs are missing, or the kernel expects a
  ///   straight-alpha buffer (input or output) where an rgba32f one is given.
  public static func run(
    _ kernel: Kernel, inputs: [ImageBuffer], uniforms: [Float] = [], params: [Param] = [],
    format: PixelFormat = .rgba32f, observe: ((_ pass: Int, _ node: Int, _ values: [Float]) -> Void)? = nil
  ) throws -> ImageBuffer {
    for k in kernel.straightAlphaInputs.sorted() where k < inputs.count && !inputs[k].format.holdsStraightAlpha {
      throw RunError("the kernel was lowered for input \(k) with straight alpha, but an \(inputs[k].format) buffer was given")
    }
    if kernel.straightAlphaOutput && !format.holdsStraightAlpha {
      throw RunError("the kernel was lowered for an output with straight alpha, but \(format) was asked for")
    }
    var ctx = try context(
      inputCount: kernel.inputCount, inputs, uniforms: uniforms, params: params, stored: kernel.straightAlphaInputs)
    let w = Int(ctx.width), h = Int(ctx.height)
    ctx.buffers = ctx.inputs + Array(repeating: Raster(width: w, height: h), count: kernel.bufferCount - kernel.inputCount)
    for (index, pass) in kernel.loopNests.enumerated() {
      let evaluator = SpanEvaluator(pass.program)
      var raster = Raster(width: w, height: h)
      for y in 0..<h {
        let rgba = evaluator.run(row: Int32(y), from: 0, count: w, ctx, observe: observe.map { f in { f(index, $0, $1) } })
        for x in 0..<w { raster.pixels[y * w + x] = SIMD4(rgba[0][x], rgba[1][x], rgba[2][x], rgba[3][x]) }
      }
      ctx.buffers[pass.output] = raster
    }
    return ctx.buffers[kernel.outputBuffer].buffer(format, stored: kernel.straightAlphaOutput)
  }

  /// The evaluation context; the inputs in `stored` are read as stored, the others premultiplied.
  static func context(inputCount: Int, _ inputs: [ImageBuffer], uniforms: [Float], params: [Param], stored: Set<Int> = []) throws
    -> EvalContext
  {
    guard let first = inputs.first, inputs.count >= inputCount else {
      throw RunError("the graph reads \(inputCount) input image(s), \(inputs.count) given")
    }
    let values = params.indices.map { $0 < uniforms.count ? uniforms[$0] : params[$0].value }
    return EvalContext(
      width: Int32(first.width), height: Int32(first.height), uniforms: values.isEmpty ? uniforms : values,
      inputs: inputs.enumerated().map { Raster($1, stored: stored.contains($0)) })
  }
}
