#include <metal_stdlib>
using namespace metal;
float counter = 0;
[[ stitchable ]] half4 f(float2 position, half4 color) { return color; }
