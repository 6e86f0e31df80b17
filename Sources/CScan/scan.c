// The scan executors' inner loops: see CScan.h. Each lane computes what
// FXInterpreter's ScanReference computes for one channel, operation for
// operation; the vector width only decides how many lanes run at once.
#include "CScan.h"
#include <string.h>

#pragma STDC FP_CONTRACT OFF
#pragma clang fp contract(off)

typedef float v4 __attribute__((vector_size(16), aligned(4)));
typedef float v8 __attribute__((vector_size(32), aligned(4)));
typedef float v16 __attribute__((vector_size(64), aligned(4)));
typedef double d4 __attribute__((vector_size(32), aligned(8)));
typedef double d16 __attribute__((vector_size(128), aligned(8)));

#define INLINE static inline __attribute__((always_inline))

// Macros, not functions: a function taking or returning a 64-byte vector
// would have a different ABI in each instruction set's loops.
#define SPLAT4(s) ((v4){0} + (float)(s))
#define SPLAT16(s) ((v16){0} + (float)(s))
#define SPLATD4(s) ((d4){0} + (double)(s))
#define SPLATD16(s) ((d16){0} + (double)(s))
#define LOAD4(p) ({ v4 v_; memcpy(&v_, (p), 16); v_; })
#define STORE4(p, v) do { v4 s_ = (v); memcpy((p), &s_, 16); } while (0)
#define LOAD16(p) ({ v16 v_; memcpy(&v_, (p), 64); v_; })
#define STORE16(p, v) do { v16 s_ = (v); memcpy((p), &s_, 64); } while (0)

// Pixel i of four rows as one vector, and back.
#define GATHER(r, i)                                                                               \
  ({                                                                                               \
    v8 ab_ = __builtin_shufflevector(LOAD4(r[0] + 4 * (i)), LOAD4(r[1] + 4 * (i)), 0, 1, 2, 3, 4, 5, 6, 7); \
    v8 cd_ = __builtin_shufflevector(LOAD4(r[2] + 4 * (i)), LOAD4(r[3] + 4 * (i)), 0, 1, 2, 3, 4, 5, 6, 7); \
    (v16) __builtin_shufflevector(ab_, cd_, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);     \
  })
#define SCATTER(r, i, v)                                                   \
  do {                                                                     \
    v16 g_ = (v);                                                          \
    STORE4(r[0] + 4 * (i), __builtin_shufflevector(g_, g_, 0, 1, 2, 3));     \
    STORE4(r[1] + 4 * (i), __builtin_shufflevector(g_, g_, 4, 5, 6, 7));     \
    STORE4(r[2] + 4 * (i), __builtin_shufflevector(g_, g_, 8, 9, 10, 11));   \
    STORE4(r[3] + 4 * (i), __builtin_shufflevector(g_, g_, 12, 13, 14, 15)); \
  } while (0)

// The Gaussian over one line of N elements of the double vector type V:
// LOAD(i) reads element i (widened from fp32), STORE(i, v) writes it
// (rounded to fp32; in place: element i is read before it is written), TEMP
// holds N elements (the causal half).
#define GAUSSIAN(V, SPLAT, N, LOAD, STORE, TEMP, AHEAD, BEHIND)                               \
  do {                                                                                        \
    const V n0 = SPLAT(g->n[0]), n1 = SPLAT(g->n[1]), n2 = SPLAT(g->n[2]), n3 = SPLAT(g->n[3]); \
    const V m1 = SPLAT(g->m[0]), m2 = SPLAT(g->m[1]), m3 = SPLAT(g->m[2]), m4 = SPLAT(g->m[3]); \
    const V d1 = SPLAT(g->d[0]), d2 = SPLAT(g->d[1]), d3 = SPLAT(g->d[2]), d4_ = SPLAT(g->d[3]); \
    V x0 = LOAD(0);                                                                           \
    V y1 = x0 * SPLAT(g->causal_gain), y2 = y1, y3 = y1, y4 = y1;                             \
    V xa = x0, xb = x0, xc = x0; /* x(i−1), x(i−2), x(i−3) */                                 \
    for (int64_t i = 0; i < (N); i++) {                                                       \
      AHEAD(i);                                                                               \
      V xi = LOAD(i);                                                                         \
      V f = ((xi * n0 + xa * n1) + xb * n2) + xc * n3;                                        \
      V b = (y4 * d4_ + y3 * d3) + y2 * d2;                                                   \
      V y = (f - b) - y1 * d1;                                                                \
      TEMP[i] = y;                                                                            \
      y4 = y3; y3 = y2; y2 = y1; y1 = y;                                                      \
      xc = xb; xb = xa; xa = xi;                                                              \
    }                                                                                         \
    V xe = LOAD((N) - 1);                                                                     \
    y1 = xe * SPLAT(g->anticausal_gain); y2 = y1; y3 = y1; y4 = y1;                           \
    V xp1 = xe, xp2 = xe, xp3 = xe, xp4 = xe; /* x(i+1) … x(i+4) */                           \
    for (int64_t i = (N) - 1; i >= 0; i--) {                                                  \
      BEHIND(i);                                                                              \
      V f = ((xp1 * m1 + xp2 * m2) + xp3 * m3) + xp4 * m4;                                    \
      V b = (y4 * d4_ + y3 * d3) + y2 * d2;                                                   \
      V y = (f - b) - y1 * d1;                                                                \
      V xi = LOAD(i);                                                                         \
      STORE(i, TEMP[i] + y);                                                                  \
      y4 = y3; y3 = y2; y2 = y1; y1 = y;                                                      \
      xp4 = xp3; xp3 = xp2; xp2 = xp1; xp1 = xi;                                              \
    }                                                                                         \
  } while (0)

