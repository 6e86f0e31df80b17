#include <metal_stdlib>
using namespace metal;
// A counted loop whose bound is per pixel: at most 65,536 iterations run.
[[ stitchable ]] half4 columns(float2 position, half4 color) {
  float sum = 0.0;
  for (int i = 0; i < int(position.x); i++) {
    sum += 0.001;
  }
  // A constant bound is exact: no warning for this one.
  for (int k = 0; k < 4; k++) { sum += 0.25; }
  return half4(half(sum), color.g, color.b, color.a);
}
