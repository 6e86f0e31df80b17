// Small shims over LittleCMS 2 for FXImage: what an embedded ICC profile
// describes, and conversions of decoded pixels to sRGB. Nothing is printed.
#ifndef FX_CLCMS_H
#define FX_CLCMS_H

#include <stddef.h>
#include <stdint.h>

/// The colour space of an ICC profile, as fx_icc_color_space reports it.
typedef enum {
  FX_ICC_INVALID = 0,  ///< LittleCMS cannot parse the profile
  FX_ICC_GRAY = 1,
  FX_ICC_RGB = 3,
  FX_ICC_CMYK = 4,
  FX_ICC_OTHER = 5,  ///< a valid profile of another colour space (Lab, …)
} fx_icc_space;

/// What the profile `icc[0..<size]` describes (its data colour space), or
/// FX_ICC_INVALID when it cannot be opened or is not an input/display profile
/// LittleCMS can transform from.
fx_icc_space fx_icc_color_space(const void *icc, size_t size);

/// The profile's description tag (ICC `desc`, e.g. "Adobe RGB (1998)") in
/// English as LittleCMS reads it, NUL-terminated in `out[0..<cap]`; returns
/// its length, or 0 when the profile cannot be opened or has none.
size_t fx_icc_description(const void *icc, size_t size, char *out, size_t cap);

/// Converts `height` rows of `width` pixels, `row_bytes` apart, in place from
/// the profile `icc` to sRGB (LittleCMS's built-in sRGB profile), with the
/// relative colorimetric intent and black-point compensation.
/// - `space` FX_ICC_GRAY or FX_ICC_RGB: pixels are RGBA with `bytes` 1 or 2
///   per sample (native byte order), straight alpha; gray is read from R.
///   Alpha is kept.
/// - `space` FX_ICC_CMYK: pixels hold 4 CMYK bytes (`bytes` 1), inverted when
///   `inverted` (Adobe); they become RGBA with alpha 255.
/// Returns 0 on success, else nonzero with a message in `msg`.
int fx_icc_to_srgb(const void *icc, size_t size, fx_icc_space space, int inverted, int bytes,
                   void *pixels, size_t row_bytes, uint32_t width, uint32_t height, char *msg,
                   size_t msg_cap);

/// Converts CMYK (4 bytes per pixel, ink amounts, or their complements when
/// `inverted`) in place to RGBA with alpha 255, with no profile:
/// R = (255 − C)(255 − K) / 255 (and so on for G with M, B with Y), rounded.
void fx_cmyk_to_rgb_naive(void *pixels, size_t row_bytes, uint32_t width, uint32_t height,
                          int inverted);

/// An RGB display profile from chromaticities (CIE xy of white, red, green,
/// blue) and a tone curve for the three channels, serialised: a parametric
/// curve of ICC type `curve_type` (1: γ, params [γ]; 4: the sRGB-style
/// curve, params [γ, a, b, c, d]), or for `curve_type` 0 a table of
/// `table_size` values in 0…1 in `params` (2…65536 entries; the three
/// channels' tables differ by a level or two, so a large table makes a large
/// profile). On success returns 0 and `*out` is a malloc'd buffer of
/// `*out_size` bytes to release with free(). For tests and tools.
int fx_icc_make_rgb(const double white[2], const double primaries[6], int curve_type,
                    const double *params, size_t table_size, void **out, size_t *out_size);

/// A CMYK output profile whose A2B0 table (`grid`⁴ points, 2…17) maps ink
/// amounts C, M, Y, K (0…1) to the Lab of the sRGB colour
/// R = (1 − Y)(1 − K), G = (1 − M)(1 − K), B = (1 − C)(1 − K) — the
/// profile-less formula with red and blue swapped, so that a conversion
/// through it is told apart from one without it. Serialised like
/// fx_icc_make_rgb. For tests.
int fx_icc_make_test_cmyk(int grid, void **out, size_t *out_size);

/// LittleCMS's own float transform of `count` RGB triples (0…1) from the
/// profile `icc` to sRGB, same intent and flags as fx_icc_to_srgb: the
/// reference the 8- and 16-bit conversions are checked against. Returns 0 on
/// success.
int fx_icc_reference_to_srgb(const void *icc, size_t size, const float *in, float *out,
                             size_t count);

#endif
