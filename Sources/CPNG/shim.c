#include "CPNG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

// Copies `text` into the caller's message buffer, always NUL-terminated.
static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

// What the error and warning handlers write into (the png error pointer).
typedef struct {
  char error[256];
  char warning[256];      // the last warning: captured so libpng never prints it
  char icc_warning[256];  // the first warning about the iCCP chunk (its profile is dropped)
  int truncated;
} fx_png_log;

static void on_error(png_structp png, png_const_charp text) {
  fx_png_log *log = png_get_error_ptr(png);
  put_msg(log->error, sizeof log->error, text);
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
  fx_png_log *log = png_get_error_ptr(png);
  put_msg(log->warning, sizeof log->warning, text);
  if (strncmp(text, "iCCP", 4) == 0 && log->icc_warning[0] == '\0')
    put_msg(log->icc_warning, sizeof log->icc_warning, text);
}

// ---------------------------------------------------------------- reading

struct fx_png_reader {
  png_structp png;
  png_infop info;
  const unsigned char *bytes;
  size_t size, pos;
  int fd;          // reading a file when >= 0 (else `bytes`)
  int image_read;  // the rows are complete; only the chunks after them remain
  fx_png_log log;
};

static void read_bytes(png_structp png, png_bytep dst, size_t n) {
  fx_png_reader *r = png_get_io_ptr(png);
  if (r->fd >= 0) {
    size_t done = 0;
    while (done < n) {
      ssize_t k = read(r->fd, dst + done, n - done);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) png_error(png, "cannot read the file");
      if (k == 0) {
        r->log.truncated = 1;
        png_error(png, "the file ends before the image data does (truncated)");
      }
      done += (size_t)k;
    }
    return;
  }
  if (n > r->size - r->pos) {
    r->log.truncated = 1;
    png_error(png, "the file ends before the image data does (truncated)");
  }
  memcpy(dst, r->bytes + r->pos, n);
  r->pos += n;
}

// For a truncated file the message is libpng's last warning, if any (such as
// "tEXt: chunk data is too large"), which says what it was reading.
static int failure(fx_png_log *log, char *msg, size_t cap) {
  put_msg(msg, cap, log->truncated ? log->warning : log->error);
  return log->truncated ? FX_PNG_ERR_TRUNCATED : FX_PNG_ERR_CORRUPT;
}

static fx_png_status reader_open(const void *bytes, size_t size, int fd, uint32_t max_side,
                                 fx_png_reader **out, fx_png_header *header, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_png_reader *r = calloc(1, sizeof *r);
  if (r == NULL) goto nomem;
  r->bytes = bytes;
  r->size = size;
  r->fd = fd;
  r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r->log, on_error, on_warning);
  if (r->png == NULL) goto nomem;
  r->info = png_create_info_struct(r->png);
  if (r->info == NULL) goto nomem;
  if (setjmp(png_jmpbuf(r->png))) {
    int code = failure(&r->log, msg, msg_cap);
    fx_png_reader_close(r);
    return code;
  }
  png_set_user_limits(r->png, max_side, max_side);
  // No ancillary chunk may make libpng allocate more than 16 MiB (a tEXt
  // chunk claiming 2 GiB in a 44-byte file), nor may there be more than
  // 1000 of them; ICC profiles and EXIF blocks are far smaller.
  png_set_chunk_malloc_max(r->png, 16u << 20);
  png_set_chunk_cache_max(r->png, 1000);
  png_set_read_fn(r->png, r, read_bytes);
  png_read_info(r->png, r->info);
  header->width = png_get_image_width(r->png, r->info);
  header->height = png_get_image_height(r->png, r->info);
  header->bit_depth = png_get_bit_depth(r->png, r->info);
  header->color_type = png_get_color_type(r->png, r->info);
  header->has_trns = png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0;
  header->interlaced = png_get_interlace_type(r->png, r->info) != PNG_INTERLACE_NONE;
  png_uint_32 ppm_x = 0, ppm_y = 0;
  int unit = 0;
  if (png_get_pHYs(r->png, r->info, &ppm_x, &ppm_y, &unit) && unit == PNG_RESOLUTION_METER) {
    header->ppm_x = ppm_x;
    header->ppm_y = ppm_y;
  }
  *out = r;
  return FX_PNG_OK;
