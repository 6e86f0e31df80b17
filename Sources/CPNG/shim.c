#include "CPNG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

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
  int image_read;  // the rows are complete; only the chunks after them remain
  fx_png_log log;
};

static void read_bytes(png_structp png, png_bytep dst, size_t n) {
  fx_png_reader *r = png_get_io_ptr(png);
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

fx_png_status fx_png_reader_open(const void *bytes, size_t size, uint32_t max_side, fx_png_reader **out,
                       fx_png_header *header, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_png_reader *r = calloc(1, sizeof *r);
  if (r == NULL) goto nomem;
  r->bytes = bytes;
  r->size = size;
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
  *out = r;
  return FX_PNG_OK;
nomem:
  fx_png_reader_close(r);
  put_msg(msg, msg_cap, "out of memory");
  return FX_PNG_ERR_NOMEM;
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
  if (setjmp(png_jmpbuf(r->png))) {
    free(rows);
    if (r->image_read && r->log.truncated) return FX_PNG_END_MISSING;
    return failure(&r->log, msg, msg_cap);
  }
  // Palette → RGB, gray < 8 bits → 8, tRNS → alpha; then gray → RGB and an
  // opaque alpha for images that still have none.
  png_set_expand(r->png);
  png_set_gray_to_rgb(r->png);
  png_set_add_alpha(r->png, 0xffff, PNG_FILLER_AFTER);
  png_set_interlace_handling(r->png);
  png_read_update_info(r->png, r->info);
  size_t depth = png_get_bit_depth(r->png, r->info);
  if (png_get_channels(r->png, r->info) != 4 ||
      png_get_rowbytes(r->png, r->info) != png_get_image_width(r->png, r->info) * depth / 2 ||
      png_get_rowbytes(r->png, r->info) > row_bytes)
    png_error(r->png, "unexpected layout after expansion to RGBA");
  png_read_image(r->png, rows);
  r->image_read = 1;
  png_read_end(r->png, r->info);  // checks the chunks after the image, through IEND
  free(rows);
  return FX_PNG_OK;
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

const char *fx_png_reader_icc_warning(fx_png_reader *r) { return r->log.icc_warning; }

void fx_png_reader_close(fx_png_reader *r) {
  if (r == NULL) return;
  if (r->png != NULL) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
  free(r);
}

// ---------------------------------------------------------------- writing

typedef struct {
  png_structp png;
  png_infop info;
  png_bytepp rows;
  unsigned char *buf;
  size_t size, cap;
  fx_png_log log;
} fx_png_writer;

static void write_bytes(png_structp png, png_bytep src, size_t n) {
  fx_png_writer *w = png_get_io_ptr(png);
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

static void writer_free(fx_png_writer *w) {
  if (w->png != NULL) png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
  free(w->rows);
  free(w->buf);
  free(w);
}

fx_png_status fx_png_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                  int channels, int bit_depth, int compression_level, const void *icc,
                  size_t icc_size, void **out, size_t *out_size, char *msg, size_t msg_cap) {
  static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                     PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  *out = NULL;
  *out_size = 0;
  if (channels < 1 || channels > 4 || (bit_depth != 8 && bit_depth != 16)) {
    put_msg(msg, msg_cap, "invalid channel count or bit depth");
    return FX_PNG_ERR_CORRUPT;
  }
  // Everything the error path touches lives on the heap, not in locals that
  // setjmp could leave indeterminate.
  fx_png_writer *w = calloc(1, sizeof *w);
  if (w == NULL) goto nomem;
  w->rows = malloc(sizeof(png_bytep) * (height ? height : 1));
  if (w->rows == NULL) goto nomem;
  for (uint32_t y = 0; y < height; y++) w->rows[y] = (png_bytep)pixels + (size_t)y * row_bytes;
  w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->log, on_error, on_warning);
  if (w->png == NULL) goto nomem;
  w->info = png_create_info_struct(w->png);
  if (w->info == NULL) goto nomem;
  if (setjmp(png_jmpbuf(w->png))) {
    int code = failure(&w->log, msg, msg_cap);
    writer_free(w);
    return code;
  }
  png_set_write_fn(w->png, w, write_bytes, flush_bytes);
  png_set_compression_level(w->png, compression_level);
  png_set_IHDR(w->png, w->info, width, height, bit_depth, color_types[channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (icc != NULL && icc_size > 0)
    png_set_iCCP(w->png, w->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
  png_write_info(w->png, w->info);
  png_write_image(w->png, w->rows);
  png_write_end(w->png, NULL);
  *out = w->buf;
  *out_size = w->size;
  w->buf = NULL;
  writer_free(w);
  return FX_PNG_OK;
nomem:
  if (w != NULL) writer_free(w);
  put_msg(msg, msg_cap, "out of memory");
  return FX_PNG_ERR_NOMEM;
}
