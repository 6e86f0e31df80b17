#include <metal_stdlib>
using namespace metal;
#include "Helpers/noise.h"
[[ stitchable ]] half4 f(float2 position, half4 color) { return color; }
