import FX
import Foundation
import Testing

/// Issue 17, streaming in bands through `fxc run`: PNG, JPEG and TIFF files
/// whose chain reads rows at fixed offsets stream; every output is the byte
/// for byte the file `--no-stream` (whole images, checked against the
/// interpreter by `aFolderOfMixedFormatsRunsAndChecks`) writes; the rest are
/// read whole, as the rule says, and `-v` tells which.
@Suite("fxc run: streaming in bands")
struct BatchStreamingTests {
  /// Inputs of every streaming kind and a few that are read whole.
  static func makeInputs(in dir: BatchScratch) throws {
    try dir.mkdir("in")
    let image = batchTestImage(width: 70, height: 45)
    try ImageFile.write(image, to: dir.file("in/a.png"))
    try ImageFile.write(image, to: dir.file("in/b16.png"), bitDepth: 16)
    try ImageFile.write(image, to: dir.file("in/c.tif"))
    try ImageFile.write(image, to: dir.file("in/d16.tif"), bitDepth: 16)
    try ImageFile.write(image, to: dir.file("in/e.jpg"))
    try dir.rocket("in/rocket.jpg")
    try ImageFile.write(image, to: dir.file("in/w.webp"), lossless: true)  // read whole: libwebp decodes whole images
  }

  @Test(arguments: ["gaussianBlur(sigma: 2) | sepia", "unsharpMask(sigma: 1.5, amount: 0.8) | vignette"])
  func streamedOutputsAreTheWholeImageOutputs(chain: String) throws {
    let dir = try BatchScratch()
    try Self.makeInputs(in: dir)
    for threads in ["1", "2"] {
      let streamed = try BatchFXC.run(["run", "-c", chain, "in", "--out-dir", "s\(threads)", "-v", "-j", threads], in: dir.path)
      #expect(streamed.status == 0, "\(streamed)")
      let lines = streamed.stdout.split(separator: "\n").filter { $0.contains(" → ") }
      #expect(lines.count == 7, "\(streamed)")
      for line in lines {
        #expect(line.contains("streamed in bands") == !line.hasPrefix("in/w.webp"), "\(line)")
      }
    }
    let whole = try BatchFXC.run(["run", "-c", chain, "in", "--out-dir", "w", "-v", "--no-stream"], in: dir.path)
    #expect(whole.status == 0 && !whole.stdout.contains("streamed"), "\(whole)")
    let names = dir.tree("w")
    #expect(names.count == 7 && dir.tree("s1") == names && dir.tree("s2") == names)
    for name in names {
      #expect(try dir.bytes("s1/" + name) == dir.bytes("w/" + name), "\(chain): \(name), 1 thread")
      #expect(try dir.bytes("s2/" + name) == dir.bytes("w/" + name), "\(chain): \(name), 2 threads")
    }
  }

  /// A distortion reads rows that depend on the pixel: its files run whole, with the same results as ever.
  @Test func aDistortionRunsOnWholeImages() throws {
    let dir = try BatchScratch()
    try dir.rocket("r.jpg")
    let result = try BatchFXC.run(["run", "-c", "wave | sepia", "r.jpg", "-o", "out.png", "-v"], in: dir.path)
    #expect(result.status == 0 && !result.stdout.contains("streamed"), "\(result)")
    let (image, _) = try ImageFile.read(dir.file("out.png"))
    #expect(image.width == 640)
  }

