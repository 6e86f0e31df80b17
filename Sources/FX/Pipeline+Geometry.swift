import Dispatch
import FXLLVM
import FXRuntime

extension Pipeline {
  /// ``compile(inputFormats:outputFormat:backend:options:cache:target:)`` for a
  /// pipeline that changes size: one compiled pipeline per graph between
  /// geometry stages — the first reads `inputFormats`, each writes rgba32f
  /// (premultiplied, unclamped: DESIGN §1) for the geometry stage after it,
  /// the last writes `outputFormat`. Inputs 1… keep their formats in every graph.
  ///
  /// With relaxed floats only the last graph is relaxed; the ones before it
  /// stay strict. A later cut or graph may read their values through a
  /// discontinuity — a reduction's histogram bins, a sample position — and
  /// the relaxed analysis (``RangeProofs/loadsFeedingDiscontinuity(_:)``)
  /// sees one kernel only: an ulp from a contracted bilinear blend before
  /// `reduce(.levels)` moved the levels, and an `exp`'d sample position
  /// with them (fxc fuzz `--float relaxed` seed 10375175881812144700).
  func compileSteps(
    inputFormats: [PixelFormat], outputFormat: PixelFormat, backend: Backend, options: LoweringOptions,
    cache: KernelCache?, target: Target, schedule: KernelSchedule?
  ) throws -> CompiledPipeline {
    let start = DispatchTime.now().uptimeNanoseconds
    var later = options
    later.opaqueInputs.remove(0)  // a geometry stage's result may have transparent margins
    let graphs = [graph] + steps.map(\.graph)
    var compiled: [CompiledPipeline] = []
    for (i, g) in graphs.enumerated() {
      var one = Pipeline(graph: g)
      one.floatMode = i == graphs.count - 1 ? floatMode : .strict
      let formats = i == 0 ? inputFormats : [.rgba32f] + inputFormats.dropFirst()
      compiled.append(
        try one.compile(
          inputFormats: formats, outputFormat: i == graphs.count - 1 ? outputFormat : .rgba32f, backend: backend,
          options: i == 0 ? options : later, cache: cache, target: target, schedule: schedule))
    }
    let head = compiled[0]
    head.steps = zip(steps, compiled.dropFirst()).map { ($0.cut, $1) }
    head.compileMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    return head
  }
}

extension Pipeline {
  /// What the pipeline's first resize makes of an input of `width × height`
  /// when a decoder may start from a smaller image (shrink-on-load,
  /// ``ShrinkOnLoad``): its result's size when the pipeline starts with a
  /// resize that asks for it (``Resize/shrinkOnLoad``: `thumbnail`) and
  /// nothing before it; else nil.
  public func shrinkOnLoadResult(width: Int, height: Int) -> (width: Int, height: Int)? {
    guard graph.stages.isEmpty, graph.output == .input(0), case .geometry(.resize(let r))? = steps.first?.cut, r.shrinkOnLoad else {
      return nil
    }
    return r.outputSize(width: width, height: height)
  }

  /// ``shrinkOnLoadResult(width:height:)`` as a decoder asks it
  /// (``ImageFile/read(_:options:shrink:)``): of the stored size, for an image
  /// that is turned upright by its EXIF orientation first unless
  /// `keepOrientation`, the result's size in the stored orientation.
  public func shrinkOnLoadRule(keepOrientation: Bool = false) -> ShrinkOnLoad.Result {
    { w, h, orientation in
      let turned = !keepOrientation && orientation >= 5
      guard let result = shrinkOnLoadResult(width: turned ? h : w, height: turned ? w : h) else { return nil }
      return turned ? (result.height, result.width) : result
    }
  }

  /// How much a decoder that reduces by powers of two may reduce an input of
  /// `width × height` first (``ImageRowReader/shrinkOnLoad(by:)``): 2, 4 or 8
  /// by ``ShrinkOnLoad/factor(width:height:result:)`` of
  /// ``shrinkOnLoadResult(width:height:)`` — a reduction of at least 2×
  /// shrinks on load (sharp's default; the resampler makes the rest); else 1.
  public func shrinkOnLoad(width: Int, height: Int) -> Int {
    shrinkOnLoadResult(width: width, height: height).map { ShrinkOnLoad.factor(width: width, height: height, result: $0) } ?? 1
  }
}

