// The GPU caching allocator (plugins/cuda/CachingAllocator.cpp) on a fake device: the host-side
// logic (rounding, best fit, splitting and merging, per-stream pools, record_stream, free and
// retry, empty_cache, statistics) is tested where no GPU is. Note [GPU caching allocator].
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "CachingAllocator.h"
#include "ember/core/Exception.h"

using ember::gpu::CachingAllocator;
using ember::gpu::HostCachingAllocator;
using ember::gpu::StreamId;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Device memory from the host heap, with a capacity, counters and events the test completes.
class FakeDevice final : public ember::gpu::DeviceMemory {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  ~FakeDevice() override {
    for (auto& [p, n] : live_) std::free(p);
    for (auto& [p, n] : host_live_) std::free(p);
    for (Event* e : events) delete e;  // events of blocks still waiting when the test ends
  }
  void* malloc(int, size_t bytes) override {
    ++mallocs;
    if (used_ + bytes > capacity_) return nullptr;
    void* p = std::aligned_alloc(512, bytes);
    live_[p] = bytes;
    used_ += bytes;
    return p;
  }
  void free(int, void* p) override {
    ++frees;
    used_ -= live_.at(p);
    live_.erase(p);
    std::free(p);
  }
  void* record_event(int, StreamId stream) override {
    auto* e = new Event{stream, false};
    events.insert(e);
    return e;
  }
  bool event_done(void* e) override { return static_cast<Event*>(e)->done; }
  void destroy_event(void* e) override {
    events.erase(static_cast<Event*>(e));
    delete static_cast<Event*>(e);
  }
  void synchronize(int) override {
    ++syncs;
    for (Event* e : events) e->done = true;
  }
  std::pair<size_t, size_t> mem_info(int) override { return {capacity_ - used_, capacity_}; }
  // Pinned host memory: its own capacity and counters.
  void* host_malloc(size_t bytes) override {
    ++host_mallocs;
    if (host_used_ + bytes > host_capacity) return nullptr;
    void* p = std::aligned_alloc(512, bytes);
    host_live_[p] = bytes;
    host_used_ += bytes;
    return p;
  }
  void host_free(void* p) override {
    ++host_frees;
    host_used_ -= host_live_.at(p);
    host_live_.erase(p);
    std::free(p);
  }

  // Completes the events recorded on `stream` (its work is done).
  void finish(StreamId stream) {
    for (Event* e : events)
      if (e->stream == stream) e->done = true;
  }

  struct Event {
    StreamId stream;
    bool done;
  };
  std::set<Event*> events;
  int mallocs = 0, frees = 0, syncs = 0, host_mallocs = 0, host_frees = 0;
  size_t host_capacity = size_t{1} << 30;

 private:
  size_t capacity_, used_ = 0, host_used_ = 0;
  std::map<void*, size_t> live_, host_live_;
};

TEST(CachingAllocator, RoundsSizesAndPicksSegmentSizes) {
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(CachingAllocator::segment_size(512), 2 * kMiB);  // small pool
  EXPECT_EQ(CachingAllocator::segment_size(kMiB), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::segment_size(kMiB + 512), 20 * kMiB);  // large, under 10 MiB
  EXPECT_EQ(CachingAllocator::segment_size(11 * kMiB), 12 * kMiB);   // rounded to 2 MiB
}

