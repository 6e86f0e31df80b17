internal import CLLVM

// LLVM handles as small value types, in the style of Hylo's Swifty-LLVM:
// each wraps one C reference and is only as valid as the module it was
// built in (see ``KernelModule``'s ownership rules). The references stay
// inside FXLLVM, the one module that imports LLVM's C API.

/// An LLVM type (`LLVMTypeRef`) of a ``KernelModule``'s context, e.g. from ``LLVMTypes``.
package struct IRType: Hashable {
  let ref: LLVMTypeRef

  init(_ ref: LLVMTypeRef) { self.ref = ref }

  /// The element type of a vector type, e.g. `float` for `<8 x float>`.
  package var elementType: IRType { IRType(LLVMGetElementType(ref)!) }

  /// The integer constant of this type with the low bits of `bits`; with
  /// `signExtend`, sign-extended where the type is wider than 64 bits.
  package func constant(_ bits: UInt64, signExtend: Bool = false) -> Value {
    Value(LLVMConstInt(ref, bits, signExtend ? 1 : 0)!)
  }

  /// The floating-point constant `value`, rounded to this type.
  package func constant(real value: Double) -> Value { Value(LLVMConstReal(ref, value)!) }

  /// All zeros (`zeroinitializer`, `0`, `0.0`, `null`).
  package var null: Value { Value(LLVMConstNull(ref)!) }

  /// `undef` of this type.
  package var undef: Value { Value(LLVMGetUndef(ref)!) }

  /// `poison` of this type.
  package var poison: Value { Value(LLVMGetPoison(ref)!) }
}

/// An LLVM value (`LLVMValueRef`): a constant, an argument, an instruction.
package struct Value: Hashable {
  let ref: LLVMValueRef

  init(_ ref: LLVMValueRef) { self.ref = ref }

  /// The value's type.
  package var type: IRType { IRType(LLVMTypeOf(ref)!) }

  /// The constant vector `<values…>`; the values must be constants of one type.
  package static func constVector(_ values: [Value]) -> Value {
    var refs: [LLVMValueRef?] = values.map(\.ref)
    return refs.withUnsafeMutableBufferPointer { Value(LLVMConstVector($0.baseAddress, UInt32($0.count))!) }
  }

  /// The value of an integer constant (sign-extended); nil for any other value.
  package var constantInt: Int64? { LLVMIsAConstantInt(ref) != nil ? LLVMConstIntGetSExtValue(ref) : nil }

  /// Sets the alignment in bytes of a load, store or alloca.
  package func setAlignment(_ bytes: UInt32) { LLVMSetAlignment(ref, bytes) }

  /// Makes a load or store volatile (or not).
  package func setVolatile(_ volatile: Bool) { LLVMSetVolatile(ref, volatile ? 1 : 0) }

  /// Adds incoming edges `(value, predecessor)` to a phi.
  package func addIncoming(_ edges: [(Value, BasicBlock)]) {
    var values: [LLVMValueRef?] = edges.map(\.0.ref)
    var blocks: [LLVMBasicBlockRef?] = edges.map(\.1.ref)
    values.withUnsafeMutableBufferPointer { v in
      blocks.withUnsafeMutableBufferPointer { bl in
        LLVMAddIncoming(ref, v.baseAddress, bl.baseAddress, UInt32(edges.count))
      }
    }
  }

  /// Adds `attribute` to a call instruction, on the call as a whole (the
  /// function index), e.g. `nobuiltin`.
  package func addCallSiteAttribute(_ attribute: Attribute) {
    LLVMAddCallSiteAttribute(ref, LLVMAttributeIndex(bitPattern: -1), attribute.ref)
  }
}

/// A basic block (`LLVMBasicBlockRef`).
package struct BasicBlock: Hashable {
  let ref: LLVMBasicBlockRef

  init(_ ref: LLVMBasicBlockRef) { self.ref = ref }

  /// The function the block belongs to.
  package var parent: Function { Function(LLVMGetBasicBlockParent(ref)!) }

  /// The block's first instruction, if it has one.
  package var firstInstruction: Value? { LLVMGetFirstInstruction(ref).map(Value.init) }

  /// Moves the block to just before `other` in their function.
  package func move(before other: BasicBlock) { LLVMMoveBasicBlockBefore(ref, other.ref) }
}

