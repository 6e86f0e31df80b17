import FXDSL
import FXIR

// Effects that read the whole image before they write a pixel: reductions
// (docs/design.md §4, "Reductions") to per-channel histograms, then a map.

/// Auto levels: each colour channel stretched so that its darkest sample
/// becomes 0 and its brightest 1 (Pillow's `ImageOps.autocontrast()`, per
/// channel; ImageMagick's `-auto-level` stretches the channels together).
/// Alpha is kept; an image whose channel has one level keeps that channel.
public func autoLevels() -> Effect {
  Effect("autoLevels") { $0.reduce(.levels(low: 0, high: 0)) }
}

/// Normalize: ``autoLevels()`` after `black` % of each channel's samples are
/// clipped at the dark end and `white` % at the bright end (ImageMagick's
/// `-normalize`: 2 % and 1 %; Pillow's `autocontrast(cutoff: (black, white))`).
/// `black`, `white` 0…50 % each, clamped to it (constants: the histogram is
/// read when the pipeline runs; a non-finite one leaves the image unchanged,
/// DESIGN §5).
public func normalize(black: Float = 2, white: Float = 1) -> Effect {
  let name = "normalize(black: \(black), white: \(white))"
  guard black.isFinite, white.isFinite else { return Effect(name) { $0 } }
  let (low, high) = (min(max(black, 0), 50), min(max(white, 0), 50))
  return Effect(name) { $0.reduce(.levels(low: low, high: high)) }
}

/// Histogram equalisation per colour channel, as Pillow's
/// `ImageOps.equalize` defines it (``Reduction/equalize``; ImageMagick's
/// `-equalize` and libvips' `hist_equal` equalise the same histograms by
/// their own rounding). Alpha is kept.
public func equalize() -> Effect {
  Effect("equalize") { $0.reduce(.equalize) }
}

/// Contrast-limited adaptive histogram equalisation per colour channel, as
/// OpenCV's `createCLAHE(clipLimit:, tileGridSize: (tiles, tiles)).apply` on
/// each channel (``Clahe``, Zuiderveld 1994): `tiles` × `tiles` tiles (1…64),
/// each equalised with its histogram clipped at `clipLimit` times a bin's mean
/// count (0…40; 0 does not clip), the tiles' maps blended bilinearly. Alpha is
/// kept. Constants; a non-finite one leaves the image unchanged (DESIGN §5).
public func clahe(tiles: Int = 8, clipLimit: Float = 2) -> Effect {
  let name = "clahe(tiles: \(tiles), clipLimit: \(clipLimit))"
  guard clipLimit.isFinite else { return Effect(name) { $0 } }
  let t = min(max(tiles, 1), 64)
  return Effect(name) { $0.reduce(.clahe(Clahe(tilesX: t, tilesY: t, clipLimit: min(max(clipLimit, 0), 40)))) }
}
