#include <metal_stdlib>
using namespace metal;
// The file loads: 'tint' works, 'ribbon' is listed as unavailable with its diagnostic.
[[ stitchable ]] half4 tint(float2 position, half4 color) { return color * half4(1, 0.5, 0.5, 1); }
[[ stitchable ]] half4 ribbon(float2 position, half4 color) {
  long w = 2;
  return color * w;
}
