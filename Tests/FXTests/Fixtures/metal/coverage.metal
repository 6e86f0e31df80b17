// fxc's own test shaders for constructs public shaders use beyond
// constructs.metal: simd type names, default arguments, templates, out
// parameters, sizeof, extern arrays, file-scope and inline samplers, brace
// initialisation, attributes on fields. MetalCoverageTests runs each through
// the interpreter and the JIT; two functions here deliberately do not compile.
#include <metal_stdlib>
#include <swiftui/swiftui_metal.h>
using namespace metal;

struct VertexOut {
  float4 position [[position]];
  float2 uv [[user(texcoord)]];
  half tint [[flat]];
};

struct Pair {
  float a;
  float b;
};

struct Padded {
  float3 v;
  float w;
};

extern constant half levels[] = {0.25h, 0.5h, 0.75h};
constant int levelCount = sizeof(levels) / sizeof(levels[0]);
constexpr sampler linearClamp(filter::linear, address::clamp_to_edge);

static float scale(float x, float factor = 3.0, float offset = 0.1) { return x * factor + offset; }
static float scale(float2 v) { return v.x + v.y; }

template <typename T, typename U>
inline T wrap(T x, U y) {
  return x - y * floor(x / y);
}

static Pair makePair(float x) { return {x, x * 2}; }
static float pairSum(Pair p) { return p.a + p.b; }

// The stage functions of a render pipeline parse; they are not stitchable.
fragment half4 stage(VertexOut in [[stage_in]], constant Pair &u [[buffer(0)]]) { return half4(in.tint); }

[[ stitchable ]] half4 simdAliases(float2 position, half4 color) {
  [[maybe_unused]] vector_float2 p [[maybe_unused]] = position;
  simd_float3 c = float3(color.rgb);
  packed_float2 q = p * 2;
  vector_half4 h = vector_half4(c.x, q.x / 10, q.y / 10, 1);
  return h;
}

[[ stitchable ]] half4 defaults(float2 position, half4 color, float amount = 0.5) {
  return half4(scale(color.r), scale(color.g, 2.0), scale(color.b, 1.0, 0.0), amount * scale(float2(1, 1)) / 2);
}

[[ stitchable ]] half4 templates(float2 position, half4 color) {
  float2 p = wrap(position, 1.0);
  float b = wrap(color.b * 5.0, 2.0);
  return half4(p.x, p.y, b, 1);
}

[[ stitchable ]] half4 outParameters(float2 position, half4 color) {
  float whole;
  float f = modf(2.75, whole);
  float2 whole2;
  float2 f2 = metal::modf(float2(-1.25, 3.5), whole2);
  float c;
  float s = sincos(0.0, c);
  return half4(f, whole / 4, f2.x + 1 + s, whole2.y / 4 * c);
}

[[ stitchable ]] half4 moreMath(float2 position, half4 color) {
  float a = sinpi(0.5) + cospi(1.0) + tanpi(0.25);
  float b = asinh(sinh(0.5)) + acosh(cosh(0.25)) + atanh(tanh(-0.25));
  return half4(a, b, fmedian3(0.3, 0.9, 0.1) + fmin3(1.0, 0.5, 2.0), ldexp(0.375, 1));
}

[[ stitchable ]] half4 sizes(float2 position, half4 color) {
  float total = 0;
  for (int i = 0; i < levelCount; i++) { total += levels[i]; }
  return half4(total / 2, float(sizeof(float3)) / 32, float(sizeof(Padded)) / 32, float(sizeof(half2)) / 8);
}

[[ stitchable ]] half4 braces(float2 position, half4 color) {
  Pair p = Pair{1.0, 2.0};
  Pair q = makePair(color.r);
  float2 v = float2{0.25, 0.5};
  VertexOut o = {float4(0), v, 1.0h};
  return half4(p.a / 4 + q.a, q.b, o.uv.y, p.b / 2 * pairSum({0.25, 0.75}));
}

[[ stitchable ]] half4 samplers(float2 position, half4 color, texture2d<half> mask, float2 size) {
  float2 uv = position / size;
  half4 a = mask.sample(linearClamp, uv);
  half4 b = mask.sample(metal::sampler(metal::filter::nearest, address::repeat), uv + 0.5);
  return mix(a, b, 0.25h) * color.a;
}

// Not SwiftUI's signatures or constructs: loaded as unavailable, with their diagnostics.
[[ stitchable ]] float2x2 rotation(float angle) { return float2x2(cos(angle), sin(angle), -sin(angle), cos(angle)); }

[[ stitchable ]] half4 reinterpreted(float2 position, half4 color) { return as_type<half4>(color); }

// Integer template parameters, given at each call (a loop over N, a type and a value given together).
template <int N> float taps(float x) {
  float s = 0.0;
  for (int i = 0; i < N; i++) { s += x; }
  return s;
}
template <typename T, int K> T scaledBy(T v) { return v * T(K); }

[[ stitchable ]] half4 valueTemplates(float2 position, half4 color) {
  float a = taps<4>(0.125);
  float2 b = scaledBy<float2, 3>(float2(0.1, 0.2));
  int c = scaledBy<int, 2 + 1>(1);
  return half4(a, b.x, b.y, float(c) / 4.0 + taps<0>(1.0));
}
