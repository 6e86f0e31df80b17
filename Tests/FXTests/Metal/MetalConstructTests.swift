import FX
import Foundation
import Testing

/// Every construct of the front end (Fixtures/metal/constructs.metal), each
/// function JIT-compiled for a pinned target against the interpreter, on a
/// random image and sizes around the vector width.
struct MetalConstructTests {
  static let library = Result { try MetalSupport.library("constructs.metal") }

  /// The arguments each function is called with.
  static let arguments: [String: [ShaderArgument]] = [
    "literalsAndSwizzles": [.float(0.7)],
    "branches": [.float(0.4)],
    "mathBuiltins": [.float(Param.uniform("time", 0.3))],
    "geometry": [],
    "counted": [.float(Param.uniform("count", 7))],
    "earlyExits": [],
    "integers": [],
    "structsAndHelpers": [.size],
    "macrosAndArrays": [],
    "ripple": [.float(4), .size],
    "blur": [.float(2)],
    "stripes": [.float(3), .color(Color(1, 0, 0, 0.5)), .color(Color(0, 0, 1))],
    "gradient": [.floatArray([0.2, 0.3, 0.5]), .boundingRect],
    "palette": [.colorArray([Color(0, 0, 0), Color(1, 0.5, 0), Color(1, 1, 1, 0.5)])],
    "textured": [.image(.input(1)), .size],
    "matrices": [],
    "switches": [.float(Param.uniform("shift", 1))],
    "bitCasts": [],
    "outerCounter": [.float(Param.uniform("n", 5))],
  ]

  /// `outerCounter` by hand: i counts to n; j = 1, 4, 7, … stops (break) at the first j > x;
  /// k counts to the row; all three counted (no 1,024-iteration general loop).
  @Test func outerCountersByHand() throws {
    let shader = try Self.library.get().outerCounter(.float(Expr(Float(5))))
    // Only k's per-pixel bound may cut off (at 65,536): i's and j's trip counts are constants.
    #expect(shader.warnings.map(\.line) == [265], "\(shader.warnings)")
    let input = randomImage(9, 4, seed: 7, format: .rgba32f)
    let (reference, _, difference) = try MetalSupport.run(shader.effect, [input])
    #expect(difference == 0)
    for y in 0..<4 {
      for x in 0..<9 {
        let j = stride(from: 1, to: 100, by: 3).first { Float($0) > Float(x) + 0.5 }!
        #expect(reference[x, y] == SIMD4(5.0 / 16, Float(j) / 128, Float(y) / 16, 1), "\(x), \(y)")
      }
    }
  }

  /// `bitCasts` by hand: the bits of x = i + 0.5 give x back and its exponent
  /// floor(log2 x) (−1 for 0.5); (0x3f800000, 0x40000000) are (1, 2); the sign
  /// bit of −y, shifted arithmetically by 31, is −1.
  @Test func bitCastsByHand() throws {
    let shader = try Self.library.get().bitCasts()
    let input = randomImage(9, 2, seed: 3, format: .rgba32f)
    let (reference, _, difference) = try MetalSupport.run(shader.effect, [input])
    #expect(difference == 0)
    for i in 0..<9 {
      let x = Float(i) + 0.5
      #expect(reference[i, 1].x == x / 64)
      #expect(reference[i, 1].y == Float(Int(log2(x).rounded(.down))) / 8, "x = \(x)")
      #expect(reference[i, 1].z == 0)
    }
    #expect(Semantics.evaluate(.floatBits, [.float(1)]) == .int(0x3F80_0000))
    #expect(Semantics.evaluate(.bitsFloat, [.int(0x4000_0000)]) == .float(2))
    #expect(Semantics.evaluate(.floatBits, [.float(-0.0)]) == .int(Int32.min))
  }

  /// `switches` by hand: k = (x + shift) % 5 picks r (0 → 0.1; 1, 2 → 0.2 then 0.3 added by falling
  /// into 3; 3 → 0.3; 4 → default 0.9); g = 0.125 + 0.0625 (i = 0), nothing (1: continue),
  /// 0.125 + 0.0625 (2), 0.0625 (3: the switch's break) = 0.4375; rows y % 3 == 2 return blue.
  @Test func switchesByHand() throws {
    let shader = try Self.library.get().switches(.float(Expr(Float(2))))
    let input = randomImage(7, 3, seed: 5, format: .rgba32f)
    let (reference, jit, difference) = try MetalSupport.run(shader.effect, [input])
    #expect(difference <= 1e-6)
    let r: [Float] = [0.1, 0.5, 0.5, 0.3, 0.9]
    for x in 0..<7 {
      #expect(abs(reference[x, 0].x - r[(x + 2) % 5]) <= 1e-6, "x = \(x)")
      #expect(abs(reference[x, 1].y - 0.4375) <= 1e-6)
      #expect(reference[x, 2] == SIMD4(0, 0, 1, 1) && jit[x, 2] == SIMD4(0, 0, 1, 1))
    }
  }

  @Test func everyFunctionIsListed() throws {
    let names = try Self.library.get().functions.map(\.name)
    #expect(Set(names) == Set(Self.arguments.keys))
    let kinds = Dictionary(uniqueKeysWithValues: try Self.library.get().functions.map { ($0.name, $0.kind) })
    #expect(kinds["ripple"] == .distortion)
    #expect(kinds["blur"] == .layer)
    #expect(kinds["stripes"] == .fill)
    #expect(kinds["branches"] == .color)
  }

  @Test(arguments: arguments.keys.sorted())
  func jitMatchesInterpreter(_ name: String) throws {
    let library = try Self.library.get()
    let shader = try library.function(named: name).bind(Self.arguments[name]!)
    let count = name == "textured" ? 2 : 1
    let sets = [(1, 1), (7, 3), (17, 9), (33, 5)].map { w, h in
      [randomImage(w, h, seed: UInt64(w * 3 + h), format: .rgba32f), randomImage(5, 4, seed: 2, format: .rgba32f)].prefix(count)
    }
    let d = try MetalSupport.maxJITDifference(shader.effect, sets.map(Array.init))
    #expect(d <= 1e-4, "\(name): max difference \(d)")
  }
}
