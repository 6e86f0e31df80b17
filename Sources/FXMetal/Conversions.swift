import FXDSL
import FXIR

// Metal's conversion rules and constructors: scalars convert between kinds
// (C's rules), a scalar broadcasts into a vector, vectors of one length
// convert lane by lane; constructors concatenate lanes (`float4(rgb, 1)`),
// build matrices from a diagonal, columns or scalars, and structs from fields.

extension MetalTranslator {
  /// `value` as a value of `type`: implicitly (assignments, arguments, returns) or as a cast;
  /// a conversion to `half` rounds (``HalfPrecision``).
  func convert(_ value: MetalValue, to type: MetalType, at location: SourceLocation, explicit: Bool = false) throws -> MetalValue {
    if value.type == type { return value }
    return roundedHalf(try converted(value, to: type, at: location, explicit: explicit))
  }

  private func converted(_ value: MetalValue, to type: MetalType, at location: SourceLocation, explicit: Bool) throws -> MetalValue {
    switch (value.type, type) {
    case (.vector(let s, let n), .vector(let t, let m)) where n == m || n == 1:
      let lanes = value.scalars.map { convertScalar($0, from: s, to: t) }
      return MetalValue(type, n == m ? lanes : Array(repeating: lanes[0], count: m))
    case (.vector(let s, 1), .matrix(let t, _, _)) where explicit:
      return try construct(type, [MetalValue(.scalar(s), value.scalars)], at: location).converted(t)
    case (.matrix(let s, let c, let r), .matrix(let t, let c2, let r2)) where c == c2 && r == r2:
      return MetalValue(type, value.scalars.map { convertScalar($0, from: s, to: t) })
    case (.array(let e, let n), .array(let f, let m)) where n == m && e.scalarCount == f.scalarCount:
      let kinds = zip(e.scalarKinds, f.scalarKinds)
      let converted = value.scalars.enumerated().map { k, x in
        let (from, to) = Array(kinds)[k % e.scalarCount]
        return convertScalar(x, from: from, to: to)
      }
      return MetalValue(type, converted)
    default:
      throw MetalError("cannot convert a value of type \(value.type) to \(type)", at: location)
    }
  }

  /// `T(arguments…)` for a vector, matrix or struct type `T`; `half` lanes rounded (``HalfPrecision``).
  func construct(_ type: MetalType, _ arguments: [MetalValue], at location: SourceLocation) throws -> MetalValue {
    roundedHalf(try constructed(type, arguments, at: location))
  }

  private func constructed(_ type: MetalType, _ arguments: [MetalValue], at location: SourceLocation) throws -> MetalValue {
    for a in arguments where !a.type.isNumeric {
      if case .matrix = a.type { continue }
      if case .structure = a.type, arguments.count == 1, a.type == type { return a }
      throw MetalError("cannot use a value of type \(a.type) to construct \(type)", at: location)
    }
    switch type {
    case .vector(let k, let n):
      if arguments.count == 1, arguments[0].scalars.count == 1 || arguments[0].type.lanes == n {
        return try convert(arguments[0], to: type, at: location, explicit: true)
      }
      if arguments.count == 1, case .vector(let s, let m) = arguments[0].type, m > n {
        // `half3(someHalf4)`: Metal keeps the first n components.
        return .vector(k, arguments[0].scalars.prefix(n).map { convertScalar($0, from: s, to: k) })
      }
      let lanes = arguments.flatMap { a in a.scalars.map { convertScalar($0, from: a.type.scalarType!, to: k) } }
      guard lanes.count == n, arguments.allSatisfy({ $0.type.isNumeric }) else {
        let given = arguments.map(\.type.description).joined(separator: ", ")
        throw MetalError("\(type)(\(given)) has \(lanes.count) components; \(type) needs \(n)", at: location)
      }
      return .vector(k, lanes)
    case .matrix(let k, let c, let r):
      if arguments.count == 1, arguments[0].scalars.count == 1 {
        let d = convertScalar(arguments[0].scalars[0], from: arguments[0].type.scalarType!, to: k)
        return MetalValue(type, (0..<c).flatMap { j in (0..<r).map { i in i == j ? d : zeroScalar(k) } })
      }
      if arguments.count == 1, case .matrix(_, let c2, let r2) = arguments[0].type, c2 == c, r2 == r {
        return try convert(arguments[0], to: type, at: location)
      }
      let lanes = arguments.flatMap { a in a.scalars.map { convertScalar($0, from: a.type.scalarType!, to: k) } }
      let columnsOnly = arguments.count == c && arguments.allSatisfy { $0.type.lanes == r }
      guard lanes.count == c * r, columnsOnly || arguments.allSatisfy({ $0.type.lanes == 1 }) else {
        throw MetalError("\(type) needs \(c) column vectors of \(r) or \(c * r) scalars", at: location)
      }
      return MetalValue(type, lanes)
    case .structure(_, let fields):
      guard arguments.count == fields.count else {
        throw MetalError("\(type) has \(fields.count) fields; \(arguments.count) values given", at: location)
      }
      let values = try zip(arguments, fields).map { try convert($0, to: $1.type, at: location) }
      return MetalValue(type, values.flatMap(\.scalars))
    default:
      throw MetalError("cannot construct a value of type \(type)", at: location)
    }
  }
}

extension MetalValue {
  /// A matrix or vector value with every scalar converted to `kind`.
  func converted(_ kind: ScalarType) -> MetalValue {
    switch type {
    case .matrix(let s, let c, let r): MetalValue(.matrix(kind, columns: c, rows: r), scalars.map { convertScalar($0, from: s, to: kind) })
    case .vector(let s, let n): MetalValue(.vector(kind, n), scalars.map { convertScalar($0, from: s, to: kind) })
    default: self
    }
  }
}

extension MetalTranslator {
  /// `as_type<T>(v)`: the same bits as another 32-bit kind, lane for lane
  /// (float ↔ int ↔ uint scalars and vectors of one lane count).
  func bitCast(_ v: MetalValue, to type: MetalType, at location: SourceLocation) throws -> MetalValue {
    let kinds: [ScalarType] = [.float, .int, .uint]
    guard case .vector(let from, let n) = v.type, case .vector(let to, let m) = type, n == m,
      kinds.contains(from), kinds.contains(to)
    else {
      throw MetalError(
        "unsupported: as_type<\(type)> of \(v.type); fxc reinterprets float, int and uint scalars and vectors "
          + "of one lane count (half is computed in fp32, so its 16 bits do not exist)", at: location)
    }
    let scalars = v.scalars.map { e -> Expr in
      if from == .float, to != .float { return floatBits(e) }
      if from != .float, to == .float { return bitsFloat(e) }
      return e
    }
    return MetalValue(type, scalars)
  }
}
