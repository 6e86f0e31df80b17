@testable import FXLLVM

// Small functions built by hand with FXLLVM's builder, as the kernel emitter does.

typealias AddFunction = @convention(c) @Sendable (Float, Float) -> Float
typealias ScaleFunction =
  @convention(c) @Sendable (UnsafeMutablePointer<Float>, Int64, Float) -> Void

/// Adds `name(params) -> result` to `kernel` and returns it with its entry block.
func addFunction(
  _ kernel: KernelModule, _ name: String, _ result: IRType, _ params: [IRType]
) -> (function: Function, entry: BasicBlock) {
  let function = kernel.addFunction(name, type: kernel.types.function(result, params))
  return (function, function.appendBasicBlock(named: "entry"))
}

/// `float name(float a, float b) { return a + b; }`
func buildAdd(_ kernel: KernelModule, name: String = "add") {
  let t = kernel.types
  let (function, entry) = addFunction(kernel, name, t.float, [t.float, t.float])
  kernel.withBuilder { b in
    b.position(atEndOf: entry)
    b.ret(b.fadd(function.parameter(0), function.parameter(1), name: "sum"))
  }
}

/// `float name(float x) { return x * 1.5 + 0.25; }` — constants that live in
/// a constant pool on x86, so loading its object exercises relocations.
func buildAffine(_ kernel: KernelModule, name: String) {
  let t = kernel.types
  let (function, entry) = addFunction(kernel, name, t.float, [t.float])
  kernel.withBuilder { b in
    b.position(atEndOf: entry)
    let scaled = b.fmul(function.parameter(0), t.float.constant(real: 1.5))
    b.ret(b.fadd(scaled, t.float.constant(real: 0.25)))
  }
}

/// `void scale(float* p, i64 n, float k)`: `p[i] *= k` over `<lanes x float>`
/// vectors, then a scalar tail loop, the shape the kernel emitter produces.
/// With `lanes == 1` there is only the scalar loop. Returns the tail loop's latch.
@discardableResult
func buildScale(_ kernel: KernelModule, name: String = "scale", lanes: Int) -> Value {
  let t = kernel.types
  let (function, entry) = addFunction(kernel, name, t.void, [t.ptr, t.i64, t.float])
  let (p, n, k) = (function.parameter(0), function.parameter(1), function.parameter(2))
  func block(_ name: String) -> BasicBlock { function.appendBasicBlock(named: name) }
  let (tailHead, tailBody, exit) = (block("tail.head"), block("tail.body"), block("exit"))
  let zero = t.i64.constant(0)
  return kernel.withBuilder { b in
    b.position(atEndOf: entry)
    var tailStart = (zero, entry)
    if lanes > 1 {
      let (vectorHead, vectorBody) = (block("vector.head"), block("vector.body"))
      vectorHead.move(before: tailHead)
      vectorBody.move(before: tailHead)
      let vectorType = t.vector(t.float, lanes)
      let one = b.insertElement(vectorType.poison, k, at: t.i32.constant(0))
      let splat = b.shuffleVector(one, vectorType.poison, mask: t.vector(t.i32, lanes).null, name: "k.splat")
      let mask = t.i64.constant(UInt64(bitPattern: Int64(-lanes)), signExtend: true)
      let vectorEnd = b.and(n, mask, name: "n.vector")
      b.br(vectorHead)

      b.position(atEndOf: vectorHead)
      let i = b.phi(t.i64, name: "i")
      b.condBr(b.icmp(.slt, i, vectorEnd), then: vectorBody, else: tailHead)

      b.position(atEndOf: vectorBody)
      let address = b.gep(t.float, p, [i])
      let loaded = b.load(vectorType, from: address, alignment: 4)
      b.store(b.fmul(loaded, splat), to: address, alignment: 4)
      let iNext = b.add(i, t.i64.constant(UInt64(lanes)))
      b.br(vectorHead)
      i.addIncoming([(zero, entry), (iNext, vectorBody)])
      tailStart = (i, vectorHead)
    } else {
      b.br(tailHead)
    }

    b.position(atEndOf: tailHead)
    let j = b.phi(t.i64, name: "j")
    b.condBr(b.icmp(.slt, j, n), then: tailBody, else: exit)

    b.position(atEndOf: tailBody)
    let element = b.gep(t.float, p, [j])
    let scalar = b.load(t.float, from: element)
    b.store(b.fmul(scalar, k), to: element)
    let jNext = b.add(j, t.i64.constant(1))
    let latch = b.br(tailHead)
    j.addIncoming([tailStart, (jNext, tailBody)])

    b.position(atEndOf: exit)
    b.retVoid()
    return latch
  }
}

/// A module holding only `add`, optimised at O3 and added to `jit`.
func addModule(to jit: JIT, name: String = "add") throws {
  let kernel = try KernelModule(name: name)
  buildAdd(kernel, name: name)
  try kernel.optimize()
  try jit.add(kernel)
}
