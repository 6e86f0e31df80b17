internal import CLLVM
import FXIR

/// What every emitter of `<W x T>` vector code shares: the module, a
/// builder positioned where code goes, the module's types and the lane count
/// W; and the small helpers over them (splats, constants, intrinsic calls).
protocol VectorEmitter {
  var m: KernelModule { get }
  var b: LLVMBuilderRef { get }
  var t: LLVMTypes { get }
  /// Lanes per vector: the plan's, or 1 for one lane of a block-uniform body.
  var w: Int { get }
}

extension VectorEmitter {
  var vf: LLVMTypeRef { t.vector(t.float, w) }
  var vi: LLVMTypeRef { t.vector(t.i32, w) }
  var vb: LLVMTypeRef { t.vector(t.i1, w) }

  func vectorType(_ k: ScalarKind) -> LLVMTypeRef {
    switch k {
    case .float: vf
    case .int: vi
    case .bool: vb
    }
  }

  func splat(_ v: LLVMValueRef, _ lanes: Int? = nil) -> LLVMValueRef {
    let n = lanes ?? w
    let type = t.vector(LLVMTypeOf(v), n)
    let one = LLVMBuildInsertElement(b, LLVMGetUndef(type), v, LLVMConstInt(t.i32, 0, 0), "")!
    return LLVMBuildShuffleVector(b, one, LLVMGetUndef(type), LLVMConstNull(t.vector(t.i32, n)), "")!
  }

  func constVector(_ values: [LLVMValueRef]) -> LLVMValueRef {
    var v: [LLVMValueRef?] = values
    return v.withUnsafeMutableBufferPointer { LLVMConstVector($0.baseAddress, UInt32($0.count))! }
  }

  /// `getelementptr type, base, index` (index scalar, or a vector for a vector of pointers).
  func gep(_ type: LLVMTypeRef, _ base: LLVMValueRef, _ index: LLVMValueRef) -> LLVMValueRef {
    var idx: [LLVMValueRef?] = [index]
    return idx.withUnsafeMutableBufferPointer { LLVMBuildGEP2(b, type, base, $0.baseAddress, 1, "")! }
  }

  func i32(_ v: Int) -> LLVMValueRef { LLVMConstInt(t.i32, UInt64(bitPattern: Int64(v)), 1) }
  func i64(_ v: Int) -> LLVMValueRef { LLVMConstInt(t.i64, UInt64(bitPattern: Int64(v)), 1) }
  func f32(_ v: Float) -> LLVMValueRef { LLVMConstReal(t.float, Double(v)) }

  func call(_ name: String, _ types: [LLVMTypeRef], _ args: [LLVMValueRef]) throws -> LLVMValueRef {
    let (fn, type) = try m.intrinsic(name, types)
    var a: [LLVMValueRef?] = args
    return a.withUnsafeMutableBufferPointer { LLVMBuildCall2(b, type, fn, $0.baseAddress, UInt32($0.count), "")! }
  }

  /// Adds incoming edges `(value, block)` to `phi`.
  func addIncoming(_ phi: LLVMValueRef, _ edges: [(LLVMValueRef, LLVMBasicBlockRef)]) {
    var values: [LLVMValueRef?] = edges.map(\.0)
    var blocks: [LLVMBasicBlockRef?] = edges.map(\.1)
    values.withUnsafeMutableBufferPointer { v in
      blocks.withUnsafeMutableBufferPointer { bl in
        LLVMAddIncoming(phi, v.baseAddress, bl.baseAddress, UInt32(edges.count))
      }
    }
  }
}

/// The pure ops of the IR as LLVM values of W lanes, bit for bit their
/// ``OpSpec`` meaning (the interpreter's): the part of code generation that
/// does not depend on loops, buffers or the target's memory layout, shared by
/// every back end that emits LLVM IR. Loads, the loop nest and stores are the
/// CPU back end's (``PassEmitter``).
struct OpEmitter: VectorEmitter {
  let m: KernelModule
  let b: LLVMBuilderRef
  let t: LLVMTypes
  var w: Int

