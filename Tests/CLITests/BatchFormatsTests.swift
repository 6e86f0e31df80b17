import FX
import Foundation
import Testing

/// Issue 17: the files people have — a folder mixing formats runs through
/// `fxc run` with one chain, every output checked against the interpreter
/// on the same decoded pixels (`--check`), the format of each output by its
/// extension or `--format`.
@Suite("fxc run: image formats")
struct BatchFormatsTests {
  @Test func aFolderOfMixedFormatsRunsAndChecks() throws {
    let dir = try BatchScratch()
    try dir.mkdir("in")
    let image = batchTestImage(width: 33, height: 19)
    try ImageFile.write(image, to: dir.file("in/a.png"))
    try ImageFile.write(image, to: dir.file("in/b.jpg"))
    try ImageFile.write(image, to: dir.file("in/c.tif"))
    try ImageFile.write(image, to: dir.file("in/d.tiff"), bitDepth: 16)
    try ImageFile.write(image, to: dir.file("in/e.webp"), lossless: true)
    try ImageFile.write(image, to: dir.file("in/f.heic"))
    try ImageFile.write(image, to: dir.file("in/g.avif"))
    let result = try BatchFXC.run(
      ["run", "-c", "sepia | vignette", "in", "--out-dir", "out", "--check", "--lossless"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("7 written, 0 skipped, 0 failed of 7 files"), "\(result)")
    #expect(result.stdout.components(separatedBy: "check:").count == 8, "\(result)")
    #expect(dir.tree("out") == ["a.png", "b.jpg", "c.tif", "d.tiff", "e.webp", "f.heic", "g.avif"])
    #expect(result.stderr == "warning: in/b.jpg: --lossless cannot apply to the JPEG output out/b.jpg, which is lossy\n", "\(result)")
    let (webp, _) = try ImageFile.read(dir.file("out/e.webp"))
    #expect(webp.width == 33)
    let (sixteen, info) = try ImageFile.read(dir.file("out/d.tiff"))
    #expect(info.format == .tiff && info.bitDepth == 16 && info.layout == .rgba && sixteen.width == 33)
  }

  @Test func formatOptionWritesTIFF() throws {
    let dir = try BatchScratch()
    try dir.rocket("r.jpg")
    let result = try BatchFXC.run(["run", "-c", "sepia", "r.jpg", "--out-dir", "out", "--name", "{stem}.tif"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    let (_, info) = try ImageFile.read(dir.file("out/r.tif"))
    #expect(info.format == .tiff && info.layout == .rgb && info.bitDepth == 8)
    let refused = try BatchFXC.run(["run", "-c", "sepia", "r.jpg", "-o", "x.tif", "--format", "png"], in: dir.path)
    #expect(refused.status != 0 && refused.stderr.contains("has the extension .tif but --format asks for png"), "\(refused)")
  }

  @Test func aGIFIsReadAndWrittenAsPNG() throws {
    let dir = try BatchScratch()
    // GIF89a, 1×1, a 2-colour table (red, black), a Graphics Control
    // Extension, one frame whose LZW codes (2-bit minimum) are clear, 0, end.
    let gif: [UInt8] = [
      0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0, 0, 0, 0, 0,
      0x21, 0xF9, 4, 0, 0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B,
    ]
    try dir.mkdir("in")
    try dir.write(Data(gif), to: "in/red.gif")
    let result = try BatchFXC.run(["run", "-c", "brightness", "in", "--out-dir", "out", "--check"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.tree("out") == ["red.png"])
    let (image, info) = try ImageFile.read(dir.file("out/red.png"))
    #expect(info.layout == .rgb && image[stored: 0, 0] == SIMD4(1, 0, 0, 1))
    let refused = try BatchFXC.run(["run", "-c", "sepia", "in/red.gif", "-o", "x.gif"], in: dir.path)
    #expect(refused.status != 0 && refused.stderr.contains("fxc reads GIF files but does not write them"), "\(refused)")
  }
}

/// A JPEG carrying the sRGB profile libpng calls known incorrect, written as
/// PNG: the profile is left out with a warning, the file is written (before,
/// libpng's refusal failed the file), streamed or not.
@Suite("fxc run: a profile libpng refuses")
struct RefusedProfileTests {
  @Test(arguments: [[], ["--no-stream"]])
  func isLeftOutWithAWarning(extra: [String]) throws {
    let dir = try BatchScratch()
    let fixture = BatchFXC.packageRoot + "/Tests/FXImageTests/Fixtures/incorrect_srgb.jpg"
    try FileManager.default.copyItem(atPath: fixture, toPath: dir.file("a.jpg"))
    let result = try BatchFXC.run(["run", "-c", "sepia", "a.jpg", "-o", "a.png"] + extra, in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stderr.contains("warning: a.jpg: its ICC profile is not embedded in the PNG output: libpng refuses"), "\(result)")
    let (image, info) = try ImageFile.read(dir.file("a.png"))
    #expect(image.width == 32 && info.iccProfile == nil && info.warnings.isEmpty)
    let tiff = try BatchFXC.run(["run", "-c", "sepia", "a.jpg", "-o", "a.tif"] + extra, in: dir.path)
    #expect(tiff.status == 0 && tiff.stderr.isEmpty, "\(tiff)")
    #expect(try ImageFile.read(dir.file("a.tif")).1.iccProfile != nil)
  }
}
