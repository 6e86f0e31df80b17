// Idioms of shaders written for SwiftUI (fxc's own code, in the styles public
// collections use), and a render pipeline's functions sharing the file.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

struct VertexOut {
  float4 position [[ position ]];
  float2 uv;
};

vertex VertexOut passthroughVertex(uint id [[ vertex_id ]], constant float4 *vertices [[ buffer(0) ]]) {
  VertexOut out;
  out.position = vertices[id];
  out.uv = vertices[id].xy * 0.5 + 0.5;
  return out;
}

fragment float4 textureFragment(VertexOut in [[ stage_in ]], texture2d<float> tex [[ texture(0) ]]) {
  constexpr sampler s;
  return tex.sample(s, in.uv);
}

static float random(float2 p, float seed = 0.0) {
  return fract(sin(dot(p + seed, float2(12.9898, 78.233))) * 43758.5453);
}

float3 hueToRGB(float h) {
  float4 K = float4(1.0, 2.0 / 3.0, 1.0 / 3.0, 3.0);
  float3 p = abs(fract(float3(h) + K.xyz) * 6.0 - K.www);
  return clamp(p - K.xxx, 0.0, 1.0);
}

[[ stitchable ]] half4 checkers(float2 position, half4 currentColor, float size, half4 newColor) {
  uint2 cell = uint2(position.x / size, position.y / size);
  bool isColor = (cell.x ^ cell.y) & 1;
  return isColor ? newColor * currentColor.a : half4(0.0h);
}

[[ stitchable ]] half4 staticNoise(float2 position, half4 currentColor, float time) {
  float value = random(position, time);
  return half4(value, value, value, 1) * currentColor.a;
}

[[ stitchable ]] float2 wobble(float2 position, float time, float2 size) {
  float2 uv = position / size;
  position.y += sin(time * 5 + uv.x * 20) * 5;
  position.x += cos(time * 3.0f + uv.y * 10.0f) * 2.5f;
  return position;
}

[[ stitchable ]] half4 emboss(float2 position, SwiftUI::Layer layer, float strength) {
  half4 current = layer.sample(position);
  half4 result = current;
  result += layer.sample(position + 1.0) * strength;
  result -= layer.sample(position - 1.0) * strength;
  return half4(result.rgb, current.a);
}

[[ stitchable ]] half4 rainbow(float2 position, half4 color, float time) {
  if (color.a == 0) {
    return color;
  }
  float angle = atan2(position.y, position.x) + time;
  half3 tint = half3(hueToRGB(fract(angle / (2 * M_PI_F))));
  half luminance = dot(color.rgb, half3(0.2125h, 0.7154h, 0.0721h));
  return half4(tint * luminance, 1.0h) * color.a;
}

[[ stitchable ]] half4 spiral(float2 position, float2 size, float time, half4 first, half4 second) {
  float2 p = (2.0 * position - size) / min(size.x, size.y);
  float r = length(p);
  float a = atan2(p.y, p.x);
  const float arms = 4;
  float t = fract(a * arms / M_PI_F + r * 6.0 - time);
  float2x2 turn = float2x2(cos(time), -sin(time), sin(time), cos(time));
  p = turn * p;
  return mix(first, second, half(smoothstep(0.4, 0.6, t) * saturate(1.2 - r) + p.x * 0.0));
}

[[ stitchable ]] half4 bloom(float2 position, SwiftUI::Layer layer, float radius, float threshold) {
  half4 base = layer.sample(position);
  half3 glow = half3(0);
  float count = 0;
  for (float y = -2; y <= 2; y++) {
    for (float x = -2; x <= 2; x++) {
      half4 s = layer.sample(position + float2(x, y) * radius * 0.5);
      float bright = max3(s.r, s.g, s.b);
      if (bright > threshold) {
        glow += s.rgb;
      }
      count += 1;
    }
  }
  return half4(base.rgb + glow / count, base.a);
}

[[ stitchable ]] half4 steps(float2 position, half4 color, float levels) {
  float n = max(levels, 2.0);
  half3 q = floor(color.rgb * half(n - 1) + 0.5h) / half(n - 1);
  int i = 0;
  float remaining = color.r;
  while (remaining > 0.1 && i < 16) {
    remaining -= 0.1;
    i += 1;
  }
  return half4(q * color.a, color.a) + half4(float(i) * 0.0);
}
