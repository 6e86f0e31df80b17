#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(half4 color, float2 position) {
  return color;
}
