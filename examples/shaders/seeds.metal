// The seeds' three effects, written for fxc as a SwiftUI developer would write
// them: pixelation, a dissolve that burns through noise, and a domain warp
// through a noise texture. `fxc run --shaders examples/shaders/seeds.metal`.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
#include "noise.h"
using namespace metal;

/// Square blocks of `blockSize` pixels (scaled by `amount`), each the colour at
/// its centre, kept inside `bounds` (the view's size).
[[ stitchable ]] half4 pixelateBlocks(float2 position, SwiftUI::Layer layer, float amount, float blockSize, float2 bounds) {
  float side = 1.0 + (max(blockSize, 1.0) - 1.0) * saturate(amount);
  if (side <= 1.0) {
    return layer.sample(position);
  }
  float2 center = (floor(position / side) + 0.5) * side;
  return layer.sample(min(center, bounds - 0.5));
}

constant float edgeWidth = 0.12;

/// Burns the view away through noise cells of `grain` pixels, glowing in `edge`
/// at the burning rim, revealing `destination`.
[[ stitchable ]] half4 dissolveBurn(float2 position, SwiftUI::Layer layer, float progress, float grain, half4 edge,
                                    texture2d<half> destination) {
  half4 color = layer.sample(position);
  if (progress <= 0.0) return color;
  float threshold = progress * (1.0 + edgeWidth) - edgeWidth;
  float2 q = position / max(grain, 1.0);
  float n = saturate((0.7 * valueNoise(q) + 0.3 * valueNoise(q * 3.1 + 17.0) - 0.5) * 1.7 + 0.5);
  float kept = smoothstep(threshold, threshold + 0.015, n);
  float heat = 1.0 - smoothstep(threshold, threshold + edgeWidth, n);
  half3 ember = mix(edge.rgb, half3(1.0h), half(0.35 * heat * heat)) * color.a;
  constexpr sampler pixels(coord::pixel, filter::linear);
  half4 to = destination.sample(pixels, position);
  half4 burnt = half4(mix(color.rgb, ember, half(heat)), color.a);
  return burnt * kept + to * (1.0 - kept);
}

/// Pushes every pixel around by a noise texture read through itself.
[[ stitchable ]] half4 domainWarpNoise(float2 position, SwiftUI::Layer layer, float2 size, texture2d<half> noise,
                                       float strength, float time) {
  constexpr sampler tiled(address::repeat, filter::linear);
  float2 uv = position / size;
  half4 n1 = noise.sample(tiled, uv + time * float2(0.05, 0.03));
  half4 n2 = noise.sample(tiled, uv + float2(n1.rg));
  float diagonal = length(size);
  float2 offset = clamp((float2(n2.rg) - 0.5) * strength, -diagonal, diagonal);
  return layer.sample(position + offset);
}