/// A function definition or declaration, with its function type: what a
/// call needs (LLVM's opaque pointers do not carry it).
package struct Function: Hashable {
  let ref: LLVMValueRef
  /// The function's type, e.g. `void (ptr, i32)`.
  package let type: IRType

  init(_ ref: LLVMValueRef, type: IRType) {
    self.ref = ref
    self.type = type
  }

  init(_ ref: LLVMValueRef) { self.init(ref, type: IRType(LLVMGlobalGetValueType(ref)!)) }

  /// The function as a value (a pointer to it).
  package var value: Value { Value(ref) }

  /// Parameter `index`, counted from 0.
  package func parameter(_ index: Int) -> Value { Value(LLVMGetParam(ref, UInt32(index))!) }

  /// Makes the function a CUDA kernel entry point (LLVM's `ptx_kernel`
  /// calling convention), launched on a grid of threads.
  package func markAsPTXKernel() { LLVMSetFunctionCallConv(ref, 71 /* CallingConv::PTX_Kernel */) }

  /// Gives the function internal linkage (invisible outside its module, so
  /// it can be inlined into its callers and dropped).
  package func makeInternal() { LLVMSetLinkage(ref, LLVMInternalLinkage) }

  /// The entry block; the function must have a body.
  package var entryBlock: BasicBlock { BasicBlock(LLVMGetEntryBasicBlock(ref)!) }

  /// Appends an empty basic block called `name` to the function.
  package func appendBasicBlock(named name: String) -> BasicBlock {
    BasicBlock(LLVMAppendBasicBlockInContext(LLVMGetTypeContext(LLVMTypeOf(ref)), ref, name)!)
  }
}

/// An attribute of a function, parameter or call (`LLVMAttributeRef`).
package struct Attribute {
  let ref: LLVMAttributeRef
}

/// The predicate of an integer comparison (`icmp`).
package enum IntPredicate {
  /// Equal; not equal.
  case eq, ne
  /// Unsigned >, ≥, <, ≤.
  case ugt, uge, ult, ule
  /// Signed >, ≥, <, ≤.
  case sgt, sge, slt, sle

  var llvm: LLVMIntPredicate {
    switch self {
    case .eq: LLVMIntEQ
    case .ne: LLVMIntNE
    case .ugt: LLVMIntUGT
    case .uge: LLVMIntUGE
    case .ult: LLVMIntULT
    case .ule: LLVMIntULE
    case .sgt: LLVMIntSGT
    case .sge: LLVMIntSGE
    case .slt: LLVMIntSLT
    case .sle: LLVMIntSLE
    }
  }
}

/// The predicate of a floating-point comparison (`fcmp`): `o…` is false
/// when an operand is NaN, `u…` true.
package enum RealPredicate {
  /// Ordered =, >, ≥, <, ≤, ≠.
  case oeq, ogt, oge, olt, ole, one
  /// Neither operand is NaN; either is.
  case ord, uno
  /// Unordered =, >, ≥, <, ≤, ≠.
  case ueq, ugt, uge, ult, ule, une

  var llvm: LLVMRealPredicate {
    switch self {
    case .oeq: LLVMRealOEQ
    case .ogt: LLVMRealOGT
    case .oge: LLVMRealOGE
    case .olt: LLVMRealOLT
    case .ole: LLVMRealOLE
    case .one: LLVMRealONE
    case .ord: LLVMRealORD
    case .uno: LLVMRealUNO
    case .ueq: LLVMRealUEQ
    case .ugt: LLVMRealUGT
    case .uge: LLVMRealUGE
    case .ult: LLVMRealULT
    case .ule: LLVMRealULE
    case .une: LLVMRealUNE
    }
  }
}
