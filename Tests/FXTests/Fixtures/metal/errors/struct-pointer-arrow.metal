#include <metal_stdlib>
using namespace metal;
struct Ring { float r; float w; };
[[ stitchable ]] half4 f(float2 position, half4 color) {
  Ring ring = { 4.0, 1.0 };
  return color * (ring->r - ring->w);
}
