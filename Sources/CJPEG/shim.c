#include "CJPEG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  FILE *file;  // when reading a file (a dup of the caller's descriptor)
};

// Opens a reader on `bytes` or, when `fd` >= 0, on the file `fd`.
static fx_jpeg_status reader_open(const void *bytes, size_t size, int fd, size_t max_memory,
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
  if (fd >= 0) {
    int copy = dup(fd);
    r->file = copy >= 0 ? fdopen(copy, "rb") : NULL;
    if (r->file == NULL) {
      if (copy >= 0) close(copy);
      put_msg(msg, msg_cap, "cannot read the file");
      fx_jpeg_reader_close(r);
      return FX_JPEG_ERR_CORRUPT;
    }
    jpeg_stdio_src(&r->cinfo, r->file);
  } else {
    jpeg_mem_src(&r->cinfo, bytes, (unsigned long)size);
  }
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
  // Four-component JPEGs hold Adobe's inverted CMYK whether or not the APP14
  // marker survived: Pillow ("CMYK;I", always), ImageMagick and libvips all
  // read them so (measured: a file with its APP14 removed decodes as before).
  header->adobe_inverted = cmyk;
  header->progressive = jpeg_has_multiple_scans(&r->cinfo);
  header->density_unit = r->cinfo.saw_JFIF_marker ? r->cinfo.density_unit : 0;
  header->x_density = r->cinfo.saw_JFIF_marker ? r->cinfo.X_density : 0;
  header->y_density = r->cinfo.saw_JFIF_marker ? r->cinfo.Y_density : 0;
  *out = r;
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_reader_open(const void *bytes, size_t size, size_t max_memory,
                        fx_jpeg_reader **out, fx_jpeg_header *header, char *msg,
                        size_t msg_cap) {
  return reader_open(bytes, size, -1, max_memory, out, header, msg, msg_cap);
}

fx_jpeg_status fx_jpeg_reader_open_fd(int fd, size_t max_memory, fx_jpeg_reader **out,
                                      fx_jpeg_header *header, char *msg, size_t msg_cap) {
  return reader_open(NULL, 0, fd, max_memory, out, header, msg, msg_cap);
}

fx_jpeg_status fx_jpeg_reader_scale(fx_jpeg_reader *r, unsigned denom, uint32_t *width, uint32_t *height,
                                    char *msg, size_t msg_cap) {
  if (setjmp(r->err.jump)) {
    put_msg(msg, msg_cap, r->err.text);
    return r->err.code;
  }
  r->cinfo.scale_num = 1;
  r->cinfo.scale_denom = denom;
  jpeg_calc_output_dimensions(&r->cinfo);
  *width = r->cinfo.output_width;
  *height = r->cinfo.output_height;
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_reader_start(fx_jpeg_reader *r, char *msg, size_t msg_cap) {
  if (setjmp(r->err.jump)) {
    put_msg(msg, msg_cap, r->err.text);
    return r->err.code;
  }
  int cmyk = r->cinfo.jpeg_color_space == JCS_CMYK || r->cinfo.jpeg_color_space == JCS_YCCK;
  r->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  jpeg_start_decompress(&r->cinfo);
  if (r->cinfo.output_components != 4) ERREXIT(&r->cinfo, JERR_CONVERSION_NOTIMPL);
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_reader_rows(fx_jpeg_reader *r, void *pixels, size_t row_bytes, uint32_t count,
                                   char *msg, size_t msg_cap) {
  if (setjmp(r->err.jump)) {
    put_msg(msg, msg_cap, r->err.text);
    return r->err.code;
  }
  if ((size_t)r->cinfo.output_width * 4 > row_bytes ||
      count > r->cinfo.output_height - r->cinfo.output_scanline)
    ERREXIT(&r->cinfo, JERR_BAD_BUFFER_MODE);
  for (uint32_t y = 0; y < count; y++) {
    JSAMPROW row = (JSAMPROW)pixels + (size_t)y * row_bytes;
    if (jpeg_read_scanlines(&r->cinfo, &row, 1) != 1) ERREXIT(&r->cinfo, JERR_BAD_BUFFER_MODE);
  }
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_reader_finish(fx_jpeg_reader *r, char *msg, size_t msg_cap) {
  if (setjmp(r->err.jump)) {
    put_msg(msg, msg_cap, r->err.text);
    return r->err.code;
  }
  jpeg_finish_decompress(&r->cinfo);
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_reader_decode(fx_jpeg_reader *r, void *pixels, size_t row_bytes, char *msg,
                          size_t msg_cap) {
  fx_jpeg_status s = fx_jpeg_reader_start(r, msg, msg_cap);
  if (s == FX_JPEG_OK) s = fx_jpeg_reader_rows(r, pixels, row_bytes, r->cinfo.output_height, msg, msg_cap);
  if (s == FX_JPEG_OK) s = fx_jpeg_reader_finish(r, msg, msg_cap);
  return s;
}

// The APP1 signatures of EXIF (then a TIFF structure) and of XMP (then the packet).
static const JOCTET exif_signature[6] = {'E', 'x', 'i', 'f', 0, 0};
static const JOCTET xmp_signature[29] = "http://ns.adobe.com/xap/1.0/";  // with its NUL

int fx_jpeg_reader_icc(fx_jpeg_reader *r, const void **profile, size_t *size) {
  *profile = r->icc;
  *size = r->icc_size;
  return r->icc != NULL;
}

// The first APP1 segment that starts with `signature`, after it.
static int app1(fx_jpeg_reader *r, const JOCTET *signature, size_t signature_size, const void **data,
                size_t *size) {
  for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m != NULL; m = m->next) {
    if (m->marker == JPEG_APP0 + 1 && m->data_length > signature_size &&
        memcmp(m->data, signature, signature_size) == 0) {
      *data = m->data + signature_size;
      *size = m->data_length - signature_size;
      return 1;
    }
  }
  *data = NULL;
  *size = 0;
  return 0;
}

int fx_jpeg_reader_exif(fx_jpeg_reader *r, const void **exif, size_t *size) {
  return app1(r, exif_signature, sizeof exif_signature, exif, size);
}

int fx_jpeg_reader_xmp(fx_jpeg_reader *r, const void **xmp, size_t *size) {
  return app1(r, xmp_signature, sizeof xmp_signature, xmp, size);
}

void fx_jpeg_reader_close(fx_jpeg_reader *r) {
  if (r == NULL) return;
  free(r->icc);
  if (r->created) jpeg_destroy_decompress(&r->cinfo);
  if (r->file != NULL) fclose(r->file);
  free(r);
}

// ---------------------------------------------------------------- writing

// Heap-allocated so that the error path reads no locals that setjmp could
// leave indeterminate.
struct fx_jpeg_writer {
  struct jpeg_compress_struct cinfo;
  fx_jpeg_error err;
  int created;
  unsigned char *buf;  // writing to memory
  unsigned long size;
  FILE *file;  // writing to a file (a dup of the caller's descriptor)
};

void fx_jpeg_writer_close(fx_jpeg_writer *w) {
  if (w == NULL) return;
  if (w->created) jpeg_destroy_compress(&w->cinfo);
  if (w->file != NULL) fclose(w->file);
  free(w->buf);
  free(w);
}

// Writes an APP1 segment: `signature`, then `data`.
static void write_app1(j_compress_ptr cinfo, const JOCTET *signature, size_t signature_size, const void *data,
                       size_t size) {
  jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned int)(signature_size + size));
  for (size_t i = 0; i < signature_size; i++) jpeg_write_m_byte(cinfo, signature[i]);
  for (size_t i = 0; i < size; i++) jpeg_write_m_byte(cinfo, ((const JOCTET *)data)[i]);
}

fx_jpeg_status fx_jpeg_writer_open(int fd, uint32_t width, uint32_t height, int components, int quality,
                                   const void *icc, size_t icc_size, const void *exif, size_t exif_size,
                                   const void *xmp, size_t xmp_size, fx_jpeg_density density,
                                   fx_jpeg_writer **out, char *msg, size_t msg_cap) {
  *out = NULL;
  if ((exif != NULL && exif_size > FX_JPEG_MAX_EXIF) || (xmp != NULL && xmp_size > FX_JPEG_MAX_XMP)) {
    put_msg(msg, msg_cap, "the EXIF or XMP block is larger than a JPEG APP1 segment holds");
    return FX_JPEG_ERR_UNSUPPORTED;
  }
  if (components != 1 && components != 3 && components != 4) {
    put_msg(msg, msg_cap, "a JPEG is written from 1 (gray), 3 (RGB) or 4 (RGBX) samples a pixel");
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
    fx_jpeg_writer_close(w);
    return code;
  }
  jpeg_create_compress(&w->cinfo);
  w->created = 1;
  if (fd >= 0) {
    int copy = dup(fd);
    w->file = copy >= 0 ? fdopen(copy, "wb") : NULL;
    if (w->file == NULL) {
      if (copy >= 0) close(copy);
      ERREXIT(&w->cinfo, JERR_FILE_WRITE);
    }
    jpeg_stdio_dest(&w->cinfo, w->file);
  } else {
    jpeg_mem_dest(&w->cinfo, &w->buf, &w->size);
  }
  w->cinfo.image_width = width;
  w->cinfo.image_height = height;
  w->cinfo.input_components = components;
  w->cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_EXT_RGBX;
  jpeg_set_defaults(&w->cinfo);
  jpeg_set_quality(&w->cinfo, quality, TRUE);
  // Optimised Huffman tables need a second pass over the whole image's
  // coefficients, which libjpeg holds in memory (3 bytes a pixel at 4:2:0):
  // up to 50 MP; larger images get the standard tables and stream.
  w->cinfo.optimize_coding = (uint64_t)width * height <= FX_JPEG_OPTIMIZE_MAX_PIXELS;
  if (density.unit >= 1 && density.unit <= 2 && density.x >= 1 && density.x <= 65535 && density.y >= 1 &&
      density.y <= 65535) {
    w->cinfo.density_unit = (UINT8)density.unit;
    w->cinfo.X_density = (UINT16)density.x;
    w->cinfo.Y_density = (UINT16)density.y;
  }
  jpeg_start_compress(&w->cinfo, TRUE);
  if (exif != NULL && exif_size > 0) write_app1(&w->cinfo, exif_signature, sizeof exif_signature, exif, exif_size);
  if (xmp != NULL && xmp_size > 0) write_app1(&w->cinfo, xmp_signature, sizeof xmp_signature, xmp, xmp_size);
  if (icc != NULL && icc_size > 0)
    jpeg_write_icc_profile(&w->cinfo, (const JOCTET *)icc, (unsigned int)icc_size);
  *out = w;
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_writer_rows(fx_jpeg_writer *w, const void *pixels, size_t row_bytes, uint32_t count,
                                   char *msg, size_t msg_cap) {
  if (setjmp(w->err.jump)) {
    put_msg(msg, msg_cap, w->err.text);
    return w->err.code;
  }
  if (count > w->cinfo.image_height - w->cinfo.next_scanline) ERREXIT(&w->cinfo, JERR_TOO_LITTLE_DATA);
  for (uint32_t y = 0; y < count; y++) {
    JSAMPROW row = (JSAMPROW)pixels + (size_t)y * row_bytes;
    jpeg_write_scanlines(&w->cinfo, &row, 1);
  }
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_writer_finish(fx_jpeg_writer *w, void **out, size_t *out_size, char *msg,
                                     size_t msg_cap) {
  if (setjmp(w->err.jump)) {
    put_msg(msg, msg_cap, w->err.text);
    return w->err.code;
  }
  jpeg_finish_compress(&w->cinfo);
  if (w->file != NULL && fflush(w->file) != 0) ERREXIT(&w->cinfo, JERR_FILE_WRITE);
  if (out != NULL) {
    *out = w->buf;
    *out_size = w->size;
    w->buf = NULL;
  }
  return FX_JPEG_OK;
}

fx_jpeg_status fx_jpeg_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                   int components, int quality, const void *icc, size_t icc_size, const void *exif,
                   size_t exif_size, const void *xmp, size_t xmp_size, fx_jpeg_density density, void **out,
                   size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  fx_jpeg_writer *w = NULL;
  fx_jpeg_status s = fx_jpeg_writer_open(-1, width, height, components, quality, icc, icc_size, exif, exif_size,
                                         xmp, xmp_size, density, &w, msg, msg_cap);
  if (s == FX_JPEG_OK) s = fx_jpeg_writer_rows(w, pixels, row_bytes, height, msg, msg_cap);
  if (s == FX_JPEG_OK) s = fx_jpeg_writer_finish(w, out, out_size, msg, msg_cap);
  fx_jpeg_writer_close(w);
  return s;
}
