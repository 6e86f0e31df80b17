#include <metal_stdlib>
using namespace metal;
template <int N> float scaled(float x) { return x * N; }
[[ stitchable ]] half4 f(float2 position, half4 color) { return color * scaled(2.0); }
