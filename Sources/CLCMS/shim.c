#include "CLCMS.h"

#include <lcms2.h>
#include <stdlib.h>
#include <string.h>

static void put_msg(char *msg, size_t cap, const char *text) {
  if (msg == NULL || cap == 0) return;
  strncpy(msg, text, cap - 1);
  msg[cap - 1] = '\0';
}

// LittleCMS reports errors through a handler; this one stays silent (the
// callers turn failures into messages of their own).
static void quiet(cmsContext context, cmsUInt32Number code, const char *text) {
  (void)context, (void)code, (void)text;
}

static cmsHPROFILE open_profile(const void *icc, size_t size) {
  cmsSetLogErrorHandler(quiet);
  if (icc == NULL || size < 128 || size > 0x7FFFFFFF) return NULL;
  return cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
}

static const cmsUInt32Number rel = INTENT_RELATIVE_COLORIMETRIC;
static const cmsUInt32Number flags = cmsFLAGS_BLACKPOINTCOMPENSATION;

size_t fx_icc_description(const void *icc, size_t size, char *out, size_t cap) {
  if (cap == 0) return 0;
  out[0] = 0;
  cmsHPROFILE profile = open_profile(icc, size);
  if (profile == NULL) return 0;
  cmsUInt32Number n = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", out, (cmsUInt32Number)cap);
  cmsCloseProfile(profile);
  out[cap - 1] = 0;
  return n == 0 ? 0 : strlen(out);
}

fx_icc_space fx_icc_color_space(const void *icc, size_t size) {
  cmsHPROFILE profile = open_profile(icc, size);
  if (profile == NULL) return FX_ICC_INVALID;
  fx_icc_space space;
  switch (cmsGetColorSpace(profile)) {
    case cmsSigGrayData: space = FX_ICC_GRAY; break;
    case cmsSigRgbData: space = FX_ICC_RGB; break;
    case cmsSigCmykData: space = FX_ICC_CMYK; break;
    default: space = FX_ICC_OTHER; break;
  }
  // A profile that cannot be the source of a transform to sRGB is as good
  // as none. (A trial transform, not cmsIsIntentSupported: LittleCMS falls
  // back to a profile's A2B0 table when the intent's own is missing.)
  if (space != FX_ICC_OTHER) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsUInt32Number format = space == FX_ICC_GRAY ? TYPE_GRAY_8 : space == FX_ICC_RGB ? TYPE_RGB_8 : TYPE_CMYK_8;
    cmsHTRANSFORM t = srgb ? cmsCreateTransform(profile, format, srgb, TYPE_RGB_8, rel, flags) : NULL;
    if (t == NULL) space = FX_ICC_INVALID;
    if (t != NULL) cmsDeleteTransform(t);
    if (srgb != NULL) cmsCloseProfile(srgb);
  }
  cmsCloseProfile(profile);
  return space;
}


// One row: gather the colour samples, transform them, scatter RGB back.
static void convert_row(cmsHTRANSFORM t, unsigned char *row, uint32_t width, fx_icc_space space,
                        int bytes, unsigned char *in, unsigned char *out) {
  size_t pixel = 4 * (size_t)bytes;
  int channels = space == FX_ICC_GRAY ? 1 : space == FX_ICC_RGB ? 3 : 4;
  if (space == FX_ICC_CMYK) pixel = 4;
  for (uint32_t x = 0; x < width; x++)
    memcpy(in + (size_t)x * channels * bytes, row + x * pixel, (size_t)channels * bytes);
  cmsDoTransform(t, in, out, width);
  for (uint32_t x = 0; x < width; x++) {
    memcpy(row + x * pixel, out + (size_t)x * 3 * bytes, 3 * (size_t)bytes);
    if (space == FX_ICC_CMYK) row[x * pixel + 3] = 255;
  }
}

