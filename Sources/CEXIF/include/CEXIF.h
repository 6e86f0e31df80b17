// A small shim over libexif for FXImage: the one tag fxc acts on.
#ifndef FX_CEXIF_H
#define FX_CEXIF_H

#include <stddef.h>

/// The EXIF Orientation (tag 0x0112) in the TIFF structure `tiff[0..<size]`
/// (an EXIF block without its "Exif\0\0" prefix, as in a JPEG's APP1
/// segment after the prefix or a PNG's eXIf chunk): 1…8, or 0 when the block
/// is unreadable, has no such tag, or its value is out of range. The tag is
/// found in any IFD and read whether it is stored as SHORT or LONG.
int fx_exif_orientation(const void *tiff, size_t size);

#endif
