import Foundation
import Testing

/// `--report` never replaces an input or an output of the run (compared as
/// real paths), nor an existing file that is not an earlier fxc report
/// unless `--overwrite` (issue 16: `--report v.png` used to replace the input
/// with JSON).
@Suite("fxc run --report: what it may replace")
struct ReportPathTests {
  @Test func anInputIsNeverReplaced() throws {
    let dir = try BatchScratch()
    try dir.image("v.png")
    try dir.mkdir("sub")
    let before = try dir.bytes("v.png")
    for report in ["v.png", "./sub/../v.png", "\(dir.path)/v.png"] {
      for extra in [[], ["--overwrite"]] {
        let result = try BatchFXC.run(["run", "-c", "sepia", "v.png", "-o", "o.png", "--report", report] + extra, in: dir.path)
        #expect(result.status == 2, "\(report) \(extra): \(result)")
        #expect(result.stderr.contains("is an input of this run"), "\(result)")
      }
    }
    #expect(try dir.bytes("v.png") == before)
    #expect(!dir.exists("o.png"), "nothing is written when the report is refused")
  }

  @Test func anOutputIsNeverReplaced() throws {
    let dir = try BatchScratch()
    try dir.image("v.png")
    let result = try BatchFXC.run(["run", "-c", "sepia", "v.png", "-o", "o.png", "--report", "./o.png"], in: dir.path)
    #expect(result.status == 2 && result.stderr.contains("would overwrite an output"), "\(result)")
  }

  @Test func anotherFileNeedsOverwrite() throws {
    let dir = try BatchScratch()
    try dir.image("v.png")
    try dir.write(Data("my notes".utf8), to: "notes.json")
    let refused = try BatchFXC.run(["run", "-c", "sepia", "v.png", "-o", "o.png", "--report", "notes.json"], in: dir.path)
    #expect(refused.status == 2 && refused.stderr.contains("not an fxc report"), "\(refused)")
    #expect(try dir.bytes("notes.json") == Data("my notes".utf8))
    // An earlier report of fxc is replaced by the next run, as a re-run expects.
    let first = try BatchFXC.run(["run", "-c", "sepia", "v.png", "-o", "o.png", "--report", "r.json"], in: dir.path)
    #expect(first.status == 0, "\(first)")
    let again = try BatchFXC.run(
      ["run", "-c", "sepia", "v.png", "-o", "o.png", "--report", "r.json", "--skip-existing"], in: dir.path)
    #expect(again.status == 0, "\(again)")
    #expect(try BatchReportFile(dir.file("r.json")).inputs("skipped") == ["v.png"])
    // --overwrite replaces any other file.
    let forced = try BatchFXC.run(
      ["run", "-c", "sepia", "v.png", "-o", "o.png", "--report", "notes.json", "--overwrite"], in: dir.path)
    #expect(forced.status == 0, "\(forced)")
    #expect(try BatchReportFile(dir.file("notes.json")).inputs("ok") == ["v.png"])
  }
}
