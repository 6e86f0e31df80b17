import Dispatch
import FXCodegen
import FXLLVM
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Where a compiled pipeline runs.
public enum Backend: String, Sendable, CaseIterable {
  /// Native code from LLVM (the default).
  case jit
  /// The reference interpreter over the lowered kernel: slow, always available.
  case interpreter = "interp"
}

/// An effect graph ready to compile: the entry point of the library.
///
/// ```swift
/// let pipeline = try Pipeline(sepia() | vignette(intensity: 0.8))
/// let output = try pipeline.apply(to: photo)
/// ```
public struct Pipeline: Sendable {
  /// The checked graph in the scalar IR; for a pipeline that changes size,
  /// its first segment (up to the first geometry stage: ``steps``).
  public let graph: EffectGraph
  /// The geometry stages and the graphs after them (docs/design.md §4); empty
  /// when every stage keeps the input's size.
  public let steps: [PipelineGraph.Step]
  /// The float semantics ``compile(inputFormats:outputFormat:backend:options:cache:target:)``
  /// and ``apply(to:uniforms:threads:)`` compile with: ``FloatMode/strict``
  /// (bit-identical to the interpreter) unless set to ``FloatMode/relaxed``.
  public var floatMode: FloatMode = .strict
  /// What ``compile(inputFormats:outputFormat:backend:options:cache:target:)``
  /// (when given no target) and ``apply(to:uniforms:threads:)`` compile
  /// for: this CPU unless set, e.g. to the CUDA device's target
  /// (`try CUDADevice.open().target`).
  public var target: Target = .host
  /// What ``apply(to:uniforms:threads:)`` compiled, by input format and
  /// opacity, shared by copies of this pipeline.
  let applied = AppliedKernels()

  /// A pipeline applying `effect` to one input image.
  /// - Throws: ``GraphError`` when an effect's expression is ill-typed.
  public init(_ effect: Effect) throws {
    try self.init(output: effect(.input()))
  }

  /// A pipeline computing `output`, a graph over any number of inputs.
  public init(output: Image) throws {
    let cut = try PipelineGraph(output: output)
    graph = cut.head
    steps = cut.steps
    // A blur that takes scans for 8-bit outputs keeps its loop for deeper ones (docs/design.md §4).
    precise = cut.hasAlternatives ? try PipelineGraph(output: output, precise: true) : nil
  }

  /// The pipeline of `cut`'s graphs.
  init(_ cut: PipelineGraph, floatMode: FloatMode) {
    graph = cut.head
    steps = cut.steps
    precise = nil
    self.floatMode = floatMode
  }

  /// The graph compiled for an output of `format`: ``pipelineGraph`` for
  /// 8 bits; for 16-bit and float outputs the loops that a blur's scans
  /// stand in for at 8 bits (their error is proved below half a level of 8
  /// bits, not of 16).
  public func pipelineGraph(for format: PixelFormat) -> PipelineGraph {
    format == .rgba8 ? pipelineGraph : precise ?? pipelineGraph
  }

  /// A pipeline of one graph that keeps its input's size.
  public init(graph: EffectGraph) {
    self.graph = graph
    steps = []
    precise = nil
  }

  /// The graphs without scans in place of loops, when the front end offered both.
  let precise: PipelineGraph?

  /// This pipeline with its blurs' loops at every output depth — the graphs
  /// 16-bit and float outputs and CUDA devices compile — where the front end
  /// offered running sums (scans) for 8-bit outputs; else the pipeline itself.
  public var keepingLoops: Pipeline {
    guard let precise else { return self }
    var p = Pipeline(precise, floatMode: floatMode)
    p.target = target
    return p
  }

  /// The whole graph, cut at its geometry stages.
  public var pipelineGraph: PipelineGraph { PipelineGraph(head: graph, steps: steps) }
  /// Whether the graph is cut (a resize, crop, scan, …: ``steps``).
  public var hasCuts: Bool { !steps.isEmpty }

  /// The kernel the passes produce, with the log of every pass.
  ///
  /// - Throws: ``InternalError`` when a pass produced invalid IR (a bug in fxc).
  public func lower(_ options: LoweringOptions = LoweringOptions()) throws -> (Kernel, LoweringLog) {
    try Lower.run(graph, options: options)
  }

