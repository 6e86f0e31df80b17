import FXIR
import FXLLVM

/// Vectorised exp, log, pow and atan2, bit for bit ``Transcendentals`` (the
/// interpreter's meaning): the same operations in the same order, on
/// `<W x double>` for exp, log and atan2 and on `<W x float>` for pow.
/// Operands outside the ordinary path's domain (see
/// ``Transcendentals``) are computed on harmless stand-ins and then replaced:
/// by C11's special values (for pow and atan2 in a branch that only vectors
/// with such a lane take).
extension OpEmitter {
  var vd: IRType { t.vector(t.double, w) }

  private func f64(_ v: Double) -> Value { splat(t.double.constant(real: v)) }
  private func fmul(_ p: Value, _ q: Value) -> Value { b.fmul(p, q) }
  private func fadd(_ p: Value, _ q: Value) -> Value { b.fadd(p, q) }
  private func fsub(_ p: Value, _ q: Value) -> Value { b.fsub(p, q) }
  private func fdiv(_ p: Value, _ q: Value) -> Value { b.fdiv(p, q) }
  private func fcmp(_ p: RealPredicate, _ l: Value, _ r: Value) -> Value { b.fcmp(p, l, r) }
  private func select(_ c: Value, _ l: Value, _ r: Value) -> Value { b.select(c, l, r) }
  private func and(_ p: Value, _ q: Value) -> Value { b.and(p, q) }
  private func widen(_ x: Value) -> Value { b.fpext(x, to: vd) }
  private func narrow(_ x: Value) -> Value { b.fptrunc(x, to: vf) }
  /// `a·b + c`, fused (one rounding), as Swift's `c.addingProduct(a, b)`.
  private func fma(_ a: Value, _ b: Value, _ c: Value) throws -> Value {
    try call("llvm.fma", [vd], [a, b, c])
  }
  /// Transcendentals.horner.
  private func horner(_ coefficients: [Double], _ x: Value) throws -> Value {
    try coefficients.dropFirst().reduce(f64(coefficients[0])) { p, c in try fma(p, x, f64(c)) }
  }

  /// Transcendentals.exp.
  func exponential(_ x: Value) throws -> Value {
    let isNaN = fcmp(.uno, x, x)
    let result = narrow(try expCore(clampExpArgument(widen(select(isNaN, vf.null, x)))))
    return select(isNaN, x, result)
  }

  /// Transcendentals.log.
  func logarithm(_ x: Value) throws -> Value {
    let zero = vf.null
    let ordinary = and(fcmp(.ogt, x, zero), fcmp(.olt, x, splat(f32(.infinity))))
    let result = narrow(try logCore(select(ordinary, x, splat(f32(1)))))
    let nanOrInfinity = select(fcmp(.olt, x, zero), splat(f32(.nan)), x)
    let special = select(fcmp(.oeq, x, zero), splat(f32(-.infinity)), nanOrInfinity)
    return select(ordinary, result, special)
  }

  /// Transcendentals.pow; `provedOrdinary` when the range analysis proved
  /// the operands inside the ordinary path (``RangeProofs/ordinaryPow``): no
  /// test, no special-case branch, and −0 (which the proof admits only where it acts as
  /// +0) meets the zero case directly; `provedNormal` when it also proved the
  /// result a normal float (``RangeProofs/normalPow``): no clamp of the
  /// exponent, one scale by 2ᵏ.
  func power(_ x: Value, _ y: Value, provedOrdinary: Bool = false, provedNormal: Bool = false) throws -> Value {
    let zero = vf.null
    var xs = x, ys = y, ordinary: Value?, ax = x
    if !provedOrdinary {
      let xOrdinary = b.icmp(.ult, b.bitcast(x, to: vi), splat(i32(0x7f80_0000)))  // +0 ≤ x < +∞
      let yFinite = fcmp(.olt, try call("llvm.fabs", [vf], [y]), splat(f32(.infinity)))
      ordinary = and(xOrdinary, yFinite)
      // The ordinary path runs on |x| where |x| and y are finite: a negative base's magnitude (powSpecial).
      ax = try call("llvm.fabs", [vf], [x])
      let magnitude = and(b.icmp(.ult, b.bitcast(ax, to: vi), splat(i32(0x7f80_0000))), yFinite)
      xs = select(magnitude, ax, splat(f32(1)))
      ys = select(magnitude, y, zero)
    }
    let (head, tail) = try powExponent(xs, ys)
    let core = try exp2Core(head, tail, normal: provedOrdinary && provedNormal)
    let ofZero = select(
      fcmp(.ogt, ys, zero), zero, select(fcmp(.olt, ys, zero), splat(f32(.infinity)), splat(f32(1))))
    let exact = select(fcmp(.oeq, ys, splat(f32(1))), xs, core)  // pow(x, 1) = x
    let fast = select(fcmp(.oeq, xs, zero), ofZero, exact)
    guard let ordinary else { return fast }
    return try withSpecialCases("pow", ordinary: ordinary, fast: fast) { try powSpecial(x, y, ax: ax, magnitude: fast) }
  }

