#pragma once
// randperm's permutation, shared by the cpu and GPU plugins so that a seed gives one permutation
// on every device: Fisher-Yates from the last position down, position i swapping with a draw in
// [0, i], the draw being the 64-bit word i of the call's Philox stream modulo i + 1 (two words a
// block). The swaps are sequential, so a device draws the permutation on the host.
#include <cstdint>
#include <utility>

#include "ember/core/Philox.h"

namespace ember::native {

// The Philox blocks randperm(n) reserves (none for n <= 1).
inline uint64_t randperm_blocks(int64_t n) { return n > 1 ? static_cast<uint64_t>((n + 1) / 2) : 0; }

// p[0, n) = a permutation of 0 .. n - 1 from the stream at (seed, offset).
inline void randperm_fill(int64_t* p, int64_t n, uint64_t seed, uint64_t offset) {
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    const auto w = ember::detail::philox_block(seed, offset + static_cast<uint64_t>(i / 2));
    const uint64_t x = uint64_t{w[2 * (i % 2)]} << 32 | w[2 * (i % 2) + 1];
    std::swap(p[i], p[static_cast<int64_t>(x % static_cast<uint64_t>(i + 1))]);
  }
}

}  // namespace ember::native
