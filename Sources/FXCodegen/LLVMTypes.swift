internal import CLLVM

/// The LLVM types a kernel emitter needs, in one context.
///
/// Obtain one from ``KernelModule/types``. Types are interned by their context,
/// so asking twice gives the same `LLVMTypeRef`.
struct LLVMTypes {
  /// The context the types belong to.
  let context: LLVMContextRef

  /// The types of `context`.
  init(_ context: LLVMContextRef) { self.context = context }

  /// `void`.
  var void: LLVMTypeRef { LLVMVoidTypeInContext(context) }
  /// `float` (IEEE binary32).
  var float: LLVMTypeRef { LLVMFloatTypeInContext(context) }
  /// `double` (IEEE binary64).
  var double: LLVMTypeRef { LLVMDoubleTypeInContext(context) }
  /// `i1`, the type of comparisons and masks.
  var i1: LLVMTypeRef { LLVMInt1TypeInContext(context) }
  /// `i8`.
  var i8: LLVMTypeRef { LLVMInt8TypeInContext(context) }
  /// `i16`.
  var i16: LLVMTypeRef { LLVMInt16TypeInContext(context) }
  /// `i32`.
  var i32: LLVMTypeRef { LLVMInt32TypeInContext(context) }
  /// `i64`, also the index type on 64-bit targets.
  var i64: LLVMTypeRef { LLVMInt64TypeInContext(context) }
  /// `ptr`, the opaque pointer in address space 0.
  var ptr: LLVMTypeRef { LLVMPointerTypeInContext(context, 0) }

  /// `<lanes x element>`, e.g. `vector(float, 8)` for `<8 x float>`.
  func vector(_ element: LLVMTypeRef, _ lanes: Int) -> LLVMTypeRef {
    precondition(lanes > 0, "a vector needs at least one lane")
    return LLVMVectorType(element, UInt32(lanes))
  }

  /// A function type, e.g. `function(void, [ptr, i64, float])`.
  func function(
    _ result: LLVMTypeRef, _ parameters: [LLVMTypeRef], variadic: Bool = false
  ) -> LLVMTypeRef {
    var parameters: [LLVMTypeRef?] = parameters
    return parameters.withUnsafeMutableBufferPointer {
      LLVMFunctionType(result, $0.baseAddress, UInt32($0.count), variadic ? 1 : 0)
    }
  }
}
