#pragma once
// The Philox4x32-10 counter-based generator: the one random-number function every backend's
// generator uses (the CPU one here; a GPU backend computes the same blocks in its kernels).
//
// Note [Counter-based random numbers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A generator holds a 64-bit seed (the Philox key) and a 64-bit offset (a counter of Philox
// blocks handed out so far). A random kernel reserves the blocks it needs in one call
// (CPUGeneratorImpl::reserve, under the generator's mutex) and derives element i's value from
// block (offset + f(i)) alone, so a tensor's values depend only on (seed, offset, element index):
// the same whatever the thread count or the order the elements are written in, and two calls
// never share blocks.
#include <array>
#include <cstdint>

namespace ember {

// What one random kernel reserved: the seed and the first of its consecutive blocks.
struct PhiloxRange {
  uint64_t seed;
  uint64_t offset;
};

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

}  // namespace detail
}  // namespace ember
