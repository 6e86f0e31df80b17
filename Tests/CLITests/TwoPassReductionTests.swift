import FX
import Foundation
import Testing

/// A streamed reduction (levels, equalize, CLAHE) counts its rows on a first
/// reading of the file and maps them on a second (issue 38: the image is
/// never whole): the same bytes as holding the rows whole.
@Suite("two-pass reductions", .serialized)
struct TwoPassReductionTests {
  static let chains = [
    "autoLevels | sepia",
    "brightness(amount: 0.1) | equalize | vignette",
    "resize(width: 50) | normalize(black: 2, white: 1) | equalize",  // two reductions after a resize: three readings
    "equalize | crop(x: 3, y: 4, width: 40, height: 30) | autoLevels",
    "clahe(tiles: 8, clipLimit: 2) | sepia",  // 97×61 does not divide: extended by reflection
    "resize(width: 48) | clahe(tiles: 4, clipLimit: 0) | equalize",
  ]

  @Test(arguments: chains)
  func readingTwiceGivesTheBytesOfHoldingTheImage(chain: String) throws {
    let dir = try BatchScratch()
    let image = try ImageBuffer(width: 97, height: 61, format: .rgba8)
    for y in 0..<61 {
      for x in 0..<97 {
        let a: Float = x < 20 ? (y < 30 ? 0 : 0.5) : 1  // transparent, half and opaque pixels
        image[x, y] = SIMD4(0.2 + 0.5 * Float(x) / 97, 0.1 + 0.3 * Float(y) / 61, 0.5 + 0.3 * sin(Float(x * y) / 50), a)
      }
    }
    try ImageFile.write(image, to: dir.file("in.png"))
    let pipeline = try Pipeline(ChainSyntax.parse(chain).resolve().effect)
    let saved = ReductionExecutor.twoPassBytes
    defer { ReductionExecutor.twoPassBytes = saved }
    var results: [ImageBuffer] = []
    for (bytes, name) in [(Int.max, "held.png"), (0, "twice.png")] {
      ReductionExecutor.twoPassBytes = bytes
      let done = try pipeline.apply(from: URL(fileURLWithPath: dir.file("in.png")), to: URL(fileURLWithPath: dir.file(name)))
      #expect(done.streamed, "\(chain): \(done.wholeImageReason ?? "")")
      results.append(try ImageFile.read(dir.file(name)).0)
      // In memory, the input is read again from the buffer: the same bytes too.
      results.append(try pipeline.apply(to: image, threads: 2))
    }
    let reference = results[0]
    for (i, r) in results.enumerated().dropFirst() {
      #expect(r.width == reference.width && r.height == reference.height, "\(chain): result \(i)")
      guard r.width == reference.width, r.height == reference.height else { continue }
      var differing = 0
      for y in 0..<r.height { for x in 0..<r.width where r[x, y] != reference[x, y] { differing += 1 } }
      #expect(differing == 0, "\(chain): result \(i) differs in \(differing) pixels")
    }
  }

  @Test func aFileThatChangesBetweenItsReadingsIsAnError() throws {
    let dir = try BatchScratch()
    let small = try ImageBuffer(width: 40, height: 30, format: .rgba8)
    try ImageFile.write(small, to: dir.file("a.png"))
    let reader = try #require(try ImageRowReader.open(dir.file("a.png")))
    try ImageFile.write(try ImageBuffer(width: 41, height: 30, format: .rgba8), to: dir.file("a.png"), replacing: true)
    #expect(throws: ImageFileError.self) { _ = try reader.reopened() }
  }
}
