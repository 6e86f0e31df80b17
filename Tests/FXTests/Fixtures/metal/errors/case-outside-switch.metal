#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  if (position.x > 2.0) {
    case 1: return color;
  }
  return color;
}
