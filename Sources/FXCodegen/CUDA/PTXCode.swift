import Dispatch
import FXIR
import FXLLVM
import FXPasses

/// The PTX of one kernel for a CUDA device: every loop nest as a kernel
/// entry point `fxc_nest<k>` (``LoopNestEmitter/emitThreadFunction(named:)``)
/// in one module, from LLVM's NVPTX back end. What the CUDA executor loads
/// through the driver, which compiles it for the device it runs on; no CUDA
/// toolkit is involved.
public struct PTXCode: Sendable {
  /// The PTX assembly text (a `.version`, a `.target` and the `.entry` functions).
  public let text: String
  /// The entry points in kernel order: `fxc_nest0`, `fxc_nest1`, …
  public let entryPoints: [String]
  /// Milliseconds spent emitting, optimising and generating PTX.
  public let milliseconds: Double

  /// Emits, optimises (the CPU's pipeline, ``NativeCode/optimisationPipeline``)
  /// and generates the PTX of `kernel` following `plan`.
  /// - Throws: ``LLVMError`` when the plan is not a CUDA target's grid plan,
  ///   or LLVM rejects the module (a compiler bug).
  public init(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout) throws {
    let start = DispatchTime.now().uptimeNanoseconds
    let module = try Self.module(kernel, plan: plan, layout: layout)
    text = try module.assembly()
    entryPoints = kernel.loopNests.indices.map { "fxc_nest\($0)" }
    milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
  }

  /// The optimised LLVM IR and the PTX of `kernel` following `plan`, for `fxc dump`.
  public static func dump(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout) throws -> (ir: String, ptx: String) {
    let module = try module(kernel, plan: plan, layout: layout)
    return (module.textualIR, try module.assembly())
  }

  private static func module(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout) throws -> KernelModule {
    guard case .cuda = plan.target.kind, plan.schedule == .grid else {
      throw LLVMError("PTX needs a CUDA target's grid plan, not \(plan.target.name) with \(plan.schedule) schedule")
    }
    let module = try KernelEmitter.emit(kernel, plan: plan, layout: layout)
    try module.optimize(NativeCode.optimisationPipeline)
    return module
  }
}
