import CLLVM
import FXPasses
import Testing

@testable import FXLLVM

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
      b.position(atEndOf: entry)
      _ = b.fadd(function.parameter(0), function.parameter(0), name: "twice")
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
      let function = try kernel.intrinsic(name, [vf])
      #expect(LLVMGetReturnType(function.type.ref) == vf.ref)
      #expect(String(cString: LLVMGetValueName(function.ref)).hasPrefix(name + ".v\(w)f32"))
    }
    #expect(try LLVMGetReturnType(kernel.intrinsic("llvm.fptosi.sat", [vi, vf]).type.ref) == vi.ref)
    #expect(try LLVMGetReturnType(kernel.intrinsic("llvm.masked.gather", [vf, vp]).type.ref) == vf.ref)
    #expect(try LLVMGetReturnType(kernel.intrinsic("llvm.masked.load", [vf, t.ptr]).type.ref) == vf.ref)
    #expect(
      try LLVMGetReturnType(kernel.intrinsic("llvm.masked.store", [vf, t.ptr]).type.ref) == t.void.ref)
    // Asking twice gives the same declaration.
    #expect(
      try kernel.intrinsic("llvm.fma", [vf]) == kernel.intrinsic("llvm.fma", [vf])
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
