#include <metal_stdlib>
using namespace metal;
#include <CoreImage/CoreImage.h>
[[ stitchable ]] half4 f(float2 position, half4 color) { return color; }
