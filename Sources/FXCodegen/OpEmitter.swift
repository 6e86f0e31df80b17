import FXIR
import FXLLVM
import FXPasses

/// What every emitter of `<W x T>` vector code shares: the module, a
/// builder positioned where code goes, the module's types and the lane count
/// W; and the small helpers over them (splats, constants, intrinsic calls).
protocol VectorEmitter {
  var m: KernelModule { get }
  var b: Builder { get }
  var t: LLVMTypes { get }
  /// Lanes per vector: the plan's, or 1 for one lane of a block-uniform body.
  var w: Int { get }
}

extension VectorEmitter {
  var vf: IRType { t.vector(t.float, w) }
  var vi: IRType { t.vector(t.i32, w) }
  var vb: IRType { t.vector(t.i1, w) }

  func vectorType(_ k: ScalarKind) -> IRType {
    switch k {
    case .float: vf
    case .int: vi
    case .bool: vb
    }
  }

  func splat(_ v: Value, _ lanes: Int? = nil) -> Value {
    let n = lanes ?? w
    let type = t.vector(v.type, n)
    let one = b.insertElement(type.undef, v, at: t.i32.constant(0))
    return b.shuffleVector(one, type.undef, mask: t.vector(t.i32, n).null)
  }

  func constVector(_ values: [Value]) -> Value { Value.constVector(values) }

  /// `getelementptr type, base, index` (index scalar, or a vector for a vector of pointers).
  func gep(_ type: IRType, _ base: Value, _ index: Value) -> Value { b.gep(type, base, [index]) }

  func i32(_ v: Int) -> Value { t.i32.constant(UInt64(bitPattern: Int64(v)), signExtend: true) }
  func i64(_ v: Int) -> Value { t.i64.constant(UInt64(bitPattern: Int64(v)), signExtend: true) }
  func f32(_ v: Float) -> Value { t.float.constant(real: Double(v)) }

  /// A call of intrinsic `name` overloaded on `types` (declared after the arguments are built).
  func call(_ name: String, _ types: [IRType], _ args: [Value]) throws -> Value {
    b.call(try m.intrinsic(name, types), args)
  }
}

/// The pure ops of the IR as LLVM values of W lanes, bit for bit their
/// ``OpSpec`` meaning (the interpreter's): the part of code generation that
/// does not depend on loops, buffers or the target's memory layout, shared by
/// every back end that emits LLVM IR. Loads, the loop nest and stores are the
/// CPU back end's (``LoopNestEmitter``).
struct OpEmitter: VectorEmitter {
  let m: KernelModule
  let b: Builder
  let t: LLVMTypes
  var w: Int
  /// Whether the IR's own float add, sub, mul and div carry `contract`,
  /// `arcp` and `reassoc` (``FloatMode/relaxed``, where ``RangeProofs/mayRelax(_:_:_:)``
  /// allows it); the transcendentals' internal arithmetic never does.
  var relax = false

  /// `v`, with the relaxed mode's fast-math flags when ``relax`` is set.
  func relaxed(_ v: Value) -> Value {
    if relax { b.setFastMath(v, [.contract, .reciprocal, .reassociate]) }
    return v
  }

