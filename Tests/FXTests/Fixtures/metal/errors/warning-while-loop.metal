#include <metal_stdlib>
using namespace metal;
// Halves until below 1: no counted form, so at most 1,024 iterations run.
[[ stitchable ]] half4 halvings(float2 position, half4 color) {
  float x = position.x * 8.0;
  int n = 0;
  while (x > 1.0) {
    x *= 0.5;
    n++;
  }
  return half4(half(n) / 16.0h, color.g, color.b, color.a);
}
