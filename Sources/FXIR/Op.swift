/// Which image a `sample` node reads: one of the graph's inputs or the result
/// of a stage.
public enum ImageRef: Hashable, Sendable, CustomStringConvertible {
  case input(Int)
  case stage(Int)

  public var description: String {
    switch self {
    case .input(let i): "in\(i)"
    case .stage(let s): "s\(s)"
    }
  }
}

/// Every operation of the flat scalar IR, listed once. Its facts — name,
/// operand and result kinds, cost, and what a pure op computes — are its
/// ``OpSpec`` (``Op/spec``, OpTable.swift), which the type checker, the
/// verifier, the printer, the constant folder and the interpreter read.
///
/// Two levels use this one op set:
/// - **stage programs** (one per effect application) read `position` and
///   `sample` images at continuous positions (DESIGN §2–3);
/// - **kernel programs** (after scheduling) read `pixelX/pixelY` and `load`
///   buffers at integer texel indices that lowering has already resolved
///   through the address mode, so every load is in bounds by construction.
public enum Op: Hashable, Sendable {
  case constant(Scalar)

  // Built-ins of a stage program.
  /// `position.x` / `.y`, in pixels; pixel `(i, j)` has its center at `(i+0.5, j+0.5)`.
  case positionX, positionY
  /// Output size in pixels, as ints (`size` is their float conversion).
  case width, height
  /// The declared parameter with this index; a float uniform of the kernel.
  case uniform(Int)
  /// Size of input image `k` in pixels (inputs need not have the output's size).
  case inputWidth(Int)
  case inputHeight(Int)
  /// `image.sample(float2(px, py)).channel` — operands (px, py), floats.
  case sample(ImageRef, Sampler, channel: Int)

  // Built-ins of a kernel program.
  /// The output pixel's integer column / row.
  case pixelX, pixelY
  /// Channel of buffer `b` at integer texel (ix, iy); operands must be in bounds.
  case load(buffer: Int, channel: Int)

  // Arithmetic on float or int operands (both of one kind); ints wrap.
  case add, sub, mul, neg, min, max, abs
  // Float only.
  case div, floor, ceil, sqrt, sin, cos, exp, log, pow, atan2
  /// `a·b + c` rounded once (IEEE 754 fusedMultiplyAdd; Metal's `fma`).
  case fma
  /// The nearest IEEE 754 binary16 (`half`) value, as a float: ties to even,
  /// ±∞ from ±65,520 on, binary16's subnormals kept, a NaN unchanged
  /// (``Semantics/roundHalf(_:)``; what an Apple GPU stores after a `half` op).
  case roundHalf
  // Comparisons (float or int operands) → bool. Ordered: false when a NaN is involved, except `ne`.
  case lt, le, gt, ge, eq, ne
  /// float → bool.
  case isNaN
  // Bitwise on int, logical on bool.
  case and, or, xor, not
  /// Shifts; the amount is taken mod 32. `shr` is arithmetic, `ushr` logical.
  case shl, shr, ushr
  /// Euclidean remainder for a positive divisor (result in 0..<b); 0 when b ≤ 0.
  case mod
  /// C's `/` and `%` on int: the quotient truncated toward zero and its
  /// remainder (the sign of `a`); `b == 0` gives 0 for both, and
  /// `Int32.min / -1` wraps to `Int32.min` (remainder 0). ``Semantics/quotient(_:_:)``.
  case quot, rem
  /// C's `/` and `%` on `uint`: the operands' bits read as unsigned 32-bit
  /// values; `b == 0` gives 0 for both.
  case uquot, urem
  /// float → int: truncation toward zero, saturating at Int32's bounds, NaN → 0.
  case toInt
  /// int → float, signed / as an unsigned 32-bit value.
  case toFloat, toFloatUnsigned
  /// Metal's `as_type` between 32-bit kinds: a float's 32 bits read as an
  /// int, and an int's read as a float (a NaN keeps its bits, so which NaN
  /// an arithmetic op makes shows: x86's default NaN is 0xFFC00000).
  case floatBits, bitsFloat
  /// (bool, a, b) → a where true, else b.
  case select
  /// int → the table's value at that index (``ConstantTable/value(at:)``):
  /// a loop's per-iteration constants (a Gaussian's weights), tabulated at
  /// compile time by ``Semantics`` so the loop no longer computes them.
  case table(ConstantTable)

