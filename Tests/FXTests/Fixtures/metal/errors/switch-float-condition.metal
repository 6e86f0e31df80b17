#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, half4 color) {
  switch (position.x) { default: return color; }
}
