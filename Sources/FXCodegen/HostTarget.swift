import CLLVM

/// The CPU that fxc compiles kernels for: the machine it is running on,
/// detected at run time.
///
/// Never assume a vector ISA: the same binary runs on AVX2-only x86 machines,
/// on AVX-512 ones and on aarch64. Ask ``vectorWidth`` and ``has(_:)`` instead.
public struct HostTarget: Sendable, Hashable, CustomStringConvertible {
  /// The LLVM target triple, e.g. `x86_64-pc-linux-gnu`.
  public var triple: String
  /// LLVM's name for the CPU, e.g. `znver3`, `skylake-avx512`, `neoverse-n1`.
  public var cpuName: String
  /// LLVM's comma-separated feature string, each entry `+name` (present) or
  /// `-name` (absent), e.g. `+avx2,+fma,-avx512f,…`.
  public var features: String

  /// Describes a target explicitly, e.g. to key a kernel cache or to rebuild a
  /// target recorded elsewhere. Most code wants ``host``.
  public init(triple: String, cpuName: String, features: String) {
    self.triple = triple
    self.cpuName = cpuName
    self.features = features
  }

  /// The machine this process runs on, detected once. Detecting it also
  /// initialises LLVM's native target, asm printer and asm parser (Swift runs
  /// the initialiser of a static `let` exactly once, thread-safely).
  public static let host: HostTarget = {
    _ = LLVMSetup.nativeTarget
    return HostTarget(
      triple: takeLLVMMessage(LLVMGetDefaultTargetTriple()) ?? "",
      cpuName: takeLLVMMessage(LLVMGetHostCPUName()) ?? "generic",
      features: takeLLVMMessage(LLVMGetHostCPUFeatures()) ?? "")
  }()

  /// Whether the feature string enables `feature` (given without the sign):
  /// `has("avx2")` looks for the entry `+avx2`, never a prefix of another one.
  public func has(_ feature: String) -> Bool {
    features.split(separator: ",").contains { $0.dropFirst() == feature && $0.first == "+" }
  }

  /// fp32 lanes in the widest vector worth using: 16 with AVX-512F, 8 with
  /// AVX or AVX2, 4 otherwise (SSE, NEON).
  public var vectorWidth: Int {
    if has("avx512f") { return 16 }
    if has("avx") || has("avx2") { return 8 }
    return 4
  }

  /// A short human list for `fxc bench`, e.g. `znver3: AVX2, FMA, 8 × fp32 lanes`.
  public var summary: String {
    let isa: [String] = [
      has("avx512f") ? "AVX-512" : has("avx2") ? "AVX2" : has("avx") ? "AVX" : nil,
      has("fma") ? "FMA" : nil,
      has("sve") ? "SVE" : nil,
      has("neon") ? "NEON" : nil,
    ].compactMap { $0 }
    return "\(cpuName): \((isa + ["\(vectorWidth) × fp32 lanes"]).joined(separator: ", "))"
  }

  /// The summary plus the triple, e.g. `znver3: AVX2, FMA, 8 × fp32 lanes (x86_64-pc-linux-gnu)`.
  public var description: String { "\(summary) (\(triple))" }
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

  /// Initialises the native target on first use; throws if LLVM cannot generate code here.
  static func requireNativeTarget() throws {
    if let error = nativeTarget { throw error }
  }
}
