#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] float2 ripple(float2 position, float amplitude) {
  return position + amplitde * sin(position.y);
}
