#include "CXXHash.h"

#include <xxhash.h>

void fx_xxh3_128(const void *bytes, size_t size, uint64_t *high, uint64_t *low) {
  XXH128_hash_t h = XXH3_128bits(bytes, size);
  *high = h.high64;
  *low = h.low64;
}
