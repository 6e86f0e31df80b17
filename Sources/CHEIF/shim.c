#include "CHEIF.h"

#include <libheif/heif.h>
#include <stdlib.h>
#include <string.h>

static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

static fx_heif_status fail(struct heif_error e, char *msg, size_t cap) {
  put_msg(msg, cap, e.message ? e.message : "libheif error");
  if (e.code == heif_error_Memory_allocation_error) return FX_HEIF_ERR_NOMEM;
  if (e.code == heif_error_Unsupported_feature || e.code == heif_error_Unsupported_filetype ||
      e.code == heif_error_Plugin_loading_error)
    return FX_HEIF_ERR_UNSUPPORTED;
  return FX_HEIF_ERR_CORRUPT;
}

struct fx_heif_reader {
  struct heif_context *ctx;
  struct heif_image_handle *primary;
  struct heif_image_handle *handle;  // the primary image, or the thumbnail chosen
  fx_heif_header header;
};

static void read_header(fx_heif_reader *r, fx_heif_header *h) {
  h->width = (uint32_t)heif_image_handle_get_width(r->handle);
  h->height = (uint32_t)heif_image_handle_get_height(r->handle);
  h->bits = heif_image_handle_get_luma_bits_per_pixel(r->handle) > 8 ? 16 : 8;
  h->has_alpha = heif_image_handle_has_alpha_channel(r->handle);
  r->header = *h;
}

fx_heif_status fx_heif_reader_open(const void *bytes, size_t size, int max_side, fx_heif_reader **out,
                                   fx_heif_header *h, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_heif_reader *r = calloc(1, sizeof *r);
  if (r == NULL || (r->ctx = heif_context_alloc()) == NULL) {
    free(r);
    put_msg(msg, msg_cap, "out of memory");
    return FX_HEIF_ERR_NOMEM;
  }
  heif_context_set_maximum_image_size_limit(r->ctx, max_side);
  struct heif_error e = heif_context_read_from_memory_without_copy(r->ctx, bytes, size, NULL);
  if (e.code == heif_error_Ok) e = heif_context_get_primary_image_handle(r->ctx, &r->primary);
  r->handle = r->primary;
  if (e.code != heif_error_Ok) {
    fx_heif_status s = fail(e, msg, msg_cap);
    fx_heif_reader_close(r);
    return s;
  }
  read_header(r, h);
  *out = r;
  return FX_HEIF_OK;
}

int fx_heif_reader_thumbnails(fx_heif_reader *r, uint32_t *widths, uint32_t *heights, int max) {
  int count = heif_image_handle_get_number_of_thumbnails(r->primary);
  if (count <= 0 || max <= 0) return 0;
  heif_item_id *ids = calloc((size_t)count, sizeof *ids);
  if (ids == NULL) return 0;
  count = heif_image_handle_get_list_of_thumbnail_IDs(r->primary, ids, count);
  int listed = 0;
  for (int i = 0; i < count && listed < max; i++) {
    struct heif_image_handle *t = NULL;
    if (heif_image_handle_get_thumbnail(r->primary, ids[i], &t).code != heif_error_Ok) continue;
    widths[listed] = (uint32_t)heif_image_handle_get_width(t);
    heights[listed] = (uint32_t)heif_image_handle_get_height(t);
    listed++;
    heif_image_handle_release(t);
  }
  free(ids);
  return listed;
}

fx_heif_status fx_heif_reader_use_thumbnail(fx_heif_reader *r, int index, fx_heif_header *h, char *msg,
                                            size_t msg_cap) {
  int count = heif_image_handle_get_number_of_thumbnails(r->primary);
  heif_item_id *ids = count > 0 ? calloc((size_t)count, sizeof *ids) : NULL;
  if (ids == NULL || index < 0) {
    free(ids);
    put_msg(msg, msg_cap, "no such thumbnail");
    return FX_HEIF_ERR_CORRUPT;
  }
  count = heif_image_handle_get_list_of_thumbnail_IDs(r->primary, ids, count);
  // The index counts the thumbnails fx_heif_reader_thumbnails listed (those that open).
  struct heif_image_handle *t = NULL;
  for (int i = 0, listed = 0; i < count && t == NULL; i++) {
    struct heif_image_handle *candidate = NULL;
    if (heif_image_handle_get_thumbnail(r->primary, ids[i], &candidate).code != heif_error_Ok) continue;
    if (listed++ == index) t = candidate;
    else heif_image_handle_release(candidate);
  }
  free(ids);
  if (t == NULL) {
    put_msg(msg, msg_cap, "no such thumbnail");
    return FX_HEIF_ERR_CORRUPT;
  }
  if (r->handle != r->primary) heif_image_handle_release(r->handle);
  r->handle = t;
  read_header(r, h);
  return FX_HEIF_OK;
}

