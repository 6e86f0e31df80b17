// The scan executors' inner loops (docs/design.md §4, "Scans"): recurrences
// along rows or columns of a premultiplied RGBA32F image, in place, vectorised
// across the other axis. Each lane performs exactly the fp32 operations the
// definition (FXIR's Scan, FXInterpreter's reference) states, in its order,
// with no contraction into FMAs, so every vector width gives the
// interpreter's bits. Written in C because Swift cannot compile one function
// for several instruction sets and pick one at run time.
#ifndef FX_CSCAN_H
#define FX_CSCAN_H

#include <stddef.h>
#include <stdint.h>

/// Deriche's fourth-order recursive Gaussian (FXIR's RecursiveGaussian): its
/// state and arithmetic in double, each pass's result rounded to fp32.
typedef struct {
  double n[4];  ///< causal feed-forward n0…n3, on x(i)…x(i−3)
  double m[4];  ///< anticausal feed-forward m1…m4, on x(i+1)…x(i+4)
  double d[4];  ///< feedback d1…d4
  double causal_gain, anticausal_gain;  ///< the states' steady values for an input of 1
} fx_scan_gaussian;

/// The widest vectors a call may use: 2 = SSE (x86-64-v2 and below, and other
/// CPUs), 3 = AVX2 (x86-64-v3), 4 = AVX-512 (x86-64-v4). The caller passes
/// what its Target allows; the results are the same bits at every level.
typedef int fx_scan_level;

/// Filters rows `y0..<y1` of an image (`width` pixels of 4 floats, rows
/// `row_floats` apart) along x, in place. `temp` holds 32·width floats.
void fx_scan_gaussian_x(float *base, ptrdiff_t row_floats, int64_t width, int64_t y0, int64_t y1,
                        const fx_scan_gaussian *g, float *temp, fx_scan_level level);
/// Filters columns `x0..<x1` (pixels) of an image of `height` rows along y,
/// in place. `temp` holds 32·height floats.
void fx_scan_gaussian_y(float *base, ptrdiff_t row_floats, int64_t height, int64_t x0, int64_t x1,
                        const fx_scan_gaussian *g, float *temp, fx_scan_level level);
/// The box of `2·radius + 1` pixels by a running sum along x (rows `y0..<y1`),
/// in place. `temp` holds 16·width floats.
void fx_scan_box_x(float *base, ptrdiff_t row_floats, int64_t width, int64_t y0, int64_t y1, int64_t radius,
                   float *temp, fx_scan_level level);
/// The box along y (columns `x0..<x1`), in place. `temp` holds 16·height floats.
void fx_scan_box_y(float *base, ptrdiff_t row_floats, int64_t height, int64_t x0, int64_t x1, int64_t radius,
                   float *temp, fx_scan_level level);

#endif
