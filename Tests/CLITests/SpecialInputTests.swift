import Foundation
import Testing

/// Issue 16: inputs that are not image files — a FIFO, a 30 GB sparse file
/// named like a PNG, `/dev/zero` — are reported with their reason and the
/// batch goes on; nothing waits forever or fills memory.
@Suite("fxc run: inputs that are not image files")
struct SpecialInputTests {
  @Test func fifoAndHugeSparseFileAreReportedAndTheRestWritten() throws {
    let dir = try BatchScratch()
    try dir.image("in/a.png")
    try dir.image("in/b.jpg", opaque: true)
    #expect(mkfifo(dir.file("in/f.png"), 0o600) == 0)
    #expect(FileManager.default.createFile(atPath: dir.file("in/big.png"), contents: nil))
    let handle = try #require(FileHandle(forWritingAtPath: dir.file("in/big.png")))
    try handle.truncate(atOffset: 30 << 30)
    try handle.close()
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 1, "\(result)")
    #expect(result.stderr.contains("error: in/f.png: is not a regular file (a FIFO)"), "\(result)")
    #expect(result.stderr.contains("error: in/big.png: unsupported format"), "\(result)")
    #expect(result.stdout.contains("2 written, 0 skipped, 2 failed of 4 files"), "\(result)")
    #expect(dir.tree("out") == ["a.png", "b.jpg"])
  }

  @Test func deviceNamedOnTheCommandLine() throws {
    let dir = try BatchScratch()
    let result = try BatchFXC.run(["run", "-c", "sepia", "/dev/zero", "-o", "z.png"], in: dir.path)
    #expect(result.status == 1, "\(result)")
    #expect(result.stderr.contains("not a regular file (a character device)"), "\(result)")
    #expect(!dir.exists("z.png"))
  }
}
