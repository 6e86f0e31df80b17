import FX
import FXTestSupport
import Testing

/// Issue 16, "total parameters": every catalogue effect at the edges of its
/// documented ranges gives a finite image (no NaN weights, no empty kernel,
/// no overflow) on a finite input; a sample of the cases is also checked
/// lowered and JIT-compiled against the staged interpreter. The whole set,
/// every evaluation, is `fxc fuzz --catalogue`.
@Suite("catalogue effects at their parameters' edges")
struct CatalogueFuzzTests {
  static let cases = CatalogueFuzz.cases(seed: 16, random: 1)

  @Test func theCasesReachEveryEndAndTheSubnormals() throws {
    let blur = try #require(Catalogue.spec(named: "gaussianBlur"))
    var rng = SplitMix64(seed: 1)
    let sigma = CatalogueFuzz.edgeValues(blur.parameters[0], random: 0, rng: &rng)
    #expect(sigma.contains(0) && sigma.contains(200) && sigma.contains(Float(200).nextDown))
    #expect(sigma.contains(.leastNonzeroMagnitude) && sigma.contains(.leastNormalMagnitude))
    #expect(sigma.allSatisfy { blur.parameters[0].range.contains($0) })
    let names = Set(Self.cases.map(\.effect.name))
    #expect(names == Set(Catalogue.names), "missing: \(Set(Catalogue.names).subtracting(names))")
    #expect(Self.cases.contains { $0.uniform } && Self.cases.contains { !$0.uniform })
  }

  @Test(arguments: 0..<4)
  func everyEdgeGivesAFiniteImage(part: Int) {
    let inputs = CatalogueFuzz.inputs(seed: 16)
    let share = Self.cases.enumerated().filter { $0.offset % 4 == part }.map(\.element)
    let findings = CatalogueFuzz.run(share, inputs: inputs, evaluations: [])
    #expect(findings.isEmpty, "\(findings.prefix(10).map(\.description).joined(separator: "\n"))")
  }

  @Test(arguments: 0..<4)
  func aSampleAgreesLoweredAndJITCompiled(part: Int) {
    let inputs = CatalogueFuzz.inputs(seed: 16)
    let sample = Self.cases.enumerated().filter { $0.offset % 29 == part }.map(\.element)
    let findings = CatalogueFuzz.run(sample, inputs: inputs, evaluations: [.lowered, .jit], target: Target.x86Level(0))
    #expect(findings.isEmpty, "\(findings.prefix(10).map(\.description).joined(separator: "\n"))")
  }
}
