#pragma once
// The kernel dialect of Vendor.h on the host, for tests: see the Note.
//
// Note [GPU kernels on the host]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// With EMBER_GPU_EMULATE the kernel sources compile as plain C++ and EMBER_GPU_LAUNCH runs a
// launch on the calling thread: every block of the grid in turn, each GPU thread of a block a
// fiber (ucontext) with its own stack. A fiber runs until it finishes or waits at a barrier;
// __syncthreads() is a barrier of the block's fibers, a warp shuffle an exchange through a
// per-warp slot array between two barriers of the warp's fibers. threadIdx/blockIdx/blockDim/
// gridDim are set for the running fiber; __shared__ memory is a static thread_local (one block
// runs at a time on a thread). So the kernels' indexing, tiling, bounds checks, shared-memory
// use and warp reductions are checked against references where no GPU is, under the sanitizers
// too (the fiber switches are announced to ASan and TSan). A barrier some threads of a block
// never reach (divergent __syncthreads) aborts with a message instead of hanging. Fibers, not
// threads: a launch costs microseconds per GPU thread rather than a thread's creation, which is
// what lets the whole cuda plugin run on the host (Note [The emulated cuda plugin]). Not
// emulated: dynamic shared memory and streams (a launch completes before EMBER_GPU_LAUNCH
// returns); atomics are real atomics, trivially so since the fibers of a launch share a thread.
#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/core/Half.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static thread_local

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

#if defined(__SANITIZE_ADDRESS__)
#define EMBER_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_EMU_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define EMBER_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMBER_EMU_TSAN 1
#endif
#endif
#if defined(EMBER_EMU_ASAN)
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
#endif
#if defined(EMBER_EMU_TSAN)
extern "C" void* __tsan_get_current_fiber();
extern "C" void* __tsan_create_fiber(unsigned flags);
extern "C" void __tsan_destroy_fiber(void* fiber);
extern "C" void __tsan_switch_to_fiber(void* fiber, unsigned flags);
#endif

