// Small shims over libwebp for FXImage: WebP (lossy and lossless, alpha,
// the first frame of an animation, ICC and EXIF chunks) from and to memory.
#ifndef FX_CWEBP_H
#define FX_CWEBP_H

#include <stddef.h>
#include <stdint.h>

/// Status codes returned by the fx_webp_* shims.
typedef enum {
  FX_WEBP_OK = 0,
  FX_WEBP_ERR_CORRUPT = 1,  ///< libwebp rejected the data
  FX_WEBP_ERR_NOMEM = 2,    ///< out of memory
} fx_webp_status;

/// What a WebP file holds.
typedef struct {
  uint32_t width, height;  ///< the canvas
  int has_alpha;
  int animated;  ///< the first frame is what is decoded
  int lossless;  ///< the (first) image is VP8L
} fx_webp_header;

/// Reads the header of the WebP in `bytes[0..<size]`.
fx_webp_status fx_webp_header_read(const void *bytes, size_t size, fx_webp_header *header, char *msg,
                                   size_t msg_cap);

/// Decodes the image (an animation's first frame, on its canvas) as 8-bit
/// RGBA, straight alpha, into `height` rows `row_bytes` apart.
/// Decodes a still (not animated) WebP scaled to `width` × `height` by
/// libwebp's own resampler (WebPDecoderConfig's use_scaling), as RGBA8
/// straight, into `pixels` (`row_bytes` apart).
fx_webp_status fx_webp_decode_scaled(const void *bytes, size_t size, void *pixels, size_t row_bytes,
                                     uint32_t width, uint32_t height, char *msg, size_t msg_cap);

fx_webp_status fx_webp_decode(const void *bytes, size_t size, void *pixels, size_t row_bytes,
                              const fx_webp_header *header, char *msg, size_t msg_cap);

/// The chunk `fourcc` ("ICCP" or "EXIF") of the file, if any: returns 1 and
/// a malloc'd copy in `*out` (`*out_size` bytes; release with free()), else 0.
int fx_webp_chunk(const void *bytes, size_t size, const char fourcc[4], void **out, size_t *out_size);

/// Encodes `height` rows of `channels` (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA,
/// straight) 8-bit samples, `row_bytes` apart: lossless (exact: colour under
/// transparent pixels kept) or lossy at `quality` 1…100, with the ICC profile
/// `icc` in an ICCP chunk, the EXIF block `exif` (a TIFF structure) in an
/// EXIF chunk and the XMP packet `xmp` in an "XMP " chunk, each unless NULL. On success `*out` is a malloc'd
/// buffer of `*out_size` bytes to release with free().
fx_webp_status fx_webp_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                              int channels, int lossless, int quality, const void *icc, size_t icc_size,
                              const void *exif, size_t exif_size, const void *xmp, size_t xmp_size, void **out,
                              size_t *out_size, char *msg, size_t msg_cap);

#endif