// The box over one line: TEMP takes a copy of the line first (the running
// sum reads pixels already overwritten in place).
#define BOX(V, SPLAT, N, LOAD, STORE, TEMP, AHEAD)                                            \
  do {                                                                                        \
    for (int64_t i = 0; i < (N); i++) {                                                       \
      AHEAD(i);                                                                               \
      TEMP[i] = LOAD(i);                                                                      \
    }                                                                                         \
    const int64_t last = (N) - 1;                                                             \
    const V scale = SPLAT(1.0f / (float)(2 * radius + 1));                                    \
    V sum = TEMP[clampi(-radius, last)];                                                      \
    for (int64_t k = -radius + 1; k <= radius; k++) sum = sum + TEMP[clampi(k, last)];        \
    STORE(0, sum * scale);                                                                    \
    for (int64_t i = 1; i < (N); i++) {                                                       \
      sum = sum + (TEMP[clampi(i + radius, last)] - TEMP[clampi(i - radius - 1, last)]);      \
      STORE(i, sum * scale);                                                                  \
    }                                                                                         \
  } while (0)

INLINE int64_t clampi(int64_t i, int64_t last) { return i < 0 ? 0 : i > last ? last : i; }

#define ROW1(i) LOAD4(row + 4 * (i))
#define ROW1_STORE(i, v) STORE4(row + 4 * (i), v)
#define ROWS4(i) GATHER(rows, i)
#define ROWS4_STORE(i, v) SCATTER(rows, i, v)
#define COL1(i) LOAD4(col + (i) * row_floats)
#define COL1_STORE(i, v) STORE4(col + (i) * row_floats, v)
#define COL4(i) LOAD16(col + (i) * row_floats)
#define COL4_STORE(i, v) STORE16(col + (i) * row_floats, v)
// Columns are rows apart: no hardware prefetcher follows them across pages,
// so the loops ask for the pixel 16 rows ahead (causal) or behind, never
// past the image's first or last row.
#define NO_PREFETCH(i) ((void)0)
#define COL_AHEAD(i) __builtin_prefetch(col + ((i) + 16 < height ? (i) + 16 : (i)) * row_floats)
#define COL_BEHIND(i) __builtin_prefetch(col + ((i) >= 16 ? (i) - 16 : (i)) * row_floats)
#define WIDE4(v) __builtin_convertvector((v), d4)
#define WIDE16(v) __builtin_convertvector((v), d16)
#define NARROW4(v) __builtin_convertvector((v), v4)
#define NARROW16(v) __builtin_convertvector((v), v16)
#define DROW1(i) WIDE4(ROW1(i))
#define DROW1_STORE(i, v) ROW1_STORE(i, NARROW4(v))
#define DROWS4(i) WIDE16(ROWS4(i))
#define DROWS4_STORE(i, v) ROWS4_STORE(i, NARROW16(v))
#define DCOL1(i) WIDE4(COL1(i))
#define DCOL1_STORE(i, v) COL1_STORE(i, NARROW4(v))
#define DCOL4(i) WIDE16(COL4(i))
#define DCOL4_STORE(i, v) COL4_STORE(i, NARROW16(v))

