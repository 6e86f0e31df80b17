#include "CJPEG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>

static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

// libjpeg's error manager, extended with the jump target and the captured text.
typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char text[JMSG_LENGTH_MAX];
  int code;
} fx_jpeg_error;

static void on_error(j_common_ptr cinfo) {
  fx_jpeg_error *err = (fx_jpeg_error *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->text);
  if (err->code == FX_JPEG_OK) err->code = FX_JPEG_ERR_CORRUPT;
  longjmp(err->jump, 1);
}

// Warnings that mean the pixels would be wrong (libjpeg fills the missing or
// undecodable part with gray and carries on): refuse the image instead.
static int is_fatal_warning(int code) {
  switch (code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
      return 1;
    default:
      return 0;
  }
}

static void on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  fx_jpeg_error *err = (fx_jpeg_error *)cinfo->err;
  int code = cinfo->err->msg_code;
  cinfo->err->num_warnings++;
  if (!is_fatal_warning(code)) return;
  err->code = code == JWRN_JPEG_EOF ? FX_JPEG_ERR_TRUNCATED : FX_JPEG_ERR_CORRUPT;
  on_error(cinfo);
}

static void on_output(j_common_ptr cinfo) { (void)cinfo; }  // never print

static void install(fx_jpeg_error *err) {
  jpeg_std_error(&err->pub);
  err->pub.error_exit = on_error;
  err->pub.emit_message = on_message;
  err->pub.output_message = on_output;
  err->code = FX_JPEG_OK;
}

// ---------------------------------------------------------------- reading

struct fx_jpeg_reader {
  struct jpeg_decompress_struct cinfo;
  fx_jpeg_error err;
  int created;
  JOCTET *icc;  // from jpeg_read_icc_profile (malloc'd)
  unsigned int icc_size;
};

fx_jpeg_status fx_jpeg_reader_open(const void *bytes, size_t size, size_t max_memory,
                        fx_jpeg_reader **out, fx_jpeg_header *header, char *msg,
                        size_t msg_cap) {
  *out = NULL;
  fx_jpeg_reader *r = calloc(1, sizeof *r);
  if (r == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_JPEG_ERR_NOMEM;
  }
  r->cinfo.err = (struct jpeg_error_mgr *)&r->err;
  install(&r->err);
  if (setjmp(r->err.jump)) {
    put_msg(msg, msg_cap, r->err.text);
    int code = r->err.code;
    fx_jpeg_reader_close(r);
    return code;
  }
  jpeg_create_decompress(&r->cinfo);
  r->created = 1;
  // libjpeg's own limit on what it allocates for one image (the coefficient
  // buffers of a progressive file); going over it is an error, not a trap.
  r->cinfo.mem->max_memory_to_use = (long)max_memory;
  jpeg_mem_src(&r->cinfo, bytes, (unsigned long)size);
  jpeg_save_markers(&r->cinfo, JPEG_APP0 + 1, 0xFFFF);  // EXIF
  jpeg_save_markers(&r->cinfo, JPEG_APP0 + 2, 0xFFFF);  // ICC profile segments
  jpeg_read_header(&r->cinfo, TRUE);
  J_COLOR_SPACE space = r->cinfo.jpeg_color_space;
  int cmyk = space == JCS_CMYK || space == JCS_YCCK;
  if (space != JCS_GRAYSCALE && space != JCS_YCbCr && space != JCS_RGB && !cmyk) {
    put_msg(msg, msg_cap, "unsupported JPEG color space");
    fx_jpeg_reader_close(r);
    return FX_JPEG_ERR_UNSUPPORTED;
  }
  if (!jpeg_read_icc_profile(&r->cinfo, &r->icc, &r->icc_size)) {
    r->icc = NULL;
    r->icc_size = 0;
  }
  header->width = r->cinfo.image_width;
  header->height = r->cinfo.image_height;
  header->components = r->cinfo.num_components;
  header->cmyk = cmyk;
  header->adobe_inverted = cmyk && r->cinfo.saw_Adobe_marker;
  *out = r;
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_reader_decode(fx_jpeg_reader *r, void *pixels, size_t row_bytes, char *msg,
                          size_t msg_cap) {
  if (setjmp(r->err.jump)) {
    put_msg(msg, msg_cap, r->err.text);
    return r->err.code;
  }
  int cmyk = r->cinfo.jpeg_color_space == JCS_CMYK || r->cinfo.jpeg_color_space == JCS_YCCK;
  r->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  jpeg_start_decompress(&r->cinfo);
  if (r->cinfo.output_components != 4 || (size_t)r->cinfo.output_width * 4 > row_bytes)
    ERREXIT(&r->cinfo, JERR_CONVERSION_NOTIMPL);
  while (r->cinfo.output_scanline < r->cinfo.output_height) {
    JSAMPROW row = (JSAMPROW)pixels + (size_t)r->cinfo.output_scanline * row_bytes;
    jpeg_read_scanlines(&r->cinfo, &row, 1);
  }
  jpeg_finish_decompress(&r->cinfo);
  return FX_JPEG_OK;
}

int fx_jpeg_reader_icc(fx_jpeg_reader *r, const void **profile, size_t *size) {
  *profile = r->icc;
  *size = r->icc_size;
  return r->icc != NULL;
}

int fx_jpeg_reader_exif(fx_jpeg_reader *r, const void **exif, size_t *size) {
  static const JOCTET tag[6] = {'E', 'x', 'i', 'f', 0, 0};
  for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m != NULL; m = m->next) {
    if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, tag, 6) == 0) {
      *exif = m->data + 6;
      *size = m->data_length - 6;
      return 1;
    }
  }
  *exif = NULL;
  *size = 0;
  return 0;
}

