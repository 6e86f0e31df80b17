internal import CLLVM

extension KernelModule {
  /// Tells LLVM to leave a loop as written: no vectorisation, interleaving or
  /// unrolling.
  ///
  /// Use it on loops the emitter has already vectorised by hand, above all the
  /// scalar tail after a vector loop: `default<O3>` otherwise vectorises that
  /// tail again, doubling compile time and code size for a handful of
  /// elements. (`LLVMPassBuilderOptionsSetLoopVectorization(…, 0)` does not
  /// stop it in LLVM 19.1; this per-loop hint does.)
  ///
  /// - Parameters:
  ///   - branch: the loop's latch, the branch instruction that jumps back to
  ///     the loop header.
  ///   - unrollCount: unroll by this factor instead (a loop of the IR, whose
  ///     body is short: fewer branches and index updates per tap).
  ///   - fullUnroll: unroll completely instead, where LLVM knows the trip
  ///     count (a short loop of the IR with constant bounds).
  package func disableVectorization(ofLoopLatch branch: Value, unrollCount: Int? = nil, fullUnroll: Bool = false) {
    let context = self.context
    let unroll =
      fullUnroll
      ? property("llvm.loop.unroll.full", nil)
      : unrollCount.map { property("llvm.loop.unroll.count", types.i32.constant(UInt64($0)).ref) }
        ?? property("llvm.loop.unroll.disable", nil)
    let loopID = makeLoopID(properties: [
      property("llvm.loop.vectorize.enable", types.i1.constant(0).ref),
      property("llvm.loop.interleave.count", types.i32.constant(1).ref),
      unroll,
    ])
    let kind = LLVMGetMDKindIDInContext(context, "llvm.loop", UInt32("llvm.loop".utf8.count))
    LLVMSetMetadata(branch.ref, kind, LLVMMetadataAsValue(context, loopID))
  }

  /// `!{!"name", value}`, or `!{!"name"}` without a value.
  private func property(_ name: String, _ value: LLVMValueRef?) -> LLVMMetadataRef {
    var operands: [LLVMMetadataRef?] = [LLVMMDStringInContext2(context, name, name.utf8.count)]
    if let value { operands.append(LLVMValueAsMetadata(value)) }
    return operands.withUnsafeMutableBufferPointer {
      LLVMMDNodeInContext2(context, $0.baseAddress, $0.count)!
    }
  }

  /// A loop ID: a distinct node whose first operand is itself, followed by
  /// the properties. LLVM requires the self-reference so that two loops with
  /// equal properties never share (and merge) one ID.
  private func makeLoopID(properties: [LLVMMetadataRef]) -> LLVMMetadataRef {
    // A temporary placeholder stands for the node until it exists; replacing
    // it makes the node self-referencing (hence distinct) and deletes it.
    let placeholder = LLVMTemporaryMDNode(context, nil, 0)!
    var operands: [LLVMMetadataRef?] = [placeholder] + properties
    let loopID = operands.withUnsafeMutableBufferPointer {
      LLVMMDNodeInContext2(context, $0.baseAddress, $0.count)!
    }
    LLVMMetadataReplaceAllUsesWith(placeholder, loopID)
    return loopID
  }
}