int fx_icc_to_srgb(const void *icc, size_t size, fx_icc_space space, int inverted, int bytes,
                   void *pixels, size_t row_bytes, uint32_t width, uint32_t height, char *msg,
                   size_t msg_cap) {
  if (space != FX_ICC_GRAY && space != FX_ICC_RGB && space != FX_ICC_CMYK) {
    put_msg(msg, msg_cap, "the profile is not a gray, RGB or CMYK profile");
    return 1;
  }
  if ((bytes != 1 && bytes != 2) || (space == FX_ICC_CMYK && bytes != 1)) {
    put_msg(msg, msg_cap, "unsupported sample size");
    return 1;
  }
  cmsHPROFILE source = open_profile(icc, size);
  if (source == NULL) {
    put_msg(msg, msg_cap, "LittleCMS cannot read the ICC profile");
    return 1;
  }
  cmsHPROFILE srgb = cmsCreate_sRGBProfile();
  cmsUInt32Number in_format =
      space == FX_ICC_GRAY  ? (bytes == 1 ? TYPE_GRAY_8 : TYPE_GRAY_16)
      : space == FX_ICC_RGB ? (bytes == 1 ? TYPE_RGB_8 : TYPE_RGB_16)
      : inverted            ? TYPE_CMYK_8_REV
                            : TYPE_CMYK_8;
  cmsUInt32Number out_format = bytes == 1 ? TYPE_RGB_8 : TYPE_RGB_16;
  // 16-bit samples are transformed through the unoptimised pipeline: the
  // precalculated tables LittleCMS builds otherwise are off by up to 0.3% in
  // the shadows (200 levels of 65535); 8-bit ones are within a level anyway.
  cmsUInt32Number precision = bytes == 2 ? cmsFLAGS_NOOPTIMIZE : 0;
  cmsHTRANSFORM t =
      srgb ? cmsCreateTransform(source, in_format, srgb, out_format, rel, flags | precision) : NULL;
  unsigned char *in = malloc((size_t)width * 4 * bytes);
  unsigned char *out = malloc((size_t)width * 3 * bytes);
  int status = 0;
  if (t == NULL || in == NULL || out == NULL) {
    put_msg(msg, msg_cap, t == NULL ? "LittleCMS cannot transform from this profile to sRGB"
                                    : "out of memory");
    status = 1;
  } else {
    for (uint32_t y = 0; y < height; y++)
      convert_row(t, (unsigned char *)pixels + (size_t)y * row_bytes, width, space, bytes, in, out);
  }
  free(in);
  free(out);
  if (t != NULL) cmsDeleteTransform(t);
  if (srgb != NULL) cmsCloseProfile(srgb);
  cmsCloseProfile(source);
  return status;
}

static unsigned char times(unsigned a, unsigned b) { return (unsigned char)((a * b + 127) / 255); }

void fx_cmyk_to_rgb_naive(void *pixels, size_t row_bytes, uint32_t width, uint32_t height,
                          int inverted) {
  for (uint32_t y = 0; y < height; y++) {
    unsigned char *p = (unsigned char *)pixels + (size_t)y * row_bytes;
    for (uint32_t x = 0; x < width; x++, p += 4) {
      // The complements of the ink amounts: how much of each primary is left.
      unsigned c = inverted ? p[0] : 255u - p[0], m = inverted ? p[1] : 255u - p[1];
      unsigned ye = inverted ? p[2] : 255u - p[2], k = inverted ? p[3] : 255u - p[3];
      p[0] = times(c, k);
      p[1] = times(m, k);
      p[2] = times(ye, k);
      p[3] = 255;
    }
  }
}

int fx_icc_make_rgb(const double white[2], const double primaries[6], int curve_type,
                    const double *params, size_t table_size, void **out, size_t *out_size) {
  *out = NULL;
  *out_size = 0;
  cmsCIExyY w = {white[0], white[1], 1.0};
  cmsCIExyYTRIPLE p = {{primaries[0], primaries[1], 1.0},
                       {primaries[2], primaries[3], 1.0},
                       {primaries[4], primaries[5], 1.0}};
  cmsToneCurve *curves[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    if (curve_type != 0) {
      curves[i] = cmsBuildParametricToneCurve(NULL, curve_type, params);
    } else if (table_size >= 2 && table_size <= 65536) {
      cmsUInt16Number *table = malloc(table_size * sizeof *table);
      if (table != NULL) {
        // Channel i's entries after the first are i levels higher (still
        // non-decreasing), so no two channels share a table.
        for (size_t k = 0; k < table_size; k++) {
          unsigned v = (unsigned)(params[k] * 65535.0 + 0.5) + (k > 0 ? (unsigned)i : 0);
          table[k] = (cmsUInt16Number)(v > 65535 ? 65535 : v);
        }
        curves[i] = cmsBuildTabulatedToneCurve16(NULL, (cmsUInt32Number)table_size, table);
        free(table);
      }
    }
  }
  cmsHPROFILE profile = curves[0] && curves[1] && curves[2] ? cmsCreateRGBProfile(&w, &p, curves) : NULL;
  for (int i = 0; i < 3; i++)
    if (curves[i] != NULL) cmsFreeToneCurve(curves[i]);
  if (profile == NULL) return 1;
  cmsUInt32Number size = 0;
  int status = 1;
  if (cmsSaveProfileToMem(profile, NULL, &size) && size > 0) {
    void *bytes = malloc(size);
    if (bytes != NULL && cmsSaveProfileToMem(profile, bytes, &size)) {
      *out = bytes;
      *out_size = size;
      status = 0;
    } else {
      free(bytes);
    }
  }
  cmsCloseProfile(profile);
  return status;
}

