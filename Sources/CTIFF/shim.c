#include "CTIFF.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

// ---------------------------------------------------------------- memory I/O

// A file in memory: read from `data`, or written to a growable buffer.
typedef struct {
  const unsigned char *data;
  unsigned char *buf;  // writing
  size_t size, cap, pos;
  int has_fd, fd;   // a file instead: read and written with pread/pwrite at `pos`
  char error[256];  // libtiff's first error for this file
} fx_tiff_io;

static tmsize_t io_read(thandle_t h, void *dst, tmsize_t n) {
  fx_tiff_io *io = h;
  if (io->has_fd) {
    size_t done = 0;
    while (n > 0 && done < (size_t)n) {
      ssize_t k = pread(io->fd, (char *)dst + done, (size_t)n - done, (off_t)(io->pos + done));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      done += (size_t)k;
    }
    io->pos += done;
    return (tmsize_t)done;
  }
  if (n < 0 || io->pos >= io->size) return 0;
  size_t k = (size_t)n < io->size - io->pos ? (size_t)n : io->size - io->pos;
  memcpy(dst, (io->data ? io->data : io->buf) + io->pos, k);
  io->pos += k;
  return (tmsize_t)k;
}

static tmsize_t io_write(thandle_t h, void *src, tmsize_t n) {
  fx_tiff_io *io = h;
  if (io->has_fd) {
    size_t done = 0;
    while (n > 0 && done < (size_t)n) {
      ssize_t k = pwrite(io->fd, (const char *)src + done, (size_t)n - done, (off_t)(io->pos + done));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        if (io->error[0] == '\0')
          snprintf(io->error, sizeof io->error, "%s", k < 0 && errno == ENOSPC ? "no space left on the device" : "cannot write the file");
        return -1;
      }
      done += (size_t)k;
    }
    io->pos += done;
    if (io->pos > io->size) io->size = io->pos;
    return n;
  }
  if (io->data != NULL || n < 0) return -1;
  size_t end = io->pos + (size_t)n;
  if (end > io->cap) {
    size_t cap = io->cap ? io->cap : 1 << 16;
    while (cap < end) cap *= 2;
    unsigned char *grown = realloc(io->buf, cap);
    if (grown == NULL) return -1;
    io->buf = grown;
    io->cap = cap;
  }
  if (io->pos > io->size) memset(io->buf + io->size, 0, io->pos - io->size);
  memcpy(io->buf + io->pos, src, (size_t)n);
  io->pos = end;
  if (end > io->size) io->size = end;
  return n;
}

static toff_t io_seek(thandle_t h, toff_t off, int whence) {
  fx_tiff_io *io = h;
  uint64_t base = whence == SEEK_CUR ? io->pos : whence == SEEK_END ? io->size : 0;
  uint64_t to = base + off;
  if (to > (uint64_t)1 << 40) return (toff_t)-1;
  io->pos = (size_t)to;
  return to;
}

static int io_close(thandle_t h) { (void)h; return 0; }
static toff_t io_size(thandle_t h) {
  fx_tiff_io *io = h;
  struct stat st;
  if (io->has_fd && fstat(io->fd, &st) == 0 && (size_t)st.st_size > io->size) return (toff_t)st.st_size;
  return io->size;
}
static int io_map(thandle_t h, void **base, toff_t *size) { (void)h, (void)base, (void)size; return 0; }
static void io_unmap(thandle_t h, void *base, toff_t size) { (void)h, (void)base, (void)size; }

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
  (void)tif, (void)module;
  fx_tiff_io *io = user;
  if (io != NULL && io->error[0] == '\0') {
    vsnprintf(io->error, sizeof io->error, fmt, ap);
    // Reading a strip by number, libtiff names the scanline (uint32_t)-1: drop that part.
    char *junk = strstr(io->error, " at scanline 4294967295");
    if (junk != NULL) memmove(junk, junk + 23, strlen(junk + 23) + 1);
  }
  return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
  (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
  return 1;  // warnings are not errors and are not printed
}

