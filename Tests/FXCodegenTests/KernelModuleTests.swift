import CLLVM
import FXPasses
import Testing

@testable import FXCodegen

@Suite struct KernelModuleTests {
  @Test func newModuleCarriesTheHostTripleAndDataLayout() throws {
    let kernel = try KernelModule(name: "empty")
    #expect(String(cString: LLVMGetTarget(kernel.module)) == Target.host.triple)
    #expect(!String(cString: LLVMGetDataLayoutStr(kernel.module)).isEmpty)
    #expect(kernel.textualIR.contains("target triple = \"\(Target.host.triple)\""))
  }

  @Test func verifyExplainsABrokenModule() throws {
    let kernel = try KernelModule(name: "broken")
    let t = kernel.types
    let (function, entry) = addFunction(kernel, "f", t.float, [t.float])
    kernel.withBuilder { b in
      LLVMPositionBuilderAtEnd(b, entry)
      _ = LLVMBuildFAdd(b, LLVMGetParam(function, 0), LLVMGetParam(function, 0), "twice")
      // No terminator.
    }
    let error = #expect(throws: LLVMError.self) { try kernel.verify() }
    #expect(error?.message.contains("broken") == true)
    #expect(error?.message.contains("does not have terminator") == true)
    // Every operation that would hand the module to LLVM's back end refuses it too.
    #expect(throws: LLVMError.self) { try kernel.optimize() }
    #expect(throws: LLVMError.self) { try kernel.assembly() }
    #expect(throws: LLVMError.self) { try JIT().add(kernel) }
    #expect(!kernel.isTransferred)
  }

  @Test func optimizeRejectsAnUnknownPipeline() throws {
    let kernel = try KernelModule(name: "k")
    buildAdd(kernel)
    let error = #expect(throws: LLVMError.self) { try kernel.optimize("no-such-pass") }
    #expect(error?.message.contains("no-such-pass") == true)
  }

  @Test func assemblyLeavesTheModuleUsable() throws {
    let kernel = try KernelModule(name: "k")
    buildAdd(kernel)
    try kernel.optimize()
    let before = kernel.textualIR
    #expect(try kernel.assembly().contains("add:"))
    #expect(try kernel.assembly().contains("add:"))
    #expect(kernel.textualIR == before)
  }

  @Test func intrinsicsTheEmitterNeeds() throws {
    let kernel = try KernelModule(name: "intrinsics")
    let t = kernel.types
    let w = Target.host.lanes
    let (vf, vi, vp) = (t.vector(t.float, w), t.vector(t.i32, w), t.vector(t.ptr, w))
    for name in ["llvm.floor", "llvm.sqrt", "llvm.fabs", "llvm.minnum", "llvm.maxnum", "llvm.fma"] {
      let (function, type) = try kernel.intrinsic(name, [vf])
      #expect(LLVMGetReturnType(type) == vf)
      #expect(String(cString: LLVMGetValueName(function)).hasPrefix(name + ".v\(w)f32"))
    }
    #expect(try LLVMGetReturnType(kernel.intrinsic("llvm.fptosi.sat", [vi, vf]).type) == vi)
    #expect(try LLVMGetReturnType(kernel.intrinsic("llvm.masked.gather", [vf, vp]).type) == vf)
    #expect(try LLVMGetReturnType(kernel.intrinsic("llvm.masked.load", [vf, t.ptr]).type) == vf)
    #expect(
      try LLVMGetReturnType(kernel.intrinsic("llvm.masked.store", [vf, t.ptr]).type) == t.void)
    // Asking twice gives the same declaration.
    #expect(
      try kernel.intrinsic("llvm.fma", [vf]).function == kernel.intrinsic("llvm.fma", [vf]).function
    )
    try kernel.verify()

    #expect(throws: LLVMError.self) { try kernel.intrinsic("llvm.no.such.thing", [vf]) }
    #expect(throws: LLVMError.self) { try kernel.intrinsic("llvm.fma") }
    #expect(throws: LLVMError.self) { try kernel.intrinsic("llvm.trap", [vf]) }
    _ = try kernel.intrinsic("llvm.trap")
  }

  @Test func disabledTailLoopStaysScalarAtO3() throws {
    func optimizedScalarLoop(disableVectorization: Bool) throws -> String {
      let kernel = try KernelModule(name: "tail")
      let latch = buildScale(kernel, lanes: 1)
      if disableVectorization { kernel.disableVectorization(ofLoopLatch: latch) }
      try kernel.optimize()
      return kernel.textualIR
    }
    // Left alone, O3 vectorises the scalar loop; marked, it leaves it scalar.
    #expect(try optimizedScalarLoop(disableVectorization: false).contains(" x float>"))
    let marked = try optimizedScalarLoop(disableVectorization: true)
    #expect(!marked.contains(" x float>"))
    #expect(marked.contains("llvm.loop.vectorize.enable"))
  }
}
