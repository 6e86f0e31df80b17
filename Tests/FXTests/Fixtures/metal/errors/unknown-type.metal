#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  flaot4 c = float4(color);
  return half4(c);
}
