import FXDSL
import FXIR

// dfdx, dfdy and fwidth with a GPU's 2 × 2-quad meaning, coarse (DESIGN §9):
// pixels are grouped in quads of columns 2i, 2i + 1 and rows 2j, 2j + 1; in
// a quad every pixel gets dfdx = v(right) − v(left) and dfdy = v(bottom) −
// v(top), read along the quad's top row and left column (its top-left pixel
// q = (2⌊x/2⌋ + ½, 2⌊y/2⌋ + ½)), and fwidth = |dfdx| + |dfdy|. A pixel's value
// is a pure function of its position, so the neighbours' values are computed
// exactly, by evaluating `v` at their positions (``FXDSL/Expr/atPosition(_:)``;
// a value a loop computed is the loop run again at the neighbour's position).

extension MetalTranslator {
  func derivative(_ name: String, _ arguments: [ExprSyntax], at location: SourceLocation) throws -> MetalValue {
    guard arguments.count == 1 else { throw MetalError("\(name) takes 1 argument, got \(arguments.count)", at: location) }
    let v = try evaluate(arguments[0])
    guard case .vector(let kind, let n) = v.type, kind.isFloating else {
      throw MetalError("\(name) takes a float or half scalar or vector, not \(v.type)", at: location)
    }
    let x = position[0], y = position[1]
    let qx = floor(x * 0.5) * 2 + 0.5, qy = floor(y * 0.5) * 2 + 0.5
    func at(_ px: Expr, _ py: Expr) throws -> [Expr] {
      try v.scalars.map { e in
        guard let moved = e.atPosition(float2(px, py)) else {
          throw MetalError("unsupported: \(name), inside a loop, of a value that loop computes (take it after the loop)", at: location)
        }
        return moved
      }
    }
    let origin = try at(qx, qy)
    let dx = name == "dfdy" ? [] : zip(try at(qx + 1, qy), origin).map { $0 - $1 }
    let dy = name == "dfdx" ? [] : zip(try at(qx, qy + 1), origin).map { $0 - $1 }
    switch name {
    case "dfdx": return .vector(kind, dx)
    case "dfdy": return .vector(kind, dy)
    default: return .vector(kind, (0..<n).map { abs(dx[$0]) + abs(dy[$0]) })
    }
  }
}
