#include <metal_stdlib>
using namespace metal;
struct Wave { float amplitude; float length; };
[[ stitchable ]] float2 f(float2 position) {
  Wave w = {4, 20};
  return position + w.amplitud * sin(position.x / w.length);
}
