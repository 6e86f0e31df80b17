#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 f(float2 position, SwiftUI::Layer layer) {
  return layer.read(position);
}