namespace ember::gpu::emu {

constexpr int kWarp = EMBER_GPU_WARP_SIZE;
constexpr size_t kStackBytes = size_t{256} << 10;  // per GPU thread; committed only as touched

struct Barrier {
  int expected = 0, arrived = 0;
  uint64_t generation = 0;
};

struct Fiber {
  ucontext_t ctx{};
  char* stack = nullptr;
  bool done = false;
#if defined(EMBER_EMU_TSAN)
  void* tsan = nullptr;
#endif
};

// The fibers of the calling thread (their stacks are kept between launches) and the block running.
struct Block {
  ucontext_t sched{};
  std::vector<Fiber> fibers;
  dim3 block_dim, grid_dim, block_idx;
  Barrier all;
  std::vector<Barrier> warps;
  std::vector<std::array<unsigned char, 8>> slots;  // one per thread, for shuffles
  uint64_t events = 0;                              // arrivals and exits: progress, for deadlock detection
  void (*body)(void*) = nullptr;
  void* body_ctx = nullptr;
  int running = -1;
#if defined(EMBER_EMU_ASAN)
  const void* sched_bottom = nullptr;
  size_t sched_size = 0;
#endif
#if defined(EMBER_EMU_TSAN)
  void* sched_tsan = nullptr;
#endif
  ~Block() {
    for (Fiber& f : fibers) {
      if (f.stack != nullptr) munmap(f.stack, kStackBytes);
#if defined(EMBER_EMU_TSAN)
      if (f.tsan != nullptr) __tsan_destroy_fiber(f.tsan);
#endif
    }
  }
};
inline thread_local Block t_block_state;
inline thread_local Block* t_block = nullptr;
inline thread_local int t_tid = 0;

// Fiber -> scheduler (exiting: the fiber is done and never resumed).
inline void to_scheduler(bool exiting) {
  Block& b = *t_block;
  Fiber& f = b.fibers[static_cast<size_t>(b.running)];
#if defined(EMBER_EMU_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(exiting ? nullptr : &fake, b.sched_bottom, b.sched_size);
#endif
#if defined(EMBER_EMU_TSAN)
  __tsan_switch_to_fiber(b.sched_tsan, 0);
#endif
  (void)exiting;
  swapcontext(&f.ctx, &b.sched);
#if defined(EMBER_EMU_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

inline void fiber_entry() {
  Block& b = *t_block;
#if defined(EMBER_EMU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &b.sched_bottom, &b.sched_size);
#endif
  b.body(b.body_ctx);
  b.fibers[static_cast<size_t>(b.running)].done = true;
  ++b.events;
  to_scheduler(true);
}

// Waits until every thread the barrier expects has arrived.
inline void arrive(Barrier& bar) {
  Block& b = *t_block;
  ++b.events;
  const uint64_t generation = bar.generation;
  if (++bar.arrived == bar.expected) {
    bar.arrived = 0;
    ++bar.generation;
    return;
  }
  while (bar.generation == generation) to_scheduler(false);
}

inline void sync_block() { arrive(t_block->all); }

template <class T>
T shfl_down(T v, unsigned delta) {
  static_assert(sizeof(T) <= 8);
  Block& b = *t_block;
  const int tid = t_tid, lane = tid % kWarp, warp = tid / kWarp;
  std::memcpy(b.slots[static_cast<size_t>(tid)].data(), &v, sizeof(T));
  arrive(b.warps[static_cast<size_t>(warp)]);
  T r = v;
  if (lane + static_cast<int>(delta) < kWarp && tid + static_cast<int>(delta) < static_cast<int>(b.slots.size()))
    std::memcpy(&r, b.slots[static_cast<size_t>(tid + static_cast<int>(delta))].data(), sizeof(T));
  arrive(b.warps[static_cast<size_t>(warp)]);
  return r;
}

// Runs one block: every fiber until it is done; aborts when a pass makes no progress.
inline void run_block(Block& b, int n) {
  b.all = Barrier{n, 0, 0};
  for (size_t w = 0; w < b.warps.size(); ++w)
    b.warps[w] = Barrier{std::min(kWarp, n - static_cast<int>(w) * kWarp), 0, 0};
  for (int t = 0; t < n; ++t) {
    Fiber& f = b.fibers[static_cast<size_t>(t)];
    f.done = false;
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack;
    f.ctx.uc_stack.ss_size = kStackBytes;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, &fiber_entry, 0);
  }
  int remaining = n;
  while (remaining > 0) {
    const uint64_t before = b.events;
    for (int t = 0; t < n; ++t) {
      Fiber& f = b.fibers[static_cast<size_t>(t)];
      if (f.done) continue;
      b.running = t;
      t_tid = t;
      threadIdx =
          dim3(static_cast<unsigned>(t) % b.block_dim.x, static_cast<unsigned>(t) / b.block_dim.x % b.block_dim.y,
               static_cast<unsigned>(t) / (b.block_dim.x * b.block_dim.y));
#if defined(EMBER_EMU_ASAN)
      void* fake = nullptr;
      __sanitizer_start_switch_fiber(&fake, f.stack, kStackBytes);
#endif
#if defined(EMBER_EMU_TSAN)
      __tsan_switch_to_fiber(f.tsan, 0);
#endif
      swapcontext(&b.sched, &f.ctx);
#if defined(EMBER_EMU_ASAN)
      __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
      if (f.done) --remaining;
    }
    if (remaining > 0 && b.events == before) {
      std::fprintf(stderr,
                   "ember GPU emulation: block (%u, %u, %u) deadlocked: %d of %d threads wait at a barrier the "
                   "others never reach (a __syncthreads or shuffle under divergent control flow)\n",
                   b.block_idx.x, b.block_idx.y, b.block_idx.z, remaining, n);
      std::abort();
    }
  }
}

template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, dim3 block, Args... args) {
  const int n = static_cast<int>(block.x * block.y * block.z);
  if (n == 0 || grid.x * grid.y * grid.z == 0) return;
  if (t_block != nullptr) {
    std::fprintf(stderr,
                 "ember GPU emulation: a kernel launched another kernel (dynamic parallelism is not emulated)\n");
    std::abort();
  }
  Block& b = t_block_state;
  while (b.fibers.size() < static_cast<size_t>(n)) {
    Fiber f;
    void* mem = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
      std::fprintf(stderr, "ember GPU emulation: cannot map a fiber stack\n");
      std::abort();
    }
    f.stack = static_cast<char*>(mem);
#if defined(EMBER_EMU_TSAN)
    f.tsan = __tsan_create_fiber(0);
#endif
    b.fibers.push_back(f);
  }
#if defined(EMBER_EMU_TSAN)
  b.sched_tsan = __tsan_get_current_fiber();
#endif
  b.warps.resize(static_cast<size_t>((n + kWarp - 1) / kWarp));
  b.slots.resize(static_cast<size_t>(n));
  b.block_dim = block;
  b.grid_dim = grid;
  auto body = [&] { kernel(args...); };
  b.body = [](void* c) { (*static_cast<decltype(body)*>(c))(); };
  b.body_ctx = &body;
  t_block = &b;
  blockDim = block;
  gridDim = grid;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        b.block_idx = blockIdx = dim3(x, y, z);
        run_block(b, n);
      }
  t_block = nullptr;
}

}  // namespace ember::gpu::emu

inline void __syncthreads() { ember::gpu::emu::sync_block(); }
// A launch's fibers share one thread and switch only at barriers: a plain add is atomic.
template <class T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = static_cast<T>(old + v);
  return old;
}
template <class T>
T atomicCAS(T* p, T compare, T value) {
  const T old = *p;
  if (old == compare) *p = value;
  return old;
}
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
