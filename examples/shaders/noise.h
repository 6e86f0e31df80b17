// Hashed value noise for the seed shaders (fxc's own re-expression of the
// dissolve seed's noise: a 32-bit integer hash of the cell, smoothed bilinearly).
#ifndef FXC_NOISE_H
#define FXC_NOISE_H

#define HASH_X 0x9E3779B1u
#define HASH_Y 0x85EBCA77u
#define SMOOTH(t) ((t) * (t) * (3.0 - 2.0 * (t)))

/// The hash of an integer cell, in 0…1.
static float cellHash(int2 cell) {
  uint m = (uint(cell.x) * HASH_X) ^ (uint(cell.y) * HASH_Y);
  m ^= m >> 15;
  m *= 0x2C1B3C6Du;
  m ^= m >> 12;
  return float(m & 0xFFFFu) / 65535.0;
}

/// Value noise at q: the hashes of the four corners around q, blended smoothly.
static float valueNoise(float2 q) {
  float2 cell = floor(q);
  float2 b = SMOOTH(q - cell);
  float bottom = mix(cellHash(int2(cell)), cellHash(int2(cell + float2(1, 0))), b.x);
  float top = mix(cellHash(int2(cell + float2(0, 1))), cellHash(int2(cell + float2(1, 1))), b.x);
  return mix(bottom, top, b.y);
}

#endif
