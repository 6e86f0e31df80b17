// Small shims over libheif for FXImage: HEIC (HEVC) and AVIF (AV1) primary
// images from and to memory, with their ICC profiles.
#ifndef FX_CHEIF_H
#define FX_CHEIF_H

#include <stddef.h>
#include <stdint.h>

/// Status codes returned by the fx_heif_* shims.
typedef enum {
  FX_HEIF_OK = 0,
  FX_HEIF_ERR_CORRUPT = 1,      ///< libheif rejected the data
  FX_HEIF_ERR_UNSUPPORTED = 2,  ///< no decoder or encoder for it
  FX_HEIF_ERR_NOMEM = 3,
} fx_heif_status;

/// The primary image of a HEIF file.
typedef struct {
  uint32_t width, height;  ///< after the file's rotation and mirroring
  int bits;                ///< 8, or 16 for a file of more than 8 bits per sample
  int has_alpha;
} fx_heif_header;

/// A HEIF decoder reading from memory; opaque to Swift.
typedef struct fx_heif_reader fx_heif_reader;

/// Parses the HEIF in `bytes[0..<size]` (which must outlive the reader);
/// images wider or taller than `max_side` are refused by libheif.
fx_heif_status fx_heif_reader_open(const void *bytes, size_t size, int max_side, fx_heif_reader **out,
                                   fx_heif_header *header, char *msg, size_t msg_cap);

/// The sizes (after their own rotation and mirroring) of the primary image's
/// stored thumbnails, at most `max` of them; returns how many were listed.
int fx_heif_reader_thumbnails(fx_heif_reader *reader, uint32_t *widths, uint32_t *heights, int max);

/// Makes the reader decode thumbnail `index` (as listed by
/// fx_heif_reader_thumbnails) instead of the primary image; `header` gets its size.
fx_heif_status fx_heif_reader_use_thumbnail(fx_heif_reader *reader, int index, fx_heif_header *header, char *msg,
                                            size_t msg_cap);

/// Decodes the primary image (or the thumbnail chosen) — turned and mirrored as the file says
/// (irot/imir), so it is upright — as RGBA of `header.bits` bits (more than
/// 8 bits scaled to 16), straight alpha (premultiplied alpha divided out),
/// into `height` rows `row_bytes` apart.
fx_heif_status fx_heif_reader_decode(fx_heif_reader *reader, void *pixels, size_t row_bytes, char *msg,
                                     size_t msg_cap);

/// The ICC profile ("prof" or "rICC") of the image decoded — a thumbnail
/// without one has its primary image's —, if any: returns 1
/// and a malloc'd copy in `*out` (`*out_size` bytes; release with free()).
int fx_heif_reader_icc(fx_heif_reader *reader, void **out, size_t *out_size);

/// Frees the reader (NULL is allowed).
void fx_heif_reader_close(fx_heif_reader *reader);

/// Encodes `height` rows of 8-bit RGB (`alpha` 0) or RGBA (straight),
/// `row_bytes` apart, as HEIC (`av1` 0, HEVC) or AVIF (`av1` 1), lossless or
/// at `quality` 1…100, with the ICC profile `icc` unless NULL. On success
/// `*out` is a malloc'd buffer of `*out_size` bytes to release with free().
fx_heif_status fx_heif_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes, int alpha,
                              int av1, int lossless, int quality, const void *icc, size_t icc_size, void **out,
                              size_t *out_size, char *msg, size_t msg_cap);

#endif
