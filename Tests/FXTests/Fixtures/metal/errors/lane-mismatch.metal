#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  float3 a = float3(1);
  return half4(a + float4(color));
}
