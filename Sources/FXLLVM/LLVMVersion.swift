internal import CLLVM

/// The version of the LLVM library fxc is linked with, like `19.1.7`.
public var llvmVersion: String {
  var major: UInt32 = 0, minor: UInt32 = 0, patch: UInt32 = 0
  LLVMGetVersion(&major, &minor, &patch)
  return "\(major).\(minor).\(patch)"
}
