import Foundation
import Testing

/// `fxc dump --passes` of a few chains against golden files: the IR after
/// every pass, "(unchanged)" where a pass changed nothing, the loop plan at
/// x86-64-v2 (4 lanes, which every x86-64 machine runs) and the run-time
/// schedule. Times are replaced by "… ms". Regenerate after a deliberate
/// change with `scripts/update-golden.sh`.
@Suite("fxc dump --passes: golden files")
struct DumpGoldenTests {
  static let chains = [
    ("dump-sepia-vignette.txt", "sepia | vignette"),
    ("dump-blur-contrast.txt", "gaussianBlur(sigma: 0.7) | contrast(amount: 1.2)"),
    ("dump-pixelate-vignette.txt", "pixelate(blockSize: 8) | vignette"),
  ]

  /// The output with every duration and the host's cache size replaced, so
  /// that it is the same on every run and machine.
  static func normalised(_ text: String) -> String {
    text.replacingOccurrences(of: #"[0-9]+(\.[0-9]+)? ms"#, with: "… ms", options: .regularExpression)
      .replacingOccurrences(of: #"fit in [0-9]+ KiB"#, with: "fit in … KiB", options: .regularExpression)
      .replacingOccurrences(of: #"## compile: [^\n]*"#, with: "## compile: …", options: .regularExpression)
  }

  /// The same chain lowers to the same IR in every process (Swift seeds its
  /// hashing per process: a pass that iterated a `Set` numbered a loop's
  /// results differently from run to run, and the disk cache missed).
  @Test func dumpIsTheSameInEveryProcess() throws {
    let runs = try (0..<3).map { _ in
      try fxc(["dump", "--chain", "gaussianBlur(sigma: 2) | boxBlur(3) | unsharpMask", "--passes", "--target", "x86-64-v2"])
    }
    #expect(runs.allSatisfy { $0.status == 0 })
    #expect(Set(runs.map { Self.normalised($0.stdout) }).count == 1)
  }

  @Test(arguments: chains.map(\.0))
  func passesMatchGolden(file: String) throws {
    #if arch(x86_64)
      let chain = Self.chains.first { $0.0 == file }!.1
      let result = try fxc(["dump", "--chain", chain, "--passes", "--target", "x86-64-v2"])
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("## loop plan") && result.stdout.contains("(unchanged)"))
      try Golden.check(Self.normalised(result.stdout), file)
    #endif
  }
}
