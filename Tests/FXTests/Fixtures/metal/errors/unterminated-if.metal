#include <metal_stdlib>
using namespace metal;
#ifdef DEBUG
[[ stitchable ]] half4 f(float2 position, half4 color) { return color; }
