import CLLVM

@testable import FXCodegen

// Small functions built by hand with LLVM's C API, as the kernel emitter will.

typealias AddFunction = @convention(c) @Sendable (Float, Float) -> Float
typealias ScaleFunction =
  @convention(c) @Sendable (UnsafeMutablePointer<Float>, Int64, Float) -> Void

/// Adds `name(params) -> result` to `kernel` and returns it with its entry block.
func addFunction(
  _ kernel: KernelModule, _ name: String, _ result: LLVMTypeRef, _ params: [LLVMTypeRef]
) -> (function: LLVMValueRef, entry: LLVMBasicBlockRef) {
  let function = LLVMAddFunction(kernel.module, name, kernel.types.function(result, params))!
  let entry = LLVMAppendBasicBlockInContext(kernel.context, function, "entry")!
  return (function, entry)
}

/// `float name(float a, float b) { return a + b; }`
func buildAdd(_ kernel: KernelModule, name: String = "add") {
  let t = kernel.types
  let (function, entry) = addFunction(kernel, name, t.float, [t.float, t.float])
  kernel.withBuilder { b in
    LLVMPositionBuilderAtEnd(b, entry)
    let sum = LLVMBuildFAdd(b, LLVMGetParam(function, 0), LLVMGetParam(function, 1), "sum")
    LLVMBuildRet(b, sum)
  }
}

/// `float name(float x) { return x * 1.5 + 0.25; }` — constants that live in
/// a constant pool on x86, so loading its object exercises relocations.
func buildAffine(_ kernel: KernelModule, name: String) {
  let t = kernel.types
  let (function, entry) = addFunction(kernel, name, t.float, [t.float])
  kernel.withBuilder { b in
    LLVMPositionBuilderAtEnd(b, entry)
    let scaled = LLVMBuildFMul(b, LLVMGetParam(function, 0), LLVMConstReal(t.float, 1.5), "")
    LLVMBuildRet(b, LLVMBuildFAdd(b, scaled, LLVMConstReal(t.float, 0.25), ""))
  }
}

/// `void scale(float* p, i64 n, float k)`: `p[i] *= k` over `<lanes x float>`
/// vectors, then a scalar tail loop, the shape the kernel emitter produces.
/// With `lanes == 1` there is only the scalar loop. Returns the tail loop's latch.
@discardableResult
func buildScale(_ kernel: KernelModule, name: String = "scale", lanes: Int) -> LLVMValueRef {
  let t = kernel.types
  let (function, entry) = addFunction(kernel, name, t.void, [t.ptr, t.i64, t.float])
  let (p, n, k) = (
    LLVMGetParam(function, 0)!, LLVMGetParam(function, 1)!, LLVMGetParam(function, 2)!
  )
  func block(_ name: String) -> LLVMBasicBlockRef {
    LLVMAppendBasicBlockInContext(kernel.context, function, name)!
  }
  let (tailHead, tailBody, exit) = (block("tail.head"), block("tail.body"), block("exit"))
  let zero = LLVMConstInt(t.i64, 0, 0)!
  return kernel.withBuilder { b in
    LLVMPositionBuilderAtEnd(b, entry)
    var tailStart: (LLVMValueRef, LLVMBasicBlockRef) = (zero, entry)
    if lanes > 1 {
      let (vectorHead, vectorBody) = (block("vector.head"), block("vector.body"))
      LLVMMoveBasicBlockBefore(vectorHead, tailHead)
      LLVMMoveBasicBlockBefore(vectorBody, tailHead)
      let vectorType = t.vector(t.float, lanes)
      let one = LLVMBuildInsertElement(
        b, LLVMGetPoison(vectorType), k, LLVMConstInt(t.i32, 0, 0), "")
      let splat = LLVMBuildShuffleVector(
        b, one, LLVMGetPoison(vectorType), LLVMConstNull(t.vector(t.i32, lanes)), "k.splat")!
      let mask = LLVMConstInt(t.i64, UInt64(bitPattern: Int64(-lanes)), 1)
      let vectorEnd = LLVMBuildAnd(b, n, mask, "n.vector")!
      LLVMBuildBr(b, vectorHead)

      LLVMPositionBuilderAtEnd(b, vectorHead)
      let i = LLVMBuildPhi(b, t.i64, "i")!
      LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, i, vectorEnd, ""), vectorBody, tailHead)

      LLVMPositionBuilderAtEnd(b, vectorBody)
      var index: [LLVMValueRef?] = [i]
      let address = LLVMBuildGEP2(b, t.float, p, &index, 1, "")
      let loaded = LLVMBuildLoad2(b, vectorType, address, "")!
      LLVMSetAlignment(loaded, 4)
      LLVMSetAlignment(LLVMBuildStore(b, LLVMBuildFMul(b, loaded, splat, ""), address), 4)
      let iNext = LLVMBuildAdd(b, i, LLVMConstInt(t.i64, UInt64(lanes), 0), "")!
      LLVMBuildBr(b, vectorHead)
      addIncoming(i, [(zero, entry), (iNext, vectorBody)])
      tailStart = (i, vectorHead)
    } else {
      LLVMBuildBr(b, tailHead)
    }

    LLVMPositionBuilderAtEnd(b, tailHead)
    let j = LLVMBuildPhi(b, t.i64, "j")!
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, j, n, ""), tailBody, exit)

    LLVMPositionBuilderAtEnd(b, tailBody)
    var index: [LLVMValueRef?] = [j]
    let element = LLVMBuildGEP2(b, t.float, p, &index, 1, "")
    let scalar = LLVMBuildLoad2(b, t.float, element, "")
    LLVMBuildStore(b, LLVMBuildFMul(b, scalar, k, ""), element)
    let jNext = LLVMBuildAdd(b, j, LLVMConstInt(t.i64, 1, 0), "")!
    let latch = LLVMBuildBr(b, tailHead)!
    addIncoming(j, [tailStart, (jNext, tailBody)])

    LLVMPositionBuilderAtEnd(b, exit)
    LLVMBuildRetVoid(b)
    return latch
  }
}

func addIncoming(_ phi: LLVMValueRef, _ incoming: [(LLVMValueRef, LLVMBasicBlockRef)]) {
  var values: [LLVMValueRef?] = incoming.map { $0.0 }
  var blocks: [LLVMBasicBlockRef?] = incoming.map { $0.1 }
  LLVMAddIncoming(phi, &values, &blocks, UInt32(incoming.count))
}

/// A module holding only `add`, optimised at O3 and added to `jit`.
func addModule(to jit: JIT, name: String = "add") throws {
  let kernel = try KernelModule(name: name)
  buildAdd(kernel, name: name)
  try kernel.optimize()
  try jit.add(kernel)
}
