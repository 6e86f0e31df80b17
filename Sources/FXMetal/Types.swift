import FXDSL
import FXIR

/// The scalar kinds of Metal that fxc computes. `half` is computed in fp32
/// (so results can differ from an Apple GPU by half-precision rounding);
/// `uint` is an int whose bits are read as unsigned by division, remainder,
/// comparison, shifts right and conversion to float.
enum ScalarType: String, Equatable, CaseIterable {
  case bool, int, uint, half, float

  /// The usual arithmetic conversions' order: the wider kind wins.
  var rank: Int {
    switch self {
    case .bool: 0
    case .int: 1
    case .uint: 2
    case .half: 3
    case .float: 4
    }
  }

  var isFloating: Bool { self == .half || self == .float }
  var isInteger: Bool { self == .int || self == .uint }
}

/// A resolved Metal type.
// Only the recursive cases are boxed: a global table of boxed vector and
// matrix types (``builtins``) was reported leaked by LeakSanitizer, which
// cannot follow a box's pointer inside an enum payload (scripts/sanitize.sh).
enum MetalType: Equatable, CustomStringConvertible {
  /// A scalar (`lanes == 1`) or vector.
  case vector(ScalarType, Int)
  /// `floatCxR`: `columns` column vectors of `rows` lanes.
  case matrix(ScalarType, columns: Int, rows: Int)
  indirect case array(MetalType, Int)
  case structure(String, [(name: String, type: MetalType)])
  /// `SwiftUI::Layer`.
  case layer
  /// `texture2d<half>` / `texture2d<float>`.
  case texture
  case sampler
  /// `device const T *` (a `.floatArray` / `.colorArray` argument).
  indirect case buffer(MetalType)
  case void

  static func == (a: MetalType, b: MetalType) -> Bool { a.description == b.description }

  static func scalar(_ s: ScalarType) -> MetalType { .vector(s, 1) }
  static let bool = MetalType.scalar(.bool)
  static let int = MetalType.scalar(.int)
  static let uint = MetalType.scalar(.uint)
  static let float = MetalType.scalar(.float)
  static let float2 = MetalType.vector(.float, 2)
  static let float4 = MetalType.vector(.float, 4)

  var description: String {
    switch self {
    case .vector(let s, let n): n == 1 ? s.rawValue : "\(s.rawValue)\(n)"
    case .matrix(let s, let c, let r): "\(s.rawValue)\(c)x\(r)"
    case .array(let e, let n): "\(e)[\(n)]"
    case .structure(let name, _): name
    case .layer: "SwiftUI::Layer"
    case .texture: "texture2d<half>"
    case .sampler: "sampler"
    case .buffer(let e): "device const \(e) *"
    case .void: "void"
    }
  }

  /// How many scalars a value of this type flattens to.
  var scalarCount: Int {
    switch self {
    case .vector(_, let n): n
    case .matrix(_, let c, let r): c * r
    case .array(let e, let n): e.scalarCount * n
    case .structure(_, let fields): fields.reduce(0) { $0 + $1.type.scalarCount }
    default: 0
    }
  }

  /// The scalar kind of every lane, in flattened order.
  var scalarKinds: [ScalarType] {
    switch self {
    case .vector(let s, let n): Array(repeating: s, count: n)
    case .matrix(let s, let c, let r): Array(repeating: s, count: c * r)
    case .array(let e, let n): Array([[ScalarType]](repeating: e.scalarKinds, count: n).joined())
    case .structure(_, let fields): fields.flatMap(\.type.scalarKinds)
    default: []
    }
  }

  var scalarType: ScalarType? {
    switch self {
    case .vector(let s, _), .matrix(let s, _, _): s
    default: nil
    }
  }

  var lanes: Int {
    if case .vector(_, let n) = self { return n }
    return 0
  }

  var isNumeric: Bool {
    if case .vector = self { return true }
    return false
  }

  /// A value's type has handles (a layer, texture, sampler or buffer) rather than scalars.
  var isHandle: Bool {
    switch self {
    case .layer, .texture, .sampler, .buffer: true
    default: false
    }
  }

  /// `sizeof`: the bytes a value takes in Metal (a 3-vector takes four
  /// lanes, a struct's fields are aligned); nil for handles.
  var byteSize: Int? { layout?.size }

  private var layout: (size: Int, alignment: Int)? {
    switch self {
    case .vector(let s, let n):
      let lane = s == .bool ? 1 : s == .half ? 2 : 4
      let size = lane * (n == 3 ? 4 : n)
      return (size, size)
    case .matrix(let s, let c, let r): return MetalType.vector(s, r).layout.map { ($0.size * c, $0.alignment) }
    case .array(let element, let n): return element.layout.map { ($0.size * n, $0.alignment) }
    case .structure(_, let fields):
      var offset = 0
      var alignment = 1
      for f in fields {
        guard let l = f.type.layout else { return nil }
        offset = (offset + l.alignment - 1) / l.alignment * l.alignment + l.size
        alignment = max(alignment, l.alignment)
      }
      return ((offset + alignment - 1) / alignment * alignment, alignment)
    default: return nil
    }
  }

  /// The built-in type names, with their resolved types (`float3`, `half4`, `float2x2`, `uint`…).
  static let builtins: [String: MetalType] = {
    var table: [String: MetalType] = ["void": .void, "sampler": .sampler, "texture2d": .texture, "SwiftUI::Layer": .layer]
    for s in ScalarType.allCases {
      table[s.rawValue] = .vector(s, 1)
      for n in 2...4 { table["\(s.rawValue)\(n)"] = .vector(s, n) }
      if s.isFloating {
        for c in 2...4 {
          for r in 2...4 { table["\(s.rawValue)\(c)x\(r)"] = .matrix(s, columns: c, rows: r) }
        }
      }
    }
    table["unsigned int"] = .uint
    table["size_t"] = .uint
    table["int32_t"] = .int
    table["uint32_t"] = .uint
    // The simd header's names for the same vectors: vector_float2, simd_half4,
    // packed_float3 (packing changes the layout in memory only, not the values).
    for s in [ScalarType.float, .half, .int, .uint, .bool] {
      for prefix in ["vector_", "simd_", "packed_"] {
        table["\(prefix)\(s.rawValue)"] = table[s.rawValue]
        for n in 2...4 { table["\(prefix)\(s.rawValue)\(n)"] = .vector(s, n) }
      }
      if s.isFloating {
        for c in 2...4 {
          for r in 2...4 { table["simd_\(s.rawValue)\(c)x\(r)"] = .matrix(s, columns: c, rows: r) }
        }
      }
    }
    return table
  }()

  /// Names that are types but that fxc does not compute, with the reason.
  static let unsupported: [String: String] = [
    "double": "double (Metal has no double on the GPU)", "char": "char", "uchar": "uchar", "long": "long",
    "ulong": "ulong", "texture1d": "texture1d", "texture3d": "texture3d", "texturecube": "texturecube",
    "depth2d": "depth2d", "atomic_int": "atomics", "atomic_uint": "atomics", "bfloat": "bfloat",
    "short": "short (16-bit wrap-around)", "ushort": "ushort (16-bit wrap-around)", "texture2d_array": "texture2d_array",
  ]

  /// `vec<T, n>` and `matrix<T, c, r>`: type names only before `<`, so that
  /// a variable may be called `matrix` (public shaders do).
  static let templateNames: Set<String> = ["vec", "matrix"]

  static func isBuiltinName(_ name: String) -> Bool {
    builtins[name] != nil || unsupported[name] != nil || name == "Layer"
      || name == "SwiftUI::Layer" || name == "half2x2" || name == "unsigned"
  }
}
