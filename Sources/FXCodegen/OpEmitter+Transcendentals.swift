internal import CLLVM
import FXIR

/// Vectorised exp, log, pow and atan2, bit for bit ``Transcendentals`` (the
/// interpreter's meaning): the same double-precision operations in the same
/// order, on `<W x double>`. Operands outside the double path's domain (see
/// ``Transcendentals``) are computed on harmless stand-ins and then replaced:
/// by C11's special values for exp and log, by libm lane by lane for pow and
/// atan2 (only vectors with such a lane take that branch).
extension OpEmitter {
  var vd: LLVMTypeRef { t.vector(t.double, w) }

  private func f64(_ v: Double) -> LLVMValueRef { splat(LLVMConstReal(t.double, v)) }
  private func fmul(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFMul(b, p, q, "")! }
  private func fadd(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFAdd(b, p, q, "")! }
  private func fsub(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFSub(b, p, q, "")! }
  private func fdiv(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildFDiv(b, p, q, "")! }
  private func fcmp(_ p: LLVMRealPredicate, _ l: LLVMValueRef, _ r: LLVMValueRef) -> LLVMValueRef {
    LLVMBuildFCmp(b, p, l, r, "")!
  }
  private func select(_ c: LLVMValueRef, _ l: LLVMValueRef, _ r: LLVMValueRef) -> LLVMValueRef {
    LLVMBuildSelect(b, c, l, r, "")!
  }
  private func and(_ p: LLVMValueRef, _ q: LLVMValueRef) -> LLVMValueRef { LLVMBuildAnd(b, p, q, "")! }
  private func widen(_ x: LLVMValueRef) -> LLVMValueRef { LLVMBuildFPExt(b, x, vd, "")! }
  private func narrow(_ x: LLVMValueRef) -> LLVMValueRef { LLVMBuildFPTrunc(b, x, vf, "")! }
  /// `a·b + c`, fused (one rounding), as Swift's `c.addingProduct(a, b)`.
  private func fma(_ a: LLVMValueRef, _ b: LLVMValueRef, _ c: LLVMValueRef) throws -> LLVMValueRef {
    try call("llvm.fma", [vd], [a, b, c])
  }
  /// Transcendentals.horner.
  private func horner(_ coefficients: [Double], _ x: LLVMValueRef) throws -> LLVMValueRef {
    try coefficients.dropFirst().reduce(f64(coefficients[0])) { p, c in try fma(p, x, f64(c)) }
  }

  /// Transcendentals.exp.
  func exponential(_ x: LLVMValueRef) throws -> LLVMValueRef {
    let isNaN = fcmp(LLVMRealUNO, x, x)
    let result = narrow(try expCore(clampExpArgument(widen(select(isNaN, LLVMConstNull(vf)!, x)))))
    return select(isNaN, x, result)
  }

  /// Transcendentals.log.
  func logarithm(_ x: LLVMValueRef) throws -> LLVMValueRef {
    let zero = LLVMConstNull(vf)!
    let ordinary = and(fcmp(LLVMRealOGT, x, zero), fcmp(LLVMRealOLT, x, splat(f32(.infinity))))
    let result = narrow(try logCore(select(ordinary, x, splat(f32(1)))))
    let nanOrInfinity = select(fcmp(LLVMRealOLT, x, zero), splat(f32(.nan)), x)
    let special = select(fcmp(LLVMRealOEQ, x, zero), splat(f32(-.infinity)), nanOrInfinity)
    return select(ordinary, result, special)
  }

  /// Transcendentals.pow.
  func power(_ x: LLVMValueRef, _ y: LLVMValueRef) throws -> LLVMValueRef {
    let xBits = LLVMBuildBitCast(b, x, vi, "")!
    let xOrdinary = LLVMBuildICmp(b, LLVMIntULT, xBits, splat(i32(0x7f80_0000)), "")!  // +0 ≤ x < +∞
    let yFinite = fcmp(LLVMRealOLT, try call("llvm.fabs", [vf], [y]), splat(f32(.infinity)))
    let ordinary = and(xOrdinary, yFinite)
    let xs = select(ordinary, x, splat(f32(1))), ys = select(ordinary, y, LLVMConstNull(vf)!)
    let core = narrow(try expCore(clampExpArgument(fmul(widen(ys), try logCore(xs)))))
    let zero = LLVMConstNull(vf)!
    let ofZero = select(
      fcmp(LLVMRealOGT, ys, zero), zero, select(fcmp(LLVMRealOLT, ys, zero), splat(f32(.infinity)), splat(f32(1))))
    let fast = select(fcmp(LLVMRealOEQ, xs, zero), ofZero, core)
    return try withLibmFallback("powf", [x, y], ordinary: ordinary, fast: fast)
  }

