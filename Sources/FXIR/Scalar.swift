import Foundation

/// The three scalar kinds of fxc's flat IR. Vectors (float2/3/4) exist only in
/// the Swift front end (``Expr``); lowering splits them into scalar lanes, so a
/// kernel is structure-of-arrays by construction.
public enum ScalarKind: UInt8, Hashable, Sendable, CustomStringConvertible {
  /// IEEE-754 binary32.
  case float
  /// 32-bit two's-complement integer; arithmetic wraps around.
  case int
  /// true / false.
  case bool

  public var description: String {
    switch self {
    case .float: "float"
    case .int: "int"
    case .bool: "bool"
    }
  }
}

/// A scalar constant. Floats are kept by bit pattern so that NaN constants
/// hash and compare (hash-consing must see two NaN constants as one node).
public enum Scalar: Hashable, Sendable, CustomStringConvertible {
  case float(bits: UInt32)
  case int(Int32)
  case bool(Bool)

  public static func float(_ v: Float) -> Scalar { .float(bits: v.bitPattern) }

  public var kind: ScalarKind {
    switch self {
    case .float: .float
    case .int: .int
    case .bool: .bool
    }
  }

  /// The value as a float (ints converted, bools 0/1).
  public var floatValue: Float {
    switch self {
    case .float(let b): Float(bitPattern: b)
    case .int(let i): Float(i)
    case .bool(let b): b ? 1 : 0
    }
  }

  public var intValue: Int32 {
    switch self {
    case .int(let i): i
    case .float(let b): Semantics.toInt(Float(bitPattern: b))
    case .bool(let b): b ? 1 : 0
    }
  }

  public var boolValue: Bool {
    switch self {
    case .bool(let b): b
    case .int(let i): i != 0
    case .float(let b): Float(bitPattern: b) != 0
    }
  }

  public var description: String {
    switch self {
    case .float(let b):
      let v = Float(bitPattern: b)
      return v == v.rounded() && abs(v) < 1e7 ? String(format: "%.1f", v) : "\(v)"
    case .int(let i): return "\(i)"
    case .bool(let b): return "\(b)"
    }
  }
}
