// The CPU caching allocator. See Note [CPU caching allocator] in Allocator.h.
//
// Note [CPU caching allocator: design]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Small blocks (<= 1 MiB) come in 15 power-of-two classes from 64 B. Each thread keeps a bounded
// bin per class (at most 16 blocks and 4 MiB); a hit is a thread-local pop with no lock and no
// atomic read-modify-write. A miss refills half a bin from the global pool (one lock), then
// falls back to posix_memalign; a full bin spills half of itself to the global pool. Large
// blocks (> 1 MiB) are rounded up to 2 MiB, mapped 2 MiB-aligned with mmap and
// madvise(MADV_HUGEPAGE) (first touch then costs ~0.2 us per 4 KiB instead of ~10 us), and cached
// in a global pool keyed by their exact rounded size, up to a quarter of physical memory (beyond
// that a freed block is unmapped). DataPtr::ctx carries the block's size in bytes, so the deleter
// knows its class without a lookup. The thread cache sits behind one initial-exec TLS pointer
// (8 bytes of static TLS), created on a thread's first allocation together with a thread_local
// flusher whose destructor moves the bins to the global pool at thread exit; a thread that has
// flushed uses the global pool directly from then on. Statistics are per-thread relaxed atomics
// written only by their owner (plain loads and stores, no lock prefix), summed on demand.
// Under AddressSanitizer a cached block is poisoned, so a use after free is still reported.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "ember/core/Allocator.h"
#include "ember/core/Exception.h"

