#include <metal_stdlib>
using namespace metal;
template <typename T> T twice(T x) { return x + x; }
[[ stitchable ]] half4 f(float2 position, half4 color) { return twice(color); }