  /// `op` applied to `a` (float operands when `isFloat`, else int or bool).
  ///
  /// - Throws: ``LLVMError`` for an op that is not pure (a read or built-in
  ///   the caller should have emitted) or an intrinsic LLVM lacks.
  func pure(_ op: Op, _ a: [Value], isFloat: Bool) throws -> Value {
    let v = isFloat ? vf : vi
    switch op {
    case .add: return isFloat ? relaxed(b.fadd(a[0], a[1])) : b.add(a[0], a[1])
    case .sub: return isFloat ? relaxed(b.fsub(a[0], a[1])) : b.sub(a[0], a[1])
    case .mul: return isFloat ? relaxed(b.fmul(a[0], a[1])) : b.mul(a[0], a[1])
    case .neg: return isFloat ? b.fneg(a[0]) : b.sub(vi.null, a[0])
    case .min: return isFloat ? fminmax(a[0], a[1], .olt) : try call("llvm.smin", [v], a)
    case .max: return isFloat ? fminmax(a[0], a[1], .ogt) : try call("llvm.smax", [v], a)
    case .abs:
      return isFloat ? try call("llvm.fabs", [vf], a) : try call("llvm.abs", [vi], [a[0], t.i1.constant(0)])
    case .div: return relaxed(b.fdiv(a[0], a[1]))
    case .floor: return try call("llvm.floor", [vf], a)
    case .ceil: return try call("llvm.ceil", [vf], a)
    case .sqrt: return try call("llvm.sqrt", [vf], a)
    case .sin: return try sineOrCosine(a[0], cosine: false)
    case .cos: return try sineOrCosine(a[0], cosine: true)
    case .exp: return try exponential(a[0])
    case .log: return try logarithm(a[0])
    case .pow: return try power(a[0], a[1])
    // One instruction with FMA3 (x86-64-v3 and up) and on aarch64; elsewhere LLVM calls libm's fmaf, the same bits.
    case .fma: return try call("llvm.fma", [vf], a)
    case .roundHalf: return try roundHalf(a[0])
    case .atan2: return try arctangent2(a[0], a[1])
    case .lt: return compare(isFloat, .olt, .slt, a)
    case .le: return compare(isFloat, .ole, .sle, a)
    case .gt: return compare(isFloat, .ogt, .sgt, a)
    case .ge: return compare(isFloat, .oge, .sge, a)
    case .eq: return compare(isFloat, .oeq, .eq, a)
    case .ne: return compare(isFloat, .une, .ne, a)
    case .isNaN: return b.fcmp(.uno, a[0], a[0])
    case .and: return b.and(a[0], a[1])
    case .or: return b.or(a[0], a[1])
    case .xor: return b.xor(a[0], a[1])
    case .not: return b.not(a[0])
    case .shl, .shr, .ushr:
      let amount = b.and(a[1], splat(i32(31)))
      switch op {
      case .shl: return b.shl(a[0], amount)
      case .shr: return b.ashr(a[0], amount)
      default: return b.lshr(a[0], amount)
      }
    case .mod:
      // Euclidean remainder; a divisor ≤ 0 gives 0 (Semantics.euclidMod).
      let positive = b.icmp(.sgt, a[1], vi.null)
      let d = b.select(positive, a[1], splat(i32(1)))
      let r = b.srem(a[0], d)
      let negative = b.icmp(.slt, r, vi.null)
      let fixed = b.select(negative, b.add(r, d), r)
      return b.select(positive, fixed, vi.null)
    case .quot, .rem, .uquot, .urem: return integerDivision(op, a[0], a[1])
    case .toInt: return saturatingToInt(a[0])
    case .toFloat: return b.sitofp(a[0], to: vf)
    case .toFloatUnsigned: return b.uitofp(a[0], to: vf)
    case .floatBits: return b.bitcast(a[0], to: vi)
    case .bitsFloat: return b.bitcast(a[0], to: vf)
    case .select: return b.select(a[0], a[1], a[2])
    default:
      throw LLVMError("internal error: \(op.name) is not a pure op")
    }
  }

  /// Semantics.toInt: truncation, NaN → 0, saturating at Int32's bounds —
  /// `llvm.fptosi.sat`'s meaning, in vector instructions: x86 lowers that
  /// intrinsic lane by lane with two branches per lane. NaN becomes 0, the
  /// value is clamped into the range where `fptosi` is defined (2147483520 is
  /// the largest float below 2³¹), and values ≥ 2³¹ then take Int32.max.
  func saturatingToInt(_ x: Value) -> Value {
    let isNaN = b.fcmp(.uno, x, x)
    let n = b.select(isNaN, vf.null, x)
    let low = splat(f32(-2_147_483_648)), high = splat(f32(2_147_483_520))
    let above = b.fcmp(.ogt, n, high)
    let clamped = b.select(b.fcmp(.olt, n, low), low, b.select(above, high, n))
    let truncated = b.fptosi(clamped, to: vi)
    return b.select(above, splat(i32(Int(Int32.max))), truncated)
  }

