internal import CLLVM
import FXPasses

/// An owned `LLVMTargetMachineRef` for one ``Target``: the cost model for
/// the optimiser and the code generator for ``KernelModule/assembly()`` and
/// ``KernelModule/objectCode()``.
///
/// Code is position-independent with the small code model, the settings LLJIT
/// uses for its own JITLink-based linking, so objects emitted here load into a
/// ``JIT`` unchanged.
final class TargetMachine {
  let ref: LLVMTargetMachineRef
  /// The data layout string modules for this machine must carry.
  let dataLayout: String

  init(_ target: Target) throws {
    let machine = try Self.create(target)
    let layout = LLVMCreateTargetDataLayout(machine)
    defer { LLVMDisposeTargetData(layout) }
    self.ref = machine
    self.dataLayout = takeLLVMMessage(LLVMCopyStringRepOfTargetData(layout)) ?? ""
  }

  /// A new target machine for `target` that the caller owns (``JIT`` hands
  /// one to ORC, which disposes of it).
  static func create(_ target: Target) throws -> LLVMTargetMachineRef {
    try LLVMSetup.require(target)
    var llvmTarget: LLVMTargetRef?
    var message: UnsafeMutablePointer<CChar>?
    let failed = LLVMGetTargetFromTriple(target.triple, &llvmTarget, &message) != 0
    let text = takeLLVMMessage(message)
    guard !failed, let llvmTarget else {
      throw LLVMError("no LLVM target for triple '\(target.triple)': \(text ?? "unknown reason")")
    }
    guard
      let machine = LLVMCreateTargetMachine(
        llvmTarget, target.triple, target.cpuName, target.features,
        LLVMCodeGenLevelAggressive, LLVMRelocPIC, LLVMCodeModelSmall)
    else {
      throw LLVMError("cannot create a target machine for \(target)")
    }
    return machine
  }

  deinit { LLVMDisposeTargetMachine(ref) }
}
