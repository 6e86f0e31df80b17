import Testing

@testable import FXLLVM

@Suite struct BuilderTests {
  /// Every predicate enum case becomes the LLVM predicate of the same name.
  @Test func predicatesKeepTheirNames() throws {
    let kernel = try KernelModule(name: "predicates")
    let t = kernel.types
    let (function, entry) = addFunction(kernel, "compare", t.void, [t.i32, t.float])
    let ints: [(IntPredicate, String)] = [
      (.eq, "eq"), (.ne, "ne"), (.ugt, "ugt"), (.uge, "uge"), (.ult, "ult"), (.ule, "ule"),
      (.sgt, "sgt"), (.sge, "sge"), (.slt, "slt"), (.sle, "sle"),
    ]
    let reals: [(RealPredicate, String)] = [
      (.oeq, "oeq"), (.ogt, "ogt"), (.oge, "oge"), (.olt, "olt"), (.ole, "ole"), (.one, "one"), (.ord, "ord"),
      (.uno, "uno"), (.ueq, "ueq"), (.ugt, "ugt"), (.uge, "uge"), (.ult, "ult"), (.ule, "ule"), (.une, "une"),
    ]
    kernel.withBuilder { b in
      b.position(atEndOf: entry)
      let (i, x) = (function.parameter(0), function.parameter(1))
      for (p, name) in ints { _ = b.icmp(p, i, t.i32.constant(7), name: "i_\(name)") }
      for (p, name) in reals { _ = b.fcmp(p, x, t.float.constant(real: 0.5), name: "f_\(name)") }
      b.retVoid()
    }
    try kernel.verify()
    let ir = kernel.textualIR
    for (_, name) in ints { #expect(ir.contains("%i_\(name) = icmp \(name) i32 %0, 7"), "\(name)") }
    for (_, name) in reals { #expect(ir.contains("%f_\(name) = fcmp \(name) float %1, 5.000000e-01"), "\(name)") }
  }

  /// Loads and stores carry the alignment and volatility asked for; a C
  /// function declared twice is one declaration; call-site attributes stick.
  @Test func memoryAndCalls() throws {
    let kernel = try KernelModule(name: "memory")
    let t = kernel.types
    let (function, entry) = addFunction(kernel, "copy", t.void, [t.ptr])
    let sinf = kernel.declareFunction("sinf", type: t.function(t.float, [t.float]))
    #expect(kernel.declareFunction("sinf", type: t.function(t.float, [t.float])) == sinf)
    kernel.withBuilder { b in
      b.position(atEndOf: entry)
      let p = function.parameter(0)
      let v = b.load(t.float, from: p, alignment: 1, volatile: true, name: "v")
      let s = b.call(sinf, [v], attributes: [kernel.enumAttribute("nobuiltin")], name: "s")
      b.store(s, to: b.gep(t.float, p, [t.i64.constant(1)]), alignment: 2)
      b.retVoid()
    }
    try kernel.verify()
    let ir = kernel.textualIR
    #expect(ir.contains("%v = load volatile float, ptr %0, align 1"))
    #expect(ir.contains("%s = call float @sinf(float %v) #"))
    #expect(ir.contains("nobuiltin"))
    #expect(ir.contains("store float %s, ptr %1, align 2"))
  }
}
