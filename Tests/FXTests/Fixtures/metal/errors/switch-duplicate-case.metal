#include <metal_stdlib>
using namespace metal;
#define RED 1
[[ stitchable ]] half4 f(float2 position, half4 color) {
  switch (int(position.x) % 3) {
    case 0: return color;
    case RED: return half4(1.0h, 0.0h, 0.0h, 1.0h);
    case 1: return color.bgra;
  }
  return color;
}