  /// ``Semantics/roundHalf(_:)`` in integer and float vector instructions,
  /// on every x86-64 level (F16C's `vcvtps2ph` is not in x86-64-v2; the
  /// libcall LLVM would make instead is not one the JIT resolves). On the
  /// magnitude's bits `a`: binary16's normal range (2⁻¹⁴ ≤ |x| < 65,520)
  /// drops 13 significand bits, ties to even (`a + 0xFFF + bit 13`, then
  /// masked); below it the spacing is 2⁻²⁴, so |x|·2²⁴ is rounded to an
  /// integer (`llvm.roundeven`) and scaled back, both exact; from 65,520 on
  /// it is ∞ (65,520 is the tie between 65,504 and 2¹⁶, and ties go to the
  /// even significand: 2¹⁶, which overflows). The sign is put back; a NaN is
  /// returned as it is.
  func roundHalf(_ x: Value) throws -> Value {
    let bits = b.bitcast(x, to: vi)
    let sign = b.and(bits, splat(i32(Int(Int32.min))))
    let a = b.and(bits, splat(i32(0x7FFF_FFFF)))
    let lsb = b.and(b.lshr(a, splat(i32(13))), splat(i32(1)))
    let normal = b.and(b.add(b.add(a, splat(i32(0xFFF))), lsb), splat(i32(Int(Int32(bitPattern: 0xFFFF_E000)))))
    let magnitude = b.bitcast(a, to: vf)
    let scaled = try call("llvm.roundeven", [vf], [b.fmul(magnitude, splat(f32(0x1p24)))])
    let subnormal = b.bitcast(b.fmul(scaled, splat(f32(0x1p-24))), to: vi)
    var r = b.select(b.icmp(.slt, a, splat(i32(0x3880_0000))), subnormal, normal)
    r = b.select(b.icmp(.sge, a, splat(i32(0x477F_F000))), splat(i32(0x7F80_0000)), r)
    r = b.or(r, sign)
    // A NaN (magnitude above ∞'s bits) keeps its own bits.
    r = b.select(b.icmp(.sgt, a, splat(i32(0x7F80_0000))), bits, r)
    return b.bitcast(r, to: vf)
  }

  /// C division and remainder as ``Semantics/quotient(_:_:)`` and its
  /// siblings define them: the divisor is replaced by 1 where it is 0 (and,
  /// signed, where it is −1, whose quotient is the negation), so no lane
  /// divides by zero or overflows, and those lanes take their defined result.
  func integerDivision(_ op: Op, _ x: Value, _ y: Value) -> Value {
    let one = splat(i32(1))
    let zero = b.icmp(.eq, y, vi.null)
    let signed = op == .quot || op == .rem
    let minusOne = b.icmp(.eq, y, splat(i32(-1)))
    let unsafe = signed ? b.or(zero, minusOne) : zero
    let d = b.select(unsafe, one, y)
    switch op {
    case .quot: return b.select(zero, vi.null, b.select(minusOne, b.sub(vi.null, x), b.sdiv(x, d)))
    case .rem: return b.select(unsafe, vi.null, b.srem(x, d))
    case .uquot: return b.select(zero, vi.null, b.udiv(x, d))
    default: return b.select(zero, vi.null, b.urem(x, d))
    }
  }

  /// Semantics.min / max exactly: `isnan(a) || b ⋖ a ? b : a`, so a NaN
  /// operand yields the other and equal operands (±0) yield `a` — which
  /// `llvm.minnum` does not promise.
  ///
  /// One select of an `or`, not a select of a select: LLVM 19's InstCombine
  /// merges `isnan(a) ? b : (b < a ? b : a)` into one compare and, where `a`
  /// is `fabs(x)`, strips the `fabs` from both halves, which is right for
  /// `isnan` but not for `<`: `min(abs(x), 0)` became `x > 0 || isnan(x) ?
  /// 0 : abs(x)`, 3.34 for x = −3.34 (fxc fuzz seed 8530264826734248012).
  /// It leaves the `or` of the two compares alone.
  func fminmax(_ a: Value, _ b: Value, _ predicate: RealPredicate) -> Value {
    let takeB = self.b.or(self.b.fcmp(.uno, a, a), self.b.fcmp(predicate, b, a))
    return self.b.select(takeB, b, a)
  }

  /// ``fminmax(_:_:_:)`` when `a` is proved never NaN (``RangeProofs``): the
  /// same value, one compare and select (x86: one minps/maxps).
  func fminmaxNotNaN(_ a: Value, _ b: Value, _ predicate: RealPredicate) -> Value {
    self.b.select(self.b.fcmp(predicate, b, a), b, a)
  }

  func compare(_ isFloat: Bool, _ f: RealPredicate, _ i: IntPredicate, _ a: [Value]) -> Value {
    isFloat ? b.fcmp(f, a[0], a[1]) : b.icmp(i, a[0], a[1])
  }
}