  /// Transcendentals.powSpecial, lane by lane as selects; `magnitude` is
  /// the ordinary path's `|x|ʸ` where |x| and y are finite.
  private func powSpecial(_ x: Value, _ y: Value, ax: Value, magnitude: Value) throws -> Value {
    let zero = vf.null, one = splat(f32(1)), infinity = splat(f32(.infinity)), nan = splat(f32(.nan))
    let ay = try call("llvm.fabs", [vf], [y])
    let infinite = select(
      fcmp(.oeq, ax, one), one,
      select(b.icmp(.eq, fcmp(.olt, ax, one), fcmp(.olt, y, zero)), infinity, zero))
    let integer = fcmp(.oeq, try call("llvm.trunc", [vf], [y]), y)
    let half = fmul(y, splat(f32(0.5)))
    let odd = and(integer, fcmp(.une, try call("llvm.trunc", [vf], [half]), half))
    let xNegative = b.icmp(.slt, b.bitcast(x, to: vi), vi.null)
    let axInfinite = fcmp(.oeq, ax, infinity)
    let finiteNonzero = and(fcmp(.one, ax, zero), b.not(axInfinite))
    let negativeNonInteger = and(and(xNegative, b.not(integer)), finiteNonzero)
    let size = select(axInfinite, select(fcmp(.ogt, y, zero), infinity, zero), magnitude)
    let signed = select(and(xNegative, odd), b.fneg(size), size)
    let finiteY = select(negativeNonInteger, nan, signed)
    let anyY = select(fcmp(.oeq, ay, infinity), infinite, finiteY)
    let unordered = select(fcmp(.uno, x, y), nan, anyY)
    return select(b.or(fcmp(.oeq, y, zero), fcmp(.oeq, x, one)), one, unordered)
  }

  /// Transcendentals.atan2 (`y` first, as C's atan2).
  func arctangent2(_ y: Value, _ x: Value) throws -> Value {
    let infinity = splat(f32(.infinity)), zero = vf.null
    let ax = try call("llvm.fabs", [vf], [x]), ay = try call("llvm.fabs", [vf], [y])
    let bothZero = and(fcmp(.oeq, ax, zero), fcmp(.oeq, ay, zero))
    let finite = and(fcmp(.olt, ax, infinity), fcmp(.olt, ay, infinity))
    let ordinary = and(finite, b.not(bothZero))
    let one = splat(f32(1))
    let theta = try atan2Core(
      widen(select(ordinary, ay, one)), widen(select(ordinary, ax, one)),
      xNegative: and(ordinary, fcmp(.olt, x, zero)))
    let r = narrow(theta)
    let yNegative = b.icmp(.slt, b.bitcast(y, to: vi), vi.null)
    let fast = select(yNegative, b.fneg(r), r)
    return try withSpecialCases("atan2", ordinary: ordinary, fast: fast) {
      // Transcendentals.atan2Special, as selects: each the float nearest its angle.
      let angle = { (a: Double) in self.splat(self.f32(Float(a))) }
      let xNegative = b.icmp(.slt, b.bitcast(x, to: vi), vi.null)
      let yInfinite = fcmp(.oeq, ay, infinity), xInfinite = fcmp(.oeq, ax, infinity)
      let ofInfinity = select(
        xInfinite, select(xNegative, angle(3 * Double.pi / 4), angle(Double.pi / 4)), angle(Double.pi / 2))
      let r = select(yInfinite, ofInfinity, select(xNegative, angle(Double.pi), zero))
      let signed = select(yNegative, b.fneg(r), r)
      return select(fcmp(.uno, x, y), splat(f32(.nan)), signed)
    }
  }

  // MARK: the double-precision cores, as in Transcendentals

  private func clampExpArgument(_ arg: Value) -> Value {
    let limit = Transcendentals.expArgumentLimit
    return select(
      fcmp(.olt, arg, f64(-limit)), f64(-limit), select(fcmp(.ogt, arg, f64(limit)), f64(limit), arg))
  }