nomem:
  fx_png_reader_close(r);
  put_msg(msg, msg_cap, "out of memory");
  return FX_PNG_ERR_NOMEM;
}

fx_png_status fx_png_reader_open(const void *bytes, size_t size, uint32_t max_side, fx_png_reader **out,
                       fx_png_header *header, char *msg, size_t msg_cap) {
  return reader_open(bytes, size, -1, max_side, out, header, msg, msg_cap);
}

fx_png_status fx_png_reader_open_fd(int fd, uint32_t max_side, fx_png_reader **out, fx_png_header *header,
                                    char *msg, size_t msg_cap) {
  return reader_open(NULL, 0, fd, max_side, out, header, msg, msg_cap);
}

fx_png_status fx_png_reader_start(fx_png_reader *r, char *msg, size_t msg_cap) {
  if (setjmp(png_jmpbuf(r->png))) return failure(&r->log, msg, msg_cap);
  // Palette → RGB, gray < 8 bits → 8, tRNS → alpha; then gray → RGB and an
  // opaque alpha for images that still have none.
  png_set_expand(r->png);
  png_set_gray_to_rgb(r->png);
  png_set_add_alpha(r->png, 0xffff, PNG_FILLER_AFTER);
  png_set_interlace_handling(r->png);
  png_read_update_info(r->png, r->info);
  size_t depth = png_get_bit_depth(r->png, r->info);
  if (png_get_channels(r->png, r->info) != 4 ||
      png_get_rowbytes(r->png, r->info) != png_get_image_width(r->png, r->info) * depth / 2)
    png_error(r->png, "unexpected layout after expansion to RGBA");
  return FX_PNG_OK;
}

fx_png_status fx_png_reader_rows(fx_png_reader *r, void *pixels, size_t row_bytes, uint32_t count, char *msg,
                                 size_t msg_cap) {
  if (setjmp(png_jmpbuf(r->png))) return failure(&r->log, msg, msg_cap);
  if (png_get_rowbytes(r->png, r->info) > row_bytes) png_error(r->png, "the row buffer is too small");
  for (uint32_t y = 0; y < count; y++) png_read_row(r->png, (png_bytep)pixels + (size_t)y * row_bytes, NULL);
  return FX_PNG_OK;
}

fx_png_status fx_png_reader_finish(fx_png_reader *r, char *msg, size_t msg_cap) {
  r->image_read = 1;
  if (setjmp(png_jmpbuf(r->png))) {
    if (r->log.truncated) return FX_PNG_END_MISSING;
    return failure(&r->log, msg, msg_cap);
  }
  png_read_end(r->png, r->info);  // checks the chunks after the image, through IEND
  return FX_PNG_OK;
}

fx_png_status fx_png_reader_decode(fx_png_reader *r, void *pixels, size_t row_bytes, char *msg,
                         size_t msg_cap) {
  uint32_t height = png_get_image_height(r->png, r->info);
  png_bytepp rows = malloc(sizeof(png_bytep) * (height ? height : 1));
  if (rows == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_PNG_ERR_NOMEM;
  }
  for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)pixels + (size_t)y * row_bytes;
  fx_png_status s = fx_png_reader_start(r, msg, msg_cap);
  if (s == FX_PNG_OK && png_get_rowbytes(r->png, r->info) > row_bytes) {
    put_msg(msg, msg_cap, "the row buffer is too small");
    s = FX_PNG_ERR_CORRUPT;
  }
  if (s == FX_PNG_OK) {
    if (setjmp(png_jmpbuf(r->png))) {
      free(rows);
      return failure(&r->log, msg, msg_cap);
    }
    png_read_image(r->png, rows);
  }
  free(rows);
  return s == FX_PNG_OK ? fx_png_reader_finish(r, msg, msg_cap) : s;
}

int fx_png_reader_icc(fx_png_reader *r, const void **profile, size_t *size) {
  png_charp name = NULL;
  int compression = 0;
  png_bytep data = NULL;
  png_uint_32 length = 0;
  *profile = NULL;
  *size = 0;
  if (png_get_iCCP(r->png, r->info, &name, &compression, &data, &length) != PNG_INFO_iCCP) return 0;
  *profile = data;
  *size = length;
  return 1;
}

