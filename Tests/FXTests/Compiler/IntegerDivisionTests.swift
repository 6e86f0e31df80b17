import FX
import Foundation
import Testing

/// C's integer division and remainder (`quot`, `rem`, `uquot`, `urem`): the
/// semantics table's values, and the JIT against the interpreter on every edge
/// (zero divisors, `Int32.min / -1`, negative operands, unsigned wrap).
struct IntegerDivisionTests {
  @Test func semanticsAreC() {
    #expect(Semantics.quotient(-7, 2) == -3)
    #expect(Semantics.remainder(-7, 2) == -1)
    #expect(Semantics.quotient(7, -2) == -3)
    #expect(Semantics.remainder(7, -2) == 1)
    #expect(Semantics.quotient(5, 0) == 0)
    #expect(Semantics.remainder(5, 0) == 0)
    #expect(Semantics.quotient(.min, -1) == .min)
    #expect(Semantics.remainder(.min, -1) == 0)
    #expect(Semantics.unsignedQuotient(-1, 16) == 0x0FFF_FFFF)
    #expect(Semantics.unsignedRemainder(-1, 16) == 15)
    #expect(Semantics.unsignedQuotient(3, 0) == 0)
  }

  /// Operands from the pixel position mixed with edge values; every op JIT-compiled and interpreted.
  @Test(arguments: ["quot", "rem", "uquot", "urem"])
  func jitMatchesInterpreter(_ name: String) throws {
    let ops: [String: (Expr, Expr) -> Expr] = [
      "quot": { quotient($0, $1) }, "rem": { remainder($0, $1) }, "uquot": { unsignedQuotient($0, $1) },
      "urem": { unsignedRemainder($0, $1) },
    ]
    let f = ops[name]!
    let effect = Effect.color(name) { p, _ in
      let i = int(floor(p.x)) - Expr.int(9)
      let j = int(floor(p.y)) - Expr.int(3)
      let a = select(i == Expr.int(0), Expr.int(Int(Int32.min)), i * Expr.int(123_457))
      let b = select(j == Expr.int(-3), Expr.int(-1), j)
      let r = f(a, b)
      return float4(float(r & Expr.int(0xFFFF)), float(r >> Expr.int(16)), float(a), float(b))
    }
    let input = randomImage(19, 7, seed: 5, format: .rgba32f)
    let (reference, out, d) = try MetalSupport.run(effect, [input])
    #expect(d == 0, "\(name): max difference \(d)")
    // Spot-check one pixel against the table: a = (0 − 9)·123457, b = 2 − 3 = −1 at (0, 2).
    let a: Int32 = -9 &* 123_457
    let expected = Semantics.evaluate(Op.named(name), [.int(a), .int(-1)])!.intValue
    #expect(reference[0, 2].x == Float(expected & 0xFFFF))
    _ = out
  }
}

extension Op {
  fileprivate static func named(_ name: String) -> Op {
    switch name {
    case "quot": .quot
    case "rem": .rem
    case "uquot": .uquot
    default: .urem
    }
  }
}