  // Loops (``Loop``).
  /// Accumulator `result` of `loop` run over `lo..<hi`: operands
  /// `(lo, hi, initial values…, captured values…)`.
  case fold(Loop, result: Int)
  /// In a loop body: the index (int), accumulator `k`, captured value `k`.
  case loopIndex
  case loopAccumulator(Int, ScalarKind)
  case loopCapture(Int, ScalarKind)

  /// The kind of the result, or a message explaining why the operand kinds
  /// are wrong: the table's ``OpSpec/signature``.
  public func resultKind(_ args: [ScalarKind]) -> Result<ScalarKind, OpTypeError> {
    func need(_ count: Int, _ ok: Bool, _ result: ScalarKind) -> Result<ScalarKind, OpTypeError> {
      guard args.count == count, ok else {
        return .failure(OpTypeError(op: self, operands: args))
      }
      return .success(result)
    }
    let same = args.allSatisfy { $0 == args.first }
    let k = args.first ?? .float
    switch spec.signature {
    case .leaf(let kind):
      if case .constant(let s) = self { return need(0, true, s.kind) }
      return need(0, true, kind ?? .float)
    case .arithmetic(let arity): return need(arity, same && k != .bool, k)
    case .float(let arity): return need(arity, same && k == .float, .float)
    case .order: return need(2, same && k != .bool, .bool)
    case .equality: return need(2, same, .bool)
    case .floatTest: return need(1, k == .float, .bool)
    case .bitwise(let arity): return need(arity, same && k != .float, k)
    case .integer: return need(2, same && k == .int, .int)
    case .conversion(let from, let to): return need(1, k == from, to)
    case .select:
      return need(3, args.count == 3 && args[0] == .bool && args[1] == args[2], args.count == 3 ? args[1] : .float)
    case .read(let coordinate): return need(2, args == [coordinate, coordinate], .float)
    case .fold:
      guard case .fold(let loop, let k) = self, loop.accumulators.indices.contains(k) else {
        return .failure(OpTypeError(op: self, operands: args))
      }
      return need(loop.operandKinds.count, args == loop.operandKinds, loop.accumulators[k])
    }
  }

  /// True for ops whose value depends only on their operands (no reads, no built-ins).
  public var isPure: Bool { spec.isPure }

  /// The op's name as `fxc dump` prints it: the table's, with parameters.
  public var name: String {
    switch self {
    case .constant(let s): "\(s)"
    case .uniform(let i): "uniform[\(i)]"
    case .inputWidth(let k): "inputWidth[\(k)]"
    case .inputHeight(let k): "inputHeight[\(k)]"
    case .sample(let img, let s, let c): "sample[\(img), \(s), .\(Self.channelNames[c])]"
    case .load(let b, let c): "load[b\(b), .\(Self.channelNames[c])]"
    case .fold(_, let k): "fold.\(k)"
    case .loopAccumulator(let k, _): "accumulator[\(k)]"
    case .loopCapture(let k, _): "captured[\(k)]"
    case .table(let t): "\(t)"
    default: spec.name
    }
  }

  static let channelNames = ["r", "g", "b", "a"]
}

/// Operand kinds that an op does not accept.
public struct OpTypeError: Error, CustomStringConvertible, Equatable {
  public var op: Op
  public var operands: [ScalarKind]
  public var description: String {
    "\(op.name) cannot take (\(operands.map(\.description).joined(separator: ", ")))"
  }
}
