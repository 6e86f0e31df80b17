internal import CLLVM

/// An instruction builder (`LLVMBuilderRef`): each method appends one
/// instruction where the builder is positioned and returns it. `name` names
/// the result in the IR text (empty: numbered).
///
/// Obtain one from ``KernelModule/withBuilder(_:)`` or ``init(in:)``; it is
/// disposed of with the object. Like its module, not thread-safe.
package final class Builder {
  let ref: LLVMBuilderRef

  /// A builder in `module`'s context, not yet positioned.
  package init(in module: KernelModule) { ref = LLVMCreateBuilderInContext(module.context)! }

  deinit { LLVMDisposeBuilder(ref) }

  /// LLVM fast-math flags (`LLVMFastMathFlags`) the code generator may set.
  package struct FastMath: OptionSet, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static let reassociate = FastMath(rawValue: 1 << 0)
    package static let reciprocal = FastMath(rawValue: 1 << 4)
    package static let contract = FastMath(rawValue: 1 << 5)
  }

  /// Sets `flags` on `instruction` when it is a floating-point operation (else nothing).
  package func setFastMath(_ instruction: Value, _ flags: FastMath) {
    guard !flags.isEmpty, LLVMCanValueUseFastMathFlags(instruction.ref) != 0 else { return }
    LLVMSetFastMathFlags(instruction.ref, LLVMFastMathFlags(flags.rawValue))
  }

  // MARK: position

  /// The block instructions are appended to.
  package var insertBlock: BasicBlock { BasicBlock(LLVMGetInsertBlock(ref)!) }

  /// Appends instructions at the end of `block`.
  package func position(atEndOf block: BasicBlock) { LLVMPositionBuilderAtEnd(ref, block.ref) }

  /// Inserts instructions before `instruction`.
  package func position(before instruction: Value) { LLVMPositionBuilderBefore(ref, instruction.ref) }

  /// Inserts instructions before the first instruction of `block` (at its end if it has none).
  package func position(atStartOf block: BasicBlock) {
    if let first = block.firstInstruction { position(before: first) } else { position(atEndOf: block) }
  }

  // MARK: arithmetic

  /// `fadd`.
  package func fadd(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildFAdd(ref, l.ref, r.ref, name)!) }
  /// `fsub`.
  package func fsub(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildFSub(ref, l.ref, r.ref, name)!) }
  /// `fmul`.
  package func fmul(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildFMul(ref, l.ref, r.ref, name)!) }
  /// `fdiv`.
  package func fdiv(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildFDiv(ref, l.ref, r.ref, name)!) }
  /// `fneg`.
  package func fneg(_ x: Value, name: String = "") -> Value { Value(LLVMBuildFNeg(ref, x.ref, name)!) }
  /// `add` (wrapping).
  package func add(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildAdd(ref, l.ref, r.ref, name)!) }
  /// `sub` (wrapping).
  package func sub(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildSub(ref, l.ref, r.ref, name)!) }
  /// `mul` (wrapping).
  package func mul(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildMul(ref, l.ref, r.ref, name)!) }
  /// `mul nsw`: signed overflow is poison.
  package func nswMul(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildNSWMul(ref, l.ref, r.ref, name)!) }
  /// `add nsw`: signed overflow is poison.
  package func nswAdd(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildNSWAdd(ref, l.ref, r.ref, name)!) }
  /// `sub nsw`: signed overflow is poison.
  package func nswSub(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildNSWSub(ref, l.ref, r.ref, name)!) }
  /// `srem`.
  package func srem(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildSRem(ref, l.ref, r.ref, name)!) }
  /// `sdiv`: a zero divisor or `min / −1` is undefined behaviour.
  package func sdiv(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildSDiv(ref, l.ref, r.ref, name)!) }
  /// `udiv`: a zero divisor is undefined behaviour.
  package func udiv(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildUDiv(ref, l.ref, r.ref, name)!) }
  /// `urem`: a zero divisor is undefined behaviour.
  package func urem(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildURem(ref, l.ref, r.ref, name)!) }

  // MARK: bits

  /// `and`.
  package func and(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildAnd(ref, l.ref, r.ref, name)!) }
  /// `or`.
  package func or(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildOr(ref, l.ref, r.ref, name)!) }
  /// `xor`.
  package func xor(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildXor(ref, l.ref, r.ref, name)!) }
  /// `xor` with all ones.
  package func not(_ x: Value, name: String = "") -> Value { Value(LLVMBuildNot(ref, x.ref, name)!) }
  /// `shl`.
  package func shl(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildShl(ref, l.ref, r.ref, name)!) }
  /// `ashr` (sign-filling).
  package func ashr(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildAShr(ref, l.ref, r.ref, name)!) }
  /// `lshr` (zero-filling).
  package func lshr(_ l: Value, _ r: Value, name: String = "") -> Value { Value(LLVMBuildLShr(ref, l.ref, r.ref, name)!) }

  // MARK: comparisons and selection

  /// `icmp predicate`.
  package func icmp(_ predicate: IntPredicate, _ l: Value, _ r: Value, name: String = "") -> Value {
    Value(LLVMBuildICmp(ref, predicate.llvm, l.ref, r.ref, name)!)
  }
  /// `fcmp predicate`.
  package func fcmp(_ predicate: RealPredicate, _ l: Value, _ r: Value, name: String = "") -> Value {
    Value(LLVMBuildFCmp(ref, predicate.llvm, l.ref, r.ref, name)!)
  }
  /// `select condition, then, else`.
  package func select(_ condition: Value, _ then: Value, _ otherwise: Value, name: String = "") -> Value {
    Value(LLVMBuildSelect(ref, condition.ref, then.ref, otherwise.ref, name)!)
  }

  // MARK: conversions

  /// `bitcast` to `type`.
  package func bitcast(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildBitCast(ref, x.ref, type.ref, name)!)
  }
  /// `sext` to `type`.
  package func sext(_ x: Value, to type: IRType, name: String = "") -> Value { Value(LLVMBuildSExt(ref, x.ref, type.ref, name)!) }
  /// `zext` to `type`.
  package func zext(_ x: Value, to type: IRType, name: String = "") -> Value { Value(LLVMBuildZExt(ref, x.ref, type.ref, name)!) }
  /// `trunc` to `type`.
  package func trunc(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildTrunc(ref, x.ref, type.ref, name)!)
  }
  /// `fpext` to `type`.
  package func fpext(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildFPExt(ref, x.ref, type.ref, name)!)
  }
  /// `fptrunc` to `type`.
  package func fptrunc(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildFPTrunc(ref, x.ref, type.ref, name)!)
  }
  /// `sitofp` to `type`.
  package func sitofp(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildSIToFP(ref, x.ref, type.ref, name)!)
  }
  /// `uitofp` to `type`.
  package func uitofp(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildUIToFP(ref, x.ref, type.ref, name)!)
  }
  /// `fptosi` to `type` (poison out of range).
  package func fptosi(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildFPToSI(ref, x.ref, type.ref, name)!)
  }
  /// `fptoui` to `type` (poison out of range).
  package func fptoui(_ x: Value, to type: IRType, name: String = "") -> Value {
    Value(LLVMBuildFPToUI(ref, x.ref, type.ref, name)!)
  }

  // MARK: vectors

  /// `insertelement vector, element, index`.
  package func insertElement(_ vector: Value, _ element: Value, at index: Value, name: String = "") -> Value {
    Value(LLVMBuildInsertElement(ref, vector.ref, element.ref, index.ref, name)!)
  }
  /// `extractelement vector, index`.
  package func extractElement(_ vector: Value, at index: Value, name: String = "") -> Value {
    Value(LLVMBuildExtractElement(ref, vector.ref, index.ref, name)!)
  }
  /// `shufflevector l, r, mask` (a constant vector of i32 lane indices).
  package func shuffleVector(_ l: Value, _ r: Value, mask: Value, name: String = "") -> Value {
    Value(LLVMBuildShuffleVector(ref, l.ref, r.ref, mask.ref, name)!)
  }

  // MARK: memory

  /// `load type, ptr pointer`, with `alignment` bytes if given (else the
  /// type's ABI alignment), volatile if asked.
  package func load(
    _ type: IRType, from pointer: Value, alignment: UInt32? = nil, volatile: Bool = false, name: String = ""
  ) -> Value {
    let load = Value(LLVMBuildLoad2(ref, type.ref, pointer.ref, name)!)
    if let alignment { load.setAlignment(alignment) }
    if volatile { load.setVolatile(true) }
    return load
  }

  /// `store value, ptr pointer`, with `alignment` bytes if given.
  @discardableResult
  package func store(_ value: Value, to pointer: Value, alignment: UInt32? = nil) -> Value {
    let store = Value(LLVMBuildStore(ref, value.ref, pointer.ref)!)
    if let alignment { store.setAlignment(alignment) }
    return store
  }

  /// `getelementptr type, base, indices…` (scalars, or vectors for a vector of pointers).
  package func gep(_ type: IRType, _ base: Value, _ indices: [Value], name: String = "") -> Value {
    var refs: [LLVMValueRef?] = indices.map(\.ref)
    return refs.withUnsafeMutableBufferPointer {
      Value(LLVMBuildGEP2(ref, type.ref, base.ref, $0.baseAddress, UInt32($0.count), name)!)
    }
  }

  /// `alloca type`.
  package func alloca(_ type: IRType, name: String = "") -> Value { Value(LLVMBuildAlloca(ref, type.ref, name)!) }

  /// `alloca type, count`.
  package func arrayAlloca(_ type: IRType, count: Value, name: String = "") -> Value {
    Value(LLVMBuildArrayAlloca(ref, type.ref, count.ref, name)!)
  }

  // MARK: control flow

  /// `phi type`, without incoming edges yet (``Value/addIncoming(_:)``).
  package func phi(_ type: IRType, name: String = "") -> Value { Value(LLVMBuildPhi(ref, type.ref, name)!) }

  /// `br label destination`.
  @discardableResult
  package func br(_ destination: BasicBlock) -> Value { Value(LLVMBuildBr(ref, destination.ref)!) }

  /// `br i1 condition, label then, label else`.
  @discardableResult
  package func condBr(_ condition: Value, then: BasicBlock, else otherwise: BasicBlock) -> Value {
    Value(LLVMBuildCondBr(ref, condition.ref, then.ref, otherwise.ref)!)
  }

  /// `then()` where `condition` holds, `otherwise()` elsewhere, each emitted
  /// in a block of its own (`name.then`, `name.else`), their values joined
  /// by phis in `name.join`, where the builder is left.
  package func ifElse(
    _ condition: Value, name: String, then: () throws -> [Value], else otherwise: () throws -> [Value]
  ) rethrows -> [Value] {
    let fn = insertBlock.parent
    let thenBlock = fn.appendBasicBlock(named: name + ".then"), elseBlock = fn.appendBasicBlock(named: name + ".else")
    let join = fn.appendBasicBlock(named: name + ".join")
    condBr(condition, then: thenBlock, else: elseBlock)
    position(atEndOf: thenBlock)
    let thenValues = try then()
    let thenEnd = insertBlock
    br(join)
    position(atEndOf: elseBlock)
    let elseValues = try otherwise()
    let elseEnd = insertBlock
    br(join)
    position(atEndOf: join)
    return zip(thenValues, elseValues).map { a, b in
      let merged = phi(a.type)
      merged.addIncoming([(a, thenEnd), (b, elseEnd)])
      return merged
    }
  }

  /// `ret value`.
  @discardableResult
  package func ret(_ value: Value) -> Value { Value(LLVMBuildRet(ref, value.ref)!) }

  /// `ret void`.
  @discardableResult
  package func retVoid() -> Value { Value(LLVMBuildRetVoid(ref)!) }

  /// A call of `function` (an intrinsic from ``KernelModule/intrinsic(_:_:)``
  /// or a declared C function) with `arguments`, carrying `attributes` on the
  /// call as a whole.
  @discardableResult
  package func call(_ function: Function, _ arguments: [Value], attributes: [Attribute] = [], name: String = "") -> Value {
    var refs: [LLVMValueRef?] = arguments.map(\.ref)
    let call = refs.withUnsafeMutableBufferPointer {
      Value(LLVMBuildCall2(ref, function.type.ref, function.ref, $0.baseAddress, UInt32($0.count), name)!)
    }
    for attribute in attributes { call.addCallSiteAttribute(attribute) }
    return call
  }
}