  private func expCore(_ arg: Value) throws -> Value {
    let k = try call("llvm.floor", [vd], [fadd(fmul(arg, f64(Transcendentals.log2e)), f64(0.5))])
    let r = try fma(b.fneg(k), f64(Transcendentals.ln2), arg)
    let p = try horner(Transcendentals.expSeries, r)
    let biased = b.add(b.fptosi(k, to: vi), splat(i32(1023)))
    let wide = b.zext(biased, to: t.vector(t.i64, w))
    let bits = b.shl(wide, splat(t.i64.constant(52)))
    return fmul(p, b.bitcast(bits, to: vd))
  }

  private func logCore(_ x: Value) throws -> Value {
    let tiny = fcmp(.olt, x, splat(f32(Float.leastNormalMagnitude)))
    let scaled = select(tiny, fmul(x, splat(f32(16_777_216))), x)
    let bits = b.bitcast(scaled, to: vi)
    let exponent = b.sub(b.ashr(bits, splat(i32(23))), select(tiny, splat(i32(127 + 24)), splat(i32(127))))
    let mantissa = b.or(and(bits, splat(i32(0x7f_ffff))), splat(i32(0x3f80_0000)))
    let m1 = b.bitcast(mantissa, to: vf)
    let big = fcmp(.ogt, m1, splat(f32(Transcendentals.sqrt2)))
    let m = select(big, fmul(m1, splat(f32(0.5))), m1)
    let e = select(big, b.add(exponent, splat(i32(1))), exponent)
    let md = widen(m)
    let s = fdiv(fsub(md, f64(1)), fadd(md, f64(1)))
    let z = fmul(s, s)
    let q = try horner(Transcendentals.logSeries, z)
    return try fma(b.sitofp(e, to: vd), f64(Transcendentals.ln2), try fma(fmul(s, z), q, fadd(s, s)))
  }

  // MARK: pow's single-precision cores, as in Transcendentals

  private func fmaFloat(_ a: Value, _ b: Value, _ c: Value) throws -> Value {
    try call("llvm.fma", [vf], [a, b, c])
  }

  private func hornerFloat(_ coefficients: [Float], _ x: Value) throws -> Value {
    try coefficients.dropFirst().reduce(splat(f32(coefficients[0]))) { p, c in try fmaFloat(p, x, splat(f32(c))) }
  }

  private func evenOddFloat(_ halves: Transcendentals.EvenOdd, _ x: Value) throws -> Value {
    let (even, odd) = halves
    let z = fmul(x, x)
    return try fmaFloat(x, try hornerFloat(odd, z), try hornerFloat(even, z))
  }

  /// Whether AVX-512F's 16-lane getexp/getmant/rndscale/scalef serve pow:
  /// exact operations that give the same values as the bit manipulation
  /// (subnormals included, with no rescaling), in fewer instructions.
  private var avx512: Bool { w == 16 && m.target.triple.hasPrefix("x86_64") && m.target.has("avx512f") }
  /// The mask of an AVX-512 intrinsic that writes every lane.
  private var allLanes: Value { t.i16.constant(0xFFFF) }

  /// `x = m·2ᵉ` with `m ∈ [√½, √2)` and `e` as a float, for `0 < x < ∞`.
  private func powReduce(_ x: Value) throws -> (m: Value, e: Value) {
    if avx512 {
      // getmant (interval [1, 2), the source's sign) and getexp give x = M·2ᴱ
      // exactly, subnormals too; M ≥ 2·√½ (the float √½'s mantissa field
      // 0x3504f3 or more) moves to M/2 and E + 1, as the subtraction of √½'s
      // bits does below.
      let current = i32(4)  // the rounding mode: MXCSR's
      let mantissa = try call("llvm.x86.avx512.mask.getmant.ps.512", [], [x, i32(0), vf.null, allLanes, current])
      let exponent = try call("llvm.x86.avx512.mask.getexp.ps.512", [], [x, vf.null, allLanes, current])
      let twiceSqrtHalf = Float(bitPattern: UInt32(Transcendentals.sqrtHalfBits) + 0x80_0000)
      let big = fcmp(.oge, mantissa, splat(f32(twiceSqrtHalf)))
      return (select(big, fmul(mantissa, splat(f32(0.5))), mantissa), select(big, fadd(exponent, splat(f32(1))), exponent))
    }
    let tiny = fcmp(.olt, x, splat(f32(Float.leastNormalMagnitude)))
    let scaled = select(tiny, fmul(x, splat(f32(16_777_216))), x)
    let sqrtHalf = splat(i32(Int(Transcendentals.sqrtHalfBits)))
    let bits = b.sub(b.bitcast(scaled, to: vi), sqrtHalf)
    let exponent = b.sub(b.ashr(bits, splat(i32(23))), select(tiny, splat(i32(24)), vi.null))
    let m = b.bitcast(b.add(and(bits, splat(i32(0x7f_ffff))), sqrtHalf), to: vf)
    return (m, b.sitofp(exponent, to: vf))
  }

