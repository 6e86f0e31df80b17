import CLLVM

/// An owned `LLVMTargetMachineRef` for one ``HostTarget``: the cost model for
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

  init(_ target: HostTarget) throws {
    try LLVMSetup.requireNativeTarget()
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
    let layout = LLVMCreateTargetDataLayout(machine)
    defer { LLVMDisposeTargetData(layout) }
    self.ref = machine
    self.dataLayout = takeLLVMMessage(LLVMCopyStringRepOfTargetData(layout)) ?? ""
  }

  deinit { LLVMDisposeTargetMachine(ref) }
}