int fx_png_reader_exif(fx_png_reader *r, const void **exif, size_t *size) {
  png_bytep data = NULL;
  png_uint_32 length = 0;
  *exif = NULL;
  *size = 0;
  if (png_get_eXIf_1(r->png, r->info, &length, &data) != PNG_INFO_eXIf) return 0;
  *exif = data;
  *size = length;
  return 1;
}

int fx_png_reader_xmp(fx_png_reader *r, const void **xmp, size_t *size) {
  png_textp texts = NULL;
  int count = png_get_text(r->png, r->info, &texts, NULL);
  for (int i = 0; i < count; i++) {
    if (strcmp(texts[i].key, "XML:com.adobe.xmp") == 0 && texts[i].compression >= PNG_ITXT_COMPRESSION_NONE) {
      *xmp = texts[i].text;
      *size = texts[i].itxt_length;
      return 1;
    }
  }
  *xmp = NULL;
  *size = 0;
  return 0;
}

const char *fx_png_reader_icc_warning(fx_png_reader *r) { return r->log.icc_warning; }

void fx_png_reader_close(fx_png_reader *r) {
  if (r == NULL) return;
  if (r->png != NULL) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
  free(r);
}

// ---------------------------------------------------------------- writing

struct fx_png_writer {
  png_structp png;
  png_infop info;
  unsigned char *buf;  // writing to memory
  size_t size, cap;
  int fd;              // writing a file when >= 0
  fx_png_log log;
};

static void write_bytes(png_structp png, png_bytep src, size_t n) {
  fx_png_writer *w = png_get_io_ptr(png);
  if (w->fd >= 0) {
    size_t done = 0;
    while (done < n) {
      ssize_t k = write(w->fd, src + done, n - done);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) png_error(png, k < 0 && errno == ENOSPC ? "no space left on the device" : "cannot write the file");
      done += (size_t)k;
    }
    return;
  }
  if (n > w->cap - w->size) {
    size_t cap = w->cap ? w->cap : 4096;
    while (n > cap - w->size) {
      if (cap > SIZE_MAX / 2) png_error(png, "out of memory");
      cap *= 2;
    }
    unsigned char *grown = realloc(w->buf, cap);
    if (grown == NULL) png_error(png, "out of memory");
    w->buf = grown;
    w->cap = cap;
  }
  memcpy(w->buf + w->size, src, n);
  w->size += n;
}

static void flush_bytes(png_structp png) { (void)png; }

void fx_png_writer_close(fx_png_writer *w) {
  if (w == NULL) return;
  if (w->png != NULL) png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
  free(w->buf);
  free(w);
}