  private func powExponent(_ x: Value, _ y: Value) throws -> (head: Value, tail: Value) {
    let (m, e) = try powReduce(x)
    let f = fsub(m, splat(f32(1)))
    let l = fmul(f, try evenOddFloat(Transcendentals.log2Halves, f))
    let sum = fadd(e, l)
    let sumTail = fsub(l, fsub(sum, e))
    let head = fmul(y, sum)
    return (head, try fmaFloat(y, sumTail, try fmaFloat(y, sum, b.fneg(head))))
  }

  /// `normal`: the head proved in −125…127 (``RangeProofs/normalPow``), where
  /// the clamp does not act and `p·2ᵏ` is a normal float, exact in one product.
  private func exp2Core(_ head: Value, _ tail: Value, normal: Bool) throws -> Value {
    let range = Transcendentals.exp2ArgumentRange
    let lo = splat(f32(range.lowerBound)), hi = splat(f32(range.upperBound))
    let t = normal ? head : select(fcmp(.olt, head, lo), lo, select(fcmp(.ogt, head, hi), hi, head))
    // rndscale with scale 0 rounds to the nearest integer, ties to even: what
    // adding and subtracting 1.5·2²³ does for |t| ≤ 2²², and t is within ±152.
    let bias = splat(f32(Transcendentals.roundingBias))
    let k =
      avx512
      ? try call("llvm.x86.avx512.mask.rndscale.ps.512", [], [t, i32(0), vf.null, allLanes, i32(4)])
      : fsub(fadd(t, bias), bias)
    let r = fadd(fsub(t, k), normal ? tail : select(fcmp(.oeq, t, head), tail, vf.null))
    let p = try evenOddFloat(Transcendentals.exp2Halves, r)
    if avx512 {
      // scalef: p·2ᵏ rounded once — exact where it is normal, and the one
      // rounding the two exact halves below give a subnormal (k ≥ −152, p in
      // [0.7, 1.42]: the first half never underflows, the second rounds).
      return try call("llvm.x86.avx512.mask.scalef.ps.512", [], [p, k, vf.null, allLanes, i32(4)])
    }
    let ki = b.fptosi(k, to: vi)
    func scale(_ n: Value) -> Value { b.bitcast(b.shl(b.add(n, splat(i32(127))), splat(i32(23))), to: vf) }
    if normal { return fmul(p, scale(ki)) }
    let k1 = b.ashr(ki, splat(i32(1)))
    return fmul(fmul(p, scale(k1)), scale(b.sub(ki, k1)))
  }

  private func atan2Core(_ ay: Value, _ ax: Value, xNegative: Value) throws -> Value {
    let swap = fcmp(.ogt, ay, ax)
    let t = fdiv(select(swap, ax, ay), select(swap, ay, ax))
    let big = fcmp(.ogt, t, f64(Transcendentals.tanPiOver8))
    let u = select(big, fdiv(fsub(t, f64(1)), fadd(t, f64(1))), t)
    let root = try call("llvm.sqrt", [vd], [fadd(f64(1), fmul(u, u))])
    let v = fdiv(u, fadd(f64(1), root))
    let w = fmul(v, v)
    let q = try horner(Transcendentals.atanSeries, w)
    var theta = fadd(select(big, f64(Double.pi / 4), f64(0)), fmul(f64(2), try fma(fmul(v, w), q, v)))
    theta = select(swap, fsub(f64(Double.pi / 2), theta), theta)
    return select(xNegative, fsub(f64(Double.pi), theta), theta)
  }

  // MARK: the special cases' branch

  /// `fast` where `ordinary`; elsewhere `special()`, computed in a branch that
  /// only vectors with a non-ordinary lane take.
  func withSpecialCases(_ name: String, ordinary: Value, fast: Value, special: () throws -> Value) throws -> Value {
    let fn = b.insertBlock.parent
    let slow = fn.appendBasicBlock(named: "\(name).special")
    let merge = fn.appendBasicBlock(named: "\(name).done")
    let all = try call("llvm.vector.reduce.and", [vb], [ordinary])
    let fastEnd = b.insertBlock
    b.condBr(all, then: merge, else: slow)

    b.position(atEndOf: slow)
    let slowResult = select(ordinary, fast, try special())
    let slowEnd = b.insertBlock
    b.br(merge)

    b.position(atEndOf: merge)
    let phi = b.phi(vf)
    phi.addIncoming([(fast, fastEnd), (slowResult, slowEnd)])
    return phi
  }
}
