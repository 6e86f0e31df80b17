#include <metal_stdlib>
using namespace metal;
template <typename T, int K> T scaledBy(T v) { return v * T(K); }
[[ stitchable ]] half4 f(float2 position, half4 color) {
  float2 p = scaledBy<3, float2>(position);
  return color * p.x;
}