  /// Lowers and compiles for inputs stored as `inputFormats`, writing
  /// `outputFormat` (the kernel premultiplies 8- and 16-bit inputs after
  /// loading and un-premultiplies before storing such an output: DESIGN §1).
  /// With `.jit` the kernel is native code or nothing: an LLVM failure is an
  /// error, never a silent switch to the interpreter (ask for `.interpreter`
  /// to run without LLVM).
  /// - Throws: ``RunError`` when `inputFormats` does not name one format per
  ///   input, `target` is one this machine cannot run (``Target/named(_:)``
  ///   gives only runnable ones), or LLVM cannot compile the kernel (the
  ///   message names LLVM's error).
  /// - Parameter cache: where compiled kernels are looked up and stored
  ///   (``KernelCache/standard``: memory and `~/.cache/fxc`); nil compiles afresh.
  /// - Parameter target: the CPU to compile for — the host, or an x86-64 level
  ///   it can run (tests run every level the host supports) — or the CUDA
  ///   device's target; ``target`` when nil.
  /// - Parameter schedule: the plan's schedule, the target kind's when nil;
  ///   ``KernelSchedule/grid`` on a CPU runs the per-pixel code a GPU runs,
  ///   looped over the pixels (how the tests and `fxc fuzz --schedule grid`
  ///   check it without a GPU). Not cached.
  public func compile(
    inputFormats: [PixelFormat]? = nil, outputFormat: PixelFormat = .rgba8, backend: Backend = .jit,
    options: LoweringOptions = LoweringOptions(), cache: KernelCache? = .standard, target: Target? = nil,
    schedule: KernelSchedule? = nil
  ) throws -> CompiledPipeline {
    let target = target ?? self.target
    // A CUDA device keeps a blur's loops at every depth: running sums are
    // scans, which run on the CPU between two copies (docs/design.md §7).
    if let precise, outputFormat != .rgba8 || target.kind != .cpu {
      return try Pipeline(precise, floatMode: floatMode).compile(
        inputFormats: inputFormats, outputFormat: outputFormat, backend: backend, options: options, cache: cache, target: target,
        schedule: schedule)
    }
    if target.kind == .cpu, let reason = target.cannotRun(on: .host) {
      throw RunError("this machine (\(Target.host.summary)) cannot run code for target '\(target.name)': it \(reason)")
    }
    let start = DispatchTime.now().uptimeNanoseconds
    let inputCount = max(graph.inputs.count, 1)
    let formats = inputFormats ?? Array(repeating: .rgba8, count: inputCount)
    guard formats.count == inputCount else {
      throw RunError("the pipeline reads \(inputCount) image(s); \(formats.count) input format(s) given")
    }
    if hasCuts {
      return try compileSteps(
        inputFormats: formats, outputFormat: outputFormat, backend: backend, options: options, cache: cache, target: target,
        schedule: schedule)
    }
    let layout = KernelLayout(inputs: formats, output: outputFormat, floatMode: floatMode)
    let (kernel, _) = try lower(layout.matching(options))
    var result = CompiledPipeline(graph: graph, kernel: kernel, layout: layout, target: target, compiled: nil, source: nil)
    if backend == .jit, case .cuda = target.kind {
      result = CompiledPipeline(
        graph: graph, kernel: kernel, layout: layout, target: target, compiled: try compileForCUDA(kernel, layout: layout, target: target),
        source: .compiled)
    } else if backend == .jit {
      do {
        if let cache, schedule == nil {
          let (compiled, source) = try CompiledKernel.cached(kernel, layout: layout, target: target, cache: cache)
          result = CompiledPipeline(graph: graph, kernel: kernel, layout: layout, target: target, compiled: compiled, source: source)
        } else {
          let compiled = try CompiledKernel(kernel, layout: layout, target: target, schedule: schedule)
          result = CompiledPipeline(graph: graph, kernel: kernel, layout: layout, target: target, compiled: compiled, source: .compiled)
        }
      } catch {
        throw RunError(
          "LLVM could not compile the kernel for \(target.name): \(error) (the interpreter runs it: backend .interpreter, --backend interp)"
        )
      }
    }
    result.compileMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    return result
  }

  /// `kernel` compiled for the CUDA device whose target is `target` (the
  /// first device: ``CUDADevice/open()``).
  func compileForCUDA(_ kernel: Kernel, layout: KernelLayout, target: Target) throws -> CUDAKernel {
    do {
      let device = try CUDADevice.open()
      guard device.target == target else {
        throw RunError("target \(target.name) is not this machine's CUDA device (\(device.summary))")
      }
      return try CUDAKernel(kernel, layout: layout, device: device)
    } catch let e as LLVMError {
      throw RunError("the CUDA device cannot run the kernel: \(e.message)")
    }
  }