static TIFF *open_io(fx_tiff_io *io, const char *mode, size_t max_alloc) {
  TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
  if (options == NULL) return NULL;
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, io);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, io);
  if (max_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_alloc);
  TIFF *tif = TIFFClientOpenExt("memory", mode, io, io_read, io_write, io_seek, io_close, io_size,
                                io_map, io_unmap, options);
  TIFFOpenOptionsFree(options);
  return tif;
}

// ---------------------------------------------------------------- reading

struct fx_tiff_reader {
  fx_tiff_io io;
  TIFF *tif;
  fx_tiff_header header;
  int direct;  // read the samples as they are (else through TIFFReadRGBAImage)
  int samples;
  // Row by row (direct only): a band of stored rows (a strip, or a row of
  // tiles), `band_rows` tall from row `band_y`, rows `width × pixel` apart.
  unsigned char *band, *chunk;
  uint32_t band_y, band_rows, next_row, tw, th;
  int band_valid;
};

static fx_tiff_status fail(fx_tiff_io *io, const char *fallback, char *msg, size_t cap) {
  put_msg(msg, cap, io->error[0] ? io->error : fallback);
  return FX_TIFF_ERR_CORRUPT;
}

static fx_tiff_status reader_open(const void *bytes, size_t size, int fd, size_t max_alloc, int page,
                                  fx_tiff_reader **out, fx_tiff_header *h, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_tiff_reader *r = calloc(1, sizeof *r);
  if (r == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_TIFF_ERR_NOMEM;
  }
  r->io.data = bytes;
  r->io.size = size;
  r->io.has_fd = fd >= 0;
  r->io.fd = fd;
  r->tif = open_io(&r->io, "rm", max_alloc);
  if (r->tif == NULL) {
    fx_tiff_status s = fail(&r->io, "not a readable TIFF file", msg, msg_cap);
    fx_tiff_reader_close(r);
    return s;
  }
  int pages = TIFFNumberOfDirectories(r->tif);
  if (page < 0 || page >= pages || (page > 0 && !TIFFSetDirectory(r->tif, (tdir_t)page))) {
    char text[128];
    snprintf(text, sizeof text, "page %d was asked for, but the file has %d page%s (0…%d)", page, pages,
             pages == 1 ? "" : "s", pages - 1);
    put_msg(msg, msg_cap, text);
    fx_tiff_reader_close(r);
    return FX_TIFF_ERR_PAGE;
  }
  uint32_t w = 0, height = 0;
  uint16_t bits = 1, samples = 1, photometric = PHOTOMETRIC_MINISBLACK, planar = PLANARCONFIG_CONTIG;
  uint16_t format = SAMPLEFORMAT_UINT, orientation = ORIENTATION_TOPLEFT, extra = 0, *kinds = NULL;
  TIFFGetField(r->tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(r->tif, TIFFTAG_IMAGELENGTH, &height);
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_ORIENTATION, &orientation);
  float xres = 0, yres = 0;
  uint16_t unit = RESUNIT_NONE;
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_RESOLUTIONUNIT, &unit);
  if ((unit == RESUNIT_INCH || unit == RESUNIT_CENTIMETER) && TIFFGetField(r->tif, TIFFTAG_XRESOLUTION, &xres) &&
      TIFFGetField(r->tif, TIFFTAG_YRESOLUTION, &yres) && xres > 0 && yres > 0) {
    double scale = unit == RESUNIT_CENTIMETER ? 2.54 : 1;
    h->dpi_x = xres * scale;
    h->dpi_y = yres * scale;
  }
  TIFFGetField(r->tif, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFGetFieldDefaulted(r->tif, TIFFTAG_EXTRASAMPLES, &extra, &kinds);
  int color = photometric == PHOTOMETRIC_RGB ? 3 : 1;
  int gray = photometric == PHOTOMETRIC_MINISBLACK;
  r->direct = (gray || photometric == PHOTOMETRIC_RGB) && (bits == 8 || bits == 16) &&
              format == SAMPLEFORMAT_UINT && planar == PLANARCONFIG_CONTIG &&
              (samples == color || samples == color + 1);
  r->samples = samples;
  h->width = w;
  h->height = height;
  h->bits = r->direct ? bits : 8;
  h->channels = r->direct ? color : (photometric == PHOTOMETRIC_MINISWHITE || gray ? 1 : 3);
  h->alpha = 0;
  if (extra > 0 && kinds != NULL)
    h->alpha = kinds[0] == EXTRASAMPLE_ASSOCALPHA ? 1 : kinds[0] == EXTRASAMPLE_UNASSALPHA ? 2 : 0;
  if (r->direct && samples == color + 1 && h->alpha == 0) h->alpha = 2;  // an unspecified extra sample
  h->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
  h->pages = pages;
  if (!(h->dpi_x > 0 && h->dpi_y > 0)) h->dpi_x = h->dpi_y = 0;
  h->direct = r->direct;
  r->header = *h;
  *out = r;
  return FX_TIFF_OK;
}

