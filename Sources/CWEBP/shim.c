#include "CWEBP.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

static const char *status_text(VP8StatusCode s) {
  switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends before the image does (truncated)";
    default: return "invalid WebP data";
  }
}

fx_webp_status fx_webp_header_read(const void *bytes, size_t size, fx_webp_header *h, char *msg,
                                   size_t msg_cap) {
  WebPBitstreamFeatures f;
  VP8StatusCode s = WebPGetFeatures(bytes, size, &f);
  if (s != VP8_STATUS_OK) {
    put_msg(msg, msg_cap, status_text(s));
    return s == VP8_STATUS_OUT_OF_MEMORY ? FX_WEBP_ERR_NOMEM : FX_WEBP_ERR_CORRUPT;
  }
  h->width = (uint32_t)f.width;
  h->height = (uint32_t)f.height;
  h->has_alpha = f.has_alpha;
  h->animated = f.has_animation;
  h->lossless = f.format == 2;
  if (h->animated) {
    // The canvas of an animation, from the demuxer.
    WebPData data = {bytes, size};
    WebPDemuxer *demux = WebPDemux(&data);
    if (demux == NULL) {
      put_msg(msg, msg_cap, "invalid animated WebP container");
      return FX_WEBP_ERR_CORRUPT;
    }
    h->width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    h->height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    WebPDemuxDelete(demux);
  }
  return FX_WEBP_OK;
}

fx_webp_status fx_webp_decode_scaled(const void *bytes, size_t size, void *pixels, size_t row_bytes,
                                     uint32_t width, uint32_t height, char *msg, size_t msg_cap) {
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return FX_WEBP_ERR_CORRUPT;
  config.options.use_scaling = 1;
  config.options.scaled_width = (int)width;
  config.options.scaled_height = (int)height;
  config.output.colorspace = MODE_RGBA;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = pixels;
  config.output.u.RGBA.stride = (int)row_bytes;
  config.output.u.RGBA.size = row_bytes * height;
  VP8StatusCode s = WebPDecode(bytes, size, &config);
  WebPFreeDecBuffer(&config.output);
  if (s != VP8_STATUS_OK) {
    put_msg(msg, msg_cap, status_text(s));
    return FX_WEBP_ERR_CORRUPT;
  }
  return FX_WEBP_OK;
}

fx_webp_status fx_webp_decode(const void *bytes, size_t size, void *pixels, size_t row_bytes,
                              const fx_webp_header *h, char *msg, size_t msg_cap) {
  if (!h->animated) {
    if (WebPDecodeRGBAInto(bytes, size, pixels, row_bytes * h->height, (int)row_bytes) == NULL) {
      WebPBitstreamFeatures f;
      VP8StatusCode s = WebPGetFeatures(bytes, size, &f);
      put_msg(msg, msg_cap, s == VP8_STATUS_OK ? "the image data is truncated or corrupt" : status_text(s));
      return FX_WEBP_ERR_CORRUPT;
    }
    return FX_WEBP_OK;
  }
  WebPData data = {bytes, size};
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) return FX_WEBP_ERR_CORRUPT;
  options.color_mode = MODE_RGBA;
  WebPAnimDecoder *decoder = WebPAnimDecoderNew(&data, &options);
  uint8_t *frame = NULL;
  int timestamp = 0;
  if (decoder == NULL || !WebPAnimDecoderGetNext(decoder, &frame, &timestamp) || frame == NULL) {
    if (decoder != NULL) WebPAnimDecoderDelete(decoder);
    put_msg(msg, msg_cap, "cannot decode the first frame of the animation");
    return FX_WEBP_ERR_CORRUPT;
  }
  for (uint32_t y = 0; y < h->height; y++)
    memcpy((uint8_t *)pixels + (size_t)y * row_bytes, frame + (size_t)y * h->width * 4, (size_t)h->width * 4);
  WebPAnimDecoderDelete(decoder);
  return FX_WEBP_OK;
}

int fx_webp_chunk(const void *bytes, size_t size, const char fourcc[4], void **out, size_t *out_size) {
  *out = NULL;
  *out_size = 0;
  WebPData data = {bytes, size};
  WebPDemuxer *demux = WebPDemux(&data);
  if (demux == NULL) return 0;
  WebPChunkIterator it;
  int found = 0;
  if (WebPDemuxGetChunk(demux, fourcc, 1, &it) && it.chunk.size > 0) {
    void *copy = malloc(it.chunk.size);
    if (copy != NULL) {
      memcpy(copy, it.chunk.bytes, it.chunk.size);
      *out = copy;
      *out_size = it.chunk.size;
      found = 1;
    }
    WebPDemuxReleaseChunkIterator(&it);
  }
  WebPDemuxDelete(demux);
  return found;
}

