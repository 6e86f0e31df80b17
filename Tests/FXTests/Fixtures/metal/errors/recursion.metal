#include <metal_stdlib>
using namespace metal;
static float fib(float n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
[[ stitchable ]] half4 f(float2 position, half4 color) {
  return color * fib(5);
}
