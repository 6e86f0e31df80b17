#include "CEXIF.h"

#include <libexif/exif-data.h>
#include <stdlib.h>
#include <string.h>

int fx_exif_orientation(const void *tiff, size_t size) {
  static const unsigned char prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
  if (tiff == NULL || size == 0 || size > 0xFFFFFF) return 0;
  unsigned char *block = malloc(size + sizeof prefix);
  if (block == NULL) return 0;
  memcpy(block, prefix, sizeof prefix);
  memcpy(block + sizeof prefix, tiff, size);
  ExifData *data = exif_data_new();
  if (data == NULL) {
    free(block);
    return 0;
  }
  // Keep entries where they are (the specification's "fixes" would move or
  // drop a tag recorded in an unusual IFD).
  exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
  exif_data_load_data(data, block, (unsigned int)(size + sizeof prefix));
  free(block);
  int value = 0;
  ExifByteOrder order = exif_data_get_byte_order(data);
  for (int ifd = 0; ifd < EXIF_IFD_COUNT && value == 0; ifd++) {
    ExifEntry *entry = exif_content_get_entry(data->ifd[ifd], EXIF_TAG_ORIENTATION);
    if (entry == NULL || entry->components < 1 || entry->data == NULL) continue;
    if (entry->format == EXIF_FORMAT_SHORT && entry->size >= 2)
      value = exif_get_short(entry->data, order);
    else if (entry->format == EXIF_FORMAT_LONG && entry->size >= 4)
      value = (int)exif_get_long(entry->data, order);
    if (value < 1 || value > 8) value = 0;
  }
  exif_data_unref(data);
  return value;
}