TEST(CachingAllocator, ReusesFreedBlocksWithoutDeviceMallocs) {
  FakeDevice dev(1024 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  // A training step's pattern: the same sizes allocated and freed each step.
  const size_t sizes[] = {4096, 100, 3 * kMiB, 700 * 1024, 40 * kMiB};
  for (int step = 0; step < 5; ++step) {
    std::vector<CachingAllocator::Block*> blocks;
    for (size_t n : sizes) blocks.push_back(a.malloc(0, n, 0));
    for (auto* b : blocks) a.free(b);
    if (step == 0) {
      EXPECT_EQ(dev.mallocs, 3);  // one small segment, one 20 MiB, one 40 MiB
    }
  }
  EXPECT_EQ(dev.mallocs, 3) << "steps after the first reuse the cache";
  const auto st = a.stats(0);
  EXPECT_EQ(st.num_device_alloc, 3);
  EXPECT_EQ(st.allocated_bytes.current, 0);
  EXPECT_EQ(st.allocation.current, 0);
  EXPECT_EQ(st.reserved_bytes.current, static_cast<int64_t>((2 + 20 + 40) * kMiB));
  EXPECT_EQ(st.allocated_bytes.peak, static_cast<int64_t>(4096 + 512 + 3 * kMiB + 700 * 1024 + 40 * kMiB));
  EXPECT_EQ(st.requested_bytes.peak, static_cast<int64_t>(4096 + 100 + 3 * kMiB + 700 * 1024 + 40 * kMiB));
}

TEST(CachingAllocator, SplitsSegmentsAndMergesFreedNeighbours) {
  FakeDevice dev(1024 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  auto* x = a.malloc(0, 512 * 1024, 0);
  auto* y = a.malloc(0, 512 * 1024, 0);
  auto* z = a.malloc(0, 512 * 1024, 0);
  EXPECT_EQ(dev.mallocs, 1) << "three small blocks from one 2 MiB segment";
  EXPECT_EQ(static_cast<char*>(CachingAllocator::ptr(y)) - static_cast<char*>(CachingAllocator::ptr(x)), 512 * 1024);
  EXPECT_EQ(static_cast<char*>(CachingAllocator::ptr(z)) - static_cast<char*>(CachingAllocator::ptr(y)), 512 * 1024);
  void* base = CachingAllocator::ptr(x);
  a.free(x);
  a.free(z);
  a.free(y);                         // merges with both neighbours: the segment is whole again
  auto* big = a.malloc(0, kMiB, 0);  // the small pool's largest request: more than any piece left before
  EXPECT_EQ(dev.mallocs, 1);
  EXPECT_EQ(CachingAllocator::ptr(big), base) << "the merged segment serves it from its start";
  a.free(big);
  a.empty_cache();
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(a.stats(0).reserved_bytes.current, 0);
  EXPECT_EQ(a.stats(0).segment.current, 0);
}

TEST(CachingAllocator, BestFitTakesTheSmallestLargeEnoughBlock) {
  FakeDevice dev(1024 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  auto* b12 = a.malloc(0, 12 * kMiB, 0);
  auto* b16 = a.malloc(0, 16 * kMiB, 0);
  void* p12 = CachingAllocator::ptr(b12);
  a.free(b16);
  a.free(b12);
  auto* c = a.malloc(0, 11 * kMiB, 0);
  EXPECT_EQ(CachingAllocator::ptr(c), p12);
  a.free(c);
}

TEST(CachingAllocator, BlocksAreCachedPerStream) {
  FakeDevice dev(1024 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  auto* b = a.malloc(0, 4 * kMiB, /*stream=*/1);
  a.free(b);
  auto* c = a.malloc(0, 4 * kMiB, /*stream=*/2);
  EXPECT_EQ(dev.mallocs, 2) << "a block freed on stream 1 is not handed to stream 2";
  auto* d = a.malloc(0, 4 * kMiB, 1);
  EXPECT_EQ(dev.mallocs, 2) << "stream 1 gets its block back";
  a.free(c);
  a.free(d);
}

TEST(CachingAllocator, RecordStreamDelaysReuseUntilThatStreamIsDone) {
  FakeDevice dev(1024 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  auto* b = a.malloc(0, 4 * kMiB, 0);
  void* p = CachingAllocator::ptr(b);
  a.record_stream(b, 7);
  a.record_stream(b, 0);  // its own stream: nothing to wait for
  a.free(b);
  ASSERT_EQ(dev.events.size(), 1u);
  EXPECT_EQ((*dev.events.begin())->stream, 7);
  auto* c = a.malloc(0, 4 * kMiB, 0);
  EXPECT_NE(CachingAllocator::ptr(c), p) << "stream 7 may still use the block";
  a.free(c);
  dev.finish(7);
  auto* d = a.malloc(0, 4 * kMiB, 0);
  EXPECT_TRUE(dev.events.empty()) << "the completed event was destroyed";
  EXPECT_EQ(CachingAllocator::ptr(d), p) << "reusable once stream 7's work is done";
  a.free(d);
}

TEST(CachingAllocator, OutOfMemoryFreesTheCacheRetriesThenThrows) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  auto* x = a.malloc(0, 40 * kMiB, 0);
  a.free(x);                            // cached: 40 MiB reserved, nothing allocated
  auto* y = a.malloc(0, 50 * kMiB, 0);  // fails once, frees the cache, succeeds
  EXPECT_EQ(a.stats(0).num_alloc_retries, 1);
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(dev.syncs, 1) << "the device is synchronised before cached memory is freed";
  try {
    a.malloc(0, 30 * kMiB, 0);
    FAIL() << "expected OutOfMemoryError";
  } catch (const ember::OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("FAKE out of memory. Tried to allocate 30.00 MiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("total capacity of 64.00 MiB of which 14.00 MiB is free"), std::string::npos) << msg;
    EXPECT_NE(msg.find("50.00 MiB is allocated by Ember"), std::string::npos) << msg;
  }
  EXPECT_EQ(a.stats(0).num_ooms, 1);
  EXPECT_EQ(a.stats(0).allocated_bytes.current, static_cast<int64_t>(50 * kMiB)) << "the failure changed nothing";
  a.free(y);
}

TEST(CachingAllocator, PeakStatsReset) {
  FakeDevice dev(1024 * kMiB);
  CachingAllocator a(dev, 1, "FAKE");
  a.free(a.malloc(0, 8 * kMiB, 0));
  EXPECT_EQ(a.stats(0).allocated_bytes.peak, static_cast<int64_t>(8 * kMiB));
  a.reset_peak_stats(0);
  EXPECT_EQ(a.stats(0).allocated_bytes.peak, 0);
  EXPECT_EQ(a.stats(0).reserved_bytes.peak, static_cast<int64_t>(20 * kMiB)) << "reset to the current value";
}

TEST(CachingAllocator, DeviceIndexIsChecked) {
  FakeDevice dev(kMiB);
  CachingAllocator a(dev, 2, "FAKE");
  EXPECT_THROW(a.malloc(2, 16, 0), ember::IndexError);
  EXPECT_THROW(a.stats(-1), ember::IndexError);
}

// ---- the pinned host cache (Note [Pinned host cache]) ------------------------------------------

TEST(HostCachingAllocator, RoundsToPowersOfTwo) {
  EXPECT_EQ(HostCachingAllocator::round_size(1), 512u);
  EXPECT_EQ(HostCachingAllocator::round_size(512), 512u);
  EXPECT_EQ(HostCachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(HostCachingAllocator::round_size(3 * kMiB), 4 * kMiB);
}

TEST(HostCachingAllocator, ReusesABlockOfTheSameSizeClassOnly) {
  FakeDevice dev(kMiB);
  HostCachingAllocator a(dev, "FAKE");
  auto* x = a.malloc(3000);  // 4 KiB class
  void* px = HostCachingAllocator::ptr(x);
  a.free(x);
  auto* y = a.malloc(4096);
  EXPECT_EQ(HostCachingAllocator::ptr(y), px) << "same class: the cached block";
  auto* z = a.malloc(1000);  // 1 KiB class: a block of its own, the 4 KiB one is not split
  EXPECT_NE(HostCachingAllocator::ptr(z), px);
  EXPECT_EQ(dev.host_mallocs, 2);
  for (int step = 0; step < 10; ++step) a.free(a.malloc(2000));  // 2 KiB: one malloc, then reuse
  EXPECT_EQ(dev.host_mallocs, 3);
  const auto st = a.stats();
  EXPECT_EQ(st.num_host_alloc, 3);
  EXPECT_EQ(st.allocated_bytes.current, 4096 + 1024);
  EXPECT_EQ(st.reserved_bytes.current, 4096 + 1024 + 2048);
  EXPECT_EQ(st.allocation.current, 2);
  a.free(y);
  a.free(z);
}

TEST(HostCachingAllocator, ABlockAStreamUsedWaitsForThatStream) {
  FakeDevice dev(kMiB);
  HostCachingAllocator a(dev, "FAKE");
  auto* x = a.malloc(kMiB);
  void* px = HostCachingAllocator::ptr(x);
  a.record_stream(x, 0, 7);
  a.record_stream(x, 1, 9);  // another device's stream too
  a.free(x);
  EXPECT_EQ(dev.events.size(), 2u) << "an event per stream at free time";
  auto* y = a.malloc(kMiB);
  EXPECT_NE(HostCachingAllocator::ptr(y), px) << "streams 7 and 9 may still be copying from it";
  dev.finish(7);
  auto* z = a.malloc(kMiB);
  EXPECT_NE(HostCachingAllocator::ptr(z), px) << "stream 9 may still be copying from it";
  dev.finish(9);
  auto* w = a.malloc(kMiB);
  EXPECT_EQ(HostCachingAllocator::ptr(w), px) << "both streams are done";
  EXPECT_TRUE(dev.events.empty()) << "the events were destroyed";
  for (auto* b : {y, z, w}) a.free(b);
  auto* v = a.malloc(kMiB);  // a block freed with no stream recorded is reusable at once
  EXPECT_EQ(dev.host_mallocs, 3);
  a.free(v);
}

TEST(HostCachingAllocator, ContainsAnyAddressInsideItsBlocks) {
  FakeDevice dev(kMiB);
  HostCachingAllocator a(dev, "FAKE");
  auto* x = a.malloc(1000);
  char* p = static_cast<char*>(HostCachingAllocator::ptr(x));
  EXPECT_TRUE(a.contains(p));
  EXPECT_TRUE(a.contains(p + 1023)) << "a view's pointer";
  EXPECT_FALSE(a.contains(p + 1024));
  int on_stack = 0;
  EXPECT_FALSE(a.contains(&on_stack));
  a.free(x);
  EXPECT_TRUE(a.contains(p)) << "cached blocks are still pinned";
  a.empty_cache();
  EXPECT_FALSE(a.contains(p));
  EXPECT_EQ(dev.host_frees, 1);
  EXPECT_EQ(a.stats().reserved_bytes.current, 0);
}

TEST(HostCachingAllocator, EmptyCacheKeepsBlocksInUseOrAwaitingAStream) {
  FakeDevice dev(kMiB);
  HostCachingAllocator a(dev, "FAKE");
  auto* used = a.malloc(512);
  auto* copying = a.malloc(512);
  a.record_stream(copying, 0, 3);
  a.free(copying);
  a.free(a.malloc(4096));
  a.empty_cache();
  EXPECT_EQ(dev.host_frees, 1) << "only the idle 4 KiB block";
  dev.finish(3);
  a.empty_cache();
  EXPECT_EQ(dev.host_frees, 2);
  EXPECT_EQ(a.stats().reserved_bytes.current, 512);
  a.free(used);
}

TEST(HostCachingAllocator, OutOfPinnedMemoryReleasesTheCacheRetriesThenThrows) {
  FakeDevice dev(kMiB);
  dev.host_capacity = 7 * kMiB;
  HostCachingAllocator a(dev, "FAKE");
  a.free(a.malloc(4 * kMiB));    // cached
  auto* x = a.malloc(2 * kMiB);  // 6 MiB held, 1 MiB left
  auto* y = a.malloc(2 * kMiB);  // fails, the cached 4 MiB go back, then fits
  EXPECT_EQ(dev.host_mallocs, 4);
  EXPECT_EQ(dev.host_frees, 1);
  EXPECT_EQ(a.stats().reserved_bytes.current, static_cast<int64_t>(4 * kMiB));
  try {
    a.malloc(5 * kMiB);
    FAIL() << "expected OutOfMemoryError";
  } catch (const ember::OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("FAKE out of pinned host memory. Tried to allocate 8.00 MiB (page-locked). Ember holds "
                       "4.00 MiB of pinned memory, 4.00 MiB of it in tensors"),
              std::string::npos)
        << msg;
  }
  EXPECT_EQ(a.stats().allocated_bytes.current, static_cast<int64_t>(4 * kMiB)) << "the failure changed nothing";
  a.free(x);
  a.free(y);
}

TEST(HostCachingAllocator, ThreadsShareTheCache) {
  // DataLoader workers pin batches while the consumer frees them and asks is_pinned.
  FakeDevice dev(kMiB);
  HostCachingAllocator a(dev, "FAKE");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&a, t] {
      for (int i = 0; i < 500; ++i) {
        auto* b = a.malloc(static_cast<size_t>(512 << ((i + t) % 4)));
        EXPECT_TRUE(a.contains(HostCachingAllocator::ptr(b)));
        if (i % 3 == 0) a.record_stream(b, 0, t);
        a.free(b);
      }
    });
  for (auto& th : threads) th.join();
  const auto st = a.stats();
  EXPECT_EQ(st.allocated_bytes.current, 0);
  EXPECT_EQ(st.allocation.current, 0);
  EXPECT_LE(st.num_host_alloc, 4 * 4 + 4 * 500 / 3 + 4) << "blocks are reused across threads";
}

}  // namespace
