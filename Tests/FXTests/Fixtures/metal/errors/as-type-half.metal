#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  uint bits = as_type<uint>(color.rg);
  return color * float(bits & 1);
}
