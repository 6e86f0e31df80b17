internal import CLLVM
import FXPasses

/// A failure reported by LLVM: an invalid module, an unknown pass pipeline,
/// a symbol the JIT cannot find, an object file it cannot load.
///
/// `message` names the operation first and then quotes LLVM's own text, e.g.
/// `verifying module 'k': Basic Block in function 'f' does not have terminator!`.
public struct LLVMError: Error, CustomStringConvertible, Sendable {
  /// What failed, followed by LLVM's explanation.
  public var message: String

  /// Creates an error with the given message.
  public init(_ message: String) { self.message = message }

  public var description: String { message }
}

extension LLVMError {
  /// Throws if `error` is a failure. Either way `error` is consumed, as LLVM's
  /// contract requires: `LLVMGetErrorMessage` takes ownership of the error and
  /// its text is released with `LLVMDisposeErrorMessage`.
  static func check(_ error: LLVMErrorRef?, _ operation: @autoclosure () -> String) throws {
    guard let error else { return }
    throw LLVMError("\(operation()): \(consumeMessage(of: error))")
  }

  /// Consumes `error` and returns its text.
  static func consumeMessage(of error: LLVMErrorRef) -> String {
    guard let text = LLVMGetErrorMessage(error) else { return "unknown LLVM error" }
    defer { LLVMDisposeErrorMessage(text) }
    return String(cString: text)
  }
}

/// Copies a string that LLVM allocated for the caller (host names, printed
/// modules, verifier and codegen messages) and releases it with
/// `LLVMDisposeMessage`. Returns `nil` for a null pointer.
func takeLLVMMessage(_ text: UnsafeMutablePointer<CChar>?) -> String? {
  guard let text else { return nil }
  defer { LLVMDisposeMessage(text) }
  return String(cString: text)
}
