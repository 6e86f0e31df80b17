internal import CLLVM
import FXPasses

extension Target {
  /// The machine this process runs on, detected once. Detecting it also
  /// initialises LLVM's native target, asm printer and asm parser (Swift runs
  /// the initialiser of a static `let` exactly once, thread-safely).
  public static let host: Target = {
    _ = LLVMSetup.nativeTarget
    return Target(
      name: "host",
      triple: takeLLVMMessage(LLVMGetDefaultTargetTriple()) ?? "",
      cpuName: takeLLVMMessage(LLVMGetHostCPUName()) ?? "generic",
      features: takeLLVMMessage(LLVMGetHostCPUFeatures()) ?? "")
  }()

  /// The target called `name` (`host`, `x86-64-v2`, `x86-64-v3`,
  /// `x86-64-v4`) on this machine.
  ///
  /// - Throws: ``TargetError`` for an unknown name or a level this machine
  ///   cannot execute.
  public static func named(_ name: String) throws(TargetError) -> Target { try named(name, on: host) }

  /// The x86-64 levels this machine can run, lowest first: the JIT tests run each.
  public static var runnableLevels: [Target] { runnableLevels(on: host) }
}

/// One-time process-wide LLVM initialisation.
enum LLVMSetup {
  /// `nil` once the native target, asm printer and asm parser are registered;
  /// otherwise the reason they are not. Evaluated once, thread-safely.
  static let nativeTarget: LLVMError? = {
    if LLVMInitializeNativeTarget() != 0 {
      return LLVMError("LLVM has no native target for this CPU")
    }
    if LLVMInitializeNativeAsmPrinter() != 0 {
      return LLVMError("LLVM has no asm printer for this CPU")
    }
    if LLVMInitializeNativeAsmParser() != 0 {
      return LLVMError("LLVM has no asm parser for this CPU")
    }
    return nil
  }()

  /// Registers LLVM's NVPTX back end (PTX for CUDA devices), once.
  static let nvptx: Void = {
    LLVMInitializeNVPTXTargetInfo()
    LLVMInitializeNVPTXTarget()
    LLVMInitializeNVPTXTargetMC()
    LLVMInitializeNVPTXAsmPrinter()
  }()

  /// Initialises the native target on first use; throws if LLVM cannot generate code here.
  static func requireNativeTarget() throws {
    if let error = nativeTarget { throw error }
  }

  /// Initialises the back end `target` needs: the native one, or NVPTX for a CUDA device.
  static func require(_ target: Target) throws {
    if case .cuda = target.kind { _ = nvptx } else { try requireNativeTarget() }
  }
}
