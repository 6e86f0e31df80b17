import Foundation

/// Everything known about one kind of ``Op``, in one place: its printed
/// name, the kinds of operands it takes and the kind it returns, whether it
/// is pure, a rough cost, and — for pure ops — what it computes, one scalar
/// at a time. The type checker and verifier (``Op/resultKind(_:)``), the
/// printer (``Op/name``), the constant folder and the interpreter
/// (``Semantics``) all read this table; the code generators are tested
/// against it. (tinygrad's one table per op.)
public struct OpSpec: Sendable {
  /// The operand and result kinds an op accepts.
  public enum Signature: Sendable {
    /// No operands; the result kind is given (nil: the constant's own).
    case leaf(ScalarKind?)
    /// `arity` operands of one kind, float or int; the result has that kind.
    case arithmetic(arity: Int)
    /// `arity` float operands; a float result.
    case float(arity: Int)
    /// Two operands of one kind, float or int; a bool result.
    case order
    /// Two operands of one kind, any; a bool result.
    case equality
    /// One float operand; a bool result.
    case floatTest
    /// `arity` operands of one kind, int or bool; the result has that kind.
    case bitwise(arity: Int)
    /// Two int operands; an int result.
    case integer
    /// One operand of kind `from`; a result of kind `to`.
    case conversion(from: ScalarKind, to: ScalarKind)
    /// (bool, a, b) with a and b of one kind; a result of that kind.
    case select
    /// Two coordinates of `kind` (positions or texel indices); a float channel.
    case read(ScalarKind)
    /// A loop's fold: the operands its ``Loop/operandKinds`` say; the accumulator's kind.
    case fold
  }

  /// What a pure op computes for each kind of operand it accepts.
  public struct Meaning: Sendable {
    public var float1: (@Sendable (Float) -> Float)? = nil
    public var float2: (@Sendable (Float, Float) -> Float)? = nil
    public var float3: (@Sendable (Float, Float, Float) -> Float)? = nil
    public var int1: (@Sendable (Int32) -> Int32)? = nil
    public var int2: (@Sendable (Int32, Int32) -> Int32)? = nil
    public var bool1: (@Sendable (Bool) -> Bool)? = nil
    public var bool2: (@Sendable (Bool, Bool) -> Bool)? = nil
    public var floatCompare: (@Sendable (Float, Float) -> Bool)? = nil
    public var intCompare: (@Sendable (Int32, Int32) -> Bool)? = nil
    public var floatTest: (@Sendable (Float) -> Bool)? = nil
    public var toInt: (@Sendable (Float) -> Int32)? = nil
    public var toFloat: (@Sendable (Int32) -> Float)? = nil
  }

  /// The name `fxc dump` prints (for parametrised ops, before the parameters).
  public var name: String
  public var signature: Signature
  /// Rough cost in vector instructions per vector of pixels (the loop plan's
  /// column-order choice weighs work with it).
  public var cost: Int
  /// For pure ops, what they compute; nil for reads and built-ins.
  public var meaning: Meaning?
  /// True when the value depends only on the operands (no reads, no built-ins).
  public var isPure: Bool { meaning != nil }

  static func leaf(_ name: String, _ kind: ScalarKind?) -> OpSpec { OpSpec(name: name, signature: .leaf(kind), cost: 0) }
}

extension Op {
  /// This op's entry of the table.
  public var spec: OpSpec {
    switch self {
    case .constant: OpSpec(name: "constant", signature: .leaf(nil), cost: 0, meaning: Meaning())
    case .positionX: .leaf("positionX", .float)
    case .positionY: .leaf("positionY", .float)
    case .width: .leaf("width", .int)
    case .height: .leaf("height", .int)
    case .uniform: .leaf("uniform", .float)
    case .inputWidth: .leaf("inputWidth", .int)
    case .inputHeight: .leaf("inputHeight", .int)
    case .sample: OpSpec(name: "sample", signature: .read(.float), cost: 8)
    case .pixelX: .leaf("pixelX", .int)
    case .pixelY: .leaf("pixelY", .int)
    case .load: OpSpec(name: "load", signature: .read(.int), cost: 1)
    case .fold: OpSpec(name: "fold", signature: .fold, cost: 1)
    case .loopIndex: .leaf("loopIndex", .int)
    case .loopAccumulator(_, let k): .leaf("accumulator", k)
    case .loopCapture(_, let k): .leaf("captured", k)
    case .table(let t):
      OpSpec(
        name: "table", signature: .conversion(from: .int, to: t.kind), cost: 1,
        meaning: t.kind == .float ? Meaning(toFloat: { t.value(at: $0).floatValue }) : Meaning(int1: { t.value(at: $0).intValue }))
    default: Self.pureSpecs[pureIndex]
    }
  }

