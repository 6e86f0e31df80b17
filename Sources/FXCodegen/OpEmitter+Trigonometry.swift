import FXIR
import FXLLVM

/// Vectorised sin and cos, bit for bit ``Trigonometry`` (the interpreter's
/// meaning): the same operations in the same order.
extension OpEmitter {
  /// Cephes `sinf`/`cosf` for |x| ≤ 8192 on every lane; a vector with a lane
  /// beyond (or NaN, ±∞) also takes a branch that reduces those lanes exactly
  /// in double (``largeReduction(_:)``) before the same polynomials, and gives
  /// NaN for NaN and ±∞.
  func sineOrCosine(_ x: Value, cosine: Bool) throws -> Value {
    let absolute = try call("llvm.fabs", [vf], [x])
    let inRange = b.fcmp(.ole, absolute, splat(f32(Trigonometry.polynomialLimit)))
    // Out-of-range lanes compute on 0 (their result is replaced), keeping fptosi defined.
    let ax = b.select(inRange, absolute, vf.null)
    func c(_ v: Float) -> Value { splat(f32(v)) }
    var j = b.fptosi(b.fmul(ax, c(Trigonometry.fourOverPi)), to: vi)
    j = b.and(b.add(j, splat(i32(1))), splat(i32(~1)))
    let y = b.sitofp(j, to: vf)
    let pi4 = Trigonometry.piOver4
    let r = b.fsub(b.fsub(b.fsub(ax, b.fmul(y, c(pi4.0))), b.fmul(y, c(pi4.1))), b.fmul(y, c(pi4.2)))
    let fast = polynomial(x, j: j, r: r, cosine: cosine)
    return try withSpecialCases(cosine ? "cos" : "sin", ordinary: inRange, fast: fast) {
      let finite = b.fcmp(.olt, absolute, splat(f32(.infinity)))
      // Every lane but the large finite ones reduces a stand-in (its result is replaced).
      let large = b.and(finite, b.not(inRange))
      let (jl, rl) = try largeReduction(b.select(large, absolute, c(16384)))
      return b.select(finite, polynomial(x, j: jl, r: rl, cosine: cosine), c(.nan))
    }
  }

  /// Trigonometry's polynomials on the remainder `r` of octant `j`, the sign
  /// and the choice of polynomial from `j` (and x's sign bit for sin).
  private func polynomial(_ x: Value, j: Value, r: Value, cosine: Bool) -> Value {
    func mul(_ p: Value, _ q: Value) -> Value { b.fmul(p, q) }
    func add(_ p: Value, _ q: Value) -> Value { b.fadd(p, q) }
    func sub(_ p: Value, _ q: Value) -> Value { b.fsub(p, q) }
    func c(_ v: Float) -> Value { splat(f32(v)) }
    let z = mul(r, r)
    // The same operations in the same order as Trigonometry (x + (−c) and x − c round alike).
    let (c0, c1, c2) = Trigonometry.cosCoefficients, (s0, s1, s2) = Trigonometry.sinCoefficients
    let cosPoly = add(sub(mul(mul(add(mul(add(mul(c(c0), z), c(c1)), z), c(c2)), z), z), mul(c(0.5), z)), c(1))
    let sinPoly = add(mul(mul(add(mul(add(mul(c(s0), z), c(s1)), z), c(s2)), z), r), r)
    let q = cosine ? b.add(j, splat(i32(2))) : j
    let zero = vi.null
    let useCos = b.icmp(.ne, b.and(q, splat(i32(2))), zero)
    var negate = b.icmp(.ne, b.and(q, splat(i32(4))), zero)
    if !cosine {
      // sin is odd: the sign bit of x (so that sin(−0) = −0), not x < 0.
      let signBit = b.icmp(.slt, b.bitcast(x, to: vi), zero)
      negate = b.xor(negate, signBit)
    }
    let v = b.select(useCos, cosPoly, sinPoly)
    return b.select(negate, b.fneg(v), v)
  }

  /// Trigonometry.reduceLarge for every lane of `ax` (finite, > 0): the
  /// octant and the remainder, by Payne and Hanek's reduction in double.
  private func largeReduction(_ ax: Value) throws -> (j: Value, r: Value) {
    let vl = t.vector(t.i64, w)
    func f64(_ v: Double) -> Value { splat(t.double.constant(real: v)) }
    func floor(_ v: Value) throws -> Value { try call("llvm.floor", [vd], [v]) }
    func twoSum(_ p: Value, _ q: Value) -> (Value, Value) {
      let s = b.fadd(p, q)
      let bb = b.fsub(s, p)
      return (s, b.fadd(b.fsub(p, b.fsub(s, bb)), b.fsub(q, bb)))
    }
    let bits = b.bitcast(ax, to: vi)
    let m = b.sitofp(b.or(b.and(bits, splat(i32(0x7f_ffff))), splat(i32(0x80_0000))), to: vd)
    let e = b.sub(b.lshr(bits, splat(i32(23))), splat(i32(150)))
    let quotient = b.sdiv(b.add(e, splat(i32(21))), splat(i32(24)))  // truncates toward zero, as Swift's /
    let first = b.select(b.icmp(.slt, quotient, vi.null), vi.null, quotient)
    let scale = b.sub(e, b.mul(first, splat(i32(24))))
    let chunks = Trigonometry.fourOverPiChunks
    func term(_ i: Int) -> Value {
      let index = b.add(first, splat(i32(i)))
      var chunk = f64(chunks[0])
      for k in 1..<chunks.count { chunk = b.select(b.icmp(.eq, index, splat(i32(k))), f64(chunks[k]), chunk) }
      // 2^(scale − 24i) from its exponent bits.
      let exponent = b.add(b.sext(b.sub(scale, splat(i32(24 * i))), to: vl), splat(t.i64.constant(1023)))
      let power = b.bitcast(b.shl(exponent, splat(t.i64.constant(52))), to: vd)
      return b.fmul(b.fmul(m, chunk), power)
    }
    func turns(_ v: Value) throws -> Value { b.fsub(v, b.fmul(f64(8), try floor(b.fmul(v, f64(0.125))))) }
    let a = try turns(b.fadd(try turns(term(0)), try turns(term(1))))
    let whole = try floor(a)
    let (low, lowError) = twoSum(term(2), term(3))
    let (s, error) = twoSum(b.fsub(a, whole), low)
    var k = try floor(s)
    var fraction = b.fadd(b.fsub(s, k), b.fadd(error, lowError))
    let negative = b.fcmp(.olt, fraction, f64(0))
    (fraction, k) = (b.select(negative, b.fadd(fraction, f64(1)), fraction), b.select(negative, b.fsub(k, f64(1)), k))
    let over = b.fcmp(.oge, fraction, f64(1))
    (fraction, k) = (b.select(over, b.fsub(fraction, f64(1)), fraction), b.select(over, b.fadd(k, f64(1)), k))
    let n = b.and(b.fptosi(b.fadd(whole, k), to: vi), splat(i32(7)))
    let odd = b.icmp(.ne, b.and(n, splat(i32(1))), vi.null)
    let units = b.select(odd, b.fsub(fraction, f64(1)), fraction)
    let r = b.fptrunc(b.fmul(units, f64(Double.pi / 4)), to: vf)
    return (b.select(odd, b.add(n, splat(i32(1))), n), r)
  }
}