fx_tiff_status fx_tiff_reader_open(const void *bytes, size_t size, size_t max_alloc, int page,
                                   fx_tiff_reader **out, fx_tiff_header *h, char *msg, size_t msg_cap) {
  return reader_open(bytes, size, -1, max_alloc, page, out, h, msg, msg_cap);
}

fx_tiff_status fx_tiff_reader_open_fd(int fd, size_t max_alloc, int page, fx_tiff_reader **out,
                                      fx_tiff_header *h, char *msg, size_t msg_cap) {
  return reader_open(NULL, 0, fd, max_alloc, page, out, h, msg, msg_cap);
}

// One stored row (or tile row) of `samples` samples per pixel → RGBA, straight.
static void expand(const unsigned char *src, unsigned char *dst, uint32_t n, int samples, int color,
                   int bits, int associated) {
  if (bits == 8 && color == 3 && samples == 3) {  // the common case, the same bytes faster
    for (uint32_t x = 0; x < n; x++) {
      dst[4 * x] = src[3 * x], dst[4 * x + 1] = src[3 * x + 1], dst[4 * x + 2] = src[3 * x + 2];
      dst[4 * x + 3] = 255;
    }
    return;
  }
  if (bits == 8 && color == 3 && samples == 4 && !associated) {
    memcpy(dst, src, (size_t)n * 4);
    return;
  }
  for (uint32_t x = 0; x < n; x++) {
    uint32_t v[4], max = bits == 16 ? 65535 : 255;
    for (int c = 0; c < samples && c < 4; c++)
      v[c] = bits == 16 ? ((const uint16_t *)src)[(size_t)x * samples + c] : src[(size_t)x * samples + c];
    uint32_t a = samples > color ? v[color] : max;
    uint32_t rgb[3] = {v[0], color == 3 ? v[1] : v[0], color == 3 ? v[2] : v[0]};
    for (int c = 0; c < 3; c++) {
      uint32_t s = rgb[c];
      if (associated) s = a == 0 ? 0 : (s * max + a / 2) / a > max ? max : (s * max + a / 2) / a;
      if (bits == 16) ((uint16_t *)dst)[4 * x + c] = (uint16_t)s; else dst[4 * x + c] = (unsigned char)s;
    }
    if (bits == 16) ((uint16_t *)dst)[4 * x + 3] = (uint16_t)a; else dst[4 * x + 3] = (unsigned char)a;
  }
}

