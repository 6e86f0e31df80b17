#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  switch (int(position.x)) {
    case 1.5: return color.bgra;
    default: return color;
  }
}