extension CompiledPipeline {
  /// Whether the pipeline is cut (``steps`` is not empty).
  public var hasCuts: Bool { !steps.isEmpty }

  /// The format of the pipeline's result: the last graph's output.
  public var outputFormat: PixelFormat { steps.last?.next.layout.output ?? layout.output }

  /// ``runSteps(_:uniforms:threads:)`` on whole images: each kernel over the
  /// whole image, each geometry stage by ``GeometryExecutor`` — what the
  /// bands must equal, byte for byte (for tests).
  package func runStepsWhole(_ inputs: [ImageBuffer], uniforms: [Param: Float], threads: Int) throws -> ImageBuffer {
    let head = CompiledPipeline(graph: graph, kernel: kernel, layout: layout, target: target, compiled: executor, source: kernelSource)
    var image = try head.run(inputs, uniforms: uniforms, threads: threads)
    for (cut, next) in steps {
      let moved = try CutExecutor.apply(cut, to: image, threads: threads)
      image = try next.run([moved] + inputs.dropFirst(), uniforms: uniforms, threads: threads)
    }
    return image
  }

  /// The size of the result for input 0 of `width × height`: each geometry stage's in turn.
  /// - Throws: ``RunError`` when a geometry stage cannot apply to its input's size.
  public func outputSize(width: Int, height: Int) throws -> (width: Int, height: Int) {
    do {
      return try steps.reduce((width, height)) { size, step in try step.cut.outputSize(width: size.0, height: size.1) }
    } catch let e as GeometryError {
      throw RunError(e.message)
    }
  }

  /// Runs a pipeline that changes size: this kernel, then each geometry stage
  /// and the pipeline after it. With the JIT, in bands (``streamSteps(from:others:uniforms:threads:write:)``);
  /// with the interpreter, on whole images through the reference ``Interpreter/apply(_:to:)``.
  /// Into `output`, of ``outputSize(width:height:)`` and ``outputFormat``.
  func runSteps(_ inputs: [ImageBuffer], into output: ImageBuffer, uniforms: [Param: Float], threads: Int) throws {
    if executor != nil, compiled == nil {
      // A CUDA device: each kernel over the whole image there, each cut stage here.
      return output.copyPixels(from: try runStepsWhole(inputs, uniforms: uniforms, threads: threads))
    }
    guard compiled != nil else {
      let head = CompiledPipeline(graph: graph, kernel: kernel, layout: layout, target: target, compiled: nil, source: nil)
      var image = try head.run(inputs, uniforms: uniforms)
      for (cut, next) in steps {
        do { image = try next.run([try Interpreter.apply(cut, to: image)] + inputs.dropFirst(), uniforms: uniforms) } catch let e
          as GeometryError
        { throw RunError(e.message) }
      }
      output.copyPixels(from: image)
      return
    }
    var y = 0
    try streamSteps(
      from: ClosureRowSource(inputs[0]), again: { ClosureRowSource(inputs[0]) }, others: Array(inputs.dropFirst()),
      uniforms: uniforms, threads: threads, output: output
    ) { pointer, rowBytes, count in
      for k in 0..<count {
        (output.data + (y + k) * output.rowBytes).copyMemory(from: pointer + k * rowBytes, byteCount: output.rowDataBytes)
      }
      y += count
    }
  }

