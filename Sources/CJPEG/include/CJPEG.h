// Small C shims over libjpeg(-turbo) for FXImage. libjpeg reports errors with
// setjmp/longjmp, which Swift cannot do; every shim below establishes the
// jump itself and returns a status code plus a message in a caller buffer.
// Nothing is ever printed to stderr.
#ifndef FX_CJPEG_H
#define FX_CJPEG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/// Status codes returned by the fx_jpeg_* shims.
typedef enum {
  FX_JPEG_OK = 0,
  FX_JPEG_ERR_CORRUPT = 1,      ///< libjpeg rejected the data (message says why)
  FX_JPEG_ERR_TRUNCATED = 2,    ///< the data ended before the image did
  FX_JPEG_ERR_UNSUPPORTED = 3,  ///< a valid JPEG in a color space we do not decode
  FX_JPEG_ERR_NOMEM = 4,        ///< out of memory
} fx_jpeg_status;

/// The header of a JPEG file.
typedef struct {
  uint32_t width, height;
  int components;      ///< 1 (gray), 3 (YCbCr or RGB), 4 (CMYK/YCCK)
  int cmyk;            ///< nonzero for CMYK and YCCK files
  int adobe_inverted;  ///< nonzero for CMYK and YCCK: their samples are Adobe's inverted CMYK, APP14 marker or not
  int progressive;     ///< nonzero for a progressive (multi-scan) file
  /// The JFIF density: unit 0 (an aspect ratio only), 1 (dots per inch) or
  /// 2 (per cm), and the densities; all 0 without a JFIF marker.
  int density_unit, x_density, y_density;
} fx_jpeg_header;

/// A JFIF density to write (fx_jpeg_header's fields): unit 0 with 1 × 1 is JFIF's default.
typedef struct {
  int unit, x, y;
} fx_jpeg_density;

/// A JPEG decoder reading from memory; opaque to Swift.
typedef struct fx_jpeg_reader fx_jpeg_reader;

/// Parses the header of the JPEG in `bytes[0..<size]` (which must outlive the
/// reader), keeping its EXIF and ICC segments. libjpeg may allocate at most
/// `max_memory` bytes for its own buffers (more is an error). On FX_JPEG_OK
/// `*out` is a reader to decode and then close.
fx_jpeg_status fx_jpeg_reader_open(const void *bytes, size_t size, size_t max_memory,
                        fx_jpeg_reader **out, fx_jpeg_header *header, char *msg,
                        size_t msg_cap);

/// Like fx_jpeg_reader_open, reading the file open as `fd` (from its current
/// offset; the descriptor stays the caller's, the reader reads a duplicate).
fx_jpeg_status fx_jpeg_reader_open_fd(int fd, size_t max_memory, fx_jpeg_reader **out,
                                      fx_jpeg_header *header, char *msg, size_t msg_cap);

/// The ICC profile reassembled from the APP2 segments, if any: returns 1 and
/// points `*profile` at `*size` bytes owned by the reader, else 0.
int fx_jpeg_reader_icc(fx_jpeg_reader *reader, const void **profile, size_t *size);

/// The EXIF block (the TIFF structure after "Exif\0\0" in the first such
/// APP1 segment), if any: returns 1 and points `*exif` at `*size` bytes owned
/// by the reader, else 0. Only before fx_jpeg_reader_decode, which frees them.
int fx_jpeg_reader_exif(fx_jpeg_reader *reader, const void **exif, size_t *size);

/// The XMP packet (after "http://ns.adobe.com/xap/1.0/\0" in the first such
/// APP1 segment), if any, as fx_jpeg_reader_exif gives the EXIF block.
int fx_jpeg_reader_xmp(fx_jpeg_reader *reader, const void **xmp, size_t *size);

/// Decodes the whole image as 8-bit RGBA (alpha 255) — or, for a CMYK or
/// YCCK file, as the 4 CMYK samples per pixel as stored (inverted when
/// `adobe_inverted`) — into `height` rows `row_bytes` apart. Corrupt entropy-coded data and a premature end of the
/// file, which libjpeg only warns about, are errors here.
fx_jpeg_status fx_jpeg_reader_decode(fx_jpeg_reader *reader, void *pixels, size_t row_bytes, char *msg,
                          size_t msg_cap);

