import FX
import Foundation

/// `fxc dump`: what the compiler made of a chain.
struct DumpCommand: Command {
  static let spec = CommandSpec(
    name: "dump", abstract: "print the graph, every pass, the kernel, LLVM IR and assembly of a chain",
    usage: ["--chain CHAIN [--passes] [--ir] [--asm] [--no-split] [--opaque] [--target NAME]", "--chain CHAIN --dot"],
    discussion: """
      Without --passes, --ir or --asm, prints everything: the graph before and after each pass (with \
      its time; "(unchanged)" when it changed nothing), the compile time, the loop plan (the order, \
      interior split, block-uniform bodies and load strategy of each pass, and why), the run-time \
      schedule, the optimised LLVM IR and the assembly. The kernel is compiled for RGBA8 buffers, for \
      this machine or the --target given. With --dot, only the compiled pipeline as a Graphviz graph:

        fxc dump -c 'gaussianBlur(2) | resize(width: 300) | sepia' --dot | dot -Tsvg > plan.svg
      """,
    options: [
      .option("-c", "--chain", value: "CHAIN", help: "the chain to compile, like 'gaussianBlur(sigma: 2) | sepia'"),
      .chainFile,
      .shaders,
      .half,
      .flag("--passes", help: "the graph before and after each pass"),
      .flag("--ir", help: "the kernel and its optimised LLVM IR"),
      .flag("--asm", help: "the kernel and its host assembly"),
      .flag("--dot", help: "only the compiled pipeline for Graphviz: segments, passes, buffers, cuts"),
      .flag("--no-split", help: "do not split separable convolutions into two 1-D loop nests"),
      .flag("--opaque", help: "compile as for an opaque input (e.g. a JPEG): its alpha reads as the constant 1"),
      .option(
        "--target", value: "NAME",
        help:
          "compile for NAME: host (default), x86-64-v2 (SSE4, 4 lanes), x86-64-v3 (AVX2, 8), x86-64-v4 (AVX-512, 16), which must run here; "
          + "or a CUDA compute capability such as sm_90 (the plan and PTX, no GPU needed)"),
      .device,
      .floatMode,
    ])

