#include "CTIFF.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

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
  char error[256];  // libtiff's first error for this file
} fx_tiff_io;

static tmsize_t io_read(thandle_t h, void *dst, tmsize_t n) {
  fx_tiff_io *io = h;
  if (n < 0 || io->pos >= io->size) return 0;
  size_t k = (size_t)n < io->size - io->pos ? (size_t)n : io->size - io->pos;
  memcpy(dst, (io->data ? io->data : io->buf) + io->pos, k);
  io->pos += k;
  return (tmsize_t)k;
}

static tmsize_t io_write(thandle_t h, void *src, tmsize_t n) {
  fx_tiff_io *io = h;
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
static toff_t io_size(thandle_t h) { return ((fx_tiff_io *)h)->size; }
static int io_map(thandle_t h, void **base, toff_t *size) { (void)h, (void)base, (void)size; return 0; }
static void io_unmap(thandle_t h, void *base, toff_t size) { (void)h, (void)base, (void)size; }

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
  (void)tif, (void)module;
  fx_tiff_io *io = user;
  if (io != NULL && io->error[0] == '\0') vsnprintf(io->error, sizeof io->error, fmt, ap);
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
};

static fx_tiff_status fail(fx_tiff_io *io, const char *fallback, char *msg, size_t cap) {
  put_msg(msg, cap, io->error[0] ? io->error : fallback);
  return FX_TIFF_ERR_CORRUPT;
}

fx_tiff_status fx_tiff_reader_open(const void *bytes, size_t size, size_t max_alloc, fx_tiff_reader **out,
                                   fx_tiff_header *h, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_tiff_reader *r = calloc(1, sizeof *r);
  if (r == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_TIFF_ERR_NOMEM;
  }
  r->io.data = bytes;
  r->io.size = size;
  r->tif = open_io(&r->io, "rm", max_alloc);
  if (r->tif == NULL) {
    fx_tiff_status s = fail(&r->io, "not a readable TIFF file", msg, msg_cap);
    fx_tiff_reader_close(r);
    return s;
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
  h->pages = TIFFNumberOfDirectories(r->tif);
  r->header = *h;
  *out = r;
  return FX_TIFF_OK;
}

// One stored row (or tile row) of `samples` samples per pixel → RGBA, straight.
static void expand(const unsigned char *src, unsigned char *dst, uint32_t n, int samples, int color,
                   int bits, int associated) {
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

static fx_tiff_status decode_direct(fx_tiff_reader *r, unsigned char *pixels, size_t row_bytes, char *msg,
                                    size_t cap) {
  fx_tiff_header *h = &r->header;
  int associated = h->alpha == 1, bytes = h->bits / 8;
  size_t pixel = (size_t)r->samples * bytes;
  int tiled = TIFFIsTiled(r->tif);
  uint32_t tw = h->width, th = 1;
  if (tiled) {
    TIFFGetField(r->tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(r->tif, TIFFTAG_TILELENGTH, &th);
  } else {
    TIFFGetFieldDefaulted(r->tif, TIFFTAG_ROWSPERSTRIP, &th);
    if (th > h->height) th = h->height;
  }
  if (tw == 0 || th == 0) return fail(&r->io, "invalid tile or strip size", msg, cap);
  tmsize_t chunk = tiled ? TIFFTileSize(r->tif) : TIFFStripSize(r->tif);
  unsigned char *buf = chunk > 0 ? malloc((size_t)chunk) : NULL;
  if (buf == NULL) return fail(&r->io, "out of memory", msg, cap);
  fx_tiff_status status = FX_TIFF_OK;
  for (uint32_t y0 = 0; y0 < h->height && status == FX_TIFF_OK; y0 += th) {
    for (uint32_t x0 = 0; x0 < h->width; x0 += tw) {
      tmsize_t got = tiled ? TIFFReadTile(r->tif, buf, x0, y0, 0, 0)
                           : TIFFReadEncodedStrip(r->tif, TIFFComputeStrip(r->tif, y0, 0), buf, chunk);
      uint32_t rows = y0 + th > h->height ? h->height - y0 : th;
      uint32_t cols = x0 + tw > h->width ? h->width - x0 : tw;
      if (got < 0 || (size_t)got < (size_t)(rows - 1) * tw * pixel + cols * pixel) {
        status = fail(&r->io, "the image data is truncated or corrupt", msg, cap);
        break;
      }
      for (uint32_t y = 0; y < rows; y++)
        expand(buf + (size_t)y * tw * pixel, pixels + (size_t)(y0 + y) * row_bytes + (size_t)x0 * 4 * bytes, cols,
               r->samples, h->channels, h->bits, associated);
      if (!tiled) break;
    }
  }
  free(buf);
  return status;
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
  free(r);
}

// ---------------------------------------------------------------- writing

fx_tiff_status fx_tiff_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                              int channels, int bits, int level, int tile, const void *icc,
                              size_t icc_size, void **out, size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  fx_tiff_io io = {0};
  TIFF *tif = open_io(&io, "w", 0);
  if (tif == NULL) {
    put_msg(msg, msg_cap, io.error[0] ? io.error : "cannot start a TIFF file");
    free(io.buf);
    return FX_TIFF_ERR_CORRUPT;
  }
  int tiled = tile > 0 && tile % 16 == 0;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, channels);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
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
  size_t pixel = (size_t)channels * bits / 8;
  int ok = 1;
  if (tiled) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, tile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, tile);
    unsigned char *buf = calloc((size_t)tile * tile, pixel);
    ok = buf != NULL;
    for (uint32_t y0 = 0; ok && y0 < height; y0 += tile)
      for (uint32_t x0 = 0; ok && x0 < width; x0 += tile) {
        memset(buf, 0, (size_t)tile * tile * pixel);
        for (uint32_t y = 0; y < (uint32_t)tile && y0 + y < height; y++) {
          uint32_t cols = x0 + tile > width ? width - x0 : tile;
          memcpy(buf + (size_t)y * tile * pixel, (const unsigned char *)pixels + (y0 + y) * row_bytes + x0 * pixel,
                 cols * pixel);
        }
        ok = TIFFWriteTile(tif, buf, x0, y0, 0, 0) >= 0;
      }
    free(buf);
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    for (uint32_t y = 0; ok && y < height; y++)
      ok = TIFFWriteScanline(tif, (unsigned char *)pixels + (size_t)y * row_bytes, y, 0) >= 0;
  }
  ok = ok && TIFFWriteDirectory(tif);
  TIFFClose(tif);
  if (!ok || io.error[0]) {
    put_msg(msg, msg_cap, io.error[0] ? io.error : "cannot write the TIFF data");
    free(io.buf);
    return FX_TIFF_ERR_CORRUPT;
  }
  *out = io.buf;
  *out_size = io.size;
  return FX_TIFF_OK;
}
