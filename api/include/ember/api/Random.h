#pragma once
// Seeded random numbers: the Philox4x32-10 counter-based generator and the default CPU generator.
//
// Note [Counter-based random numbers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A generator holds a 64-bit seed (the Philox key) and a 64-bit offset (a counter of Philox
// blocks handed out so far). A random kernel reserves the blocks it needs in one call
// (CpuGenerator::reserve) and derives element i's value from block (offset + f(i)) alone, so a
// tensor's values depend only on (seed, offset, element index): the same whatever the thread
// count or the order the elements are written in, and two calls never share blocks.
#include <array>
#include <cstdint>
#include <functional>
#include <mutex>

#include "ember/core/Macros.h"

namespace ember {

// Seeds every registered generator (the default CPU generator, and those plugins registered with
// detail::add_seed_hook), as torch::manual_seed does.
EMBER_API void manual_seed(uint64_t seed);

namespace detail {

// One Philox4x32-10 block (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11):
// ten rounds of two 32x32->64 multiplications on the counter, the key bumped by the Weyl
// constants between rounds.
constexpr std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    const uint64_t p0 = uint64_t{kMul0} * ctr[0];
    const uint64_t p1 = uint64_t{kMul1} * ctr[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  }
  return ctr;
}

// The block at 64-bit counter `block` for `seed`: the counter's low and high words, then zeros.
constexpr std::array<uint32_t, 4> philox_block(uint64_t seed, uint64_t block) {
  return philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0u, 0u},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

// A seed and a block offset behind a mutex (see Note [Counter-based random numbers]).
class EMBER_API CpuGenerator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // PyTorch's default

  struct Range {
    uint64_t seed;
    uint64_t offset;  // the first of the reserved blocks
  };

  void set_seed(uint64_t seed);  // also resets the offset to 0
  uint64_t seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // Reserves `blocks` consecutive Philox blocks for one call.
  Range reserve(uint64_t blocks);

 private:
  mutable std::mutex mu_;
  uint64_t seed_ = kDefaultSeed;
  uint64_t offset_ = 0;
};

// The process-wide CPU generator the cpu plugin's random kernels draw from.
EMBER_API CpuGenerator& default_cpu_generator();

// Registers a function manual_seed calls with the new seed (a plugin's own generators).
EMBER_API void add_seed_hook(std::function<void(uint64_t)> hook);

}  // namespace detail
}  // namespace ember
