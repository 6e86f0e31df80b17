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
  FX_JPEG_ERR_UNSUPPORTED = 3,  ///< a valid JPEG we do not decode (CMYK, YCCK)
  FX_JPEG_ERR_NOMEM = 4,        ///< out of memory
} fx_jpeg_status;

/// The header of a JPEG file.
typedef struct {
  uint32_t width, height;
  int components;  ///< 1 (gray), 3 (YCbCr or RGB), 4 (CMYK/YCCK)
} fx_jpeg_header;

/// A JPEG decoder reading from memory; opaque to Swift.
typedef struct fx_jpeg_reader fx_jpeg_reader;

/// Parses the header of the JPEG in `bytes[0..<size]` (which must outlive the
/// reader). On FX_JPEG_OK `*out` is a reader to decode and then close.
fx_jpeg_status fx_jpeg_reader_open(const void *bytes, size_t size, fx_jpeg_reader **out,
                        fx_jpeg_header *header, char *msg, size_t msg_cap);

/// Decodes the whole image as 8-bit RGBA (alpha 255) into `height` rows
/// `row_bytes` apart. Corrupt entropy-coded data and a premature end of the
/// file, which libjpeg only warns about, are errors here.
fx_jpeg_status fx_jpeg_reader_decode(fx_jpeg_reader *reader, void *pixels, size_t row_bytes, char *msg,
                          size_t msg_cap);

/// Frees the reader (NULL is allowed).
void fx_jpeg_reader_close(fx_jpeg_reader *reader);

/// Encodes `height` rows of 8-bit samples, `components` 1 (gray) or 3 (RGB)
/// per pixel, `row_bytes` apart, as a baseline JFIF JPEG of `quality` 1…100.
/// On success `*out` is a malloc'd buffer of `*out_size` bytes to release
/// with free().
fx_jpeg_status fx_jpeg_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                   int components, int quality, void **out, size_t *out_size, char *msg,
                   size_t msg_cap);

#endif