  /// The default thread count of `apply`: every core of this machine, as the CLI uses.
  public static var allCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  /// ``apply(to:uniforms:threads:)`` on a ``Picture``'s pixels: the result
  /// keeps the picture's description (profile, layout, depth), so that
  /// `try pipeline.apply(to: photo).write(to: "out.png")` writes what a
  /// user expects.
  /// - Throws: as ``apply(to:uniforms:threads:)``.
  public func apply(to picture: Picture, uniforms: [Param: Float] = [:], threads: Int = Pipeline.allCores) throws -> Picture {
    Picture(image: try apply(to: picture.image, uniforms: uniforms, threads: threads), info: picture.info)
  }

  /// Compiles for `image`'s format (and, when it is opaque, for an opaque
  /// input: ``LoweringOptions/opaqueInputs``) and applies the pipeline to it:
  /// a new image of the same size and format. The compiled pipeline is kept
  /// (one per format and opacity), so applying it to many images lowers and
  /// compiles once — a large blur's lowering alone takes ~100 ms.
  public func apply(to image: ImageBuffer, uniforms: [Param: Float] = [:], threads: Int = Pipeline.allCores) throws -> ImageBuffer {
    let opaque = image.isOpaque
    let compiled = try applied.compiled(for: AppliedKernels.Key(format: image.format, opaque: opaque, floatMode: floatMode, target: target)) {
      var options = LoweringOptions()
      if opaque { options.opaqueInputs = [0] }
      return try compile(inputFormats: [image.format], outputFormat: image.format, options: options)
    }
    return try compiled.run([image], uniforms: uniforms, threads: threads)
  }

  /// The host CPU as the code generator sees it, e.g. "znver3: AVX2, FMA, 8 × fp32 lanes".
  public static var hostSummary: String { Target.host.summary }
  /// fp32 lanes per vector on this host.
  public static var hostVectorWidth: Int { Target.host.lanes }
}

/// The pipelines ``Pipeline/apply(to:uniforms:threads:)`` compiled, by key.
final class AppliedKernels: Sendable {
  struct Key: Hashable {
    var format: PixelFormat
    var opaque: Bool
    var floatMode: FloatMode
    var target: Target
  }
  private let kernels = Mutex<[Key: CompiledPipeline]>([:])

  /// The pipeline compiled for `key`, made by `compile` the first time
  /// (outside the lock: two threads may both compile; the first stored wins).
  func compiled(for key: Key, _ compile: () throws -> CompiledPipeline) throws -> CompiledPipeline {
    if let known = kernels.withLock({ $0[key] }) { return known }
    let made = try compile()
    return kernels.withLock { table in
      if let known = table[key] { return known }
      table[key] = made
      return made
    }
  }

  /// How many pipelines were compiled (for tests).
  var count: Int { kernels.withLock { $0.count } }
}

/// A pipeline compiled for one buffer layout; runs on images of any size.
public final class CompiledPipeline: @unchecked Sendable {
  public let graph: EffectGraph
  public let kernel: Kernel
  public let layout: KernelLayout
  /// The CPU or CUDA device the kernel is planned and compiled for.
  public let target: Target
  /// What runs the kernel: native code for this CPU, or a module on a CUDA
  /// device; nil for the interpreter.
  public let executor: (any KernelExecutor)?
  /// The CPU's native kernel (what streams rows), nil for the interpreter or a CUDA device.
  public var compiledKernel: CompiledKernel? { executor as? CompiledKernel }
  var compiled: CompiledKernel? { compiledKernel }
  /// Where the machine code came from (nil for the interpreter).
  public let kernelSource: KernelSource?
  /// For a pipeline that changes size, each geometry stage and the pipeline
  /// compiled for the graph after it; this pipeline's own kernel then writes
  /// rgba32f for the first (docs/design.md §4).
  public internal(set) var steps: [(cut: Cut, next: CompiledPipeline)] = []
  /// Wall time of ``Pipeline/compile(inputFormats:outputFormat:backend:options:cache:)``
  /// in milliseconds: lowering plus LLVM, or plus a cache load.
  public internal(set) var compileMilliseconds: Double = 0

  init(graph: EffectGraph, kernel: Kernel, layout: KernelLayout, target: Target, compiled: (any KernelExecutor)?, source: KernelSource?) {
    self.graph = graph
    self.kernel = kernel
    self.layout = layout
    self.target = target
    self.executor = compiled
    self.kernelSource = source
  }

  /// Pixels the kernel's code computes at a time (``CompiledKernel/lanes``).
  var lanes: Int { compiledKernel?.lanes ?? target.lanes }

