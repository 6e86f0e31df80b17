import FX
import Foundation
import Testing

/// A thumbnail of a WebP is decoded reduced (libwebp's scaled decoding,
/// issue 36's shrink-on-load for WebP), as a JPEG's is by its DCT scaling:
/// the same size out, close to the full decode's result, and said in the report line.
@Suite("WebP shrink-on-load")
struct ShrinkOnLoadTests {
  @Test func aWebPThumbnailIsDecodedReducedAndLooksTheSame() throws {
    let dir = try BatchScratch()
    let image = try ImageBuffer(width: 800, height: 600, format: .rgba8)
    for y in 0..<600 {
      for x in 0..<800 {
        image[x, y] = SIMD4(Float(x) / 800, Float(y) / 600, 0.5 + 0.4 * sin(Float(x + y) / 40), 1)
      }
    }
    try ImageFile.write(image, to: dir.file("in.webp"), layout: .rgb, lossless: true)
    // The read itself: a factor given the stored size, the decoded size ⌈n / 8⌉.
    let (small, info) = try ImageFile.read(dir.file("in.webp"), shrink: { w, h, _ in w == 800 && h == 600 ? 8 : 1 })
    #expect(info.shrink == 8 && small.width == 100 && small.height == 75 && info.width == 100, "\(info)")
    let thumb = try BatchFXC.run(["run", "-v", "-c", "thumbnail(100)", "in.webp", "-o", "thumb.png"], in: dir.path)
    #expect(thumb.status == 0 && thumb.stdout.contains("decoded at 1/8: shrink-on-load"), "\(thumb)")
    // resize takes no shrink-on-load: the full decode, resampled by fxc.
    let full = try BatchFXC.run(["run", "-c", "resize(width: 100)", "in.webp", "-o", "full.png"], in: dir.path)
    #expect(full.status == 0 && !full.stdout.contains("shrink-on-load"), "\(full)")
    let (a, _) = try ImageFile.read(dir.file("thumb.png")), (b, _) = try ImageFile.read(dir.file("full.png"))
    #expect(a.width == 100 && a.height == 75 && b.width == 100 && b.height == 75)
    var worst: Float = 0
    for y in 0..<75 { for x in 0..<100 { worst = max(worst, (0..<3).map { Swift.abs(a[x, y][$0] - b[x, y][$0]) }.max()!) } }
    #expect(worst * 255 <= 8, "the reduced decode's thumbnail is \(worst * 255) levels from the full one's")
  }
}

/// The batch line says what it did: a whole-image cut is named where the file
/// streams, an upscale's rate counts its output, an empty shard still reports.
@Suite("fxc run: what the lines say")
struct BatchLineTests {
  @Test func aWholeImageCutIsNamedAndAnEmptyShardReports() throws {
    let dir = try BatchScratch()
    let held = try BatchFXC.run(["run", "-c", "equalize", BatchFXC.rocket, "-o", "e.png"], in: dir.path)
    #expect(held.stdout.contains("streamed in bands, the image held whole for the reduction: equalize"), "\(held)")
    let streamed = try BatchFXC.run(["run", "-c", "sepia", BatchFXC.rocket, "-o", "s.png"], in: dir.path)
    #expect(streamed.stdout.contains("(streamed in bands:"), "\(streamed)")
    // rocket.jpg has no path whose hash falls in every shard: one of 8 shards is empty, and says so.
    let shards = try (0..<8).map {
      try BatchFXC.run(["run", "-c", "sepia", BatchFXC.rocket, "--out-dir", "o\($0)", "--shard", "\($0)/8"], in: dir.path)
    }
    #expect(shards.allSatisfy { $0.status == 0 && $0.stdout.contains("shard ") }, "\(shards)")
    #expect(shards.contains { $0.stdout.contains("0 written, 0 skipped, 0 failed of 0 files") })
  }
}
