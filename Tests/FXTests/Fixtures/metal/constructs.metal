// fxc's own test shaders: one construct or more per function, each a
// stitchable function that MetalConstructTests runs JIT against the interpreter.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI.h>
using namespace metal;

#define TAU 6.28318530718
#define SQUARE(x) ((x) * (x))
#if defined(TAU) && !defined(NO_EXTRAS)
#define EXTRA 1
#else
#define EXTRA 0
#endif

typedef float2 vec2;
using color4 = half4;

struct Ring {
  float2 center;
  float radius;
  half4 tint;
};

constant float weights[5] = {0.1, 0.2, 0.4, 0.2, 0.1};
constant float2 offsets[] = {float2(-1, 0), float2(1, 0), float2(0, -1), float2(0, 1)};
constexpr constant int taps = 4;

static float luma(half3 c) { return dot(float3(c), float3(0.2126, 0.7152, 0.0722)); }
static float luma(half4 c) { return luma(c.rgb); }

static void rotate(thread float2 &p, float angle) {
  float2x2 m = float2x2(float2(cos(angle), sin(angle)), float2(-sin(angle), cos(angle)));
  p = m * p;
}

static half4 ringColor(Ring r, float2 p) {
  float d = distance(p, r.center);
  if (d > r.radius) return half4(0);
  return r.tint * half(1.0 - d / r.radius);
}

[[ stitchable ]] half4 literalsAndSwizzles(float2 position, half4 color, float amount) {
  half4 c = color;
  c.rg = c.gr * 0.5h;
  c.b += 0.25h * amount;
  c.xyz = clamp(c.xyz, 0.0h, 1.0h);
  float3 v = float3(position.yx, 1.0f) / 10.0;
  c.a = c.a * (v.x > v.y ? 1.0 : 0.5);
  return half4(c.bgr, c.a) + half4(v.z * 0.0);
}

[[ stitchable ]] half4 branches(float2 position, half4 color, float threshold) {
  float l = luma(color);
  half4 result = color;
  if (l < threshold) {
    result.rgb = half3(0.0);
    if (position.x < 5.0) {
      return half4(1, 0, 0, 1);
    }
  } else if (l < threshold + 0.2) {
    result.rgb *= 0.5h;
  } else {
    result = result.gbra;
  }
  return result;
}

[[ stitchable ]] half4 mathBuiltins(float2 position, half4 color, float time) {
  float2 p = position / 7.0 + time;
  float a = sin(p.x) * cos(p.y) + tan(p.x * 0.1) + atan2(p.y, p.x) * 0.1;
  float b = fract(p.x) + floor(p.y) * 0.01 + ceil(p.x) * 0.01 + abs(a) + sign(a - 0.2);
  float c = pow(saturate(float(color.r)), 2.2) + exp(-p.x * 0.01) + log(1.0 + p.y) + sqrt(p.x) + rsqrt(1.0 + p.y);
  float d = fmod(p.x, 1.3) + step(0.5, fract(p.y)) + smoothstep(0.2, 0.8, fract(p.x)) + mix(0.2, 0.8, fract(a));
  float e = min3(a, b, c) + max3(a, b, c) + round(p.x * 0.3) + trunc(-p.y * 0.3) + atan(p.x) + asin(fract(p.y)) + acos(fract(p.x));
  float f = exp2(fract(p.x)) + log2(1.0 + p.x) + log10(1.0 + p.y) + tanh(a) + sinh(fract(a)) + cosh(fract(b));
  return half4(fract(a), fract(b + c), fract(d + e), fract(f)) * color.a;
}

[[ stitchable ]] half4 geometry(float2 position, half4 color) {
  float3 n = normalize(float3(position - 8.0, 4.0));
  float3 i = normalize(float3(1, 2, -3));
  float3 r = reflect(i, n);
  float3 t = refract(i, n, 0.7);
  float3 x = cross(n, i);
  float l = length(x) + distance(r, t) + length_squared(n) * 0.1;
  float3 f = faceforward(n, i, n);
  return half4(half3(abs(r + t + f) * 0.3), 1) * half(saturate(l)) * color.a;
}

[[ stitchable ]] half4 counted(float2 position, half4 color, float count) {
  float4 sum = 0;
  for (int i = 0; i < int(count); i++) {
    sum += float4(color) * weights[i % 5];
  }
  for (uint k = 3; k > 0; --k) {
    sum.r += 0.01 * float(k);
  }
  for (int j = 0; j <= int(position.x) / 4; j += 2) {
    sum.g += 0.05;
  }
  return half4(sum);
}

[[ stitchable ]] half4 earlyExits(float2 position, half4 color) {
  float acc = 0;
  int i = 0;
  while (true) {
    i++;
    if (i % 3 == 0) continue;
    acc += 0.1;
    if (acc > position.x * 0.05) break;
  }
  float x = position.y;
  do {
    x *= 0.5;
  } while (x > 1.0);
  for (int k = 0; k < 8; k++) {
    if (float(k) > position.y) return half4(acc, x, float(k) / 8, 1);
  }
  return half4(acc, x, 1, 1) * color.a;
}

[[ stitchable ]] half4 integers(float2 position, half4 color) {
  int2 cell = int2(floor(position));
  int a = cell.x * 37 - cell.y * 11;
  int q = a / 7, r = a % 7;
  uint u = uint(a) * 0x9E3779B1u;
  u ^= u >> 15;
  u = (u << 3) | (u >> 29);
  uint m = u % 1000u;
  int bits = (a & 0xFF) ^ (~a >> 2);
  bool odd = (cell.x & 1) != 0;
  return half4(float(q & 255) / 255, float(r + 7) / 14, float(m) / 1000, odd ? float(bits & 63) / 63 : 0.5);
}