// Reads the strip or row of tiles holding row `y` into the band.
static fx_tiff_status read_band(fx_tiff_reader *r, uint32_t y, char *msg, size_t cap) {
  fx_tiff_header *h = &r->header;
  size_t pixel = (size_t)r->samples * (h->bits / 8);
  int tiled = TIFFIsTiled(r->tif);
  if (r->band == NULL) {
    r->tw = h->width;
    r->th = 1;
    if (tiled) {
      TIFFGetField(r->tif, TIFFTAG_TILEWIDTH, &r->tw);
      TIFFGetField(r->tif, TIFFTAG_TILELENGTH, &r->th);
    } else {
      TIFFGetFieldDefaulted(r->tif, TIFFTAG_ROWSPERSTRIP, &r->th);
      if (r->th > h->height) r->th = h->height;
    }
    if (r->tw == 0 || r->th == 0) return fail(&r->io, "invalid tile or strip size", msg, cap);
    tmsize_t chunk = tiled ? TIFFTileSize(r->tif) : TIFFStripSize(r->tif);
    r->chunk = chunk > 0 ? malloc((size_t)chunk) : NULL;
    r->band = r->chunk != NULL && tiled ? malloc((size_t)r->th * h->width * pixel) : r->chunk;
    if (r->band == NULL) return fail(&r->io, "out of memory", msg, cap);
  }
  uint32_t y0 = y - y % r->th;
  uint32_t rows = y0 + r->th > h->height ? h->height - y0 : r->th;
  r->band_valid = 0;
  if (!tiled) {
    tmsize_t got = TIFFReadEncodedStrip(r->tif, TIFFComputeStrip(r->tif, y0, 0), r->chunk, TIFFStripSize(r->tif));
    if (got < 0 || (size_t)got < (size_t)rows * h->width * pixel)
      return fail(&r->io, "the image data is truncated or corrupt", msg, cap);
  } else {
    for (uint32_t x0 = 0; x0 < h->width; x0 += r->tw) {
      tmsize_t got = TIFFReadTile(r->tif, r->chunk, x0, y0, 0, 0);
      uint32_t cols = x0 + r->tw > h->width ? h->width - x0 : r->tw;
      if (got < 0 || (size_t)got < (size_t)(rows - 1) * r->tw * pixel + cols * pixel)
        return fail(&r->io, "the image data is truncated or corrupt", msg, cap);
      for (uint32_t k = 0; k < rows; k++)
        memcpy(r->band + ((size_t)k * h->width + x0) * pixel, r->chunk + (size_t)k * r->tw * pixel, cols * pixel);
    }
  }
  r->band_y = y0;
  r->band_rows = rows;
  r->band_valid = 1;
  return FX_TIFF_OK;
}

fx_tiff_status fx_tiff_reader_rows(fx_tiff_reader *r, void *pixels, size_t row_bytes, uint32_t count, char *msg,
                                   size_t cap) {
  fx_tiff_header *h = &r->header;
  if (!r->direct || count > h->height - r->next_row || row_bytes < (size_t)h->width * 4 * (h->bits / 8)) {
    put_msg(msg, cap, "rows asked for that the reader cannot give");
    return FX_TIFF_ERR_UNSUPPORTED;
  }
  size_t pixel = (size_t)r->samples * (h->bits / 8);
  for (uint32_t k = 0; k < count; k++, r->next_row++) {
    uint32_t y = r->next_row;
    if (!r->band_valid || y < r->band_y || y >= r->band_y + r->band_rows) {
      fx_tiff_status s = read_band(r, y, msg, cap);
      if (s != FX_TIFF_OK) return s;
    }
    expand(r->band + (size_t)(y - r->band_y) * h->width * pixel, (unsigned char *)pixels + (size_t)k * row_bytes,
           h->width, r->samples, h->channels, h->bits, h->alpha == 1);
  }
  return FX_TIFF_OK;
}

static fx_tiff_status decode_direct(fx_tiff_reader *r, unsigned char *pixels, size_t row_bytes, char *msg,
                                    size_t cap) {
  return fx_tiff_reader_rows(r, pixels, row_bytes, r->header.height, msg, cap);
}

