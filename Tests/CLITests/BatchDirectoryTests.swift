import Foundation
import Testing

/// A directory of many short names, walked as a batch input. Each name is
/// read in place up to its NUL: copying the whole `dirent` read 256 bytes
/// past short records, which AddressSanitizer reported (issue 39) on a
/// directory of 1,200 names — so this runs under scripts/sanitize.sh too.
@Suite("fxc run: a directory of many names")
struct BatchDirectoryTests {
  @Test func everyNameOfALargeDirectoryIsRead() throws {
    let dir = try BatchScratch()
    try dir.image("in/0.png", width: 2, height: 1)
    let bytes = try dir.bytes("in/0.png")
    for i in 1..<2000 { try dir.write(bytes, to: "in/\(String(i, radix: 36)).png") }
    let result = try BatchFXC.run(["run", "-c", "invert", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("2000 written, 0 skipped, 0 failed of 2000 files"), "\(result)")
    let expected = (0..<2000).map { "\(String($0, radix: 36)).png" }.sorted()
    #expect(dir.tree("out") == expected)
  }
}