[[ stitchable ]] half4 structsAndHelpers(float2 position, half4 color, float2 size) {
  Ring ring = {size * 0.5, min(size.x, size.y) * 0.4, half4(1, 0.5, 0.25, 1)};
  Ring other;
  other.center = float2(2, 3);
  other.radius = 5;
  other.tint = color.bgra;
  float2 p = position - ring.center;
  rotate(p, 0.3);
  p += ring.center;
  return ringColor(ring, p) + ringColor(other, position) * 0.5h + color * 0.1h;
}

[[ stitchable ]] half4 macrosAndArrays(float2 position, half4 color) {
  float s = 0;
  for (int i = 0; i < taps; i++) {
    vec2 o = offsets[i] * 3.0;
    s += SQUARE(o.x) + o.y;
  }
  int index = int(position.x) % taps;
  float2 picked = offsets[index];
  float local[3];
  local[0] = 1;
  local[1] = picked.x;
  local[int(position.y) % 3] += 2;
  color4 c = color4(s / 100, picked.x * 0.5 + 0.5, (local[0] + local[1] + local[2]) * 0.1, EXTRA);
  return c * sin(float(TAU) * 0.25);
}

[[ stitchable ]] float2 ripple(float2 position, float amplitude, float2 size) {
  float2 d = position - size * 0.5;
  float r = length(d);
  return position + (r > 0 ? d / r : float2(0)) * amplitude * sin(r * 0.5);
}

[[ stitchable ]] half4 blur(float2 position, SwiftUI::Layer layer, float radius) {
  half4 sum = 0;
  float total = 0;
  for (int y = -2; y <= 2; y++) {
    for (int x = -int(radius); x <= int(radius); x++) {
      float w = weights[y + 2];
      sum += layer.sample(position + float2(x, y)) * w;
      total += w;
    }
  }
  return sum / total;
}

[[ stitchable ]] half4 stripes(float2 position, float width, half4 a, half4 b) {
  return select(a, b, fmod(floor(position.x / max(width, 1.0)), 2.0) == 1.0);
}

[[ stitchable ]] half4 gradient(float2 position, half4 color, device const float *stops, int count, float4 bounds) {
  float t = position.x / bounds.z;
  float v = 0;
  for (int i = 0; i < count; i++) {
    v += stops[i] * (t > float(i) / float(count) ? 1.0 : 0.0);
  }
  return half4(v, t, bounds.w / 100, 1) * color.a;
}

[[ stitchable ]] half4 palette(float2 position, half4 color, device const half4 *colors, int count) {
  int k = int(luma(color) * float(count - 1) + 0.5);
  return colors[clamp(k, 0, count - 1)];
}

[[ stitchable ]] half4 textured(float2 position, SwiftUI::Layer layer, texture2d<half> mask, float2 size) {
  constexpr sampler s(filter::linear, address::mirrored_repeat);
  half4 m = mask.sample(s, position / size * 1.5);
  half4 texel = mask.read(uint2(position) % uint2(mask.get_width(), mask.get_height()));
  return mix(layer.sample(position), m, m.a * 0.5h) + texel * 0.1h;
}

[[ stitchable ]] half4 matrices(float2 position, half4 color) {
  float3x3 m = float3x3(1.0);
  m[0][1] = 0.2;
  m[2] = float3(0.1, 0.2, 0.3);
  float3 v = m * float3(color.rgb);
  float3 w = float3(color.rgb) * transpose(m);
  float2x2 r = float2x2(0.8, 0.6, -0.6, 0.8);
  float2 q = (r * r) * (position * 0.01);
  return half4(half3(v * 0.5 + w * 0.25), determinant(m) * 0.5 + q.x * 0.01);
}

// switch: shared labels, fall-through, break, default, continue of the enclosing loop, return.
[[ stitchable ]] half4 switches(float2 position, half4 color, float shift) {
  int k = (int(position.x) + int(shift)) % 5;
  float r = 0.0;
  switch (k) {
    case 0: r = 0.1; break;
    case 1:
    case 2: r = 0.2;
    case 3: r += 0.3; break;
    default: r = 0.9;
  }
  float g = 0.0;
  for (int i = 0; i < 4; i++) {
    switch (i) {
      case 1: continue;
      case 3: break;
      default: g += 0.125;
    }
    g += 0.0625;
  }
  if (int(position.y) % 3 == 2) {
    switch (uint(position.y)) { default: return half4(0.0h, 0.0h, 1.0h, 1.0h); }
  }
  return half4(r, g, color.b, 1.0);
}

// as_type: a float's bits as uint and back, an exponent from the bits, a vector of bits as floats.
[[ stitchable ]] half4 bitCasts(float2 position, half4 color) {
  uint bits = as_type<uint>(position.x);
  float back = as_type<float>(bits);
  int e = int((bits >> 23) & 0xffu) - 127;
  float2 v = as_type<float2>(uint2(0x3f800000u, 0x40000000u));
  uint h = as_type<uint>(float(color.r)) * 2654435761u;
  int s = as_type<int>(-position.y) >> 31;
  return half4(back / 64.0, float(e) / 8.0, v.y - v.x + float(s), float(h >> 24) / 255.0);
}

// for loops counting a variable declared before them: its value after the loop, with break and continue.
[[ stitchable ]] half4 outerCounter(float2 position, half4 color, float n) {
  int i = 0;
  for (; i < int(n); i++) { }
  int j = 2;
  for (j = 1; j < 100; j += 3) {
    if (float(j) > position.x) break;
  }
  uint k = 0u;
  for (; k < uint(position.y); ++k) {
    if (k == 2u) continue;
  }
  return half4(float(i) / 16.0, float(j) / 128.0, float(k) / 16.0, 1.0);
}