fx_tiff_status fx_tiff_reader_decode(fx_tiff_reader *r, void *pixels, size_t row_bytes, char *msg,
                                     size_t msg_cap) {
  if (r->direct) return decode_direct(r, pixels, row_bytes, msg, msg_cap);
  fx_tiff_header *h = &r->header;
  uint32_t *raster = malloc((size_t)h->width * h->height * 4);
  if (raster == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_TIFF_ERR_NOMEM;
  }
  char why[1024] = "";
  // In the file's own row order for orientations 1–4 (libtiff would flip
  // them), so that the reported orientation is applied once, by the caller.
  int order = h->orientation <= 4 ? h->orientation : ORIENTATION_TOPLEFT;
  if (!TIFFRGBAImageOK(r->tif, why) || !TIFFReadRGBAImageOriented(r->tif, h->width, h->height, raster, order, 1)) {
    free(raster);
    if (why[0] && r->io.error[0] == '\0') {
      put_msg(msg, msg_cap, why);
      return FX_TIFF_ERR_UNSUPPORTED;
    }
    return fail(&r->io, "cannot decode the image", msg, msg_cap);
  }
  if (h->orientation > 4) h->orientation = 1;
  // Packed ABGR words, premultiplied: bytes R, G, B, A in memory; divide alpha out.
  for (uint32_t y = 0; y < h->height; y++) {
    const unsigned char *src = (const unsigned char *)(raster + (size_t)y * h->width);
    unsigned char *dst = (unsigned char *)pixels + (size_t)y * row_bytes;
    for (uint32_t x = 0; x < h->width; x++) {
      uint32_t a = src[4 * x + 3];
      for (int c = 0; c < 3; c++) {
        uint32_t s = src[4 * x + c];
        dst[4 * x + c] = a == 255 ? (unsigned char)s : a == 0 ? 0 : (unsigned char)((s * 255 + a / 2) / a > 255 ? 255 : (s * 255 + a / 2) / a);
      }
      dst[4 * x + 3] = (unsigned char)a;
    }
  }
  free(raster);
  return FX_TIFF_OK;
}

int fx_tiff_reader_icc(fx_tiff_reader *r, const void **profile, size_t *size) {
  uint32_t n = 0;
  void *data = NULL;
  *profile = NULL;
  *size = 0;
  if (!TIFFGetField(r->tif, TIFFTAG_ICCPROFILE, &n, &data) || data == NULL || n == 0) return 0;
  *profile = data;
  *size = n;
  return 1;
}

void fx_tiff_reader_close(fx_tiff_reader *r) {
  if (r == NULL) return;
  if (r->tif != NULL) TIFFClose(r->tif);
  if (r->band != r->chunk) free(r->band);
  free(r->chunk);
  free(r);
}

// ---------------------------------------------------------------- writing

struct fx_tiff_writer {
  fx_tiff_io io;
  TIFF *tif;
  uint32_t width, height, next_row, tile;
  size_t pixel;
  unsigned char *band;  // tiled: a row of tiles being filled, `tile` rows of the image
};

void fx_tiff_writer_close(fx_tiff_writer *w) {
  if (w == NULL) return;
  if (w->tif != NULL) TIFFClose(w->tif);
  free(w->band);
  free(w->io.buf);
  free(w);
}

fx_tiff_status fx_tiff_writer_open(int fd, uint32_t width, uint32_t height, int channels, int bits, int level,
                                   int tile, const void *icc, size_t icc_size, int orientation, double dpi_x,
                                   double dpi_y, fx_tiff_writer **out, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_tiff_writer *w = calloc(1, sizeof *w);
  if (w == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_TIFF_ERR_NOMEM;
  }
  w->io.has_fd = fd >= 0;
  w->io.fd = fd;
  w->tif = open_io(&w->io, "w", 0);
  if (w->tif == NULL) {
    put_msg(msg, msg_cap, w->io.error[0] ? w->io.error : "cannot start a TIFF file");
    fx_tiff_writer_close(w);
    return FX_TIFF_ERR_CORRUPT;
  }
  TIFF *tif = w->tif;
  w->width = width;
  w->height = height;
  w->tile = tile > 0 && tile % 16 == 0 ? (uint32_t)tile : 0;
  w->pixel = (size_t)channels * bits / 8;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, channels);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)(orientation >= 2 && orientation <= 8 ? orientation : ORIENTATION_TOPLEFT));
  if (dpi_x > 0 && dpi_y > 0) {
    TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
    TIFFSetField(tif, TIFFTAG_XRESOLUTION, (float)dpi_x);
    TIFFSetField(tif, TIFFTAG_YRESOLUTION, (float)dpi_y);
  }
  if (channels == 2 || channels == 4) {
    uint16_t kind = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &kind);
  }
  TIFFSetField(tif, TIFFTAG_COMPRESSION, level > 0 ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
  if (level > 0) {
    TIFFSetField(tif, TIFFTAG_ZIPQUALITY, level);
    TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
  }
  if (icc != NULL && icc_size > 0) TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)icc_size, icc);
  if (w->tile) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, w->tile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, w->tile);
    // A row of tiles, one tile wider than the image so the last tile's columns exist (zero).
    w->band = calloc((size_t)w->tile * ((width + w->tile - 1) / w->tile * w->tile), w->pixel);
    if (w->band == NULL) {
      put_msg(msg, msg_cap, "out of memory");
      fx_tiff_writer_close(w);
      return FX_TIFF_ERR_NOMEM;
    }
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
  }
  *out = w;
  return FX_TIFF_OK;
}