void fx_jpeg_reader_close(fx_jpeg_reader *r) {
  if (r == NULL) return;
  free(r->icc);
  if (r->created) jpeg_destroy_decompress(&r->cinfo);
  free(r);
}

// ---------------------------------------------------------------- writing

// Heap-allocated so that the error path reads no locals that setjmp could
// leave indeterminate.
typedef struct {
  struct jpeg_compress_struct cinfo;
  fx_jpeg_error err;
  int created;
  unsigned char *buf;
  unsigned long size;
} fx_jpeg_writer;

static void writer_free(fx_jpeg_writer *w) {
  if (w->created) jpeg_destroy_compress(&w->cinfo);
  free(w->buf);
  free(w);
}

fx_jpeg_status fx_jpeg_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                   int components, int quality, const void *icc, size_t icc_size, void **out,
                   size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  if (components != 1 && components != 3) {
    put_msg(msg, msg_cap, "a JPEG is written with 1 or 3 components");
    return FX_JPEG_ERR_UNSUPPORTED;
  }
  fx_jpeg_writer *w = calloc(1, sizeof *w);
  if (w == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_JPEG_ERR_NOMEM;
  }
  w->cinfo.err = (struct jpeg_error_mgr *)&w->err;
  install(&w->err);
  if (setjmp(w->err.jump)) {
    put_msg(msg, msg_cap, w->err.text);
    int code = w->err.code;
    writer_free(w);
    return code;
  }
  jpeg_create_compress(&w->cinfo);
  w->created = 1;
  jpeg_mem_dest(&w->cinfo, &w->buf, &w->size);
  w->cinfo.image_width = width;
  w->cinfo.image_height = height;
  w->cinfo.input_components = components;
  w->cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&w->cinfo);
  jpeg_set_quality(&w->cinfo, quality, TRUE);
  w->cinfo.optimize_coding = TRUE;
  jpeg_start_compress(&w->cinfo, TRUE);
  if (icc != NULL && icc_size > 0)
    jpeg_write_icc_profile(&w->cinfo, (const JOCTET *)icc, (unsigned int)icc_size);
  while (w->cinfo.next_scanline < w->cinfo.image_height) {
    JSAMPROW row = (JSAMPROW)pixels + (size_t)w->cinfo.next_scanline * row_bytes;
    jpeg_write_scanlines(&w->cinfo, &row, 1);
  }
  jpeg_finish_compress(&w->cinfo);
  *out = w->buf;
  *out_size = w->size;
  w->buf = NULL;
  writer_free(w);
  return FX_JPEG_OK;
}
