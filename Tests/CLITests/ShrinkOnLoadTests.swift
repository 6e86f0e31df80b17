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
    let image = try smoothPhoto()
    try ImageFile.write(image, to: dir.file("in.webp"), layout: .rgb, lossless: true)
    // The read itself: the resize's result given the stored size; 100×75 of 800×600 is 1/8, each side ⌈n / 8⌉.
    let (small, info) = try ImageFile.read(dir.file("in.webp"), shrink: { w, h, _ in w == 800 && h == 600 ? (100, 75) : nil })
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

/// A JPEG with an EXIF orientation is not streamed (it is turned upright
/// whole), and still shrinks on load: libjpeg's DCT scaling of the stored
/// pixels, then the turn, then the resize. (It was read whole: a 400 MP
/// photo's thumbnail took 17 s and 3.2 GB.)
@Suite("JPEG shrink-on-load with an EXIF orientation")
struct OrientedShrinkOnLoadTests {
  @Test func anOrientedJPEGIsDecodedReducedThenTurned() throws {
    let dir = try BatchScratch()
    let image = try smoothPhoto()
    // Stored 800×600, shown turned 90° clockwise (orientation 6): 600×800 upright.
    try ImageFile.write(image, to: dir.file("in.jpg"), layout: .rgb, jpegQuality: 95, orientation: 6)
    // The read: the rule is asked of the stored size and the orientation.
    let (small, info) = try ImageFile.read(dir.file("in.jpg"), shrink: { w, h, o in w == 800 && h == 600 && o == 6 ? (100, 75) : nil })
    #expect(info.shrink == 8 && small.width == 100 && small.height == 75 && info.orientation == 6, "\(info)")
    let thumb = try BatchFXC.run(["run", "-v", "-c", "thumbnail(100)", "in.jpg", "-o", "thumb.png"], in: dir.path)
    #expect(thumb.status == 0 && thumb.stdout.contains("decoded at 1/8: shrink-on-load"), "\(thumb)")
    #expect(thumb.stdout.contains("[EXIF orientation 6 applied]") && thumb.stdout.contains("thumb.png: 75×100"), "\(thumb)")
    // resize without shrink-on-load: the full decode, turned, resampled by fxc.
    let full = try BatchFXC.run(["run", "-c", "resize(width: 75)", "in.jpg", "-o", "full.png"], in: dir.path)
    #expect(full.status == 0 && !full.stdout.contains("shrink-on-load"), "\(full)")
    let (a, _) = try ImageFile.read(dir.file("thumb.png")), (b, _) = try ImageFile.read(dir.file("full.png"))
    #expect(a.width == 75 && a.height == 100 && b.width == 75 && b.height == 100)
    var worst: Float = 0
    for y in 0..<100 { for x in 0..<75 { worst = max(worst, (0..<3).map { Swift.abs(a[x, y][$0] - b[x, y][$0]) }.max()!) } }
    #expect(worst * 255 <= 10, "the reduced decode's thumbnail is \(worst * 255) levels from the full one's")
    // Turned the right way: the stored image's left edge (x = 0, red 0) is the upright top row.
    #expect(a[37, 0].x < 0.1 && a[37, 99].x > 0.85, "\(a[37, 0]) \(a[37, 99])")
  }

