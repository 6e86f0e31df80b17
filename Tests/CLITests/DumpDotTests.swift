import Foundation
import Testing

/// `fxc dump --dot` (issue 37): the compiled pipeline as a Graphviz graph —
/// every edge between declared nodes, each pass writing one buffer, a cut
/// between the segments it separates.
@Suite("fxc dump --dot")
struct DumpDotTests {
  @Test func aCutPipelineIsOneGraphOfItsSegments() throws {
    let result = try fxc(["dump", "-c", "gaussianBlur(sigma: 2) | resize(width: 300) | sepia", "--dot"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    let lines = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.first == "digraph fxc {" && lines.last == "}")
    #expect(lines.filter { $0.hasSuffix("{") }.count == lines.filter { $0 == "}" }.count, "balanced braces")
    let declared = Set(lines.filter { $0.contains(" [") }.map { String($0.prefix { $0 != " " }) })
    let edges = lines.filter { $0.contains(" -> ") }.map { $0.components(separatedBy: " -> ") }
    #expect(!edges.isEmpty)
    for edge in edges { #expect(edge.allSatisfy(declared.contains), "undeclared node in \(edge)") }
    #expect(declared.contains("cut1") && declared.contains("s1_p0"), "\(declared.sorted())")
    #expect(edges.contains(["s0_b3", "cut1"]) && edges.contains(["cut1", "s1_b0"]))
    // Every pass writes one buffer.
    for pass in declared.filter({ $0.contains("_p") }) { #expect(edges.filter { $0[0] == pass }.count == 1, "\(pass)") }
    #expect(result.stdout.contains("gaussianBlur(sigma: 2) horizontal") && result.stdout.contains("label=\"sepia(amount: 1)\""))
  }

  @Test func dotGoesAlone() throws {
    let result = try fxc(["dump", "-c", "sepia", "--dot", "--ir"])
    #expect(result.status == 2 && result.stderr.contains("--dot prints the graph alone"), "\(result)")
  }
}
