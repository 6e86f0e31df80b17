/// Shrink-on-load (docs/design.md §4): when the first thing a pipeline does
/// to an image is a reduction of at least 2×, a decoder may hand it a
/// smaller image to start from — libjpeg's DCT scaling and libwebp's scaled
/// decoding reduce by 2, 4 or 8; a HEIF file may store a thumbnail of its
/// image. The pixels change slightly (the decoder's reduction, then the rest
/// of the pipeline), which is why only `thumbnail`, or a resize that asks
/// for it, shrinks on load.
public enum ShrinkOnLoad {
  /// What a pipeline's first resize makes of a stored image: given its
  /// stored width, height and EXIF orientation (1…8), the result's size in
  /// the stored orientation; nil when the image must be read whole.
  public typealias Result = (_ width: Int, _ height: Int, _ orientation: Int) -> (width: Int, height: Int)?

  /// The factor a decoder that reduces by powers of two uses for a
  /// `width × height` image whose first resize makes `result`: the largest of
  /// 8, 4 and 2 whose reduced image, each side ⌈n / factor⌉, is still at
  /// least `result` on both axes, or 1 (sharp's default rule,
  /// `fastShrinkOnLoad`; the resampler makes the rest).
  public static func factor(width: Int, height: Int, result: (width: Int, height: Int)) -> Int {
    func reduced(_ n: Int, _ s: Int) -> Int { (n + s - 1) / s }
    return [8, 4, 2].first { s in reduced(width, s) >= result.width && reduced(height, s) >= result.height } ?? 1
  }

  /// Which of a HEIF image's stored thumbnails (`sizes`, upright as the
  /// image is) to read instead of the `width × height` image whose first
  /// resize makes `result`: only where the reduction is at least 2×
  /// (``factor(width:height:result:)`` is at least 2), the smallest whose
  /// size is at least `result` on both axes and whose aspect ratio is within
  /// 2 % of the image's (encoders round a thumbnail's sides: heif-enc stores
  /// 320×178 for 5640×3172, 1.1 % off; a thumbnail of a crop is not the
  /// image); nil when none is — then the image is read whole. libvips'
  /// `thumbnail` reads a HEIF's thumbnail on the same condition of size.
  public static func thumbnail(
    _ sizes: [(width: Int, height: Int)], width: Int, height: Int, result: (width: Int, height: Int)
  ) -> Int? {
    guard factor(width: width, height: height, result: result) >= 2 else { return nil }
    let fitting = sizes.indices.filter { i in
      let t = sizes[i]
      let sameAspect = abs(t.width * height - t.height * width) * 50 <= t.width * height  // |t.w·H − t.h·W| ≤ 2 % of t.w·H
      return t.width >= result.width && t.height >= result.height && t.width < width && sameAspect
    }
    return fitting.min { sizes[$0].width * sizes[$0].height < sizes[$1].width * sizes[$1].height }
  }
}