// One set of loops per instruction set: four rows (or four columns) a vector
// of 16 floats, the rest one pixel a vector.
#define LEVEL(SUFFIX, ATTR)                                                                                 \
  ATTR static void gaussian_x_##SUFFIX(float *base, ptrdiff_t row_floats, int64_t width, int64_t y0,        \
                                       int64_t y1, const fx_scan_gaussian *g, float *temp) {                \
    int64_t y = y0;                                                                                         \
    for (; y + 4 <= y1; y += 4) {                                                                           \
      float *const rows[4] = {base + y * row_floats, base + (y + 1) * row_floats, base + (y + 2) * row_floats, \
                              base + (y + 3) * row_floats};                                                 \
      d16 *t = (d16 *)temp;                                                                                 \
      GAUSSIAN(d16, SPLATD16, width, DROWS4, DROWS4_STORE, t, NO_PREFETCH, NO_PREFETCH);                                           \
    }                                                                                                       \
    for (; y < y1; y++) {                                                                                   \
      float *row = base + y * row_floats;                                                                   \
      d4 *t = (d4 *)temp;                                                                                   \
      GAUSSIAN(d4, SPLATD4, width, DROW1, DROW1_STORE, t, NO_PREFETCH, NO_PREFETCH);                                               \
    }                                                                                                       \
  }                                                                                                         \
  ATTR static void gaussian_y_##SUFFIX(float *base, ptrdiff_t row_floats, int64_t height, int64_t x0,       \
                                       int64_t x1, const fx_scan_gaussian *g, float *temp) {                \
    int64_t x = x0;                                                                                         \
    for (; x + 4 <= x1; x += 4) {                                                                           \
      float *col = base + 4 * x;                                                                            \
      d16 *t = (d16 *)temp;                                                                                 \
      GAUSSIAN(d16, SPLATD16, height, DCOL4, DCOL4_STORE, t, COL_AHEAD, COL_BEHIND);                                            \
    }                                                                                                       \
    for (; x < x1; x++) {                                                                                   \
      float *col = base + 4 * x;                                                                            \
      d4 *t = (d4 *)temp;                                                                                   \
      GAUSSIAN(d4, SPLATD4, height, DCOL1, DCOL1_STORE, t, COL_AHEAD, COL_BEHIND);                                              \
    }                                                                                                       \
  }                                                                                                         \
  ATTR static void box_x_##SUFFIX(float *base, ptrdiff_t row_floats, int64_t width, int64_t y0, int64_t y1, \
                                  int64_t radius, float *temp) {                                            \
    int64_t y = y0;                                                                                         \
    for (; y + 4 <= y1; y += 4) {                                                                           \
      float *const rows[4] = {base + y * row_floats, base + (y + 1) * row_floats, base + (y + 2) * row_floats, \
                              base + (y + 3) * row_floats};                                                 \
      v16 *t = (v16 *)temp;                                                                                 \
      BOX(v16, SPLAT16, width, ROWS4, ROWS4_STORE, t, NO_PREFETCH);                                                      \
    }                                                                                                       \
    for (; y < y1; y++) {                                                                                   \
      float *row = base + y * row_floats;                                                                   \
      v4 *t = (v4 *)temp;                                                                                   \
      BOX(v4, SPLAT4, width, ROW1, ROW1_STORE, t, NO_PREFETCH);                                                          \
    }                                                                                                       \
  }                                                                                                         \
  ATTR static void box_y_##SUFFIX(float *base, ptrdiff_t row_floats, int64_t height, int64_t x0, int64_t x1, \
                                  int64_t radius, float *temp) {                                            \
    int64_t x = x0;                                                                                         \
    for (; x + 4 <= x1; x += 4) {                                                                           \
      float *col = base + 4 * x;                                                                            \
      v16 *t = (v16 *)temp;                                                                                 \
      BOX(v16, SPLAT16, height, COL4, COL4_STORE, t, COL_AHEAD);                                                       \
    }                                                                                                       \
    for (; x < x1; x++) {                                                                                   \
      float *col = base + 4 * x;                                                                            \
      v4 *t = (v4 *)temp;                                                                                   \
      BOX(v4, SPLAT4, height, COL1, COL1_STORE, t, COL_AHEAD);                                                         \
    }                                                                                                       \
  }

LEVEL(base, )
#if defined(__x86_64__)
LEVEL(avx2, __attribute__((target("avx2"))))
LEVEL(avx512, __attribute__((target("avx512f"))))
#define DISPATCH(NAME, ...)                                  \
  do {                                                       \
    if (level >= 4) NAME##_avx512(__VA_ARGS__);              \
    else if (level == 3) NAME##_avx2(__VA_ARGS__);           \
    else NAME##_base(__VA_ARGS__);                           \
  } while (0)
#else
#define DISPATCH(NAME, ...) NAME##_base(__VA_ARGS__)
#endif

void fx_scan_gaussian_x(float *base, ptrdiff_t row_floats, int64_t width, int64_t y0, int64_t y1,
                        const fx_scan_gaussian *g, float *temp, fx_scan_level level) {
  if (width > 0) DISPATCH(gaussian_x, base, row_floats, width, y0, y1, g, temp);
}
void fx_scan_gaussian_y(float *base, ptrdiff_t row_floats, int64_t height, int64_t x0, int64_t x1,
                        const fx_scan_gaussian *g, float *temp, fx_scan_level level) {
  if (height > 0) DISPATCH(gaussian_y, base, row_floats, height, x0, x1, g, temp);
}
void fx_scan_box_x(float *base, ptrdiff_t row_floats, int64_t width, int64_t y0, int64_t y1, int64_t radius,
                   float *temp, fx_scan_level level) {
  if (width > 0) DISPATCH(box_x, base, row_floats, width, y0, y1, radius, temp);
}
void fx_scan_box_y(float *base, ptrdiff_t row_floats, int64_t height, int64_t x0, int64_t x1, int64_t radius,
                   float *temp, fx_scan_level level) {
  if (height > 0) DISPATCH(box_y, base, row_floats, height, x0, x1, radius, temp);
}