  /// The backend actually in use.
  public var backend: Backend { executor == nil ? .interpreter : .jit }
  /// Time LLVM spent (emit + optimise + machine code, or linking a cached object), in
  /// milliseconds, when this pipeline's kernel was made; 0 for a memory-cache hit.
  public var llvmMilliseconds: Double { kernelSource == .memoryCache ? 0 : executor?.compileMilliseconds ?? 0 }
  /// LLVM's compile time by phase ("emit", "optimise"), when this pipeline compiled.
  public var llvmPhases: [String: Double] { kernelSource == .compiled ? executor?.phaseMilliseconds ?? [:] : [:] }

  /// Applies the pipeline to `inputs` (input 0 sets the output size).
  /// - Parameters:
  ///   - uniforms: values for uniform parameters; others keep their `value`.
  ///   - threads: rows are split across this many threads (JIT only).
  /// - Throws: ``RunError`` when the inputs do not match the compiled layout,
  ///   or a uniform value is not finite.
  public func run(_ inputs: [ImageBuffer], uniforms: [Param: Float] = [:], threads: Int = 1) throws -> ImageBuffer {
    guard inputs.count == layout.inputs.count, let first = inputs.first else {
      throw RunError("the pipeline reads \(layout.inputs.count) image(s), \(inputs.count) given")
    }
    for (p, v) in uniforms where !v.isFinite {
      throw RunError("uniform '\(p.name)' must be finite, got \(v)")
    }
    if !steps.isEmpty {
      let size = try outputSize(width: inputs[0].width, height: inputs[0].height)
      let output = try ImageBuffer(width: size.width, height: size.height, format: outputFormat, zeroFilled: false)
      try runSteps(inputs, into: output, uniforms: uniforms, threads: threads)
      return output
    }
    if executor == nil {
      let values = graph.uniforms.map { uniforms[$0] ?? $0.value }
      return try Interpreter.run(kernel, inputs: inputs, uniforms: values, params: graph.uniforms, format: layout.output)
    }
    let output = try ImageBuffer(width: first.width, height: first.height, format: layout.output, zeroFilled: false)
    try run(inputs, into: output, uniforms: uniforms, threads: threads)
    return output
  }

  /// Like ``run(_:uniforms:threads:)``, writing into `output` (input 0's size,
  /// the compiled output format), so a loop over frames or a benchmark reuses one buffer.
  public func run(_ inputs: [ImageBuffer], into output: ImageBuffer, uniforms: [Param: Float] = [:], threads: Int = 1) throws {
    for (p, v) in uniforms where !v.isFinite {
      throw RunError("uniform '\(p.name)' must be finite, got \(v)")
    }
    let values = graph.uniforms.map { uniforms[$0] ?? $0.value }
    if !steps.isEmpty {
      let size = try outputSize(width: inputs[0].width, height: inputs[0].height)
      guard size.width == output.width, size.height == output.height, output.format == outputFormat else {
        throw RunError("the output must be \(size.width)×\(size.height) \(outputFormat)")
      }
      return try runSteps(inputs, into: output, uniforms: uniforms, threads: threads)
    }
    guard let executor else {
      let result = try Interpreter.run(kernel, inputs: inputs, uniforms: values, params: graph.uniforms, format: layout.output)
      guard result.width == output.width, result.height == output.height else {
        throw RunError("the output must be \(result.width)×\(result.height)")
      }
      output.copyPixels(from: result)
      return
    }
    do {
      try executor.run(inputs: inputs, output: output, uniforms: values, threads: threads)
    } catch let e as LLVMError {
      throw RunError(e.message)
    }
  }

  /// How the compiled kernel holds intermediates at run time (line buffers and
  /// tiles, or whole images), for `fxc dump`.
  public var runtimeSchedule: String { executor?.runtimeSchedule ?? "interpreter: whole-image rasters" }

  /// The loop plan of the kernel on ``target`` (what the JIT's code does;
  /// the interpreter does not use it), for `fxc dump` and tests.
  public var plan: KernelPlan { executor?.plan ?? layout.plan(kernel, target: target) }

  /// The LLVM IR of the optimised module and the target's assembly (PTX on
  /// a CUDA device), for `fxc dump`.
  public func dumpNative() throws -> (ir: String, assembly: String) {
    if case .cuda = target.kind {
      let (ir, ptx) = try PTXCode.dump(kernel, plan: plan, layout: layout)
      return (ir, ptx)
    }
    return try NativeCode.dump(kernel, plan: plan, layout: layout)
  }
}