  var chain: String
  var registry: EffectRegistry
  var passes: Bool
  var ir: Bool
  var asm: Bool
  /// `--dot`: the Graphviz graph alone (``DotGraph``).
  var dot: Bool
  var options: LoweringOptions
  var target: Target
  /// `--float`: the float semantics of the code shown.
  var floatMode: FloatMode

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    let chain = try parseChain(&args, command: "dump")
    self.chain = chain
    let shaders = try args.options("--shaders")
    registry = try shaderRegistry(shaders, chains: [chain], half: try parseHalf(&args, shaders: shaders))
    passes = args.flag("--passes")
    options = LoweringOptions()
    options.splitSeparable = !args.flag("--no-split")
    if args.flag("--opaque") { options.opaqueInputs = [0] }
    ir = args.flag("--ir")
    asm = args.flag("--asm")
    dot = args.flag("--dot")
    if dot, passes || ir || asm { throw UsageError("--dot prints the graph alone: it does not go with --passes, --ir or --asm") }
    target = try parseDevice(&args, cpu: try parseTarget(args.option("--target")))
    floatMode = try parseFloatMode(&args)
    let rest = try args.remaining()
    if !rest.isEmpty { throw UsageError("fxc dump takes no files (got \(rest.joined(separator: " ")))") }
  }

  /// A cut pipeline: its segments (the kernel above is the first), each cut
  /// stage (geometry, scan or reduction) with how it runs, the sizes for a
  /// sample input, and each later segment's kernel (with `--passes`, the graph
  /// before and after each pass of its lowering, as for segment 0) and plan.
  func printSegments(_ compiled: CompiledPipeline) throws {
    print("\n## cuts (docs/design.md §4): \(compiled.steps.count + 1) segments; the kernel above is segment 0")
    var size = (width: 4000, height: 3000)
    var sizes = "\(size.width)×\(size.height)"
    for (i, step) in compiled.steps.enumerated() {
      let how: String
      switch step.cut {
      case .geometry(.crop), .geometry(.orient(.identity)), .geometry(.orient(.flop)): how = "streamed: row by row"
      case .geometry(.resize): how = "streamed: a ring of the vertical window's rows, each resampled along x as it arrives"
      case .geometry(.extend(let e)):
        how = e.background.description.hasPrefix("color") ? "streamed: row by row" : "on the whole image"
      case .geometry(.orient), .geometry(.affine): how = "on the whole image (reads rows out of order)"
      case .scan(let s):
        how =
          s.axis == .x
          ? "streamed: each band along its rows as it passes, 4 rows a vector"
          : "on the whole image, in place; \(ScanPlan(s, width: size.width, height: size.height, threads: 2))"
      case .reduction:
        how =
          ReductionExecutor.readsTwice(width: size.width, height: size.height)
          ? "streamed in two readings of the input: the rows counted on the first, mapped on the second"
          : "on the whole image, in place: one pass for the histograms, one for the maps (read twice instead past "
            + "\(ReductionExecutor.twoPassBytes >> 20) MiB of rows)"
      }
      print("\n### cut \(i + 1): \(step.cut) — \(how)")
      if let next = try? step.cut.outputSize(width: size.width, height: size.height) {
        size = next
        sizes += " → \(size.width)×\(size.height)"
      }
      if passes {
        // Lowered as compiled: rgba32f rows in, the last segment's RGBA8 out.
        let last = i == compiled.steps.count - 1
        let inputs = [PixelFormat.rgba32f] + [PixelFormat](repeating: .rgba8, count: max(step.next.graph.inputs.count - 1, 0))
        let layout = KernelLayout(inputs: inputs, output: last ? .rgba8 : .rgba32f)
        let (_, log) = try Pipeline(graph: step.next.graph).lower(layout.matching(options))
        printPasses(log, heading: "### segment \(i + 1) pass")
      }
      print("\n### segment \(i + 1): its input 0 is cut \(i + 1)'s result\n\(step.next.kernel)")
      print("\n### segment \(i + 1) loop plan\n\(step.next.plan)")
    }
    print("\n## sizes for a 4000×3000 input: \(sizes)")
  }

  /// Each pass of `log` under `heading`: its summary, time and the graph after it.
  func printPasses(_ log: LoweringLog, heading: String) {
    for entry in log.entries {
      let time = entry.milliseconds > 0 ? " (\(fixed(entry.milliseconds, 2)) ms)" : ""
      print("\n\(heading): \(entry.pass) — \(entry.summary)\(time)\n\(entry.changed ? entry.ir : "(unchanged)")")
    }
  }

  func execute() throws {
    var (pipeline, effect) = try pipeline(chain: chain, registry: registry)
    pipeline.floatMode = floatMode
    let showAll = !passes && !ir && !asm
    if dot {
      let formats = [PixelFormat](repeating: .rgba8, count: max(pipeline.graph.inputs.count, 1))
      let compiled = try pipeline.compile(inputFormats: formats, outputFormat: .rgba8, options: options, cache: nil, target: target)
      return print(DotGraph.render(compiled, chain: effect.name), terminator: "")
    }
    print("# chain: \(effect.name)")
    if !options.opaqueInputs.isEmpty {
      print(
        "# opaque inputs (--opaque): " + options.opaqueInputs.sorted().map { "in\($0)" }.joined(separator: ", ") + " — alpha reads as the constant 1")
    }
    // The kernel as compiled for RGBA8 in and out (straight alpha: DESIGN §1), every input RGBA8.
    let formats = [PixelFormat](repeating: .rgba8, count: max(pipeline.graph.inputs.count, 1))
    let (kernel, log) = try pipeline.lower(KernelLayout(inputs: formats, output: .rgba8).matching(options))
    if passes || showAll {
      printPasses(log, heading: "## pass")
    } else {
      print("\n## kernel\n\(kernel)")
    }
    // A CUDA target named by its capability (--target sm_90) is planned and
    // printed without a device: nothing is loaded.
    let backend: Backend = target.kind != .cpu && (try? CUDADevice.open().target) != target ? .interpreter : .jit
    let compiled = try pipeline.compile(
      inputFormats: formats, outputFormat: .rgba8, backend: backend, options: options, cache: nil, target: target)
    let phases = compiled.llvmPhases.sorted { $0.key < $1.key }.map { "\($0.key) \(fixed($0.value))" }.joined(separator: ", ")
    print(
      "\n## compile: \(fixed(compiled.compileMilliseconds)) ms (LLVM \(fixed(compiled.llvmMilliseconds)) ms\(phases.isEmpty ? "" : ": " + phases + " ms; emit, optimise and codegen summed over the \(compiled.kernel.loopNests.count) loop nests, compiled in parallel"))"
    )
    print("\n## loop plan\n\(compiled.plan)")
    print("\n## run-time schedule\n\(backend == .jit ? compiled.runtimeSchedule : compiled.plan.runDescription(tileCacheBytes: 0))")
    if compiled.hasCuts { try printSegments(compiled) }
    if ir || asm || showAll {
      let native = try compiled.dumpNative()
      print("\n## target: \(compiled.target.summary), buffers RGBA8 → RGBA8")
      if ir || showAll { print("\n## LLVM IR (optimised)\n\(native.ir)") }
      if asm || showAll { print("\n## \(target.kind == .cpu ? "assembly" : "PTX")\n\(native.assembly)") }
    }
  }
}