  /// `upright` stores a JPEG's pixels turned as it decodes them: for every
  /// orientation, whole and reduced, the bytes of the plain read turned by
  /// `oriented` (and a PNG, turned after its read, likewise).
  @Test(arguments: 1...8)
  func anUprightReadIsThePlainReadTurned(orientation: Int) throws {
    let dir = try BatchScratch()
    let image = try ImageBuffer(width: 67, height: 41, format: .rgba8)
    for y in 0..<41 { for x in 0..<67 { image[x, y] = SIMD4(Float(x) / 67, Float(y) / 41, Float((x * y) % 7) / 7, 1) } }
    try ImageFile.write(image, to: dir.file("in.jpg"), layout: .rgb, orientation: orientation)
    try ImageFile.write(image, to: dir.file("in.png"), layout: .rgb, orientation: orientation)
    for file in ["in.jpg", "in.png"] {
      for shrink: ShrinkOnLoad.Result? in [nil, { _, _, _ in (17, 11) }] {
        let (plain, info) = try ImageFile.read(dir.file(file), shrink: shrink)
        let (upright, uprightInfo) = try ImageFile.read(dir.file(file), shrink: shrink, upright: true)
        let turned = try plain.oriented(info.orientation)
        #expect(info == uprightInfo && info.orientation == orientation, "\(file): \(info) \(uprightInfo)")
        #expect(upright.width == turned.width && upright.height == turned.height, "\(file)")
        let same = (0..<turned.height).allSatisfy {
          memcmp(upright.data + $0 * upright.rowBytes, turned.data + $0 * turned.rowBytes, turned.rowDataBytes) == 0
        }
        #expect(same, "\(file), orientation \(orientation), shrink \(shrink == nil ? "none" : "1/4"): other bytes")
      }
    }
  }
}

/// A thumbnail of a HEIC that stores one large enough starts from it
/// (libvips' rule), and says so; one too small, or a resize, reads the image.
@Suite("HEIF shrink-on-load")
struct HEIFThumbnailTests {
  @Test func aStoredThumbnailLargeEnoughIsWhereAThumbnailStarts() throws {
    let dir = try BatchScratch()
    let heic = BatchFXC.packageRoot + "/Tests/FXImageTests/Fixtures/rocket-thumbnail.heic"  // 640×427, a 160×106 thumbnail
    let small = try BatchFXC.run(["run", "-v", "-c", "thumbnail(100)", heic, "-o", "small.png"], in: dir.path)
    #expect(small.status == 0 && small.stdout.contains("read from its stored 160×106 thumbnail: shrink-on-load"), "\(small)")
    let large = try BatchFXC.run(["run", "-v", "-c", "thumbnail(200)", heic, "-o", "large.png"], in: dir.path)
    #expect(large.status == 0 && !large.stdout.contains("shrink-on-load"), "\(large)")
    // The size follows from the thumbnail's (as sharp's shrink-on-load may round an
    // auto-scaled side down): 160×106 → 100×66, where the image gives 100×67.
    let full = try BatchFXC.run(["run", "-c", "resize(width: 100)", heic, "-o", "full.png"], in: dir.path)
    #expect(full.status == 0 && !full.stdout.contains("shrink-on-load") && full.stdout.contains("100×67"), "\(full)")
    let same = try BatchFXC.run(["run", "-c", "resize(width: 100, height: 66)", heic, "-o", "same.png"], in: dir.path)
    let (a, _) = try ImageFile.read(dir.file("small.png")), (b, _) = try ImageFile.read(dir.file("same.png"))
    #expect(same.status == 0 && a.width == 100 && a.height == 66 && b.width == 100 && b.height == 66)
    var sum: Float = 0
    for y in 0..<66 { for x in 0..<100 { sum += (0..<3).map { Swift.abs(a[x, y][$0] - b[x, y][$0]) }.reduce(0, +) } }
    let mean = sum * 255 / Float(100 * 66 * 3)
    // The library's file-to-file path starts from the thumbnail too.
    let applied = try Pipeline(thumbnail(size: 100)).apply(
      from: URL(fileURLWithPath: heic), to: URL(fileURLWithPath: dir.file("library.png")))
    let (c, _) = try ImageFile.read(dir.file("library.png"))
    #expect(applied.info.fromThumbnail && c.width == 100 && c.height == 66, "\(applied.info)")
    // A separately encoded thumbnail (HEVC at q50): a few levels on average; another picture is tens.
    #expect(mean <= 8, "the thumbnail's result is on average \(mean) levels from the full image's")
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

/// An opaque 800×600 image of smooth gradients and slow waves, which
/// reduced decodes keep close to the full one.
private func smoothPhoto() throws -> ImageBuffer {
  let image = try ImageBuffer(width: 800, height: 600, format: .rgba8)
  for y in 0..<600 {
    for x in 0..<800 {
      image[x, y] = SIMD4(Float(x) / 800, Float(y) / 600, 0.5 + 0.4 * sin(Float(x + y) / 40), 1)
    }
  }
  return image
}
