import FXPasses
import Foundation
import Testing

@testable import FXLLVM

@Suite struct JITTests {
  @Test func addsTwoFloats() throws {
    let jit = try JIT()
    try addModule(to: jit)
    let add = unsafeBitCast(try jit.lookup("add"), to: AddFunction.self)
    #expect(add(1.5, 2.25) == 3.75)
    #expect(add(-1, 1) == 0)
  }

  @Test(arguments: [1, 7, 33, 1000])
  func scalesVectorsWithAScalarTail(count: Int) throws {
    let lanes = Target.host.lanes
    let kernel = try KernelModule(name: "scale")
    kernel.disableVectorization(ofLoopLatch: buildScale(kernel, lanes: lanes))
    try kernel.optimize()
    if lanes >= 8 {
      let assembly = try kernel.assembly()
      #expect(assembly.contains("%ymm") || assembly.contains("%zmm"))
    }
    let jit = try JIT()
    try jit.add(kernel)
    #expect(kernel.isTransferred)
    let scale = unsafeBitCast(try jit.lookup("scale"), to: ScaleFunction.self)

    let input = (0..<count).map { Float($0) * 0.37 - 11 }
    var output = input
    output.withUnsafeMutableBufferPointer { scale($0.baseAddress!, Int64(count), 2.5) }
    #expect(output == input.map { $0 * 2.5 })
  }

  @Test func objectCodeRoundTrip() throws {
    let kernel = try KernelModule(name: "affine")
    buildAffine(kernel, name: "affine")
    try kernel.optimize()
    let object = try kernel.objectCode()
    #expect(
      object.starts(with: [0x7F, 0x45, 0x4C, 0x46]) || !Target.host.triple.contains("linux"))

