// Metal versions of four catalogue effects, computing what the catalogue
// computes (the same formulas, in the same order), for issue 35's speed
// pairs: Benchmarks/metal-pairs.sh times each beside its catalogue twin.
#include <metal_stdlib>
using namespace metal;

// pixelate(amount: 1, blockSize: s): the block's centre, kept inside the image.
[[ stitchable ]] half4 metalPixelate(float2 position, SwiftUI::Layer layer, float blockSize, float2 size) {
  float2 center = (floor(position / blockSize) + 0.5) * blockSize;
  return layer.sample(min(center, size - 0.5));
}

// chromaticAberration(amount:): red and blue sampled apart along the radius.
[[ stitchable ]] half4 metalChromaticAberration(float2 position, SwiftUI::Layer layer, float amount, float2 size) {
  float diagonal = length(size);
  float m = min(amount, diagonal);
  float2 shift = clamp((position - size * 0.5) / (diagonal * 0.5) * m, -m, m);
  half4 r = layer.sample(position + shift);
  half4 g = layer.sample(position);
  half4 b = layer.sample(position - shift);
  return half4(r.r, g.g, b.b, max(max(r.a, g.a), b.a));
}

// wave(amplitude:wavelength:): a vertical sine displacement.
[[ stitchable ]] float2 metalWave(float2 position, float amplitude, float wavelength) {
  float shift = amplitude * sin(position.x * 6.2831855 / wavelength);
  return float2(position.x, position.y + shift);
}

// vignette(intensity:radius:): darkening by the distance from the centre.
[[ stitchable ]] half4 metalVignette(float2 position, half4 color, float intensity, float radius, float2 size) {
  float d = length(position / size - 0.5) * 1.41421356;
  float k = 1 - intensity * smoothstep(radius - 0.25, radius + 0.25, d);
  return half4(color.rgb * k, color.a);
}