fx_heif_status fx_heif_reader_decode(fx_heif_reader *r, void *pixels, size_t row_bytes, char *msg,
                                     size_t msg_cap) {
  int sixteen = r->header.bits == 16;
  struct heif_image *img = NULL;
  struct heif_error e = heif_decode_image(
      r->handle, &img, heif_colorspace_RGB,
      sixteen ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RGBA, NULL);
  if (e.code != heif_error_Ok) return fail(e, msg, msg_cap);
  int stride = 0;
  const uint8_t *plane = heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride);
  int width = heif_image_get_width(img, heif_channel_interleaved);
  int height = heif_image_get_height(img, heif_channel_interleaved);
  if (plane == NULL || width != (int)r->header.width || height != (int)r->header.height) {
    heif_image_release(img);
    put_msg(msg, msg_cap, "the decoded image does not have the size its header gives");
    return FX_HEIF_ERR_CORRUPT;
  }
  int bits = heif_image_get_bits_per_pixel_range(img, heif_channel_interleaved);
  uint32_t top = sixteen ? (1u << (bits > 8 && bits <= 16 ? bits : 16)) - 1 : 255;
  uint32_t max = sixteen ? 65535 : 255;
  int premultiplied = heif_image_handle_is_premultiplied_alpha(r->handle);
  for (int y = 0; y < height; y++) {
    const uint8_t *src = plane + (size_t)y * stride;
    uint8_t *dst = (uint8_t *)pixels + (size_t)y * row_bytes;
    for (int x = 0; x < width * 4; x += 4) {
      uint32_t v[4];
      for (int c = 0; c < 4; c++) {
        uint32_t s = sixteen ? (uint32_t)src[2 * (x + c)] | (uint32_t)src[2 * (x + c) + 1] << 8 : src[x + c];
        v[c] = sixteen ? (s * max + top / 2) / top : s;  // 10 or 12 bits → 16
      }
      for (int c = 0; c < 3 && premultiplied; c++) {
        uint32_t q = v[3] == 0 ? 0 : (v[c] * max + v[3] / 2) / v[3];
        v[c] = q > max ? max : q;
      }
      for (int c = 0; c < 4; c++) {
        if (sixteen) ((uint16_t *)dst)[x + c] = (uint16_t)(v[c] > max ? max : v[c]);
        else dst[x + c] = (uint8_t)v[c];
      }
    }
  }
  heif_image_release(img);
  return FX_HEIF_OK;
}

int fx_heif_reader_icc(fx_heif_reader *r, void **out, size_t *out_size) {
  *out = NULL;
  *out_size = 0;
  // A thumbnail without a profile of its own is in its primary image's colours.
  struct heif_image_handle *handle = r->handle;
  enum heif_color_profile_type type = heif_image_handle_get_color_profile_type(handle);
  if (type != heif_color_profile_type_prof && type != heif_color_profile_type_rICC && handle != r->primary) {
    handle = r->primary;
    type = heif_image_handle_get_color_profile_type(handle);
  }
  if (type != heif_color_profile_type_prof && type != heif_color_profile_type_rICC) return 0;
  size_t size = heif_image_handle_get_raw_color_profile_size(handle);
  void *data = size > 0 ? malloc(size) : NULL;
  if (data == NULL) return 0;
  if (heif_image_handle_get_raw_color_profile(handle, data).code != heif_error_Ok) {
    free(data);
    return 0;
  }
  *out = data;
  *out_size = size;
  return 1;
}

void fx_heif_reader_close(fx_heif_reader *r) {
  if (r == NULL) return;
  if (r->handle != NULL && r->handle != r->primary) heif_image_handle_release(r->handle);
  if (r->primary != NULL) heif_image_handle_release(r->primary);
  if (r->ctx != NULL) heif_context_free(r->ctx);
  free(r);
}

// ---------------------------------------------------------------- writing

typedef struct {
  uint8_t *buf;
  size_t size;
  int failed;
} fx_heif_output;

static struct heif_error write_bytes(struct heif_context *ctx, const void *data, size_t size, void *user) {
  (void)ctx;
  fx_heif_output *o = user;
  uint8_t *grown = realloc(o->buf, o->size + size);
  if (grown == NULL) {
    o->failed = 1;
    struct heif_error e = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    return e;
  }
  memcpy(grown + o->size, data, size);
  o->buf = grown;
  o->size += size;
  struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
  return ok;
}

fx_heif_status fx_heif_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes, int alpha,
                              int av1, int lossless, int quality, const void *icc, size_t icc_size, void **out,
                              size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  struct heif_context *ctx = heif_context_alloc();
  struct heif_encoder *encoder = NULL;
  struct heif_image *img = NULL;
  struct heif_image_handle *handle = NULL;
  fx_heif_output output = {0};
  if (ctx == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_HEIF_ERR_NOMEM;
  }
  struct heif_error e =
      heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
  if (e.code == heif_error_Ok) e = heif_encoder_set_lossless(encoder, lossless);
  if (e.code == heif_error_Ok && !lossless) e = heif_encoder_set_lossy_quality(encoder, quality);
  if (e.code == heif_error_Ok)
    e = heif_image_create((int)width, (int)height, heif_colorspace_RGB,
                          alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &img);
  if (e.code == heif_error_Ok) e = heif_image_add_plane(img, heif_channel_interleaved, (int)width, (int)height, 8);
  if (e.code == heif_error_Ok) {
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(img, heif_channel_interleaved, &stride);
    size_t bytes = (size_t)width * (alpha ? 4 : 3);
    for (uint32_t y = 0; y < height; y++)
      memcpy(plane + (size_t)y * stride, (const uint8_t *)pixels + (size_t)y * row_bytes, bytes);
    if (icc != NULL && icc_size > 0) e = heif_image_set_raw_color_profile(img, "prof", icc, icc_size);
  }
  if (e.code == heif_error_Ok) e = heif_context_encode_image(ctx, img, encoder, NULL, &handle);
  if (e.code == heif_error_Ok) {
    struct heif_writer writer = {1, write_bytes};
    e = heif_context_write(ctx, &writer, &output);
  }
  fx_heif_status status = e.code == heif_error_Ok && !output.failed ? FX_HEIF_OK : fail(e, msg, msg_cap);
  if (handle != NULL) heif_image_handle_release(handle);
  if (img != NULL) heif_image_release(img);
  if (encoder != NULL) heif_encoder_release(encoder);
  heif_context_free(ctx);
  if (status != FX_HEIF_OK) {
    free(output.buf);
    return status;
  }
  *out = output.buf;
  *out_size = output.size;
  return FX_HEIF_OK;
}
