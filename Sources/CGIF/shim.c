#include "CGIF.h"

#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

struct fx_gif_reader {
  const unsigned char *bytes;
  size_t size, pos;
  GifFileType *gif;
};

static int read_bytes(GifFileType *gif, GifByteType *dst, int n) {
  fx_gif_reader *r = gif->UserData;
  size_t k = n < 0 ? 0 : (size_t)n;
  if (k > r->size - r->pos) k = r->size - r->pos;
  memcpy(dst, r->bytes + r->pos, k);
  r->pos += k;
  return (int)k;
}

static fx_gif_status fail(int code, char *msg, size_t cap) {
  const char *text = GifErrorString(code);
  put_msg(msg, cap, text ? text : "invalid GIF data");
  return code == D_GIF_ERR_NOT_ENOUGH_MEM ? FX_GIF_ERR_NOMEM : FX_GIF_ERR_CORRUPT;
}

fx_gif_status fx_gif_reader_open(const void *bytes, size_t size, fx_gif_reader **out, uint32_t *width,
                                 uint32_t *height, char *msg, size_t msg_cap) {
  *out = NULL;
  fx_gif_reader *r = calloc(1, sizeof *r);
  if (r == NULL) return fail(D_GIF_ERR_NOT_ENOUGH_MEM, msg, msg_cap);
  r->bytes = bytes;
  r->size = size;
  int error = 0;
  r->gif = DGifOpen(r, read_bytes, &error);
  if (r->gif == NULL) {
    free(r);
    return fail(error, msg, msg_cap);
  }
  *width = (uint32_t)r->gif->SWidth;
  *height = (uint32_t)r->gif->SHeight;
  *out = r;
  return FX_GIF_OK;
}

// Rows of an interlaced frame come in four passes: every 8th from 0, every
// 8th from 4, every 4th from 2, every 2nd from 1 (GIF89a, appendix E).
static int row_of(int line, int height, int interlaced) {
  if (!interlaced) return line;
  static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
  for (int pass = 0; pass < 4; pass++) {
    int count = height > start[pass] ? (height - start[pass] + step[pass] - 1) / step[pass] : 0;
    if (line < count) return start[pass] + line * step[pass];
    line -= count;
  }
  return -1;
}

static fx_gif_status read_frame(fx_gif_reader *r, int transparent_index, unsigned char *pixels, size_t row_bytes,
                                char *msg, size_t cap) {
  GifFileType *gif = r->gif;
  if (DGifGetImageDesc(gif) == GIF_ERROR) return fail(gif->Error, msg, cap);
  GifImageDesc *d = &gif->Image;
  ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
  if (map == NULL) {
    put_msg(msg, cap, "the first frame has no colour table");
    return FX_GIF_ERR_CORRUPT;
  }
  if (d->Width <= 0 || d->Height <= 0) {
    put_msg(msg, cap, "the first frame is empty");
    return FX_GIF_ERR_CORRUPT;
  }
  GifPixelType *line = malloc((size_t)d->Width);
  if (line == NULL) return fail(D_GIF_ERR_NOT_ENOUGH_MEM, msg, cap);
  fx_gif_status status = FX_GIF_OK;
  for (int k = 0; k < d->Height; k++) {
    if (DGifGetLine(gif, line, d->Width) == GIF_ERROR) {
      status = fail(gif->Error, msg, cap);
      break;
    }
    int y = d->Top + row_of(k, d->Height, d->Interlace);
    if (y < 0 || y >= gif->SHeight) continue;  // outside the canvas
    unsigned char *row = pixels + (size_t)y * row_bytes;
    for (int i = 0; i < d->Width; i++) {
      int x = d->Left + i;
      if (x < 0 || x >= gif->SWidth) continue;
      unsigned char *p = row + (size_t)x * 4;
      int index = line[i];
      if (index == transparent_index) {
        p[0] = p[1] = p[2] = p[3] = 0;
      } else if (index < map->ColorCount) {
        p[0] = map->Colors[index].Red;
        p[1] = map->Colors[index].Green;
        p[2] = map->Colors[index].Blue;
        p[3] = 255;
      } else {
        p[0] = p[1] = p[2] = 0;  // an index past the table: black, as browsers show it
        p[3] = 255;
      }
    }
  }
  free(line);
  return status;
}

fx_gif_status fx_gif_reader_decode(fx_gif_reader *r, void *pixels, size_t row_bytes, int *transparent,
                                   char *msg, size_t msg_cap) {
  GifFileType *gif = r->gif;
  int transparent_index = NO_TRANSPARENT_COLOR;
  GifRecordType type;
  while (DGifGetRecordType(gif, &type) == GIF_OK) {
    if (type == IMAGE_DESC_RECORD_TYPE) {
      fx_gif_status s = read_frame(r, transparent_index, pixels, row_bytes, msg, msg_cap);
      // Transparent pixels: the frame's transparent colour, or canvas the frame does not cover.
      GifImageDesc *d = &gif->Image;
      int covers = d->Left <= 0 && d->Top <= 0 && d->Left + d->Width >= gif->SWidth && d->Top + d->Height >= gif->SHeight;
      *transparent = transparent_index != NO_TRANSPARENT_COLOR || !covers;
      return s;
    }
    if (type == TERMINATE_RECORD_TYPE) break;
    if (type == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType *ext = NULL;
      if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) return fail(gif->Error, msg, msg_cap);
      if (code == GRAPHICS_EXT_FUNC_CODE && ext != NULL && ext[0] >= 4) {
        GraphicsControlBlock gcb;
        if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) transparent_index = gcb.TransparentColor;
      }
      while (ext != NULL)
        if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) return fail(gif->Error, msg, msg_cap);
    }
  }
  if (gif->Error != 0) return fail(gif->Error, msg, msg_cap);
  put_msg(msg, msg_cap, "the file has no image");
  return FX_GIF_ERR_CORRUPT;
}

void fx_gif_reader_close(fx_gif_reader *r) {
  if (r == NULL) return;
  if (r->gif != NULL) DGifCloseFile(r->gif, NULL);
  free(r);
}