// The rows as 8-bit RGBA (gray copied to R, G and B; opaque without alpha).
static uint8_t *to_rgba(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes, int channels) {
  uint8_t *rgba = malloc((size_t)width * height * 4);
  if (rgba == NULL) return NULL;
  for (uint32_t y = 0; y < height; y++) {
    const uint8_t *src = (const uint8_t *)pixels + (size_t)y * row_bytes;
    uint8_t *dst = rgba + (size_t)y * width * 4;
    for (uint32_t x = 0; x < width; x++, src += channels, dst += 4) {
      int gray = channels <= 2;
      dst[0] = src[0];
      dst[1] = gray ? src[0] : src[1];
      dst[2] = gray ? src[0] : src[2];
      dst[3] = channels == 2 ? src[1] : channels == 4 ? src[3] : 255;
    }
  }
  return rgba;
}

fx_webp_status fx_webp_encode(const void *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                              int channels, int lossless, int quality, const void *icc, size_t icc_size,
                              const void *exif, size_t exif_size, const void *xmp, size_t xmp_size, void **out,
                              size_t *out_size, char *msg, size_t msg_cap) {
  *out = NULL;
  *out_size = 0;
  if (width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
    put_msg(msg, msg_cap, "WebP images are at most 16383 px per side");
    return FX_WEBP_ERR_CORRUPT;
  }
  WebPConfig config;
  WebPPicture picture;
  if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) return FX_WEBP_ERR_CORRUPT;
  config.lossless = lossless;
  config.quality = lossless ? 75 : (float)quality;
  config.exact = lossless;
  picture.use_argb = lossless;
  picture.width = (int)width;
  picture.height = (int)height;
  // RGB rows go to libwebp as they are: no alpha plane to build and scan.
  int rgb = channels == 3;
  uint8_t *rgba = rgb ? (uint8_t *)pixels : to_rgba(pixels, width, height, row_bytes, channels);
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture.writer = WebPMemoryWrite;
  picture.custom_ptr = &writer;
  int imported = rgb ? WebPPictureImportRGB(&picture, rgba, (int)row_bytes)
                     : rgba != NULL && WebPPictureImportRGBA(&picture, rgba, (int)width * 4);
  int ok = rgba != NULL && imported && WebPEncode(&config, &picture);
  if (!ok) put_msg(msg, msg_cap, rgba == NULL ? "out of memory" : "libwebp could not encode the image");
  if (!rgb) free(rgba);
  WebPPictureFree(&picture);
  if (!ok) {
    WebPMemoryWriterClear(&writer);
    return FX_WEBP_ERR_CORRUPT;
  }
  WebPData image = {writer.mem, writer.size}, assembled = {NULL, 0};
  int has_icc = icc != NULL && icc_size > 0, has_exif = exif != NULL && exif_size > 0;
  int has_xmp = xmp != NULL && xmp_size > 0;
  if (has_icc || has_exif || has_xmp) {
    // The extended format's chunks (WebP container specification): ICCP, EXIF (a TIFF structure), "XMP ".
    WebPMux *mux = WebPMuxCreate(&image, 1);
    WebPData profile = {icc, icc_size}, exif_data = {exif, exif_size}, xmp_data = {xmp, xmp_size};
    ok = mux != NULL && (!has_icc || WebPMuxSetChunk(mux, "ICCP", &profile, 1) == WEBP_MUX_OK) &&
         (!has_exif || WebPMuxSetChunk(mux, "EXIF", &exif_data, 1) == WEBP_MUX_OK) &&
         (!has_xmp || WebPMuxSetChunk(mux, "XMP ", &xmp_data, 1) == WEBP_MUX_OK) &&
         WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    if (mux != NULL) WebPMuxDelete(mux);
    if (!ok) {
      put_msg(msg, msg_cap, "libwebp could not add the ICC profile, EXIF or XMP chunk");
      WebPMemoryWriterClear(&writer);
      WebPDataClear(&assembled);
      return FX_WEBP_ERR_CORRUPT;
    }
    image = assembled;
  }
  void *copy = malloc(image.size);
  if (copy != NULL) memcpy(copy, image.bytes, image.size);
  WebPMemoryWriterClear(&writer);
  WebPDataClear(&assembled);
  if (copy == NULL) {
    put_msg(msg, msg_cap, "out of memory");
    return FX_WEBP_ERR_NOMEM;
  }
  *out = copy;
  *out_size = image.size;
  return FX_WEBP_OK;
}
