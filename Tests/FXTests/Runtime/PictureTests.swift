import FX
import Foundation
import Testing

/// The library's simplest path (issue 37): `Picture(contentsOf:)` →
/// `pipeline.apply(to:)` → `write(to:)` gives upright pixels and keeps the
/// input's ICC profile, channel layout and bit depth — where
/// `ImageFile.read` → `apply` → `ImageFile.write` wrote no profile, RGBA for
/// an RGB JPEG, 8 bits for 16 and a phone photo sideways.
struct PictureTests {
  static let rocket = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../examples/rocket.jpg").standardizedFileURL.path

  /// rocket.jpg (640×427, with an ICC profile) with an EXIF block saying
  /// "rotate 90° clockwise to view" (orientation 6) inserted after SOI.
  static func sidewaysJPEG() throws -> [UInt8] {
    let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rocket)))
    let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
    let body = Array("Exif".utf8) + [0, 0] + tiff
    let app1: [UInt8] = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    return Array(jpeg[..<2]) + app1 + Array(jpeg[2...])
  }

  @Test func aPhotoIsReadUprightAndWrittenWithItsProfileAndLayout() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fxc-picture-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("phone.jpg").path
    try Data(try Self.sidewaysJPEG()).write(to: URL(fileURLWithPath: input))
    let (stored, storedInfo) = try ImageFile.read(input)
    #expect(storedInfo.orientation == 6 && stored.width == 640)

    let photo = try Picture(contentsOf: input)
    #expect(photo.image.width == 427 && photo.image.height == 640 && photo.info.orientation == 1)
    #expect(photo.info.width == 427 && photo.info.height == 640)
    let result = try Pipeline(invert()).apply(to: photo)
    let output = dir.appendingPathComponent("out.png").path
    try result.write(to: output)
    let (written, info) = try ImageFile.read(output)
    #expect(info.layout == .rgb && info.bitDepth == 8, "\(info.layout) \(info.bitDepth)")
    #expect(info.iccProfile != nil && info.iccProfile == storedInfo.iccProfile)
    #expect(written.width == 427 && written.height == 640)
    // Upright: the stored image's top-left pixel is, after orientation 6, the top-right one.
    let corner = stored[0, 0], turned = written[426, 0]
    for c in 0..<3 { #expect(abs(turned[c] - (1 - corner[c])) <= 1.0 / 255 + 1e-6, "channel \(c)") }
  }

  @Test func sixteenBitsStaySixteen() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fxc-picture16-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let image = randomImage(17, 9, seed: 3, format: .rgba16)
    for y in 0..<9 { for x in 0..<17 { image[stored: x, y].w = 1 } }
    let input = dir.appendingPathComponent("deep.png").path
    try ImageFile.write(image, to: input, layout: .rgb, bitDepth: 16, iccProfile: try .adobeRGB())
    let photo = try Picture(contentsOf: input)
    try Pipeline(sepia()).apply(to: photo).write(to: dir.appendingPathComponent("out.png").path)
    let (_, info) = try ImageFile.read(dir.appendingPathComponent("out.png").path)
    let adobe = try ICCProfile.adobeRGB()
    #expect(info.bitDepth == 16 && info.layout == .rgb && info.iccProfile == adobe)
  }

  /// A file's description is one readable line: the profile by its name and
  /// size, never its bytes (issue 37).
  @Test func aFileInfoDescribesItsProfileByName() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fxc-picture-info-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("adobe.png").path
    let adobe = try ICCProfile.adobeRGB()
    try ImageFile.write(randomImage(5, 3, seed: 1, format: .rgba8), to: path, layout: .rgb, iccProfile: adobe)
    let (_, info) = try ImageFile.read(path)
    let text = "\(info)"
    #expect(text.hasPrefix("png 5×3 rgb 8-bit, ICC "), "\(text)")
    #expect(text.contains("(rgb, \(adobe.data.count) bytes)"), "\(text)")
    #expect(adobe.name != nil && text.contains(adobe.name!), "\(text)")
    #expect(text.count < 120, "\(text)")
  }
}
