#include <metal_stdlib>
using namespace metal;
struct Ring { float r; float w; };
float inner(thread Ring &ring) { return ring.r - ring.w; }
[[ stitchable ]] half4 f(float2 position, half4 color) {
  Ring ring = { 4.0, 1.0 };
  return color * inner(&ring);
}