    let jit = try JIT()
    try jit.addObject(object)
    let affine = unsafeBitCast(try jit.lookup("affine"), to: (@convention(c) (Float) -> Float).self)
    #expect(affine(2) == 3.25)
    #expect(affine(-1) == -1.25)
  }

  @Test func rejectsAnObjectThatIsNotOne() throws {
    let jit = try JIT()
    #expect(throws: LLVMError.self) { try jit.addObject([1, 2, 3, 4]) }
  }

  @Test func missingSymbolThrows() throws {
    let jit = try JIT()
    let error = #expect(throws: LLVMError.self) { try jit.lookup("nowhere") }
    #expect(error?.message.contains("nowhere") == true)
    try addModule(to: jit)
    #expect(throws: LLVMError.self) { try jit.lookup("nowhere") }
    _ = try jit.lookup("add")
  }

  @Test func unresolvedExternalIsExplained() throws {
    let kernel = try KernelModule(name: "calls")
    let t = kernel.types
    let missing = kernel.addFunction("fxc_no_such_function", type: t.function(t.float, [t.float]))
    let (function, entry) = addFunction(kernel, "calls", t.float, [t.float])
    kernel.withBuilder { b in
      b.position(atEndOf: entry)
      b.ret(b.call(missing, [function.parameter(0)]))
    }
    let jit = try JIT()
    try jit.add(kernel)
    let error = #expect(throws: LLVMError.self) { try jit.lookup("calls") }
    #expect(error?.message.contains("fxc_no_such_function") == true)
  }

  @Test func callsIntoTheProcess() throws {
    // libm's sinf, declared by name, resolves against the host process.
    let kernel = try KernelModule(name: "process")
    let t = kernel.types
    let sinf = kernel.addFunction("sinf", type: t.function(t.float, [t.float]))
    let (function, entry) = addFunction(kernel, "sine", t.float, [t.float])
    kernel.withBuilder { b in
      b.position(atEndOf: entry)
      b.ret(b.call(sinf, [function.parameter(0)]))
    }
    let jit = try JIT()
    try jit.add(kernel)
    let sine = unsafeBitCast(try jit.lookup("sine"), to: (@convention(c) (Float) -> Float).self)
    #expect(abs(sine(1) - 0.84147098) < 1e-6)
  }

  @Test func vectorIntrinsicsRun() throws {
    // p[0..<W] = fma(floor(p), sqrt(p), 1) on one <W x float>.
    let lanes = Target.host.lanes
    let kernel = try KernelModule(name: "intrinsics")
    let t = kernel.types
    let vf = t.vector(t.float, lanes)
    let floor = try kernel.intrinsic("llvm.floor", [vf])
    let sqrt = try kernel.intrinsic("llvm.sqrt", [vf])
    let fma = try kernel.intrinsic("llvm.fma", [vf])
    let (function, entry) = addFunction(kernel, "mix", t.void, [t.ptr])
    kernel.withBuilder { b in
      b.position(atEndOf: entry)
      let p = function.parameter(0)
      let v = b.load(vf, from: p, alignment: 4)
      let one = Value.constVector(Array(repeating: t.float.constant(real: 1), count: lanes))
      let result = b.call(fma, [b.call(floor, [v]), b.call(sqrt, [v]), one])
      b.store(result, to: p, alignment: 4)
      b.retVoid()
    }
    try kernel.optimize()
    let jit = try JIT()
    try jit.add(kernel)
    let mix = unsafeBitCast(
      try jit.lookup("mix"), to: (@convention(c) (UnsafeMutablePointer<Float>) -> Void).self)
    let input = (0..<lanes).map { Float($0) * 1.75 + 0.5 }
    var output = input
    output.withUnsafeMutableBufferPointer { mix($0.baseAddress!) }
    for (x, y) in zip(input, output) {
      #expect(y == Float(1).addingProduct(x.rounded(.down), x.squareRoot()))
    }
  }

  @Test func duplicateSymbolIsAnError() throws {
    let jit = try JIT()
    try addModule(to: jit)
    let error = #expect(throws: LLVMError.self) { try addModule(to: jit) }
    #expect(error?.message.contains("add") == true)
  }

  @Test func addingATransferredModuleThrows() throws {
    let jit = try JIT()
    let kernel = try KernelModule(name: "once")
    buildAdd(kernel)
    try jit.add(kernel)
    #expect(throws: LLVMError.self) { try jit.add(kernel) }
  }

  @Test func manyJITsComeAndGo() throws {
    for round in 0..<50 {
      let jit = try JIT()
      if round % 5 == 0 {
        try addModule(to: jit)
        let add = unsafeBitCast(try jit.lookup("add"), to: AddFunction.self)
        #expect(add(Float(round), 1) == Float(round + 1))
      }
    }
  }

  @Test func lookupsFromManyThreads() async throws {
    let jit = try JIT()
    for index in 0..<8 { try addModule(to: jit, name: "add\(index)") }
    try await withThrowingTaskGroup(of: Float.self) { group in
      for index in 0..<8 {
        group.addTask {
          let add = unsafeBitCast(try jit.lookup("add\(index)"), to: AddFunction.self)
          return add(Float(index), 0.5)
        }
      }
      var sum: Float = 0
      for try await value in group { sum += value }
      #expect(sum == 32)
    }
  }
}

@Suite struct PerfMapTests {
  @Test func functionSizesComeFromTheObjectsSymbols() throws {
    let kernel = try KernelModule(name: "two")
    buildAffine(kernel, name: "affine")
    buildAdd(kernel)
    try kernel.optimize()
    let sizes = PerfMap.functionSizes(inObject: try kernel.objectCode())
    #expect(Set(sizes.keys).isSuperset(of: ["affine", "add"]))
    // each is a few instructions: more than a `ret`, less than a page
    #expect(sizes.values.allSatisfy { $0 > 1 && $0 < 4096 })
    #expect(PerfMap.functionSizes(inObject: [1, 2, 3, 4]).isEmpty)
  }

  @Test func recordAppendsPerfsLineFormat() throws {
    let path = "/tmp/perf-\(getpid()).map"
    try? FileManager.default.removeItem(atPath: path)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let address = UnsafeRawPointer(bitPattern: 0x7f00_1234_5000)!
    PerfMap.record([(address, 0x1b5, "fxc_nest0 'sepia'")])
    PerfMap.record([(address + 0x1000, 16, "fxc_nest1 'x'")])
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "7f0012345000 1b5 fxc_nest0 'sepia'\n7f0012346000 10 fxc_nest1 'x'\n")
  }
}
