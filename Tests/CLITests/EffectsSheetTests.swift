// End-to-end test of `fxc effects --sheet`: the built executable renders every
// catalogue entry on the bundled photo into a labelled grid.

import FX
import Foundation
import Testing

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().path

/// The `fxc` executable next to the test binary (or $FXC_EXECUTABLE).
private let executable: String? = {
  if let path = ProcessInfo.processInfo.environment["FXC_EXECUTABLE"] { return path }
  var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
  for _ in 0..<4 {
    let candidate = directory.appendingPathComponent("fxc").path
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    directory = directory.deletingLastPathComponent()
  }
  return nil
}()

/// Runs `fxc arguments…` in `directory`: exit status and standard error.
private func run(_ arguments: [String], in directory: String) throws -> (Int32, String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: try #require(executable, "no fxc executable found"))
  process.arguments = arguments
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  let errPath = directory + "/stderr.txt"
  _ = FileManager.default.createFile(atPath: errPath, contents: nil)
  let err = try #require(FileHandle(forWritingAtPath: errPath))
  process.standardOutput = FileHandle.nullDevice
  process.standardError = err
  try process.run()
  process.waitUntilExit()
  try err.close()
  let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self)
  try FileManager.default.removeItem(atPath: errPath)
  return (process.terminationStatus, text)
}

@Suite("fxc effects --sheet")
struct EffectsSheetTests {
  @Test func rendersEveryEffectInALabelledGrid() throws {
    let directory = NSTemporaryDirectory() + "fxc-sheet-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let photo = packageRoot + "/examples/rocket.jpg"
    let arguments = ["effects", "--sheet", "sheet.png", "--image", photo, "--cell", "64", "--columns", "9"]
    let (status, stderr) = try run(arguments, in: directory)
    try #require(status == 0, "\(stderr)")

    // 51 cells (the photo, then the 50 effects), 9 columns → 6 rows. A 64-pixel cell
    // of the 640×427 photo is 43 pixels high; under it two 10-pixel label lines.
    let (sheet, _) = try ImageFile.read(directory + "/sheet.png")
    let cells = Catalogue.effects.count + 1
    let rows = (cells + 8) / 9
    let cellHeight = 43, labelHeight = 22, margin = 8
    #expect(sheet.width == 9 * (64 + margin) + margin)
    #expect(sheet.height == rows * (cellHeight + labelHeight + margin) + margin)
    // Every cell holds a picture (not the background) and a label (light ink).
    for index in 0..<cells {
      let x0 = margin + (index % 9) * (64 + margin)
      let y0 = margin + (index / 9) * (cellHeight + labelHeight + margin)
      var values = Set<Float>()
      for y in stride(from: y0, to: y0 + cellHeight, by: 3) { for x in stride(from: x0, to: x0 + 64, by: 3) { values.insert(sheet[x, y].x) } }
      #expect(values.count >= 2, "cell \(index) is blank")  // threshold and dither have two values
      var ink = 0
      for y in (y0 + cellHeight)..<(y0 + cellHeight + labelHeight) {
        for x in x0..<(x0 + 64) where sheet[x, y].x > 0.8 { ink += 1 }
      }
      #expect(ink > 10, "cell \(index) has no label")
    }

    // An existing sheet is not replaced without --overwrite.
    let (again, message) = try run(arguments, in: directory)
    #expect(again == 1 && message.contains("exists (use --overwrite to replace it)"), "\(message)")
    let (usage, usageMessage) = try run(["effects", "--image", photo], in: directory)
    #expect(usage == 2 && usageMessage.contains("--sheet"), "\(usageMessage)")
  }
}

/// The sheet of a phone photo stored sideways (EXIF orientation 6) shows it
/// upright (issue 37): its cells are as tall as the upright photo's aspect
/// makes them (640 × 427 turned: a 64-pixel cell is 96 pixels high).
@Suite("fxc effects --sheet: orientation")
struct EffectsSheetOrientationTests {
  @Test func aSidewaysPhotoIsShownUpright() throws {
    let dir = try BatchScratch()
    try KeepOrientationTests.sideways(dir)
    let result = try BatchFXC.run(
      ["effects", "--sheet", "sheet.png", "--image", "phone.jpg", "--cell", "64", "--columns", "9"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    let (sheet, _) = try ImageFile.read(dir.file("sheet.png"))
    let rows = (Catalogue.effects.count + 1 + 8) / 9
    #expect(sheet.height == rows * (96 + 22 + 8) + 8, "\(sheet.height)")
  }
}
