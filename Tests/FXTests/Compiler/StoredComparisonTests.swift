import FX
import FXTestSupport
import Testing

/// How the differential check compares an 8- or 16-bit output with the
/// staged float result: within one level in strict mode; in relaxed mode
/// within what DESIGN §4's 1e-4 on the premultiplied value allows once the
/// store un-premultiplies (fxc fuzz `--float relaxed` seed
/// 9126479790732904137: ±4e-7 where alpha was 0.0003 is 4 levels of 16 bits).
struct StoredComparisonTests {
  static func expected(_ c: Float, _ a: Float) -> ImageBuffer { ImageBuffer.pixels(1, 1, .rgba32f, [(c, c, c, a)]) }
  static func stored(_ level: Float, alpha: Float) -> ImageBuffer {
    let out = try! ImageBuffer(width: 1, height: 1, format: .rgba16)
    out[stored: 0, 0] = SIMD4(level / 65535, level / 65535, level / 65535, alpha)
    return out
  }

  @Test func relaxedAllowsTheFloatToleranceDividedByAlpha() {
    // Expected colour 0 at alpha 0.0003 (20 levels), stored 4: the relaxed bound there
    // is 1e-4 / (0.0003 − 1e-4) of the range (half of it): the colour is hardly determined.
    let e = Self.expected(0, 0.0003), a = Self.stored(4, alpha: 0.0003)
    #expect(ImageComparison.compareStored(expected: e, actual: a) != nil)
    #expect(ImageComparison.compareStored(expected: e, actual: a, relaxed: true) == nil)
    // At alpha 0.5: 1e-4 / (0.5 − 1e-4) · 65535 = 13.1 levels.
    let half = Self.expected(0, 0.5)
    #expect(ImageComparison.compareStored(expected: half, actual: Self.stored(13, alpha: 0.5), relaxed: true) == nil)
    #expect(ImageComparison.compareStored(expected: half, actual: Self.stored(15, alpha: 0.5), relaxed: true) != nil)
    // Opaque colour 0.5 (32768): (1e-4 + 0.5 · 1e-4) / (1 − 1e-4) · 65535 = 9.8 levels; strict allows 1.
    let opaque = Self.expected(0.5, 1)
    #expect(ImageComparison.compareStored(expected: opaque, actual: Self.stored(32768 + 9, alpha: 1), relaxed: true) == nil)
    #expect(ImageComparison.compareStored(expected: opaque, actual: Self.stored(32768 + 11, alpha: 1), relaxed: true) != nil)
    #expect(ImageComparison.compareStored(expected: opaque, actual: Self.stored(32768 + 2, alpha: 1)) != nil)
  }
}
