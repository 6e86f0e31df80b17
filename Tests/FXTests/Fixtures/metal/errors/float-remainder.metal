#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  float cell = position.x % 8.0;
  return color * cell;
}