  /// `op` applied to `a` (float operands when `isFloat`, else int or bool).
  ///
  /// - Throws: ``LLVMError`` for an op that is not pure (a read or built-in
  ///   the caller should have emitted) or an intrinsic LLVM lacks.
  func pure(_ op: Op, _ a: [LLVMValueRef], isFloat: Bool) throws -> LLVMValueRef {
    let v = isFloat ? vf : vi
    switch op {
    case .add: return isFloat ? LLVMBuildFAdd(b, a[0], a[1], "")! : LLVMBuildAdd(b, a[0], a[1], "")!
    case .sub: return isFloat ? LLVMBuildFSub(b, a[0], a[1], "")! : LLVMBuildSub(b, a[0], a[1], "")!
    case .mul: return isFloat ? LLVMBuildFMul(b, a[0], a[1], "")! : LLVMBuildMul(b, a[0], a[1], "")!
    case .neg: return isFloat ? LLVMBuildFNeg(b, a[0], "")! : LLVMBuildSub(b, LLVMConstNull(vi), a[0], "")!
    case .min: return isFloat ? fminmax(a[0], a[1], LLVMRealOLT) : try call("llvm.smin", [v], a)
    case .max: return isFloat ? fminmax(a[0], a[1], LLVMRealOGT) : try call("llvm.smax", [v], a)
    case .abs:
      return isFloat ? try call("llvm.fabs", [vf], a) : try call("llvm.abs", [vi], [a[0], LLVMConstInt(t.i1, 0, 0)])
    case .div: return LLVMBuildFDiv(b, a[0], a[1], "")!
    case .floor: return try call("llvm.floor", [vf], a)
    case .ceil: return try call("llvm.ceil", [vf], a)
    case .sqrt: return try call("llvm.sqrt", [vf], a)
    case .sin: return try sineOrCosine(a[0], cosine: false)
    case .cos: return try sineOrCosine(a[0], cosine: true)
    case .exp: return try exponential(a[0])
    case .log: return try logarithm(a[0])
    case .pow: return try power(a[0], a[1])
    case .atan2: return try arctangent2(a[0], a[1])
    case .lt: return compare(isFloat, LLVMRealOLT, LLVMIntSLT, a)
    case .le: return compare(isFloat, LLVMRealOLE, LLVMIntSLE, a)
    case .gt: return compare(isFloat, LLVMRealOGT, LLVMIntSGT, a)
    case .ge: return compare(isFloat, LLVMRealOGE, LLVMIntSGE, a)
    case .eq: return compare(isFloat, LLVMRealOEQ, LLVMIntEQ, a)
    case .ne: return compare(isFloat, LLVMRealUNE, LLVMIntNE, a)
    case .isNaN: return LLVMBuildFCmp(b, LLVMRealUNO, a[0], a[0], "")!
    case .and: return LLVMBuildAnd(b, a[0], a[1], "")!
    case .or: return LLVMBuildOr(b, a[0], a[1], "")!
    case .xor: return LLVMBuildXor(b, a[0], a[1], "")!
    case .not: return LLVMBuildNot(b, a[0], "")!
    case .shl, .shr, .ushr:
      let amount = LLVMBuildAnd(b, a[1], splat(i32(31)), "")!
      switch op {
      case .shl: return LLVMBuildShl(b, a[0], amount, "")!
      case .shr: return LLVMBuildAShr(b, a[0], amount, "")!
      default: return LLVMBuildLShr(b, a[0], amount, "")!
      }
    case .mod:
      // Euclidean remainder; a divisor ≤ 0 gives 0 (Semantics.euclidMod).
      let positive = LLVMBuildICmp(b, LLVMIntSGT, a[1], LLVMConstNull(vi), "")!
      let d = LLVMBuildSelect(b, positive, a[1], splat(i32(1)), "")!
      let r = LLVMBuildSRem(b, a[0], d, "")!
      let negative = LLVMBuildICmp(b, LLVMIntSLT, r, LLVMConstNull(vi), "")!
      let fixed = LLVMBuildSelect(b, negative, LLVMBuildAdd(b, r, d, ""), r, "")!
      return LLVMBuildSelect(b, positive, fixed, LLVMConstNull(vi), "")!
    case .toInt: return saturatingToInt(a[0])
    case .toFloat: return LLVMBuildSIToFP(b, a[0], vf, "")!
    case .toFloatUnsigned: return LLVMBuildUIToFP(b, a[0], vf, "")!
    case .select: return LLVMBuildSelect(b, a[0], a[1], a[2], "")!
    default:
      throw LLVMError("internal error: \(op.name) is not a pure op")
    }
  }