#if defined(__SANITIZE_ADDRESS__)
#define EMBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_ASAN 1
#endif
#endif
#if defined(EMBER_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace ember {
namespace {

constexpr size_t kMinSmall = 64;  // also the alignment of every block
constexpr int kMinSmallLog2 = 6;
constexpr int kNumClasses = 15;  // 64 B .. 1 MiB
constexpr size_t kMaxSmall = kMinSmall << (kNumClasses - 1);
constexpr size_t kHugePage = size_t{2} << 20;
constexpr int kBinCapacity = 16;
constexpr size_t kBinBytes = size_t{4} << 20;

constexpr size_t class_bytes(int c) { return kMinSmall << c; }
constexpr int class_limit(int c) {
  size_t by_bytes = kBinBytes / class_bytes(c);
  return by_bytes < kBinCapacity ? static_cast<int>(by_bytes) : kBinCapacity;
}
inline int size_class(size_t n) {
  return n <= kMinSmall ? 0 : std::bit_width(n - 1) - kMinSmallLog2;
}

inline void poison(void* p, size_t n) {
#if defined(EMBER_ASAN)
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}
inline void unpoison(void* p, size_t n) {
#if defined(EMBER_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

// Owner-only counter: a plain load and store (no lock prefix); other threads may read it.
inline void add_to(std::atomic<uint64_t>& a, uint64_t d) {
  a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
}

struct Bin {
  int count = 0;
  void* blocks[kBinCapacity];
};

struct ThreadCache {
  Bin bins[kNumClasses];
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> bytes{0};
  ThreadCache* prev = nullptr;  // registry links, guarded by Global::mu
  ThreadCache* next = nullptr;
};

// Everything shared, behind one mutex. Leaked on purpose: tensors destroyed during static
// destruction still return their blocks here.
struct Global {
  std::mutex mu;
  std::vector<void*> small[kNumClasses];
  std::unordered_map<size_t, std::vector<void*>> large;  // by rounded size
  uint64_t small_bytes = 0;
  uint64_t large_bytes = 0;
  uint64_t large_limit = 0;
  ThreadCache* threads = nullptr;
  // Totals of exited threads and of calls served without a thread cache.
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> hits{0};
};

Global& global() {
  static Global* g = [] {
    auto* r = new Global;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                                          : uint64_t{8} << 30;
    r->large_limit = phys / 4;
    return r;
  }();
  return *g;
}

// See Note [Initial-exec TLS for dispatch state]: libember is linked at program start, so its
// TLS is static; 9 bytes of it here.
constinit thread_local ThreadCache* tls_cache __attribute__((tls_model("initial-exec"))) = nullptr;
constinit thread_local bool tls_cache_dead __attribute__((tls_model("initial-exec"))) = false;

// ---- raw memory ------------------------------------------------------------------------------

[[noreturn]] void throw_oom(size_t n) {
  EMBER_THROW(Error, "[cpu_allocator] out of memory: cannot allocate {} bytes", n);
}

void free_all_cached();

void* raw_alloc_small(int c) {
  void* p = nullptr;
  if (posix_memalign(&p, kMinSmall, class_bytes(c)) != 0) {
    free_all_cached();
    if (posix_memalign(&p, kMinSmall, class_bytes(c)) != 0) throw_oom(class_bytes(c));
  }
  return p;
}

void* map_huge(size_t n) {
  // Over-map by 2 MiB and trim, so the block is 2 MiB-aligned and can be backed by huge pages.
  size_t span = n + kHugePage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t base = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (base + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > base) munmap(raw, aligned - base);
  uintptr_t end = base + span, used_end = aligned + n;
  if (end > used_end) munmap(reinterpret_cast<void*>(used_end), end - used_end);
  void* p = reinterpret_cast<void*>(aligned);
#if defined(MADV_HUGEPAGE)
  madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

void unmap(void* p, size_t n) {
  unpoison(p, n);
  munmap(p, n);
}

// ---- the global pool -------------------------------------------------------------------------

void free_all_cached() {
  Global& g = global();
  std::vector<void*> small[kNumClasses];
  std::unordered_map<size_t, std::vector<void*>> large;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    for (int c = 0; c < kNumClasses; ++c) small[c].swap(g.small[c]);
    large.swap(g.large);
    g.small_bytes = 0;
    g.large_bytes = 0;
  }
  for (int c = 0; c < kNumClasses; ++c)
    for (void* p : small[c]) {
      unpoison(p, class_bytes(c));
      std::free(p);
    }
  for (auto& [n, v] : large)
    for (void* p : v) unmap(p, n);
}

// Moves the oldest half (at least one) of a full bin to the global pool.
void spill(Bin& b, int c, ThreadCache* tc) {
  int n = b.count / 2 > 0 ? b.count / 2 : b.count;
  Global& g = global();
  {
    std::lock_guard<std::mutex> lock(g.mu);
    g.small[c].insert(g.small[c].end(), b.blocks, b.blocks + n);
    g.small_bytes += n * class_bytes(c);
  }
  std::memmove(b.blocks, b.blocks + n, (b.count - n) * sizeof(void*));
  b.count -= n;
  add_to(tc->bytes, 0 - n * class_bytes(c));
}

// Takes up to `want` blocks of class c from the global pool into `out`; returns how many.
int take_global(int c, void** out, int want) {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  auto& v = g.small[c];
  int n = 0;
  while (n < want && !v.empty()) {
    out[n++] = v.back();
    v.pop_back();
  }
  g.small_bytes -= n * class_bytes(c);
  return n;
}

void flush_thread_cache(ThreadCache* tc) {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  for (int c = 0; c < kNumClasses; ++c) {
    Bin& b = tc->bins[c];
    g.small[c].insert(g.small[c].end(), b.blocks, b.blocks + b.count);
    g.small_bytes += b.count * class_bytes(c);
    b.count = 0;
  }
  tc->bytes.store(0, std::memory_order_relaxed);
}

struct CacheFlusher {
  ~CacheFlusher() {
    ThreadCache* tc = tls_cache;
    if (!tc) return;
    tls_cache = nullptr;
    tls_cache_dead = true;
    flush_thread_cache(tc);
    Global& g = global();
    {
      std::lock_guard<std::mutex> lock(g.mu);
      if (tc->prev) tc->prev->next = tc->next;
      else g.threads = tc->next;
      if (tc->next) tc->next->prev = tc->prev;
      g.allocations.fetch_add(tc->allocations.load(std::memory_order_relaxed), std::memory_order_relaxed);
      g.hits.fetch_add(tc->hits.load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    delete tc;
  }
};

// The calling thread's cache, created on first use; null once the thread has begun exiting.
ThreadCache* thread_cache_slow() {
  if (tls_cache_dead) return nullptr;
  thread_local CacheFlusher flusher;  // its destructor runs at thread exit
  (void)flusher;
  auto* tc = new ThreadCache;
  Global& g = global();
  {
    std::lock_guard<std::mutex> lock(g.mu);
    tc->next = g.threads;
    if (g.threads) g.threads->prev = tc;
    g.threads = tc;
  }
  tls_cache = tc;
  return tc;
}

// ---- allocate / free -------------------------------------------------------------------------

void free_block(void* p, void* ctx);

inline DataPtr make_data_ptr(void* p, size_t block) {
  return DataPtr{p, reinterpret_cast<void*>(block), &free_block, Device(kCPU)};
}

EMBER_NOINLINE DataPtr allocate_small_slow(int c, size_t n) {
  ThreadCache* tc = tls_cache;
  if (!tc) {
    tc = thread_cache_slow();
    if (tc) add_to(tc->allocations, 1);  // the fast path counted only calls that found a cache
  }
  void* p = nullptr;
  if (tc) {
    // The bin is empty: refill half of it from the global pool in one lock.
    Bin& b = tc->bins[c];
    int got = take_global(c, b.blocks, class_limit(c) / 2 > 0 ? class_limit(c) / 2 : 1);
    if (got > 0) {
      p = b.blocks[--got];
      b.count = got;
      add_to(tc->bytes, got * class_bytes(c));
      add_to(tc->hits, 1);
    }
  } else {
    Global& g = global();
    g.allocations.fetch_add(1, std::memory_order_relaxed);
    if (take_global(c, &p, 1) == 1) g.hits.fetch_add(1, std::memory_order_relaxed);
  }
  if (!p) p = raw_alloc_small(c);
  unpoison(p, n > 0 ? n : 1);
  return make_data_ptr(p, class_bytes(c));
}

DataPtr allocate_large(size_t n) {
  size_t rounded = (n + kHugePage - 1) & ~(kHugePage - 1);
  Global& g = global();
  ThreadCache* tc = tls_cache;
  if (tc) add_to(tc->allocations, 1);
  else g.allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    auto it = g.large.find(rounded);
    if (it != g.large.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      g.large_bytes -= rounded;
    }
  }
  if (p) {
    if (tc) add_to(tc->hits, 1);
    else g.hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    p = map_huge(rounded);
    if (!p) {
      free_all_cached();
      p = map_huge(rounded);
      if (!p) throw_oom(n);
    }
  }
  unpoison(p, n);
  return make_data_ptr(p, rounded);
}

EMBER_NOINLINE void free_small_slow(void* p, int c) {
  ThreadCache* tc = tls_cache;
  if (!tc && !tls_cache_dead) tc = thread_cache_slow();
  if (tc) {
    Bin& b = tc->bins[c];
    if (b.count >= class_limit(c)) spill(b, c, tc);
    b.blocks[b.count++] = p;
    add_to(tc->bytes, class_bytes(c));
    return;
  }
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  g.small[c].push_back(p);
  g.small_bytes += class_bytes(c);
}

void free_large(void* p, size_t n) {
  Global& g = global();
  {
    std::lock_guard<std::mutex> lock(g.mu);
    if (g.large_bytes + n <= g.large_limit) {
      g.large[n].push_back(p);
      g.large_bytes += n;
      return;
    }
  }
  unmap(p, n);
}

void free_block(void* p, void* ctx) {
  size_t block = reinterpret_cast<size_t>(ctx);
  poison(p, block);
  if (EMBER_LIKELY(block <= kMaxSmall)) {
    int c = size_class(block);
    ThreadCache* tc = tls_cache;
    if (EMBER_LIKELY(tc != nullptr)) {
      Bin& b = tc->bins[c];
      if (EMBER_LIKELY(b.count < class_limit(c))) {
        b.blocks[b.count++] = p;
        add_to(tc->bytes, block);
        return;
      }
    }
    free_small_slow(p, c);
    return;
  }
  free_large(p, block);
}

class CpuCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t n) override {
    if (EMBER_LIKELY(n <= kMaxSmall)) {
      int c = size_class(n);
      ThreadCache* tc = tls_cache;
      if (EMBER_LIKELY(tc != nullptr)) {
        add_to(tc->allocations, 1);
        Bin& b = tc->bins[c];
        if (EMBER_LIKELY(b.count > 0)) {
          void* p = b.blocks[--b.count];
          add_to(tc->hits, 1);
          add_to(tc->bytes, 0 - class_bytes(c));
          unpoison(p, n > 0 ? n : 1);
          return make_data_ptr(p, class_bytes(c));
        }
      }
      return allocate_small_slow(c, n);
    }
    return allocate_large(n);
  }
};

}  // namespace

Allocator* cpu_allocator() {
  static CpuCachingAllocator* a = new CpuCachingAllocator;  // leaked: outlives every tensor
  return a;
}

CpuAllocatorStats cpu_allocator_stats() {
  Global& g = global();
  CpuAllocatorStats s;
  std::lock_guard<std::mutex> lock(g.mu);
  s.allocations = g.allocations.load(std::memory_order_relaxed);
  s.cache_hits = g.hits.load(std::memory_order_relaxed);
  s.bytes_cached = g.small_bytes + g.large_bytes;
  for (ThreadCache* t = g.threads; t; t = t->next) {
    s.allocations += t->allocations.load(std::memory_order_relaxed);
    s.cache_hits += t->hits.load(std::memory_order_relaxed);
    s.bytes_cached += t->bytes.load(std::memory_order_relaxed);
  }
  return s;
}

void cpu_allocator_empty_cache() {
  // The calling thread's bins go too; other threads' bins (bounded) stay with their owners.
  if (ThreadCache* tc = tls_cache) flush_thread_cache(tc);
  free_all_cached();
}

}  // namespace ember
