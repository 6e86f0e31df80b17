// Small shims over giflib for FXImage: the first frame of a GIF, from memory.
#ifndef FX_CGIF_H
#define FX_CGIF_H

#include <stddef.h>
#include <stdint.h>

/// Status codes returned by the fx_gif_* shims.
typedef enum {
  FX_GIF_OK = 0,
  FX_GIF_ERR_CORRUPT = 1,  ///< giflib rejected the data, or it ends early
  FX_GIF_ERR_NOMEM = 2,    ///< out of memory
} fx_gif_status;

/// A GIF decoder reading from memory; opaque to Swift.
typedef struct fx_gif_reader fx_gif_reader;

/// Reads the screen descriptor of the GIF in `bytes[0..<size]` (which must
/// outlive the reader): the canvas is `*width` × `*height`.
fx_gif_status fx_gif_reader_open(const void *bytes, size_t size, fx_gif_reader **out, uint32_t *width,
                                 uint32_t *height, char *msg, size_t msg_cap);

/// Decodes the first frame onto the canvas — `pixels`, which must be zero
/// (transparent) already — as 8-bit RGBA, straight alpha:
/// the frame's colours from its local or the global colour table, its
/// transparent index (Graphics Control Extension) and the canvas outside the
/// frame transparent; interlaced frames de-interlaced. Only the records up
/// to the first frame are read. `*transparent` is set when any pixel may be
/// transparent: the frame has a transparent colour or leaves canvas uncovered.
fx_gif_status fx_gif_reader_decode(fx_gif_reader *reader, void *pixels, size_t row_bytes, int *transparent,
                                   char *msg, size_t msg_cap);

/// Frees the reader (NULL is allowed).
void fx_gif_reader_close(fx_gif_reader *reader);

#endif
