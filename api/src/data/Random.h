#pragma once
// The data pipeline's keyed random numbers (see Note [Data randomness] in ember/data/Transforms.h).
#include <array>
#include <cstdint>

#include "ember/core/Philox.h"

namespace ember::data::detail {

// The Philox4x32-10 block at counter (index, epoch) under key `seed` mixed with `stream`
// (splitmix64's finalizer, so that nearby streams get unrelated keys).
inline std::array<uint32_t, 4> random_block(uint64_t seed, uint64_t stream, uint64_t epoch, uint64_t index) {
  uint64_t z = stream + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const uint64_t key = seed ^ z;
  return ember::detail::philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                                       static_cast<uint32_t>(epoch), static_cast<uint32_t>(epoch >> 32)},
                                      {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

// A uniform integer in [0, n) from the 64 bits (hi, lo) (Lemire's multiply-shift; bias < n / 2^64).
inline uint64_t uniform_below(uint32_t hi, uint32_t lo, uint64_t n) {
  const uint64_t r = (uint64_t{hi} << 32) | lo;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * n) >> 64);
}

// A uniform double in [0, 1) from the top 53 of the 64 bits (hi, lo).
inline double uniform_double(uint32_t hi, uint32_t lo) {
  const uint64_t r = (uint64_t{hi} << 32) | lo;
  return static_cast<double>(r >> 11) * 0x1.0p-53;
}

}  // namespace ember::data::detail
