#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] int f(float2 position) {
  return 1;
}