  /// A file whose data ends early fails mid-stream with the whole read's
  /// message; nothing is written for it, and the batch goes on.
  @Test func aTruncatedFileFailsMidStreamAndLeavesNothing() throws {
    let dir = try BatchScratch()
    try dir.mkdir("in")
    try dir.rocket("in/good.jpg")
    try dir.rocket("whole.jpg")
    let bytes = try dir.bytes("whole.jpg")
    try dir.write(bytes.prefix(bytes.count / 2), to: "in/cut.jpg")
    let result = try BatchFXC.run(["run", "-c", "gaussianBlur(sigma: 2)", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 1, "\(result)")
    #expect(result.stderr.contains("in/cut.jpg: truncated JPEG file"), "\(result)")
    #expect(dir.tree("out") == ["good.jpg"], "no output and no temporary file for the cut file")
  }

  /// The memory streaming saves, from the report's peak resident set size: a
  /// 6000×4000 px JPEG made from the bundled photo (tiled), run streamed and
  /// whole. The whole run holds the decoded image and the output (96 MB each
  /// as RGBA8); the streamed one a few bands, so it peaks at least one image lower.
  @Test func streamingPeaksAtLeastAnImageLower() throws {
    let dir = try BatchScratch()
    try dir.rocket("rocket.jpg")
    let (photo, _) = try ImageFile.read(dir.file("rocket.jpg"))
    let (width, height, band) = (6000, 4000, 16)
    let writer = try ImageRowWriter(path: dir.file("big.jpg"), width: width, height: height, options: ImageWriteOptions(layout: .rgb))
    var rows = [UInt8](repeating: 0, count: width * 4 * band)
    for y0 in stride(from: 0, to: height, by: band) {
      for k in 0..<band {
        let source = photo.data + ((y0 + k) % photo.height) * photo.rowBytes
        for x0 in stride(from: 0, to: width, by: photo.width) {
          let n = min(photo.width, width - x0)
          rows.withUnsafeMutableBytes { ($0.baseAddress! + (k * width + x0) * 4).copyMemory(from: source, byteCount: n * 4) }
        }
      }
      try rows.withUnsafeBytes { try writer.write($0.baseAddress!, rowBytes: width * 4, format: .rgba8, count: band) }
    }
    try writer.finish()
    func peak(_ extra: [String]) throws -> Double {
      let name = extra.isEmpty ? "streamed" : "whole"
      let result = try BatchFXC.run(
        ["run", "-c", "gaussianBlur(sigma: 3) | sepia", "big.jpg", "-o", "\(name).jpg", "-j", "2", "--report", "\(name).json"] + extra,
        in: dir.path)
      #expect(result.status == 0, "\(result)")
      let top = try #require(try JSONSerialization.jsonObject(with: dir.bytes("\(name).json")) as? [String: Any])
      let files = try #require(top["files"] as? [[String: Any]])
      #expect(files.first?["streamed"] as? Bool == extra.isEmpty, "\(files)")
      let summary = try #require(top["summary"] as? [String: Any])
      return try #require((summary["peak_rss_mib"] as? NSNumber)?.doubleValue)
    }
    let streamed = try peak([]), whole = try peak(["--no-stream"])
    let image = Double(width * height * 4) / 1_048_576
    #expect(streamed < whole - image, "streamed \(streamed) MiB, whole \(whole) MiB, one RGBA8 image \(image) MiB")
    #expect(try dir.bytes("streamed.jpg") == dir.bytes("whole.jpg"))
  }
}

/// A resumed batch: outputs that `--skip-existing` skips take no worker, so
/// the one file left to do gets both threads (its decoder and encoder run
/// beside the kernel).
@Suite("fxc run: threads for what is left")
struct ResumeThreadsTests {
  @Test func skippedFilesTakeNoWorker() throws {
    let dir = try BatchScratch()
    try dir.mkdir("in")
    try dir.rocket("in/a.jpg")
    try dir.rocket("in/b.jpg")
    let first = try BatchFXC.run(["run", "-c", "sepia", "in/a.jpg", "--out-dir", "out"], in: dir.path)
    #expect(first.status == 0, "\(first)")
    let resumed = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out", "--skip-existing", "-v", "-j", "2"], in: dir.path)
    #expect(resumed.status == 0, "\(resumed)")
    let line = try #require(resumed.stdout.split(separator: "\n").first { $0.hasPrefix("in/b.jpg → ") }, "\(resumed)")
    #expect(line.contains("on 2 threads"), "\(line)")
  }
}
