#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  return color * smoothstpe(0.0, 1.0, position.x);
}