int fx_icc_reference_to_srgb(const void *icc, size_t size, const float *in, float *out,
                             size_t count) {
  cmsHPROFILE source = open_profile(icc, size);
  if (source == NULL) return 1;
  cmsHPROFILE srgb = cmsCreate_sRGBProfile();
  cmsHTRANSFORM t = cmsCreateTransform(source, TYPE_RGB_FLT, srgb, TYPE_RGB_FLT, rel,
                                       flags | cmsFLAGS_NOOPTIMIZE);
  if (t != NULL) {
    cmsDoTransform(t, in, out, (cmsUInt32Number)count);
    cmsDeleteTransform(t);
  }
  cmsCloseProfile(srgb);
  cmsCloseProfile(source);
  return t == NULL;
}

// The sampler of fx_icc_make_test_cmyk: CMYK (16-bit) → sRGB (swapped
// formula) → Lab through LittleCMS's sRGB profile, as a 16-bit Lab encoding.
static int sample_cmyk(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
  cmsHTRANSFORM to_lab = cargo;
  double c = in[0] / 65535.0, m = in[1] / 65535.0, y = in[2] / 65535.0, k = in[3] / 65535.0;
  cmsUInt16Number rgb[3] = {(cmsUInt16Number)((1 - y) * (1 - k) * 65535 + 0.5),
                            (cmsUInt16Number)((1 - m) * (1 - k) * 65535 + 0.5),
                            (cmsUInt16Number)((1 - c) * (1 - k) * 65535 + 0.5)};
  cmsDoTransform(to_lab, rgb, out, 1);
  return 1;
}

int fx_icc_make_test_cmyk(int grid, void **out, size_t *out_size) {
  *out = NULL;
  *out_size = 0;
  if (grid < 2 || grid > 17) return 1;
  cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
  cmsHTRANSFORM to_lab = srgb && lab ? cmsCreateTransform(srgb, TYPE_RGB_16, lab, TYPE_Lab_16,
                                                          INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE)
                                     : NULL;
  cmsHPROFILE profile = cmsCreateProfilePlaceholder(NULL);
  cmsPipeline *pipeline = cmsPipelineAlloc(NULL, 4, 3);
  cmsStage *clut = cmsStageAllocCLut16bit(NULL, (cmsUInt32Number)grid, 4, 3, NULL);
  int status = 1;
  // A lutAtoBType needs curves around its table: identities.
  if (to_lab && profile && pipeline && clut && cmsStageSampleCLut16bit(clut, sample_cmyk, to_lab, 0) &&
      cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, clut) &&
      cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, cmsStageAllocToneCurves(NULL, 4, NULL)) &&
      cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL))) {
    clut = NULL;  // owned by the pipeline
    cmsSetProfileVersion(profile, 4.3);
    cmsSetDeviceClass(profile, cmsSigOutputClass);
    cmsSetColorSpace(profile, cmsSigCmykData);
    cmsSetPCS(profile, cmsSigLabData);
    cmsUInt32Number size = 0;
    if (cmsWriteTag(profile, cmsSigMediaWhitePointTag, cmsD50_XYZ()) &&
        cmsWriteTag(profile, cmsSigAToB0Tag, pipeline) && cmsSaveProfileToMem(profile, NULL, &size)) {
      void *bytes = malloc(size);
      if (bytes != NULL && cmsSaveProfileToMem(profile, bytes, &size)) {
        *out = bytes;
        *out_size = size;
        status = 0;
      } else {
        free(bytes);
      }
    }
  }
  if (clut) cmsStageFree(clut);
  if (pipeline) cmsPipelineFree(pipeline);
  if (profile) cmsCloseProfile(profile);
  if (to_lab) cmsDeleteTransform(to_lab);
  if (lab) cmsCloseProfile(lab);
  if (srgb) cmsCloseProfile(srgb);
  return status;
}