/// Row by row instead of fx_jpeg_reader_decode: start once, then read the
/// next `count` rows (as fx_jpeg_reader_decode stores them) into `count` rows
/// `row_bytes` apart as often as needed, then finish after the last row.
fx_jpeg_status fx_jpeg_reader_start(fx_jpeg_reader *reader, char *msg, size_t msg_cap);
/// Before fx_jpeg_reader_start: decode reduced by 1/`denom` (libjpeg's DCT
/// scaling; 2, 4 or 8), and the reduced size (each side rounded up).
fx_jpeg_status fx_jpeg_reader_scale(fx_jpeg_reader *reader, unsigned denom, uint32_t *width, uint32_t *height,
                                    char *msg, size_t msg_cap);
fx_jpeg_status fx_jpeg_reader_rows(fx_jpeg_reader *reader, void *pixels, size_t row_bytes, uint32_t count,
                                   char *msg, size_t msg_cap);
fx_jpeg_status fx_jpeg_reader_finish(fx_jpeg_reader *reader, char *msg, size_t msg_cap);

/// Frees the reader (NULL is allowed).
void fx_jpeg_reader_close(fx_jpeg_reader *reader);

/// Encodes `height` rows of 8-bit samples, `components` 1 (gray), 3 (RGB)
/// or 4 (RGBX, the 4th ignored) per pixel, `row_bytes` apart, as a baseline JFIF JPEG of `quality` 1…100
/// (optimised Huffman tables up to FX_JPEG_OPTIMIZE_MAX_PIXELS),
/// with the ICC profile `icc[0..<icc_size]` in APP2 segments unless NULL,
/// an EXIF APP1 segment ("Exif\0\0", then `exif[0..<exif_size]`, a TIFF
/// structure) unless `exif` is NULL, and an XMP APP1 segment (Adobe's
/// signature, then the packet `xmp[0..<xmp_size]`) unless `xmp` is NULL;
/// a block larger than FX_JPEG_MAX_EXIF or FX_JPEG_MAX_XMP is refused
/// (FX_JPEG_ERR_UNSUPPORTED), never cut.
/// On success `*out` is a malloc'd buffer of `*out_size` bytes to release
/// with free().
fx_jpeg_status fx_jpeg_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                   int components, int quality, const void *icc, size_t icc_size, const void *exif,
                   size_t exif_size, const void *xmp, size_t xmp_size, fx_jpeg_density density, void **out,
                   size_t *out_size, char *msg, size_t msg_cap);

/// The largest EXIF and XMP blocks one APP1 segment holds (65,533 bytes of
/// data, less the signature).
#define FX_JPEG_MAX_EXIF (65533u - 6u)
#define FX_JPEG_MAX_XMP (65533u - 29u)

/// The largest image whose Huffman tables are optimised (a second pass over
/// coefficients held in memory, ~3 bytes a pixel); larger ones use the
/// standard tables, so that the encoder's memory does not grow with the image.
#define FX_JPEG_OPTIMIZE_MAX_PIXELS 50000000ull

/// A JPEG encoder writing rows as they come; opaque to Swift.
typedef struct fx_jpeg_writer fx_jpeg_writer;

/// Starts a JPEG as fx_jpeg_encode writes it — `components` 1 (gray), 3
/// (RGB) or 4 (RGBX: RGB and a byte that is ignored; the same file as RGB) —
/// into the file open as `fd`
/// (the writer writes through a duplicate, flushed by finish), or into memory
/// when `fd` is -1. Then write all `height` rows in order (`count` at a time,
/// `row_bytes` apart), finish (for memory, `*out` is then a malloc'd buffer
/// of `*out_size` bytes to free()), and close (also after a failure).
fx_jpeg_status fx_jpeg_writer_open(int fd, uint32_t width, uint32_t height, int components, int quality,
                                   const void *icc, size_t icc_size, const void *exif, size_t exif_size,
                                   const void *xmp, size_t xmp_size, fx_jpeg_density density,
                                   fx_jpeg_writer **out, char *msg, size_t msg_cap);
fx_jpeg_status fx_jpeg_writer_rows(fx_jpeg_writer *writer, const void *pixels, size_t row_bytes,
                                   uint32_t count, char *msg, size_t msg_cap);
fx_jpeg_status fx_jpeg_writer_finish(fx_jpeg_writer *writer, void **out, size_t *out_size, char *msg,
                                     size_t msg_cap);
void fx_jpeg_writer_close(fx_jpeg_writer *writer);

#endif
