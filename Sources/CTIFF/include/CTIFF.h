// Small shims over libtiff for FXImage: TIFF files read from and written to
// memory, errors captured per file (never printed).
#ifndef FX_CTIFF_H
#define FX_CTIFF_H

#include <stddef.h>
#include <stdint.h>

/// Status codes returned by the fx_tiff_* shims.
typedef enum {
  FX_TIFF_OK = 0,
  FX_TIFF_ERR_CORRUPT = 1,      ///< libtiff rejected the data (message says why)
  FX_TIFF_ERR_UNSUPPORTED = 2,  ///< a valid TIFF fxc does not decode
  FX_TIFF_ERR_NOMEM = 3,        ///< out of memory
  FX_TIFF_ERR_PAGE = 4,         ///< the page asked for is not in the file (message says how many there are)
} fx_tiff_status;

/// The page (directory) of a TIFF file that the reader reads.
typedef struct {
  uint32_t width, height;
  int bits;         ///< 8 or 16: the depth the decoder delivers
  int channels;     ///< colour channels stored: 1 (gray) or 3 (RGB); 3 for other photometrics
  int alpha;        ///< 0 none, 1 associated (premultiplied), 2 unassociated
  int orientation;  ///< TIFF Orientation, 1…8 (1 when absent)
  int pages;        ///< directories in the file
  int direct;       ///< nonzero when fx_tiff_reader_rows can read it (8/16-bit gray or RGB, contiguous)
  /// XResolution and YResolution in pixels per inch (per-centimetre values × 2.54); 0 when absent or without a unit.
  double dpi_x, dpi_y;
} fx_tiff_header;

/// A TIFF decoder reading from memory; opaque to Swift.
typedef struct fx_tiff_reader fx_tiff_reader;

/// Parses directory `page` (0 for the first) of the TIFF in `bytes[0..<size]`
/// (which must outlive the reader). libtiff may allocate at most `max_alloc` bytes at
/// once for its own buffers. On FX_TIFF_OK `*out` is a reader to decode and
/// then close.
fx_tiff_status fx_tiff_reader_open(const void *bytes, size_t size, size_t max_alloc, int page,
                                   fx_tiff_reader **out, fx_tiff_header *header, char *msg, size_t msg_cap);

/// Like fx_tiff_reader_open, reading the file open as `fd` with pread (the
/// descriptor stays the caller's).
fx_tiff_status fx_tiff_reader_open_fd(int fd, size_t max_alloc, int page, fx_tiff_reader **out,
                                      fx_tiff_header *header, char *msg, size_t msg_cap);

/// The next `count` rows of a file whose header says `direct`, stored as
/// fx_tiff_reader_decode stores them, into `count` rows `row_bytes` apart. A
/// strip or a row of tiles is decoded when its first row is asked for and
/// held until its last.
fx_tiff_status fx_tiff_reader_rows(fx_tiff_reader *reader, void *pixels, size_t row_bytes, uint32_t count,
                                   char *msg, size_t msg_cap);

/// Decodes the page as RGBA with `header.bits` bits per sample (16-bit
/// in native byte order), straight alpha (associated alpha is divided out;
/// no alpha is opaque), rows top to bottom as stored, into `height` rows
/// `row_bytes` apart. 8- and 16-bit gray and RGB, with or without alpha,
/// striped or tiled, contiguous samples, are read as they are; anything else
/// (palette, 1–4-bit, YCbCr, CMYK, separate planes, …) through libtiff's
/// RGBA interface at 8 bits.
fx_tiff_status fx_tiff_reader_decode(fx_tiff_reader *reader, void *pixels, size_t row_bytes, char *msg,
                                     size_t msg_cap);

/// The ICC profile of the page (TIFFTAG_ICCPROFILE), if any: returns 1
/// and points `*profile` at `*size` bytes owned by the reader, else 0.
int fx_tiff_reader_icc(fx_tiff_reader *reader, const void **profile, size_t *size);

/// Frees the reader (NULL is allowed).
void fx_tiff_reader_close(fx_tiff_reader *reader);

/// Encodes `height` rows of `channels` (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA;
/// alpha unassociated) samples of `bits` 8 or 16 (native byte order),
/// `row_bytes` apart, as a TIFF with Deflate compression of zlib level
/// `level` (0 = uncompressed) and the horizontal predictor, in strips — or
/// in `tile`×`tile` tiles when `tile` is a positive multiple of 16 — with the
/// ICC profile `icc` unless NULL, and the Orientation tag `orientation`
/// (1…8; anything else is 1), and XResolution/YResolution in pixels per inch
/// when `dpi_x` and `dpi_y` are positive. On success `*out` is a malloc'd buffer of
/// `*out_size` bytes to release with free().
fx_tiff_status fx_tiff_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                              int channels, int bits, int level, int tile, const void *icc,
                              size_t icc_size, int orientation, double dpi_x, double dpi_y, void **out,
                              size_t *out_size, char *msg, size_t msg_cap);

/// A TIFF encoder writing rows as they come; opaque to Swift.
typedef struct fx_tiff_writer fx_tiff_writer;

/// Starts a TIFF as fx_tiff_encode writes it, into the file open as `fd`
/// (written with pwrite from offset 0), or into memory when `fd` is -1. Then
/// write all `height` rows in order (`count` at a time, `row_bytes` apart),
/// finish (for memory, `*out` is then a malloc'd buffer of `*out_size`
/// bytes to free()), and close (also after a failure).
fx_tiff_status fx_tiff_writer_open(int fd, uint32_t width, uint32_t height, int channels, int bits, int level,
                                   int tile, const void *icc, size_t icc_size, int orientation, double dpi_x,
                                   double dpi_y, fx_tiff_writer **out, char *msg, size_t msg_cap);
fx_tiff_status fx_tiff_writer_rows(fx_tiff_writer *writer, const void *pixels, size_t row_bytes, uint32_t count,
                                   char *msg, size_t msg_cap);
fx_tiff_status fx_tiff_writer_finish(fx_tiff_writer *writer, void **out, size_t *out_size, char *msg,
                                     size_t msg_cap);
void fx_tiff_writer_close(fx_tiff_writer *writer);

#endif