  private typealias Meaning = OpSpec.Meaning

  /// Position of a pure op in ``pureSpecs``.
  private var pureIndex: Int {
    switch self {
    case .add: 0
    case .sub: 1
    case .mul: 2
    case .neg: 3
    case .min: 4
    case .max: 5
    case .abs: 6
    case .div: 7
    case .floor: 8
    case .ceil: 9
    case .sqrt: 10
    case .sin: 11
    case .cos: 12
    case .exp: 13
    case .log: 14
    case .pow: 15
    case .atan2: 16
    case .lt: 17
    case .le: 18
    case .gt: 19
    case .ge: 20
    case .eq: 21
    case .ne: 22
    case .isNaN: 23
    case .and: 24
    case .or: 25
    case .xor: 26
    case .not: 27
    case .shl: 28
    case .shr: 29
    case .ushr: 30
    case .mod: 31
    case .toInt: 32
    case .toFloat: 33
    case .toFloatUnsigned: 34
    case .select: 35
    case .quot: 36
    case .rem: 37
    case .uquot: 38
    case .urem: 39
    case .floatBits: 40
    case .bitsFloat: 41
    case .fma: 42
    case .roundHalf: 43
    default: -1
    }
  }

  /// The pure ops, in ``pureIndex`` order. Ints wrap; comparisons are
  /// ordered (false with a NaN operand) except `ne`; float min/max are
  /// Metal's fmin/fmax (a NaN operand yields the other).
  private static let pureSpecs: [OpSpec] = [
    OpSpec(name: "add", signature: .arithmetic(arity: 2), cost: 1, meaning: Meaning(float2: { $0 + $1 }, int2: { $0 &+ $1 })),
    OpSpec(name: "sub", signature: .arithmetic(arity: 2), cost: 1, meaning: Meaning(float2: { $0 - $1 }, int2: { $0 &- $1 })),
    OpSpec(name: "mul", signature: .arithmetic(arity: 2), cost: 1, meaning: Meaning(float2: { $0 * $1 }, int2: { $0 &* $1 })),
    OpSpec(name: "neg", signature: .arithmetic(arity: 1), cost: 1, meaning: Meaning(float1: { -$0 }, int1: { 0 &- $0 })),
    OpSpec(
      name: "min", signature: .arithmetic(arity: 2), cost: 1,
      meaning: Meaning(float2: { Semantics.min($0, $1) }, int2: { Swift.min($0, $1) })),
    OpSpec(
      name: "max", signature: .arithmetic(arity: 2), cost: 1,
      meaning: Meaning(float2: { Semantics.max($0, $1) }, int2: { Swift.max($0, $1) })),
    OpSpec(
      name: "abs", signature: .arithmetic(arity: 1), cost: 1,
      meaning: Meaning(float1: { Swift.abs($0) }, int1: { $0 == .min ? .min : Swift.abs($0) })),
    OpSpec(name: "div", signature: .float(arity: 2), cost: 8, meaning: Meaning(float2: { $0 / $1 })),
    OpSpec(name: "floor", signature: .float(arity: 1), cost: 1, meaning: Meaning(float1: { Foundation.floor($0) })),
    OpSpec(name: "ceil", signature: .float(arity: 1), cost: 1, meaning: Meaning(float1: { Foundation.ceil($0) })),
    OpSpec(name: "sqrt", signature: .float(arity: 1), cost: 8, meaning: Meaning(float1: { $0.squareRoot() })),
    OpSpec(name: "sin", signature: .float(arity: 1), cost: 30, meaning: Meaning(float1: { Trigonometry.sin($0) })),
    OpSpec(name: "cos", signature: .float(arity: 1), cost: 30, meaning: Meaning(float1: { Trigonometry.cos($0) })),
    // exp and log run in double precision: twice the vectors.
    OpSpec(name: "exp", signature: .float(arity: 1), cost: 60, meaning: Meaning(float1: { Transcendentals.exp($0) })),
    OpSpec(name: "log", signature: .float(arity: 1), cost: 60, meaning: Meaning(float1: { Transcendentals.log($0) })),
    OpSpec(name: "pow", signature: .float(arity: 2), cost: 50, meaning: Meaning(float2: { Transcendentals.pow($0, $1) })),
    OpSpec(name: "atan2", signature: .float(arity: 2), cost: 120, meaning: Meaning(float2: { Transcendentals.atan2($0, $1) })),
    OpSpec(name: "lt", signature: .order, cost: 1, meaning: Meaning(floatCompare: { $0 < $1 }, intCompare: { $0 < $1 })),
    OpSpec(name: "le", signature: .order, cost: 1, meaning: Meaning(floatCompare: { $0 <= $1 }, intCompare: { $0 <= $1 })),
    OpSpec(name: "gt", signature: .order, cost: 1, meaning: Meaning(floatCompare: { $0 > $1 }, intCompare: { $0 > $1 })),
    OpSpec(name: "ge", signature: .order, cost: 1, meaning: Meaning(floatCompare: { $0 >= $1 }, intCompare: { $0 >= $1 })),
    OpSpec(
      name: "eq", signature: .equality, cost: 1,
      meaning: Meaning(bool2: { $0 == $1 }, floatCompare: { $0 == $1 }, intCompare: { $0 == $1 })),
    OpSpec(
      name: "ne", signature: .equality, cost: 1,
      meaning: Meaning(bool2: { $0 != $1 }, floatCompare: { $0 != $1 }, intCompare: { $0 != $1 })),
    OpSpec(name: "isNaN", signature: .floatTest, cost: 1, meaning: Meaning(floatTest: { $0.isNaN })),
    OpSpec(name: "and", signature: .bitwise(arity: 2), cost: 1, meaning: Meaning(int2: { $0 & $1 }, bool2: { $0 && $1 })),
    OpSpec(name: "or", signature: .bitwise(arity: 2), cost: 1, meaning: Meaning(int2: { $0 | $1 }, bool2: { $0 || $1 })),
    OpSpec(name: "xor", signature: .bitwise(arity: 2), cost: 1, meaning: Meaning(int2: { $0 ^ $1 }, bool2: { $0 != $1 })),
    OpSpec(name: "not", signature: .bitwise(arity: 1), cost: 1, meaning: Meaning(int1: { ~$0 }, bool1: { !$0 })),
    // Shift amounts are taken mod 32; shr is arithmetic, ushr logical.
    OpSpec(name: "shl", signature: .integer, cost: 1, meaning: Meaning(int2: { $0 << Semantics.shiftAmount($1) })),
    OpSpec(name: "shr", signature: .integer, cost: 1, meaning: Meaning(int2: { $0 >> Semantics.shiftAmount($1) })),
    OpSpec(
      name: "ushr", signature: .integer, cost: 1,
      meaning: Meaning(int2: { Int32(bitPattern: UInt32(bitPattern: $0) >> UInt32(Semantics.shiftAmount($1))) })),
    OpSpec(name: "mod", signature: .integer, cost: 4, meaning: Meaning(int2: { Semantics.euclidMod($0, $1) })),
    OpSpec(name: "toInt", signature: .conversion(from: .float, to: .int), cost: 4, meaning: Meaning(toInt: { Semantics.toInt($0) })),
    OpSpec(name: "toFloat", signature: .conversion(from: .int, to: .float), cost: 1, meaning: Meaning(toFloat: { Float($0) })),
    OpSpec(
      name: "toFloatUnsigned", signature: .conversion(from: .int, to: .float), cost: 1,
      meaning: Meaning(toFloat: { Float(UInt32(bitPattern: $0)) })),
    OpSpec(name: "select", signature: .select, cost: 1, meaning: Meaning()),
    OpSpec(name: "quot", signature: .integer, cost: 8, meaning: Meaning(int2: { Semantics.quotient($0, $1) })),
    OpSpec(name: "rem", signature: .integer, cost: 8, meaning: Meaning(int2: { Semantics.remainder($0, $1) })),
    OpSpec(name: "uquot", signature: .integer, cost: 8, meaning: Meaning(int2: { Semantics.unsignedQuotient($0, $1) })),
    OpSpec(name: "urem", signature: .integer, cost: 8, meaning: Meaning(int2: { Semantics.unsignedRemainder($0, $1) })),
    OpSpec(
      name: "floatBits", signature: .conversion(from: .float, to: .int), cost: 0,
      meaning: Meaning(toInt: { Int32(bitPattern: $0.bitPattern) })),
    OpSpec(
      name: "bitsFloat", signature: .conversion(from: .int, to: .float), cost: 0,
      meaning: Meaning(toFloat: { Float(bitPattern: UInt32(bitPattern: $0)) })),
    OpSpec(name: "fma", signature: .float(arity: 3), cost: 1, meaning: Meaning(float3: { $2.addingProduct($0, $1) })),
    OpSpec(name: "roundHalf", signature: .float(arity: 1), cost: 6, meaning: Meaning(float1: { Semantics.roundHalf($0) })),
  ]
}
