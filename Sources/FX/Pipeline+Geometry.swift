import Dispatch
import FXRuntime

extension Pipeline {
  /// ``compile(inputFormats:outputFormat:backend:options:cache:target:)`` for a
  /// pipeline that changes size: one compiled pipeline per graph between
  /// geometry stages — the first reads `inputFormats`, each writes rgba32f
  /// (premultiplied, unclamped: DESIGN §1) for the geometry stage after it,
  /// the last writes `outputFormat`. Inputs 1… keep their formats in every graph.
  func compileSteps(
    inputFormats: [PixelFormat], outputFormat: PixelFormat, backend: Backend, options: LoweringOptions,
    cache: KernelCache?, target: Target
  ) throws -> CompiledPipeline {
    let start = DispatchTime.now().uptimeNanoseconds
    var later = options
    later.opaqueInputs.remove(0)  // a geometry stage's result may have transparent margins
    let graphs = [graph] + steps.map(\.graph)
    var compiled: [CompiledPipeline] = []
    for (i, g) in graphs.enumerated() {
      var one = Pipeline(graph: g)
      one.floatMode = floatMode
      let formats = i == 0 ? inputFormats : [.rgba32f] + inputFormats.dropFirst()
      compiled.append(
        try one.compile(
          inputFormats: formats, outputFormat: i == graphs.count - 1 ? outputFormat : .rgba32f, backend: backend,
          options: i == 0 ? options : later, cache: cache, target: target))
    }
    let head = compiled[0]
    head.steps = zip(steps, compiled.dropFirst()).map { ($0.geometry, $1) }
    head.compileMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    return head
  }
}

extension CompiledPipeline {
  /// The format of the pipeline's result: the last graph's output.
  public var outputFormat: PixelFormat { steps.last?.next.layout.output ?? layout.output }

  /// Runs a pipeline that changes size: this kernel, then each geometry stage
  /// (``GeometryExecutor`` with the JIT, the reference ``Interpreter/apply(_:to:)``
  /// with the interpreter) and the pipeline after it, on whole images.
  func runSteps(_ inputs: [ImageBuffer], uniforms: [Param: Float], threads: Int) throws -> ImageBuffer {
    let head = CompiledPipeline(graph: graph, kernel: kernel, layout: layout, target: target, compiled: compiled, source: kernelSource)
    var image = try head.run(inputs, uniforms: uniforms, threads: threads)
    for (geometry, next) in steps {
      let moved: ImageBuffer
      do {
        moved =
          backend == .jit
          ? try GeometryExecutor.apply(geometry, to: image, threads: threads) : try Interpreter.apply(geometry, to: image)
      } catch let e as GeometryError {
        throw RunError(e.message)
      }
      image = try next.run([moved] + inputs.dropFirst(), uniforms: uniforms, threads: threads)
    }
    return image
  }
}
