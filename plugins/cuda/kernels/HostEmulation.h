#pragma once
// The kernel dialect of Vendor.h on the host, for tests: see the Note.
//
// Note [GPU kernels on the host]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// With EMBER_GPU_EMULATE the kernel sources compile as plain C++ and EMBER_GPU_LAUNCH runs a
// launch on CPU threads: one std::thread per GPU thread of a block, every block of the grid in
// turn. threadIdx/blockIdx/blockDim/gridDim are thread_local; __syncthreads() is a barrier of the
// block's threads; a warp shuffle is an exchange through a per-warp slot array between two
// barriers of the warp's threads; __shared__ memory is a function-local static (one block runs
// at a time, and its threads wait for each other before the next block starts). So the
// kernels' indexing, tiling, bounds checks, shared-memory use and warp reductions are checked
// against references where no GPU is, under the sanitizers too. It is slow (a thread per GPU
// thread): tests launch small grids. Not emulated: atomics, dynamic shared memory, streams (a
// launch completes before EMBER_GPU_LAUNCH returns).
#include <array>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "ember/core/Half.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: as CUDA's
};
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

using gpuStream_t = void*;
using gpu_half = ember::Half;
using gpu_bfloat16 = ember::BFloat16;
inline float __half2float(gpu_half h) { return static_cast<float>(h); }
inline gpu_half __float2half_rn(float f) { return gpu_half(f); }

#define EMBER_GPU_WARP_SIZE 32

namespace ember::gpu::emu {

constexpr int kWarp = EMBER_GPU_WARP_SIZE;

struct Block {
  std::unique_ptr<std::barrier<>> all;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<std::array<unsigned char, 8>> slots;  // one per thread, for shuffles
};
inline thread_local Block* t_block = nullptr;
inline thread_local int t_tid = 0;

inline void sync_block() { t_block->all->arrive_and_wait(); }

template <class T>
T shfl_down(T v, unsigned delta) {
  static_assert(sizeof(T) <= 8);
  const int lane = t_tid % kWarp, warp = t_tid / kWarp;
  std::memcpy(t_block->slots[static_cast<size_t>(t_tid)].data(), &v, sizeof(T));
  t_block->warps[static_cast<size_t>(warp)]->arrive_and_wait();
  T r = v;
  if (lane + static_cast<int>(delta) < kWarp)
    std::memcpy(&r, t_block->slots[static_cast<size_t>(t_tid + static_cast<int>(delta))].data(), sizeof(T));
  t_block->warps[static_cast<size_t>(warp)]->arrive_and_wait();
  return r;
}

template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, dim3 block, Args... args) {
  const int n = static_cast<int>(block.x * block.y * block.z);
  Block b;
  b.all = std::make_unique<std::barrier<>>(n);
  for (int w = 0; w < (n + kWarp - 1) / kWarp; ++w)
    b.warps.push_back(std::make_unique<std::barrier<>>(std::min(kWarp, n - w * kWarp)));
  b.slots.resize(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      t_block = &b;
      t_tid = t;
      threadIdx = dim3(static_cast<unsigned>(t) % block.x, static_cast<unsigned>(t) / block.x % block.y,
                       static_cast<unsigned>(t) / (block.x * block.y));
      blockDim = block;
      gridDim = grid;
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = dim3(x, y, z);
            kernel(args...);
            b.all->arrive_and_wait();  // the block is done before its shared memory is reused
          }
    });
  }
  for (auto& th : threads) th.join();
}

}  // namespace ember::gpu::emu

inline void __syncthreads() { ember::gpu::emu::sync_block(); }
#define EMBER_GPU_SHFL_DOWN(mask, v, delta) ::ember::gpu::emu::shfl_down(v, delta)
#define EMBER_GPU_LAUNCH(kernel, grid, block, smem, stream, ...) \
  ((void)(smem), (void)(stream), ::ember::gpu::emu::launch(kernel, dim3(grid), dim3(block), __VA_ARGS__))

// The device math library's overloads, found unqualified from the kernels' namespace.
namespace ember::gpu {
using std::acos, std::acosh, std::asin, std::asinh, std::atan, std::atanh, std::ceil, std::copysign, std::cos,
    std::cosh, std::erf, std::exp, std::expm1, std::fabs, std::floor, std::fmod, std::isfinite, std::isinf, std::isnan,
    std::lgamma, std::log, std::log10, std::log1p, std::log2, std::rint, std::sin, std::sinh, std::sqrt, std::tan,
    std::tanh, std::trunc;
}  // namespace ember::gpu
