import Dispatch
import FXIR
import FXLLVM
import FXPasses

/// Machine code for the passes of one kernel on one ``Target``, linked into
/// a ``JIT`` of its own: one C function per pass (``PassFunction``). What a
/// back end hands the runtime (FXRuntime's `CompiledKernel`), which knows
/// nothing of LLVM.
public final class NativeCode: @unchecked Sendable {
  /// `void fxc_pass<k>(BufferDescriptor *buffers, float *uniforms, i32 width,
  /// i32 height, i32 y0, i32 y1, i32 x0, i32 x1)`: computes columns `x0..<x1`
  /// of rows `y0..<y1` (``KernelEmitter``).
  public typealias PassFunction =
    @convention(c) (
      UnsafeRawPointer, UnsafePointer<Float>, Int32, Int32, Int32, Int32, Int32, Int32
    ) -> Void

  /// LLVM's new-pass-manager pipeline for kernels: O1. The emitter writes
  /// vector code itself, so O3's loop and SLP vectorisers and heavier
  /// passes found nothing to gain (measurements: Benchmarks/README.md).
  public static let optimisationPipeline = "default<O1>"

  /// The pass functions, in kernel order.
  public let passes: [PassFunction]
  /// The relocatable object the code was linked from, when asked to keep it
  /// (for a disk cache) or when it came from one.
  public let object: [UInt8]?
  /// Milliseconds by phase: "emit", "optimise", "codegen" (when an object
  /// was kept), "lookup" (code generation and linking of the rest).
  public let phaseMilliseconds: [String: Double]
  /// Keeps the code alive: releasing the JIT frees it.
  private let jit: JIT

  /// Emits `kernel` following `plan`, optimises it (``optimisationPipeline``)
  /// and generates code for the plan's target; with `keepObject`, through an
  /// ELF object that is kept (one code generation either way).
  ///
  /// - Throws: ``LLVMError`` if LLVM rejects the module (a compiler bug) or
  ///   this machine cannot run the target's code.
  public init(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout, keepObject: Bool = false) throws {
    try Self.checkRunnable(plan.target)
    let start = DispatchTime.now().uptimeNanoseconds
    var phases: [String: Double] = [:]
    let jit = try JIT(target: plan.target)
    let module = try KernelEmitter.emit(kernel, plan: plan, layout: layout)
    let emitted = DispatchTime.now().uptimeNanoseconds
    try module.optimize(Self.optimisationPipeline)
    phases["emit"] = Double(emitted - start) / 1e6
    let optimised = DispatchTime.now().uptimeNanoseconds
    phases["optimise"] = Double(optimised - emitted) / 1e6
    if keepObject {
      let bytes = try module.objectCode()
      phases["codegen"] = Double(DispatchTime.now().uptimeNanoseconds - optimised) / 1e6
      try jit.addObject(bytes)
      object = bytes
    } else {
      try jit.add(module)
      object = nil
    }
    let linking = DispatchTime.now().uptimeNanoseconds
    passes = try Self.lookup(kernel.passes.count, in: jit)
    phases["lookup"] = Double(DispatchTime.now().uptimeNanoseconds - linking) / 1e6
    phaseMilliseconds = phases
    self.jit = jit
  }

  /// Links machine code made earlier (a disk-cache hit): no LLVM
  /// optimisation or code generation.
  ///
  /// - Throws: ``LLVMError`` if the bytes are not an object for `target`
  ///   defining `passCount` pass functions.
  public init(object: [UInt8], passCount: Int, target: Target) throws {
    try Self.checkRunnable(target)
    let start = DispatchTime.now().uptimeNanoseconds
    let jit = try JIT(target: target)
    try jit.addObject(object)
    passes = try Self.lookup(passCount, in: jit)
    phaseMilliseconds = ["lookup": Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6]
    self.object = object
    self.jit = jit
  }

  /// The optimised LLVM IR and the assembly of `kernel` following `plan`, for `fxc dump`.
  public static func dump(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout) throws -> (ir: String, assembly: String) {
    let module = try KernelEmitter.emit(kernel, plan: plan, layout: layout)
    try module.optimize(optimisationPipeline)
    return (module.textualIR, try module.assembly())
  }

  private static func checkRunnable(_ target: Target) throws {
    if let reason = target.cannotRun(on: .host) {
      throw LLVMError("this machine (\(Target.host.summary)) cannot run code for \(target.name): it \(reason)")
    }
  }

  private static func lookup(_ count: Int, in jit: JIT) throws -> [PassFunction] {
    try (0..<count).map { unsafeBitCast(try jit.lookup("fxc_pass\($0)"), to: PassFunction.self) }
  }
}