fx_png_status fx_png_writer_open(int fd, uint32_t width, uint32_t height, int channels, int bit_depth,
                                 int compression_level, const void *icc, size_t icc_size, const void *exif,
                                 size_t exif_size, const void *xmp, size_t xmp_size, uint32_t ppm_x,
                                 uint32_t ppm_y, fx_png_writer **out, char *msg, size_t msg_cap) {
  static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                     PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  *out = NULL;
  if (channels < 1 || channels > 4 || (bit_depth != 8 && bit_depth != 16)) {
    put_msg(msg, msg_cap, "invalid channel count or bit depth");
    return FX_PNG_ERR_CORRUPT;
  }
  // Everything the error path touches lives on the heap, not in locals that
  // setjmp could leave indeterminate.
  fx_png_writer *w = calloc(1, sizeof *w);
  if (w == NULL) goto nomem;
  w->fd = fd;
  w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->log, on_error, on_warning);
  if (w->png == NULL) goto nomem;
  w->info = png_create_info_struct(w->png);
  if (w->info == NULL) goto nomem;
  if (setjmp(png_jmpbuf(w->png))) {
    int code = failure(&w->log, msg, msg_cap);
    fx_png_writer_close(w);
    return code;
  }
  png_set_write_fn(w->png, w, write_bytes, flush_bytes);
  png_set_compression_level(w->png, compression_level);
  png_set_IHDR(w->png, w->info, width, height, bit_depth, color_types[channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (icc != NULL && icc_size > 0)
    png_set_iCCP(w->png, w->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
  if (ppm_x > 0 && ppm_y > 0) png_set_pHYs(w->png, w->info, ppm_x, ppm_y, PNG_RESOLUTION_METER);
  if (exif != NULL && exif_size > 0) {
    if (exif_size > 0x7FFFFFFF) png_error(w->png, "the EXIF block is larger than a PNG chunk holds");
    png_set_eXIf_1(w->png, w->info, (png_uint_32)exif_size, (png_bytep)exif);
  }
  if (xmp != NULL && xmp_size > 0) {
    // XMP in PNG: an uncompressed iTXt chunk keyed "XML:com.adobe.xmp" (XMP
    // Specification Part 3, §1.1.5). libpng copies the text; it needs a NUL.
    char *text = malloc(xmp_size + 1);
    if (text == NULL) png_error(w->png, "out of memory");
    memcpy(text, xmp, xmp_size);
    text[xmp_size] = '\0';
    png_text chunk = {0};
    chunk.compression = PNG_ITXT_COMPRESSION_NONE;
    chunk.key = "XML:com.adobe.xmp";
    chunk.text = text;
    chunk.itxt_length = xmp_size;
    chunk.lang = "";
    chunk.lang_key = "";
    png_set_text(w->png, w->info, &chunk, 1);
    free(text);
  }
  png_write_info(w->png, w->info);
  *out = w;
  return FX_PNG_OK;
nomem:
  fx_png_writer_close(w);
  put_msg(msg, msg_cap, "out of memory");
  return FX_PNG_ERR_NOMEM;
}

fx_png_status fx_png_writer_rows(fx_png_writer *w, const void *pixels, size_t row_bytes, uint32_t count,
                                 char *msg, size_t msg_cap) {
  if (setjmp(png_jmpbuf(w->png))) return failure(&w->log, msg, msg_cap);
  for (uint32_t y = 0; y < count; y++) png_write_row(w->png, (png_const_bytep)pixels + (size_t)y * row_bytes);
  return FX_PNG_OK;
}

fx_png_status fx_png_writer_finish(fx_png_writer *w, void **out, size_t *out_size, char *msg, size_t msg_cap) {
  if (setjmp(png_jmpbuf(w->png))) return failure(&w->log, msg, msg_cap);
  png_write_end(w->png, NULL);
  if (out != NULL) {
    *out = w->buf;
    *out_size = w->size;
    w->buf = NULL;
  }
  return FX_PNG_OK;
}

fx_png_status fx_png_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                  int channels, int bit_depth, int compression_level, const void *icc,
                  size_t icc_size, const void *exif, size_t exif_size, const void *xmp, size_t xmp_size,
                  uint32_t ppm_x, uint32_t ppm_y, void **out, size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  fx_png_writer *w = NULL;
  fx_png_status s = fx_png_writer_open(-1, width, height, channels, bit_depth, compression_level, icc, icc_size,
                                       exif, exif_size, xmp, xmp_size, ppm_x, ppm_y, &w, msg, msg_cap);
  if (s == FX_PNG_OK) s = fx_png_writer_rows(w, pixels, row_bytes, height, msg, msg_cap);
  if (s == FX_PNG_OK) s = fx_png_writer_finish(w, out, out_size, msg, msg_cap);
  fx_png_writer_close(w);
  return s;
}

int fx_png_profile_refused(const void *icc, size_t icc_size, int channels, char *msg, size_t msg_cap) {
  static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                     PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  if (channels < 1 || channels > 4) channels = 3;
  fx_png_writer *w = calloc(1, sizeof *w);
  if (w == NULL) return 0;
  w->fd = -1;
  w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->log, on_error, on_warning);
  w->info = w->png != NULL ? png_create_info_struct(w->png) : NULL;
  if (w->info == NULL) {
    fx_png_writer_close(w);
    return 0;
  }
  int refused = 1;
  if (!setjmp(png_jmpbuf(w->png))) {
    png_set_IHDR(w->png, w->info, 1, 1, 8, color_types[channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_iCCP(w->png, w->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    refused = !png_get_valid(w->png, w->info, PNG_INFO_iCCP);
    if (refused) put_msg(w->log.error, sizeof w->log.error, w->log.warning[0] ? w->log.warning : "the profile was not accepted");
  }
  if (refused) put_msg(msg, msg_cap, w->log.error);
  fx_png_writer_close(w);
  return refused;
}