// Writes the row of tiles in the band, `rows` image rows of it filled.
static int write_tiles(fx_tiff_writer *w, uint32_t y0, uint32_t rows) {
  size_t stride = (size_t)(w->width + w->tile - 1) / w->tile * w->tile * w->pixel;
  unsigned char *tile = malloc((size_t)w->tile * w->tile * w->pixel);
  int ok = tile != NULL;
  for (uint32_t x0 = 0; ok && x0 < w->width; x0 += w->tile) {
    memset(tile, 0, (size_t)w->tile * w->tile * w->pixel);
    for (uint32_t y = 0; y < rows; y++)
      memcpy(tile + (size_t)y * w->tile * w->pixel, w->band + y * stride + x0 * w->pixel, w->tile * w->pixel);
    ok = TIFFWriteTile(w->tif, tile, x0, y0, 0, 0) >= 0;
  }
  free(tile);
  return ok;
}

fx_tiff_status fx_tiff_writer_rows(fx_tiff_writer *w, const void *pixels, size_t row_bytes, uint32_t count,
                                   char *msg, size_t msg_cap) {
  int ok = count <= w->height - w->next_row;
  for (uint32_t k = 0; ok && k < count; k++, w->next_row++) {
    const unsigned char *row = (const unsigned char *)pixels + (size_t)k * row_bytes;
    if (!w->tile) {
      ok = TIFFWriteScanline(w->tif, (void *)row, w->next_row, 0) >= 0;
      continue;
    }
    size_t stride = (size_t)(w->width + w->tile - 1) / w->tile * w->tile * w->pixel;
    uint32_t y = w->next_row % w->tile;
    memcpy(w->band + y * stride, row, w->width * w->pixel);
    if (y == w->tile - 1 || w->next_row == w->height - 1) ok = write_tiles(w, w->next_row - y, y + 1);
  }
  if (!ok) {
    put_msg(msg, msg_cap, w->io.error[0] ? w->io.error : "cannot write the TIFF data");
    return FX_TIFF_ERR_CORRUPT;
  }
  return FX_TIFF_OK;
}

fx_tiff_status fx_tiff_writer_finish(fx_tiff_writer *w, void **out, size_t *out_size, char *msg, size_t msg_cap) {
  int ok = w->next_row == w->height && TIFFWriteDirectory(w->tif);
  TIFFClose(w->tif);
  w->tif = NULL;
  if (!ok || w->io.error[0]) {
    put_msg(msg, msg_cap, w->io.error[0] ? w->io.error : "cannot write the TIFF data");
    return FX_TIFF_ERR_CORRUPT;
  }
  if (out != NULL) {
    *out = w->io.buf;
    *out_size = w->io.size;
    w->io.buf = NULL;
  }
  return FX_TIFF_OK;
}

fx_tiff_status fx_tiff_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                              int channels, int bits, int level, int tile, const void *icc,
                              size_t icc_size, int orientation, double dpi_x, double dpi_y, void **out,
                              size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  fx_tiff_writer *w = NULL;
  fx_tiff_status s = fx_tiff_writer_open(-1, width, height, channels, bits, level, tile, icc, icc_size, orientation,
                                         dpi_x, dpi_y, &w, msg, msg_cap);
  if (s == FX_TIFF_OK) s = fx_tiff_writer_rows(w, pixels, row_bytes, height, msg, msg_cap);
  if (s == FX_TIFF_OK) s = fx_tiff_writer_finish(w, out, out_size, msg, msg_cap);
  fx_tiff_writer_close(w);
  return s;
}
