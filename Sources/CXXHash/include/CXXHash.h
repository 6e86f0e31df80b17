// A small shim over Debian's libxxhash (libxxhash-dev) for the kernel cache's keys.
#ifndef FX_CXXHASH_H
#define FX_CXXHASH_H

#include <stddef.h>
#include <stdint.h>

/// XXH3's 128-bit hash of `bytes[0..<size]` (seed 0), as its high and low 64 bits.
void fx_xxh3_128(const void *bytes, size_t size, uint64_t *high, uint64_t *low);

#endif
