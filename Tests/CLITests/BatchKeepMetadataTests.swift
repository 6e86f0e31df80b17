import FX
import Foundation
import Testing

/// `fxc run --keep-metadata`: a camera JPEG's EXIF and XMP reach JPEG, PNG
/// and WebP outputs byte for byte, the orientation tag saying what the
/// written pixels need; without the flag they are dropped; an output that
/// cannot carry them says so (issue 37).
@Suite("fxc run --keep-metadata")
struct BatchKeepMetadataTests {
  static let xmp = Array(
    "<?xpacket begin=\"\u{FEFF}\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta><?xpacket end=\"w\"?>".utf8)

  /// `BatchMetadataTests.orientedJPEG` (EXIF by hand: Software "fxc", Orientation 6) with an XMP APP1 segment after it.
  static func cameraJPEG(in dir: BatchScratch) throws -> String {
    try BatchMetadataTests.orientedJPEG(6, littleEndian: false, in: dir, name: "camera.jpg")
    var bytes = [UInt8](try dir.bytes("camera.jpg"))
    let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp
    let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    bytes.insert(contentsOf: segment, at: 2)  // right after SOI
    try dir.write(Data(bytes), to: "camera.jpg")
    return dir.file("camera.jpg")
  }

  @Test(arguments: ["jpg", "png", "webp"])
  func exifAndXMPAreCarried(ext: String) throws {
    let dir = try BatchScratch()
    let input = try Self.cameraJPEG(in: dir)
    let (_, info) = try ImageFile.read(input)
    #expect(info.metadata.xmp == Self.xmp && info.orientation == 6, "the fixture: \(info)")
    let exif = try #require(info.metadata.exif)
    for stream in [true, false] {
      let out = "out-\(stream).\(ext)"
      let result = try BatchFXC.run(
        ["run", "--keep-metadata", "-c", "sepia", input, "-o", out] + (stream ? [] : ["--no-stream"]), in: dir.path)
      #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
      let (image, written) = try ImageFile.read(dir.file(out))
      #expect(written.metadata.xmp == Self.xmp, "\(ext), stream \(stream)")
      #expect(written.orientation == 1 && image.width == 32, "upright pixels, and the tag says so")
      // Every byte of the EXIF as it was but the orientation value.
      let got = try #require(written.metadata.exif)
      #expect(got.count == exif.count && zip(got, exif).filter { $0 != $1 }.count == 1, "\(ext), stream \(stream)")
    }
    let kept = try BatchFXC.run(["run", "--keep-metadata", "--keep-orientation", "-c", "sepia", input, "-o", "k.\(ext)"], in: dir.path)
    #expect(kept.status == 0, "\(kept)")
    let keptInfo = try ImageFile.read(dir.file("k.\(ext)")).1
    if ext == "webp" {
      // WebP records no orientation (viewers ignore it): the tag says 1, and the warning says the pixels show as stored.
      #expect(keptInfo.orientation == 1 && kept.stderr.contains("not recorded in the WebP output"), "\(kept)")
    } else {
      #expect(keptInfo.metadata.exif == exif && keptInfo.orientation == 6, "\(keptInfo)")
    }
    let dropped = try BatchFXC.run(["run", "-c", "sepia", input, "-o", "plain.\(ext)"], in: dir.path)
    #expect(try dropped.status == 0 && ImageFile.read(dir.file("plain.\(ext)")).1.metadata.isEmpty)
  }

  @Test func anOutputThatCannotCarryThemSaysSo() throws {
    let dir = try BatchScratch()
    let input = try Self.cameraJPEG(in: dir)
    let result = try BatchFXC.run(["run", "--keep-metadata", "-c", "sepia", input, "-o", "out.tif"], in: dir.path)
    #expect(result.status == 0 && result.stderr.contains("a TIFF output does not carry EXIF and XMP"), "\(result)")
  }
}

/// The batch keeps the pixel density by default, streamed or whole, into JPEG and PNG.
@Suite("fxc run: pixel density")
struct BatchResolutionTests {
  @Test(arguments: ["jpg", "png"])
  func aScansDensityIsKept(ext: String) throws {
    let dir = try BatchScratch()
    let image = try ImageBuffer(width: 40, height: 30, format: .rgba8)
    for y in 0..<30 { for x in 0..<40 { image[x, y] = SIMD4(Float(x) / 40, 0.5, Float(y) / 30, 1) } }
    try ImageFile.write(image, to: dir.file("scan.jpg"), layout: .rgb, resolution: ImageResolution(x: 300, y: 300))
    for stream in [true, false] {
      let out = "out-\(stream).\(ext)"
      let result = try BatchFXC.run(["run", "-c", "sepia", "scan.jpg", "-o", out] + (stream ? [] : ["--no-stream"]), in: dir.path)
      #expect(result.status == 0, "\(result)")
      let r = try #require(try ImageFile.read(dir.file(out)).1.resolution, "\(ext), stream \(stream)")
      #expect(Swift.abs(r.x - 300) < 0.01 && Swift.abs(r.y - 300) < 0.01, "\(r)")
    }
  }
}
