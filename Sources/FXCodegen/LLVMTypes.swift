import CLLVM

/// The LLVM types a kernel emitter needs, in one context.
///
/// Obtain one from ``KernelModule/types``. Types are interned by their context,
/// so asking twice gives the same `LLVMTypeRef`.
public struct LLVMTypes {
  /// The context the types belong to.
  public let context: LLVMContextRef

  /// The types of `context`.
  public init(_ context: LLVMContextRef) { self.context = context }

  /// `void`.
  public var void: LLVMTypeRef { LLVMVoidTypeInContext(context) }
  /// `float` (IEEE binary32).
  public var float: LLVMTypeRef { LLVMFloatTypeInContext(context) }
  /// `double` (IEEE binary64).
  public var double: LLVMTypeRef { LLVMDoubleTypeInContext(context) }
  /// `i1`, the type of comparisons and masks.
  public var i1: LLVMTypeRef { LLVMInt1TypeInContext(context) }
  /// `i8`.
  public var i8: LLVMTypeRef { LLVMInt8TypeInContext(context) }
  /// `i16`.
  public var i16: LLVMTypeRef { LLVMInt16TypeInContext(context) }
  /// `i32`.
  public var i32: LLVMTypeRef { LLVMInt32TypeInContext(context) }
  /// `i64`, also the index type on 64-bit targets.
  public var i64: LLVMTypeRef { LLVMInt64TypeInContext(context) }
  /// `ptr`, the opaque pointer in address space 0.
  public var ptr: LLVMTypeRef { LLVMPointerTypeInContext(context, 0) }

  /// `<lanes x element>`, e.g. `vector(float, 8)` for `<8 x float>`.
  public func vector(_ element: LLVMTypeRef, _ lanes: Int) -> LLVMTypeRef {
    precondition(lanes > 0, "a vector needs at least one lane")
    return LLVMVectorType(element, UInt32(lanes))
  }

  /// A function type, e.g. `function(void, [ptr, i64, float])`.
  public func function(
    _ result: LLVMTypeRef, _ parameters: [LLVMTypeRef], variadic: Bool = false
  ) -> LLVMTypeRef {
    var parameters: [LLVMTypeRef?] = parameters
    return parameters.withUnsafeMutableBufferPointer {
      LLVMFunctionType(result, $0.baseAddress, UInt32($0.count), variadic ? 1 : 0)
    }
  }
}
