internal import CLLVM

/// The LLVM types a kernel emitter needs, in one context.
///
/// Obtain one from ``KernelModule/types``. Types are interned by their context,
/// so asking twice gives the same type.
package struct LLVMTypes {
  /// The context the types belong to.
  let context: LLVMContextRef

  /// The types of `context`.
  init(_ context: LLVMContextRef) { self.context = context }

  /// `void`.
  package var void: IRType { IRType(LLVMVoidTypeInContext(context)!) }
  /// `float` (IEEE binary32).
  package var float: IRType { IRType(LLVMFloatTypeInContext(context)!) }
  /// `double` (IEEE binary64).
  package var double: IRType { IRType(LLVMDoubleTypeInContext(context)!) }
  /// `i1`, the type of comparisons and masks.
  package var i1: IRType { IRType(LLVMInt1TypeInContext(context)!) }
  /// `i8`.
  package var i8: IRType { IRType(LLVMInt8TypeInContext(context)!) }
  /// `i16`.
  package var i16: IRType { IRType(LLVMInt16TypeInContext(context)!) }
  /// `i32`.
  package var i32: IRType { IRType(LLVMInt32TypeInContext(context)!) }
  /// `i64`, also the index type on 64-bit targets.
  package var i64: IRType { IRType(LLVMInt64TypeInContext(context)!) }
  /// `ptr`, the opaque pointer in address space 0.
  package var ptr: IRType { IRType(LLVMPointerTypeInContext(context, 0)!) }

  /// `<lanes x element>`, e.g. `vector(float, 8)` for `<8 x float>`.
  package func vector(_ element: IRType, _ lanes: Int) -> IRType {
    precondition(lanes > 0, "a vector needs at least one lane")
    return IRType(LLVMVectorType(element.ref, UInt32(lanes))!)
  }

  /// A function type, e.g. `function(void, [ptr, i64, float])`.
  package func function(_ result: IRType, _ parameters: [IRType], variadic: Bool = false) -> IRType {
    var parameters: [LLVMTypeRef?] = parameters.map(\.ref)
    return parameters.withUnsafeMutableBufferPointer {
      IRType(LLVMFunctionType(result.ref, $0.baseAddress, UInt32($0.count), variadic ? 1 : 0)!)
    }
  }
}
