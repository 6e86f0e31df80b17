#include <metal_stdlib>
using namespace metal;
constant float weights[3] = {0.25, 0.5, 0.25};
[[ stitchable ]] half4 f(float2 position, half4 color) {
  return color * weights[3];
}