  /// Runs a pipeline that changes size (JIT only) from `source`'s rows
  /// (input 0, as compiled) to `write(pointer, rowBytes, count)`, which gets
  /// the result's rows in order (``outputFormat``, ``outputSize(width:height:)``).
  /// Each kernel streams on a thread of its own (``KernelRowSource``), each
  /// geometry stage in bands where its map allows (``RowSource/through(_:)``),
  /// so memory holds a few bands of each, not whole images; the last kernel
  /// runs on this thread, with `threads` ≥ 2 reading and writing on threads
  /// of their own. Then `source` is finished (a decoder checks the file's end).
  /// - Throws: ``RunError`` when a geometry stage cannot apply to its input's
  ///   size; what `source` or `write` throw.
  /// With `output` (of the result's size and format), a last kernel whose
  /// input is a whole image (after a scan along y, a quarter turn) runs on
  /// it in place and writes `output` itself, instead of rows through `write`.
  /// With `again` (the same rows as `source`, from the start), a reduction
  /// over more than ``ReductionExecutor/twoPassBytes`` of
  /// rows counts them on a first reading and maps them on a second, so the
  /// image is never whole; without it, the rows reaching it are held whole.
  public func streamSteps(
    from source: RowSource, again: (() throws -> RowSource)? = nil, others: [ImageBuffer], uniforms: [Param: Float],
    threads: Int, output: ImageBuffer? = nil, write: @escaping (UnsafeRawPointer, Int, Int) throws -> Void
  ) throws {
    guard let compiled, let last = steps.last?.next.compiled else {
      throw RunError("a pipeline that changes size streams with the JIT only")
    }
    let values = { (p: CompiledPipeline) in p.graph.uniforms.map { uniforms[$0] ?? $0.value } }
    do {
      // A chain that starts with a geometry stage needs no kernel before it: its rows are only premultiplied.
      let identity = graph.stages.isEmpty && graph.output == .input(0)
      var unused: RowSource? = source
      // A reduction counted on a first reading of the input: its maps, by step.
      var measured: [Int: ReductionExecutor.Decided] = [:]
      // The rows that reach cut `k`, from `source` the first time, from `again` after.
      func chain(upTo k: Int) throws -> RowSource {
        let start = try unused ?? again!()
        unused = nil
        var rows: RowSource =
          identity && start.format.holdsStraightAlpha
          ? PremultiplyingSource(start)
          : identity ? start : try KernelRowSource(compiled, upstream: start, uniforms: values(self), otherInputs: others)
        for (i, (cut, next)) in steps.prefix(k).enumerated() {
          if case .reduction(let r) = cut, again != nil, ReductionExecutor.readsTwice(width: rows.width, height: rows.height) {
            // Counted as the rows go by, then mapped on a second reading: the image is never whole.
            if measured[i] == nil {
              measured[i] = try rows.decide(r)
              rows = try chain(upTo: i)
            }
            rows = rows.mapped(measured[i]!)
          } else {
            rows = try rows.through(cut, threads: threads, target: target)
          }
          // A graph between two cuts that only passes its input on (a blur's two scans) is no kernel.
          if i < steps.count - 1 && !(next.graph.stages.isEmpty && next.graph.output == .input(0)) {
            rows = try KernelRowSource(next.compiled!, upstream: rows, uniforms: values(next), otherInputs: others)
          }
        }
        return rows
      }
      let rows = try chain(upTo: steps.count)
      let lastValues = values(steps.last!.next)
      if let output, let whole = rows as? WholeImageSource, whole.delivered == 0 {
        try last.run(inputs: [whole.image] + others, output: output, uniforms: lastValues, threads: threads)
      } else if last.streamingRefusal == nil && rows.width >= last.lanes {
        let upstream = rows
        try last.stream(
          width: rows.width, height: rows.height, uniforms: lastValues, threads: threads, otherInputs: others,
          read: { pointer, rowBytes, count in try upstream.read(into: pointer, rowBytes: rowBytes, count: count) }, write: write)
      } else {
        let input = try rows.materialise()
        let output = try ImageBuffer(width: input.width, height: input.height, format: last.layout.output, zeroFilled: false)
        try last.run(inputs: [input] + others, output: output, uniforms: lastValues, threads: threads)
        try write(output.data, output.rowBytes, output.height)
      }
      try rows.finish()
    } catch let e as GeometryError {
      throw RunError(e.message)
    } catch let e as LLVMError {
      throw RunError(e.message)
    }
  }
}
