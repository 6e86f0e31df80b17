import FXDSL
import FXIR

/// Where an lvalue (or a part of any value) lives: a variable's — or a
/// temporary's — flattened scalars, and which of them. A subscript by a
/// per-pixel index has one choice per element, each under its condition.
struct Place {
  enum Root {
    case variable(String)
    case temporary(MetalValue)
  }

  var root: Root
  var type: MetalType
  /// The alternatives: under `condition` (nil: always), the scalars at `slots`.
  var choices: [(condition: Expr?, slots: [Int])]
  var location: SourceLocation
}

extension MetalTranslator {
  /// The place an expression denotes: a variable, a member, swizzle or
  /// subscript of a place, or a temporary holding any other value.
  func place(_ e: ExprSyntax) throws -> Place {
    switch e.kind {
    case .name(let n):
      if let v = lookup(n) {
        return Place(root: .variable(n), type: v.type, choices: [(nil, Array(0..<v.scalars.count))], location: e.location)
      }
      return temporary(try named(n, at: e.location), e.location)
    case .member(let base, let member):
      let p = try place(base)
      return try self.member(p, member, at: e.location)
    case .index(let base, let index):
      let p = try place(base)
      return try subscripted(p, try evaluate(index), at: e.location)
    default:
      return temporary(try evaluate(e), e.location)
    }
  }

  private func temporary(_ v: MetalValue, _ location: SourceLocation) -> Place {
    Place(root: .temporary(v), type: v.type, choices: [(nil, Array(0..<v.scalars.count))], location: location)
  }

  /// `.xyz`, `.rgba`, … of a vector, or a struct's field.
  private func member(_ p: Place, _ member: String, at location: SourceLocation) throws -> Place {
    switch p.type {
    case .vector(let s, let n):
      let lanes = try Swizzle.lanes(member, of: n, at: location)
      let type = MetalType.vector(s, lanes.count)
      return Place(root: p.root, type: type, choices: p.choices.map { c in (c.condition, lanes.map { c.slots[$0] }) }, location: location)
    case .structure(let name, let fields):
      var offset = 0
      for f in fields {
        if f.name == member {
          let range = offset..<(offset + f.type.scalarCount)
          return Place(
            root: p.root, type: f.type, choices: p.choices.map { ($0.condition, Array($0.slots[range])) }, location: location)
        }
        offset += f.type.scalarCount
      }
      let hint = suggestion(for: member, among: fields.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
      throw MetalError("no member named '\(member)' in '\(name)'\(hint)", at: location)
    default:
      if case .temporary(let v) = p.root, v.handle != nil {
        throw MetalError("'\(member)' of \(p.type) must be called: \(member)(…)", at: location)
      }
      throw MetalError("member reference '.\(member)' on a value of type \(p.type)", at: location)
    }
  }

  /// `a[i]` of an array (an element), a matrix (a column), a vector (a lane) or a buffer.
  private func subscripted(_ p: Place, _ index: MetalValue, at location: SourceLocation) throws -> Place {
    guard index.type.isNumeric, index.scalars.count == 1, let k = index.type.scalarType, k.isInteger || k == .bool else {
      throw MetalError("array subscript is not an integer (\(index.type))", at: location)
    }
    if case .buffer(let element) = p.type, case .buffer(let elements)? = try rootValue(p).handle {
      let count = elements.count / max(element.scalarCount, 1)
      // Metal leaves a read past the end undefined; fxc reads 0 from an empty array, else clamps the
      // index — a constant one too, so the array's length (a chain's list) never fails a function.
      if count == 0 { return temporary(MetalValue.zero(element), location) }
      var index = index
      if let c = index.scalars[0].constantValue {
        index = .vector(.int, [Expr.int(Swift.min(Swift.max(Int(c), 0), count - 1))])
      }
      return try subscripted(temporary(MetalValue(.array(element, count), elements), location), index, at: location)
    }
    let element: MetalType
    let count: Int
    switch p.type {
    case .array(let e, let n): (element, count) = (e, n)
    case .matrix(let s, let c, let r): (element, count) = (.vector(s, r), c)
    case .vector(let s, let n) where n > 1: (element, count) = (.scalar(s), n)
    default: throw MetalError("subscripted value of type \(p.type) is not an array, matrix or vector", at: location)
    }
    let size = element.scalarCount
    let i = index.scalars[0]
    if let c = i.constantValue {
      let n = Int(c)
      guard (0..<count).contains(n) else { throw MetalError("index \(n) is outside \(p.type)", at: location) }
      return Place(
        root: p.root, type: element, choices: p.choices.map { ($0.condition, Array($0.slots[(n * size)..<((n + 1) * size)])) },
        location: location)
    }
    // A per-pixel index: one choice per element. A read outside the array
    // reads the last element (``read(_:)`` ignores the last condition); a
    // write outside it writes nothing.
    var choices: [(condition: Expr?, slots: [Int])] = []
    for c in p.choices {
      for n in 0..<count {
        let hit = i == Expr.int(n)
        choices.append((conjunction(c.condition, hit), Array(c.slots[(n * size)..<((n + 1) * size)])))
      }
    }
    return Place(root: p.root, type: element, choices: choices, location: location)
  }

  private func rootValue(_ p: Place) throws -> MetalValue {
    switch p.root {
    case .variable(let n): return lookup(n)!
    case .temporary(let v): return v
    }
  }

  /// The value at a place.
  func read(_ p: Place) throws -> MetalValue {
    let root = try rootValue(p)
    if root.handle != nil { return root }
    let gather = { (slots: [Int]) in slots.map { root.scalars[$0] } }
    var result = gather(p.choices[p.choices.count - 1].slots)
    for c in p.choices.dropLast().reversed() {
      result = zip(gather(c.slots), result).map { choose(c.condition, $0, $1) }
    }
    return MetalValue(p.type, result)
  }

  /// Stores `value` (converted to the place's type) where the current statement runs.
  func write(_ p: Place, _ value: MetalValue, at location: SourceLocation) throws {
    guard case .variable(let name) = p.root else {
      throw MetalError("expression is not assignable (a constant, a parameter's handle or a temporary)", at: location)
    }
    let v = try convert(value, to: p.type, at: location)
    var root = lookup(name)!
    for c in p.choices where Set(c.slots).count != c.slots.count {
      throw MetalError("a swizzle with repeated lanes cannot be assigned", at: location)
    }
    let a = active()
    for c in p.choices {
      let condition = conjunction(a, c.condition)
      for (k, slot) in c.slots.enumerated() { root.scalars[slot] = choose(condition, v.scalars[k], root.scalars[slot]) }
    }
    store(name, root)
  }
}

/// Metal's swizzle names: `xyzw` or `rgba`, one to four lanes, not mixed.
enum Swizzle {
  static func lanes(_ name: String, of n: Int, at location: SourceLocation) throws -> [Int] {
    for set in ["xyzw", "rgba"] {
      let letters = Array(set)
      let lanes = name.map { letters.firstIndex(of: $0) }
      if !name.isEmpty, name.count <= 4, lanes.allSatisfy({ $0 != nil }) {
        let result = lanes.map { $0! }
        guard result.allSatisfy({ $0 < n }) else {
          throw MetalError("swizzle '.\(name)' reads past the \(n) lanes of the vector", at: location)
        }
        return result
      }
    }
    throw MetalError("invalid swizzle '.\(name)'; use x, y, z, w or r, g, b, a", at: location)
  }
}
