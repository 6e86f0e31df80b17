#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  if (position > 2.0) return color;
  return half4(0);
}
