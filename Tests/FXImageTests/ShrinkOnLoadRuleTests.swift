import Foundation
import Testing

@testable import FXImage

/// Shrink-on-load's two rules (docs/design.md §4), with sizes worked out by
/// hand, and a HEIF's stored thumbnail read in place of its image.
@Suite struct ShrinkOnLoadRules {
  /// The largest of 8, 4, 2 whose ⌈n / factor⌉ still covers the result.
  @Test func theFactorIsTheLargestWhoseReductionStillCoversTheResult() {
    // 800×600 → 100×75: ⌈800/8⌉ = 100, ⌈600/8⌉ = 75: 8.
    #expect(ShrinkOnLoad.factor(width: 800, height: 600, result: (100, 75)) == 8)
    // 801×600 → 101×75: ⌈801/8⌉ = 101 covers 101, 75 covers 75: 8; → 102×75: 4 (⌈801/4⌉ = 201).
    #expect(ShrinkOnLoad.factor(width: 801, height: 600, result: (101, 75)) == 8)
    #expect(ShrinkOnLoad.factor(width: 801, height: 600, result: (102, 75)) == 4)
    // 640×427 → 200×133: ⌈640/4⌉ = 160 < 200, ⌈640/2⌉ = 320, ⌈427/2⌉ = 214: 2.
    #expect(ShrinkOnLoad.factor(width: 640, height: 427, result: (200, 133)) == 2)
    // A reduction under 2×: 1.
    #expect(ShrinkOnLoad.factor(width: 640, height: 427, result: (321, 214)) == 1)
  }

  @Test func aThumbnailIsTheSmallestThatCoversTheResultWithTheImagesAspect() {
    let sizes: [(width: Int, height: Int)] = [(320, 240), (160, 120), (1000, 750), (160, 160)]
    // 4000×3000 → 150×113: 160×120 covers it (160×160 has another aspect).
    #expect(ShrinkOnLoad.thumbnail(sizes, width: 4000, height: 3000, result: (150, 113)) == 1)
    // → 300×225: 320×240.
    #expect(ShrinkOnLoad.thumbnail(sizes, width: 4000, height: 3000, result: (300, 225)) == 0)
    // → 1200×900: none covers it.
    #expect(ShrinkOnLoad.thumbnail(sizes, width: 4000, height: 3000, result: (1200, 900)) == nil)
    // A reduction under 2× reads no thumbnail, however large.
    #expect(ShrinkOnLoad.thumbnail(sizes, width: 1500, height: 1125, result: (900, 675)) == nil)
    // 640×427 with a 160×106 thumbnail: |160·427 − 106·640| = 480, 0.7 % of 160·427: the same aspect.
    #expect(ShrinkOnLoad.thumbnail([(160, 106)], width: 640, height: 427, result: (100, 67)) == 0)
    // heif-enc's 320×178 of 5640×3172: |320·3172 − 178·5640| = 11,120, 1.1 % of 1,015,040.
    #expect(ShrinkOnLoad.thumbnail([(320, 178)], width: 5640, height: 3172, result: (256, 144)) == 0)
    // A 160×90 thumbnail is of a crop: |160·427 − 90·640| = 10,720, 15.7 %.
    #expect(ShrinkOnLoad.thumbnail([(160, 90)], width: 640, height: 427, result: (100, 56)) == nil)
  }

  /// rocket-thumbnail.heic: examples/rocket.jpg (640×427, public domain) as
  /// HEIC with a 160×106 thumbnail, made with Debian's libheif-examples 1.15.1:
  /// `heif-enc -q 50 -t 160 examples/rocket.jpg -o rocket-thumbnail.heic`.
  @Test func aHEIFThumbnailLargeEnoughIsReadInsteadOfTheImage() throws {
    let path = fixture("rocket-thumbnail.heic")
    let (whole, plain) = try ImageFile.read(path)
    #expect(whole.width == 640 && whole.height == 427 && !plain.fromThumbnail)
    let (small, info) = try ImageFile.read(path, shrink: { w, h, _ in w == 640 && h == 427 ? (100, 67) : nil })
    #expect(small.width == 160 && small.height == 106 && info.width == 160 && info.fromThumbnail, "\(info)")
    #expect(info.description.contains("read from its stored thumbnail"))
    #expect(info.iccProfile != nil || plain.iccProfile == nil, "the thumbnail lost the image's profile")
    // Too small for the result: the image itself.
    let (big, bigInfo) = try ImageFile.read(path, shrink: { _, _, _ in (200, 133) })
    #expect(big.width == 640 && !bigInfo.fromThumbnail)
    // The thumbnail is the image, smaller: on average near the mean of the 4×4 blocks it covers
    // (HEVC at q50 encodes the two apart: a few levels; another picture, or a turned one, is tens).
    var sum: Float = 0
    for y in 0..<106 {
      for x in 0..<160 {
        var block = SIMD4<Float>(repeating: 0)
        for j in 0..<4 { for i in 0..<4 { block += whole[x * 4 + i, min(426, y * 427 / 106 + j)] } }
        let d = small[x, y] - block / 16
        sum += abs(d[0]) + abs(d[1]) + abs(d[2])
      }
    }
    let mean = sum * 255 / Float(160 * 106 * 3)
    #expect(mean < 8, "the thumbnail is on average \(mean) levels from the image's blocks")
  }
}
