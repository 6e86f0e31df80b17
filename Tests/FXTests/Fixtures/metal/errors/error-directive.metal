#include <metal_stdlib>
using namespace metal;
#ifndef HAS_NOISE
#error this file needs HAS_NOISE
#endif
[[ stitchable ]] half4 f(float2 position, half4 color) { return color; }
