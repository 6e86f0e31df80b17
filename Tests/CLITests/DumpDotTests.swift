import FX
import Foundation
import Testing

@testable import fxc

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

/// `fxc run --check-map DIR` (issue 37): the difference from the interpreter as a picture.
@Suite("fxc run --check-map")
struct CheckMapTests {
  @Test func aDifferenceOfTwoLevelsIsMidGrey() throws {
    let a = try ImageBuffer(width: 5, height: 3, format: .rgba8)
    let b = try ImageBuffer(width: 5, height: 3, format: .rgba8)
    for y in 0..<3 {
      for x in 0..<5 {
        a[stored: x, y] = SIMD4(0.5, 0.5, 0.5, 1)
        b[stored: x, y] = SIMD4(0.5, 0.5, 0.5, 1)
      }
    }
    b[stored: 3, 1] = SIMD4(0.5, 0.5 + 2.0 / 255, 0.5, 1)
    let map = try DifferenceMap(a, b)
    #expect(abs(map.largest - 2.0 / 255) < 1e-6)
    let dir = try BatchScratch()
    try map.write(to: dir.file("m.png"))
    let (grey, info) = try ImageFile.read(dir.file("m.png"))
    #expect(info.layout == .gray)
    for y in 0..<3 {
      for x in 0..<5 { #expect(grey[stored: x, y].x * 255 == (x == 3 && y == 1 ? 128 : 0), "(\(x), \(y))") }
    }
  }

  @Test func theRunWritesAMapPerOutput() throws {
    let dir = try BatchScratch()
    let result = try BatchFXC.run(["run", "-c", "sepia | vignette", BatchFXC.rocket, "-o", "out/r.png", "--check-map", "maps"], in: dir.path)
    #expect(result.status == 0 && result.stdout.contains("check:"), "\(result)")
    let (map, _) = try ImageFile.read(dir.file("maps/r.png.diff.png"))
    #expect(map.width == 640 && map.height == 427)
  }
}
