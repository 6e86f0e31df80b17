// Small C shims over libpng for FXImage. libpng reports errors with
// setjmp/longjmp, which Swift cannot do; every shim below establishes the
// jump itself and returns a status code plus a message in a caller buffer.
// Nothing is ever printed to stderr.
#ifndef FX_CPNG_H
#define FX_CPNG_H

#include <png.h>
#include <stddef.h>
#include <stdint.h>

/// Status codes returned by the fx_png_* shims.
typedef enum {
  FX_PNG_OK = 0,
  FX_PNG_ERR_CORRUPT = 1,    ///< libpng rejected the data (message says why)
  FX_PNG_ERR_TRUNCATED = 2,  ///< the data ended before the image did
  FX_PNG_ERR_NOMEM = 3,      ///< out of memory
  FX_PNG_END_MISSING = 4,    ///< truncated after complete image data, before IEND
} fx_png_status;

/// The header of a PNG file, as stored (before any expansion).
typedef struct {
  uint32_t width, height;
  int bit_depth;   ///< 1, 2, 4, 8 or 16
  int color_type;  ///< PNG_COLOR_TYPE_*
  int has_trns;    ///< nonzero when a tRNS chunk gives transparency
  int interlaced;  ///< nonzero for an Adam7-interlaced file
  /// The pHYs chunk: pixels per metre along x and y (0 without one, or when its unit is not the metre).
  uint32_t ppm_x, ppm_y;
} fx_png_header;

/// A PNG decoder reading from memory; opaque to Swift.
typedef struct fx_png_reader fx_png_reader;

/// Parses the header of the PNG in `bytes[0..<size]` (which must outlive the
/// reader). Images wider or taller than `max_side` are refused by libpng's
/// user limits. On FX_PNG_OK `*out` is a reader to decode and then close.
fx_png_status fx_png_reader_open(const void *bytes, size_t size, uint32_t max_side, fx_png_reader **out,
                       fx_png_header *header, char *msg, size_t msg_cap);

/// Like fx_png_reader_open, reading the file open as `fd` from its current
/// offset (the descriptor stays the caller's).
fx_png_status fx_png_reader_open_fd(int fd, uint32_t max_side, fx_png_reader **out, fx_png_header *header,
                                    char *msg, size_t msg_cap);

/// Row by row instead of fx_png_reader_decode, for a non-interlaced file:
/// start once, read the next `count` rows (stored as fx_png_reader_decode
/// stores them) as often as needed, finish after the last row (with
/// fx_png_reader_decode's FX_PNG_END_MISSING).
fx_png_status fx_png_reader_start(fx_png_reader *reader, char *msg, size_t msg_cap);
fx_png_status fx_png_reader_rows(fx_png_reader *reader, void *pixels, size_t row_bytes, uint32_t count, char *msg,
                                 size_t msg_cap);
fx_png_status fx_png_reader_finish(fx_png_reader *reader, char *msg, size_t msg_cap);

/// Decodes the whole image as RGBA with 8 or 16 bits per channel (the file's
/// depth; 1/2/4-bit and palette images become 8-bit), straight alpha, 16-bit
/// samples big-endian as in the file, into `height` rows `row_bytes` apart.
/// FX_PNG_END_MISSING: every row was decoded, but the file ends before its
/// IEND chunk (a truncated file, though its pixels are complete).
fx_png_status fx_png_reader_decode(fx_png_reader *reader, void *pixels, size_t row_bytes, char *msg,
                         size_t msg_cap);

/// The embedded ICC profile (iCCP chunk, decompressed), if any: returns 1 and
/// points `*profile` at `*size` bytes owned by the reader; 0 when there is none
/// (or libpng dropped an invalid one with a warning).
int fx_png_reader_icc(fx_png_reader *reader, const void **profile, size_t *size);

/// The EXIF block (eXIf chunk, a TIFF structure), if any; seen after
/// fx_png_reader_decode also when the chunk follows the image data. Returns 1
/// and points `*exif` at `*size` bytes owned by the reader, else 0.
int fx_png_reader_exif(fx_png_reader *reader, const void **exif, size_t *size);

/// The XMP packet (the iTXt chunk "XML:com.adobe.xmp"), if any, as fx_png_reader_exif gives the EXIF block.
int fx_png_reader_xmp(fx_png_reader *reader, const void **xmp, size_t *size);

/// libpng's first warning about the iCCP chunk ("" when none), which means
/// it dropped the profile as invalid; owned by the reader.
const char *fx_png_reader_icc_warning(fx_png_reader *reader);

/// Frees the reader (NULL is allowed).
void fx_png_reader_close(fx_png_reader *reader);

/// Encodes `height` rows of `channels` (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA)
/// samples of `bit_depth` 8 or 16 (16-bit big-endian), `row_bytes` apart, as
/// a non-interlaced PNG with zlib level `compression_level` (0…9), with the ICC
/// profile `icc[0..<icc_size]` in an iCCP chunk unless `icc` is NULL, the EXIF
/// block `exif[0..<exif_size]` (a TIFF structure) in an eXIf chunk unless
/// `exif` is NULL, and the XMP packet `xmp[0..<xmp_size]` in an iTXt chunk
/// "XML:com.adobe.xmp" unless `xmp` is NULL. On success
/// `*out` is a malloc'd buffer of `*out_size` bytes to release with free().
fx_png_status fx_png_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                  int channels, int bit_depth, int compression_level, const void *icc,
                  size_t icc_size, const void *exif, size_t exif_size, const void *xmp, size_t xmp_size,
                  uint32_t ppm_x, uint32_t ppm_y, void **out, size_t *out_size, char *msg, size_t msg_cap);

/// A PNG encoder writing rows as they come; opaque to Swift.
typedef struct fx_png_writer fx_png_writer;

/// Starts a PNG as fx_png_encode writes it, into the file open as `fd`, or
/// into memory when `fd` is -1. Then write all `height` rows in order
/// (`count` at a time, `row_bytes` apart), finish (for memory, `*out` is then
/// a malloc'd buffer of `*out_size` bytes to free()), and close (also after a
/// failure).
fx_png_status fx_png_writer_open(int fd, uint32_t width, uint32_t height, int channels, int bit_depth,
                                 int compression_level, const void *icc, size_t icc_size, const void *exif,
                                 size_t exif_size, const void *xmp, size_t xmp_size, uint32_t ppm_x,
                                 uint32_t ppm_y, fx_png_writer **out, char *msg, size_t msg_cap);
fx_png_status fx_png_writer_rows(fx_png_writer *writer, const void *pixels, size_t row_bytes, uint32_t count,
                                 char *msg, size_t msg_cap);
fx_png_status fx_png_writer_finish(fx_png_writer *writer, void **out, size_t *out_size, char *msg,
                                   size_t msg_cap);
void fx_png_writer_close(fx_png_writer *writer);

/// Whether libpng refuses to write the ICC profile `icc[0..<icc_size]` in
/// the iCCP chunk of a PNG of `channels` channels (1–4) — as it refuses the
/// profiles it lists as "known incorrect sRGB profile" — with its reason in `msg`.
int fx_png_profile_refused(const void *icc, size_t icc_size, int channels, char *msg, size_t msg_cap);

#endif
