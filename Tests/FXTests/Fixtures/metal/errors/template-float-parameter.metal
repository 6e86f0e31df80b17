#include <metal_stdlib>
using namespace metal;
template <float F> float scaled(float x) { return x * F; }
[[ stitchable ]] half4 f(float2 position, half4 color) { return color * scaled<2.0>(2.0); }
