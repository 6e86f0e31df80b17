import FX
import Foundation
import Testing

/// Issue 16: a photo's ICC profile travels through `fxc run` (its numbers
/// keep their meaning), `--to-srgb` converts instead, and a bad profile is a
/// warning, not a failure.
@Suite("fxc run: colour profiles")
struct BatchColorTests {
  static func photo(in dir: BatchScratch, _ name: String, profile: ICCProfile?) throws {
    let image = batchTestImage(width: 40, height: 24, opaque: true)
    try ImageFile.write(image, to: dir.file(name), iccProfile: profile)
  }

  @Test(arguments: ["png", "jpg"])
  func theInputsProfileIsKept(ext: String) throws {
    let dir = try BatchScratch()
    let profile = try ICCProfile.adobeRGB()
    try dir.mkdir("in")
    try Self.photo(in: dir, "in/a.\(ext)", profile: profile)
    try Self.photo(in: dir, "in/b.\(ext)", profile: try ICCProfile.displayP3())
    try Self.photo(in: dir, "in/c.\(ext)", profile: nil)
    let result = try BatchFXC.run(["run", "-c", "sepia", "in", "--out-dir", "out"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(try ImageFile.read(dir.file("out/a.\(ext)")).1.iccProfile == profile)
    #expect(try ImageFile.read(dir.file("out/b.\(ext)")).1.iccProfile == ICCProfile.displayP3())
    #expect(try ImageFile.read(dir.file("out/c.\(ext)")).1.iccProfile == nil)
  }

  @Test func toSRGBConvertsWithLittleCMSAndEmbedsNoProfile() throws {
    let dir = try BatchScratch()
    try Self.photo(in: dir, "a.png", profile: try ICCProfile.adobeRGB())
    // brightness(amount: 0) is the identity: the output is the conversion alone.
    let result = try BatchFXC.run(["run", "-c", "brightness", "a.png", "-o", "s.png", "--to-srgb", "--depth", "8"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    let (converted, info) = try ImageFile.read(dir.file("s.png"))
    #expect(info.iccProfile == nil)
    let (library, _) = try ImageFile.read(dir.file("a.png"), options: ImageReadOptions(convertToSRGB: true))
    let (original, _) = try ImageFile.read(dir.file("a.png"))
    let want = try library.copy(as: .rgba8), before = try original.copy(as: .rgba8)
    var worst: Float = 0
    var changed = false
    for y in 0..<converted.height {
      for x in 0..<converted.width {
        let d = (converted[stored: x, y] - want[stored: x, y]) * 255
        worst = max(worst, max(max(Swift.abs(d.x), Swift.abs(d.y)), max(Swift.abs(d.z), Swift.abs(d.w))))
        changed = changed || before[stored: x, y] != converted[stored: x, y]
      }
    }
    #expect(worst <= 1.001 && changed, "worst \(worst), changed \(changed)")
  }

  @Test func aCorruptProfileIsAWarningAndTheFileIsWritten() throws {
    let dir = try BatchScratch()
    try Self.photo(in: dir, "a.jpg", profile: nil)
    var data = [UInt8](try dir.bytes("a.jpg"))
    let body = Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](repeating: 0x5A, count: 300)
    data.insert(contentsOf: [0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body, at: 2)
    try dir.write(Data(data), to: "a.jpg")
    let result = try BatchFXC.run(["run", "-c", "sepia", "a.jpg", "-o", "o.jpg", "--report", "r.json"], in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stderr.contains("warning: a.jpg: the ICC profile is corrupt"), "\(result)")
    #expect(dir.exists("o.jpg"))
    let report = String(decoding: try dir.bytes("r.json"), as: UTF8.self)
    #expect(report.contains("\"warnings\":[\"the ICC profile is corrupt"), "\(report)")
  }
}
