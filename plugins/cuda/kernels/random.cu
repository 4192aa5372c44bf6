// Random fills on the GPU with the CPU's counter-based streams: uniform_, normal_, bernoulli_,
// random_.
//
// Note [GPU random numbers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Element i of a fill takes its bits from Philox block (offset + i / k) of the generator's seed
// (Note [Counter-based random numbers] in ember/core/Philox.h), with the CPU kernels' k and
// their formulas, one thread per block. So a seed gives the CPU's numbers on the GPU: uniform_
// and bernoulli_ bit for bit (integer bits scaled by powers of two, one rounded float add and
// multiply, compiled without fused multiply-adds), normal_ up to the last bits of the device's
// log/cos/sin. random_blocks() says how many blocks a fill takes, for the host to reserve.
#include <cmath>

#include "Loops.cuh"
#include "ember/core/Philox.h"

namespace ember::gpu {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// [0, 1) with `bits` random bits (bits <= 32).
__device__ __forceinline__ float unit_float(uint32_t w, int bits) {
  return static_cast<float>(w >> (32 - bits)) * static_cast<float>(1.0 / static_cast<double>(uint64_t{1} << bits));
}
// [0, 1) with 53 random bits from two words.
__device__ __forceinline__ double unit_double(uint32_t hi, uint32_t lo) {
  const uint64_t x = (uint64_t{hi} << 32 | lo) >> 11;
  return static_cast<double>(x) * 0x1.0p-53;
}

int digits_of(int8_t dt) { return dt == Half ? 11 : dt == BFloat16 ? 8 : 24; }

__global__ void uniform_kernel(RandomArgs r, int bits) {
  const int64_t blocks = random_blocks(RandomKind::Uniform, r.dtype, r.n);
  EMBER_GPU_GRID_STRIDE(b, blocks) {
    const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
    if (r.dtype == Double) {
      for (int64_t j = 0; j < 2 && b * 2 + j < r.n; ++j)
        reinterpret_cast<double*>(r.out)[b * 2 + j] = r.a + unit_double(w[2 * j], w[2 * j + 1]) * (r.b - r.a);
    } else {
      const float f = static_cast<float>(r.a), span = static_cast<float>(r.b - r.a);
      const int size = r.dtype == Float ? 4 : 2;
      for (int64_t j = 0; j < 4 && b * 4 + j < r.n; ++j)
        store<float>(r.out + (b * 4 + j) * size, r.dtype, f + unit_float(w[j], bits) * span);
    }
  }
}

template <class Acc>
__global__ void normal_kernel(RandomArgs r) {
  const int64_t blocks = random_blocks(RandomKind::Normal, r.dtype, r.n);
  const int size = r.dtype == Double ? 8 : r.dtype == Float ? 4 : 2;
  const Acc m = static_cast<Acc>(r.a), s = static_cast<Acc>(r.b), two_pi = static_cast<Acc>(kTwoPi);
  EMBER_GPU_GRID_STRIDE(b, blocks) {
    const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
    Acc u1, u2;
    if constexpr (std::is_same_v<Acc, double>) {
      u1 = 1.0 - unit_double(w[0], w[1]);
      u2 = unit_double(w[2], w[3]);
    } else {
      u1 = 1.0f - unit_float(w[0], 24);
      u2 = unit_float(w[1], 24);
    }
    const Acc rad = sqrt(Acc(-2) * log(u1));
    store<Acc>(r.out + b * 2 * size, r.dtype, m + s * rad * cos(two_pi * u2));
    if (b * 2 + 1 < r.n) store<Acc>(r.out + (b * 2 + 1) * size, r.dtype, m + s * rad * sin(two_pi * u2));
  }
}

__global__ void bernoulli_kernel(RandomArgs r, int size) {
  const int64_t blocks = random_blocks(RandomKind::Bernoulli, r.dtype, r.n);
  EMBER_GPU_GRID_STRIDE(b, blocks) {
    const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
    for (int64_t j = 0; j < 4 && b * 4 + j < r.n; ++j)
      store<int64_t>(r.out + (b * 4 + j) * size, r.dtype, static_cast<double>(w[j]) * 0x1.0p-32 < r.a ? 1 : 0);
  }
}

// from + (64 bits mod range), wrapping in uint64 (the result lies in [from, from + range)).
__global__ void integer_kernel(RandomArgs r, int size) {
  const int64_t blocks = random_blocks(RandomKind::Integer, r.dtype, r.n);
  EMBER_GPU_GRID_STRIDE(b, blocks) {
    const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
    for (int64_t j = 0; j < 2 && b * 2 + j < r.n; ++j) {
      const uint64_t x = uint64_t{w[2 * j]} << 32 | w[2 * j + 1];
      const uint64_t v = static_cast<uint64_t>(r.from) + (r.range == 0 ? x : x % r.range);
      store<int64_t>(r.out + (b * 2 + j) * size, r.dtype, static_cast<int64_t>(v));
    }
  }
}

int size_of(int8_t dt) {
  switch (dt) {
    case Bool:
    case UInt8:
    case Int8:
      return 1;
    case Int16:
    case Half:
    case BFloat16:
      return 2;
    case Int32:
    case Float:
      return 4;
    default:
      return 8;
  }
}

}  // namespace

bool launch_random(RandomKind kind, const RandomArgs& r, gpuStream_t stream) {
  const bool floating = r.dtype == Float || r.dtype == Double || r.dtype == Half || r.dtype == BFloat16;
  const bool any_real = kind == RandomKind::Bernoulli || kind == RandomKind::Integer;
  if (!any_real && !floating) return false;
  if (any_real && (r.dtype == ComplexFloat || r.dtype == ComplexDouble)) return false;
  if (r.n == 0) return true;
  const int grid = grid_size(random_blocks(kind, r.dtype, r.n));
  switch (kind) {
    case RandomKind::Uniform:
      EMBER_GPU_LAUNCH(uniform_kernel, grid, kBlockSize, 0, stream, r, digits_of(r.dtype));
      break;
    case RandomKind::Normal:
      if (r.dtype == Double)
        EMBER_GPU_LAUNCH((normal_kernel<double>), grid, kBlockSize, 0, stream, r);
      else
        EMBER_GPU_LAUNCH((normal_kernel<float>), grid, kBlockSize, 0, stream, r);
      break;
    case RandomKind::Bernoulli:
      EMBER_GPU_LAUNCH(bernoulli_kernel, grid, kBlockSize, 0, stream, r, size_of(r.dtype));
      break;
    case RandomKind::Integer:
      EMBER_GPU_LAUNCH(integer_kernel, grid, kBlockSize, 0, stream, r, size_of(r.dtype));
      break;
  }
  return true;
}

}  // namespace ember::gpu