  /// Transcendentals.atan2 (`y` first, as C's atan2).
  func arctangent2(_ y: LLVMValueRef, _ x: LLVMValueRef) throws -> LLVMValueRef {
    let infinity = splat(f32(.infinity)), zero = LLVMConstNull(vf)!
    let ax = try call("llvm.fabs", [vf], [x]), ay = try call("llvm.fabs", [vf], [y])
    let bothZero = and(fcmp(LLVMRealOEQ, ax, zero), fcmp(LLVMRealOEQ, ay, zero))
    let finite = and(fcmp(LLVMRealOLT, ax, infinity), fcmp(LLVMRealOLT, ay, infinity))
    let ordinary = and(finite, LLVMBuildNot(b, bothZero, "")!)
    let one = splat(f32(1))
    let theta = try atan2Core(
      widen(select(ordinary, ay, one)), widen(select(ordinary, ax, one)),
      xNegative: and(ordinary, fcmp(LLVMRealOLT, x, zero)))
    let r = narrow(theta)
    let yNegative = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildBitCast(b, y, vi, "")!, LLVMConstNull(vi)!, "")!
    let fast = select(yNegative, LLVMBuildFNeg(b, r, "")!, r)
    return try withLibmFallback("atan2f", [y, x], ordinary: ordinary, fast: fast)
  }

  // MARK: the double-precision cores, as in Transcendentals

  private func clampExpArgument(_ arg: LLVMValueRef) -> LLVMValueRef {
    let limit = Transcendentals.expArgumentLimit
    return select(
      fcmp(LLVMRealOLT, arg, f64(-limit)), f64(-limit), select(fcmp(LLVMRealOGT, arg, f64(limit)), f64(limit), arg))
  }

  private func expCore(_ arg: LLVMValueRef) throws -> LLVMValueRef {
    let k = try call("llvm.floor", [vd], [fadd(fmul(arg, f64(Transcendentals.log2e)), f64(0.5))])
    let r = try fma(LLVMBuildFNeg(b, k, "")!, f64(Transcendentals.ln2), arg)
    let p = try horner(Transcendentals.expSeries, r)
    let biased = LLVMBuildAdd(b, LLVMBuildFPToSI(b, k, vi, "")!, splat(i32(1023)), "")!
    let wide = LLVMBuildZExt(b, biased, t.vector(t.i64, w), "")!
    let bits = LLVMBuildShl(b, wide, splat(LLVMConstInt(t.i64, 52, 0)), "")!
    return fmul(p, LLVMBuildBitCast(b, bits, vd, "")!)
  }

  private func logCore(_ x: LLVMValueRef) throws -> LLVMValueRef {
    let tiny = fcmp(LLVMRealOLT, x, splat(f32(Float.leastNormalMagnitude)))
    let scaled = select(tiny, fmul(x, splat(f32(16_777_216))), x)
    let bits = LLVMBuildBitCast(b, scaled, vi, "")!
    let exponent = LLVMBuildSub(
      b, LLVMBuildAShr(b, bits, splat(i32(23)), "")!, select(tiny, splat(i32(127 + 24)), splat(i32(127))), "")!
    let mantissa = LLVMBuildOr(b, and(bits, splat(i32(0x7f_ffff))), splat(i32(0x3f80_0000)), "")!
    let m1 = LLVMBuildBitCast(b, mantissa, vf, "")!
    let big = fcmp(LLVMRealOGT, m1, splat(f32(Transcendentals.sqrt2)))
    let m = select(big, fmul(m1, splat(f32(0.5))), m1)
    let e = select(big, LLVMBuildAdd(b, exponent, splat(i32(1)), "")!, exponent)
    let md = widen(m)
    let s = fdiv(fsub(md, f64(1)), fadd(md, f64(1)))
    let z = fmul(s, s)
    let q = try horner(Transcendentals.logSeries, z)
    return try fma(LLVMBuildSIToFP(b, e, vd, "")!, f64(Transcendentals.ln2), try fma(fmul(s, z), q, fadd(s, s)))
  }

  private func atan2Core(_ ay: LLVMValueRef, _ ax: LLVMValueRef, xNegative: LLVMValueRef) throws -> LLVMValueRef {
    let swap = fcmp(LLVMRealOGT, ay, ax)
    let t = fdiv(select(swap, ax, ay), select(swap, ay, ax))
    let big = fcmp(LLVMRealOGT, t, f64(Transcendentals.tanPiOver8))
    let u = select(big, fdiv(fsub(t, f64(1)), fadd(t, f64(1))), t)
    let root = try call("llvm.sqrt", [vd], [fadd(f64(1), fmul(u, u))])
    let v = fdiv(u, fadd(f64(1), root))
    let w = fmul(v, v)
    let q = try horner(Transcendentals.atanSeries, w)
    var theta = fadd(select(big, f64(Double.pi / 4), f64(0)), fmul(f64(2), try fma(fmul(v, w), q, v)))
    theta = select(swap, fsub(f64(Double.pi / 2), theta), theta)
    return select(xNegative, fsub(f64(Double.pi), theta), theta)
  }

  // MARK: the libm branch

  /// `fast` where `ordinary`; elsewhere libm's `name`, called lane by lane in
  /// a branch that only vectors with a non-ordinary lane take.
  func withLibmFallback(
    _ name: String, _ args: [LLVMValueRef], ordinary: LLVMValueRef, fast: LLVMValueRef
  ) throws -> LLVMValueRef {
    let fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b))!
    let slow = LLVMAppendBasicBlockInContext(m.context, fn, "\(name).libm")!
    let merge = LLVMAppendBasicBlockInContext(m.context, fn, "\(name).done")!
    let all = try call("llvm.vector.reduce.and", [vb], [ordinary])
    let fastEnd = LLVMGetInsertBlock(b)!
    LLVMBuildCondBr(b, all, merge, slow)

    LLVMPositionBuilderAtEnd(b, slow)
    let slowResult = select(ordinary, fast, libmPerLane(name, args))
    let slowEnd = LLVMGetInsertBlock(b)!
    LLVMBuildBr(b, merge)

    LLVMPositionBuilderAtEnd(b, merge)
    let phi = LLVMBuildPhi(b, vf, "")!
    addIncoming(phi, [(fast, fastEnd), (slowResult, slowEnd)])
    return phi
  }
}