  /// Vectorised sin/cos, bit for bit ``Trigonometry`` (the interpreter's
  /// meaning): Cephes `sinf`/`cosf` for |x| ≤ 8192, libm beyond. Every lane
  /// takes the polynomial; a vector with any lane outside ±8192 (or NaN, ±∞)
  /// then also calls libm lane by lane and keeps it for exactly those lanes.
  func sineOrCosine(_ x: LLVMValueRef, cosine: Bool) throws -> LLVMValueRef {
    let absolute = try call("llvm.fabs", [vf], [x])
    let inRange = LLVMBuildFCmp(b, LLVMRealOLE, absolute, splat(f32(Trigonometry.polynomialLimit)), "")!
    // Out-of-range lanes compute on 0 (their result is replaced), keeping fptosi defined.
    let ax = LLVMBuildSelect(b, inRange, absolute, LLVMConstNull(vf), "")!

    func mul(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFMul(b, p, q, "")! }
    func add(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFAdd(b, p, q, "")! }
    func sub(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFSub(b, p, q, "")! }
    func c(_ v: Float) -> LLVMValueRef { splat(f32(v)) }
    var j = LLVMBuildFPToSI(b, mul(ax, c(Trigonometry.fourOverPi)), vi, "")!
    j = LLVMBuildAnd(b, LLVMBuildAdd(b, j, splat(i32(1)), ""), splat(i32(~1)), "")!
    let y = LLVMBuildSIToFP(b, j, vf, "")!
    let pi4 = Trigonometry.piOver4
    let r = sub(sub(sub(ax, mul(y, c(pi4.0))), mul(y, c(pi4.1))), mul(y, c(pi4.2)))
    let z = mul(r, r)
    // The same operations in the same order as Trigonometry (x + (−c) and x − c round alike).
    let (c0, c1, c2) = Trigonometry.cosCoefficients, (s0, s1, s2) = Trigonometry.sinCoefficients
    let cosPoly = add(sub(mul(mul(add(mul(add(mul(c(c0), z), c(c1)), z), c(c2)), z), z), mul(c(0.5), z)), c(1))
    let sinPoly = add(mul(mul(add(mul(add(mul(c(s0), z), c(s1)), z), c(s2)), z), r), r)
    let q = cosine ? LLVMBuildAdd(b, j, splat(i32(2)), "")! : j
    let zero = LLVMConstNull(vi)
    let useCos = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, q, splat(i32(2)), ""), zero, "")!
    var negate = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, q, splat(i32(4)), ""), zero, "")!
    if !cosine {
      // sin is odd: the sign bit of x (so that sin(−0) = −0), not x < 0.
      let signBit = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildBitCast(b, x, vi, "")!, zero, "")!
      negate = LLVMBuildXor(b, negate, signBit, "")!
    }
    let v = LLVMBuildSelect(b, useCos, cosPoly, sinPoly, "")!
    let fastResult = LLVMBuildSelect(b, negate, LLVMBuildFNeg(b, v, "")!, v, "")!
    return try withLibmFallback(cosine ? "cosf" : "sinf", [x], ordinary: inRange, fast: fastResult)
  }

  /// Semantics.toInt: truncation, NaN → 0, saturating at Int32's bounds —
  /// `llvm.fptosi.sat`'s meaning, in vector instructions: x86 lowers that
  /// intrinsic lane by lane with two branches per lane. NaN becomes 0, the
  /// value is clamped into the range where `fptosi` is defined (2147483520 is
  /// the largest float below 2³¹), and values ≥ 2³¹ then take Int32.max.
  func saturatingToInt(_ x: LLVMValueRef) -> LLVMValueRef {
    let isNaN = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "")!
    let n = LLVMBuildSelect(b, isNaN, LLVMConstNull(vf), x, "")!
    let low = splat(f32(-2_147_483_648)), high = splat(f32(2_147_483_520))
    let above = LLVMBuildFCmp(b, LLVMRealOGT, n, high, "")!
    let clamped = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, n, low, "")!, low, LLVMBuildSelect(b, above, high, n, "")!, "")!
    let truncated = LLVMBuildFPToSI(b, clamped, vi, "")!
    return LLVMBuildSelect(b, above, splat(i32(Int(Int32.max))), truncated, "")!
  }

  /// Semantics.min / max exactly: `isnan(a) ? b : (b ⋖ a ? b : a)`, so a NaN
  /// operand yields the other and equal operands (±0) yield `a` — which
  /// `llvm.minnum` does not promise. x86 matches the inner select with one minps.
  func fminmax(_ a: LLVMValueRef, _ b: LLVMValueRef, _ predicate: LLVMRealPredicate) -> LLVMValueRef {
    let pick = LLVMBuildSelect(self.b, LLVMBuildFCmp(self.b, predicate, b, a, "")!, b, a, "")!
    return LLVMBuildSelect(self.b, LLVMBuildFCmp(self.b, LLVMRealUNO, a, a, "")!, b, pick, "")!
  }

  func compare(_ isFloat: Bool, _ f: LLVMRealPredicate, _ i: LLVMIntPredicate, _ a: [LLVMValueRef]) -> LLVMValueRef {
    isFloat ? LLVMBuildFCmp(b, f, a[0], a[1], "")! : LLVMBuildICmp(b, i, a[0], a[1], "")!
  }

  /// A libm function with no LLVM intrinsic, called lane by lane.
  func libmPerLane(_ name: String, _ a: [LLVMValueRef]) -> LLVMValueRef {
    var params: [LLVMTypeRef?] = Array(repeating: t.float, count: a.count)
    let type = params.withUnsafeMutableBufferPointer { LLVMFunctionType(t.float, $0.baseAddress, UInt32($0.count), 0)! }
    let fn = LLVMGetNamedFunction(m.module, name) ?? LLVMAddFunction(m.module, name, type)!
    var result = LLVMGetUndef(vf)!
    let nobuiltin = LLVMCreateEnumAttribute(m.context, LLVMGetEnumAttributeKindForName("nobuiltin", 9), 0)!
    for lane in 0..<w {
      var args: [LLVMValueRef?] = a.map { LLVMBuildExtractElement(b, $0, i32(lane), "") }
      let r = args.withUnsafeMutableBufferPointer { LLVMBuildCall2(b, type, fn, $0.baseAddress, UInt32($0.count), "")! }
      // nobuiltin: LLVM must not fold or rewrite the call (powf(x, 2) → x·x, …).
      LLVMAddCallSiteAttribute(r, LLVMAttributeIndex(bitPattern: -1), nobuiltin)
      result = LLVMBuildInsertElement(b, result, r, i32(lane), "")!
    }
    return result
  }
}
