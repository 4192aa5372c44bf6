#pragma once
// The device-memory cache of the GPU plugins, written against a small DeviceMemory interface so
// that the same code serves CUDA and HIP and is tested on the host with a fake device.
//
// Note [GPU caching allocator]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// cudaMalloc and cudaFree synchronise the device and cost tens of microseconds, so, as PyTorch,
// freed blocks are kept and reused:
// - Sizes are rounded up to 512 bytes. Requests of at most 1 MiB come from a small pool carved
//   out of 2 MiB device allocations ("segments"); larger ones from a large pool: 20 MiB
//   segments for requests under 10 MiB, else the request rounded up to 2 MiB.
// - A cached block is found best-fit (the smallest one at least as large) among the blocks of
//   the same device, pool and stream, and split when the rest is worth keeping (>= 512 bytes in
//   the small pool, > 1 MiB in the large one); a freed block merges with free neighbours of its
//   segment.
// - Blocks are cached per stream: work on the allocation stream is ordered, so a block freed
//   there is reusable at once. A block also used on another stream (record_stream) is reusable
//   only once events recorded on those streams at free time have completed.
// - When the device is out of memory, the allocator waits for the device, frees every cached
//   segment that is wholly unused and tries once more; then it throws OutOfMemoryError with
//   the device's and the cache's numbers.
// - empty_cache() returns every wholly unused segment to the device.
// One mutex per device guards its pools; a deleter may run on any thread.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/Allocator.h"

namespace ember::gpu {

using StreamId = int64_t;

// What the cache asks of the device runtime.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // Device memory of `bytes` on `device`, or nullptr when the device is out of memory (any
  // other failure throws).
  virtual void* malloc(int device, size_t bytes) = 0;
  virtual void free(int device, void* ptr) = 0;
  // An event recorded now on `stream`: done once the work queued there before it is.
  virtual void* record_event(int device, StreamId stream) = 0;
  virtual bool event_done(void* event) = 0;
  virtual void destroy_event(void* event) = 0;
  // Waits until all work on the device is done.
  virtual void synchronize(int device) = 0;
  // Free and total bytes of the device, for the out-of-memory message.
  virtual std::pair<size_t, size_t> mem_info(int device) = 0;
  // Page-locked host memory (cudaHostAlloc), or nullptr when there is not enough.
  virtual void* host_malloc(size_t bytes) = 0;
  virtual void host_free(void* ptr) = 0;
};

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;
  static constexpr size_t kSmallSize = size_t{1} << 20;
  static constexpr size_t kSmallBuffer = size_t{2} << 20;
  static constexpr size_t kLargeBuffer = size_t{20} << 20;
  static constexpr size_t kMinLargeAlloc = size_t{10} << 20;
  static constexpr size_t kRoundLarge = size_t{2} << 20;

  struct Block;

  // `label` names the device kind in messages ("CUDA", "HIP").
  CachingAllocator(DeviceMemory& memory, int num_devices, std::string label);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `bytes` (> 0) on `device`, for use on `stream`. Throws
  // OutOfMemoryError.
  Block* malloc(int device, size_t bytes, StreamId stream);
  void free(Block* block);
  static void* ptr(const Block* block);
  static int device(const Block* block);
  // The block is in use on `stream` too (a no-op for its allocation stream).
  void record_stream(Block* block, StreamId stream);
  // Waits for the devices, then returns every wholly unused segment to them.
  void empty_cache();
  DeviceMemoryStats stats(int device) const;
  void reset_peak_stats(int device);
  int num_devices() const { return static_cast<int>(devices_.size()); }

  static size_t round_size(size_t bytes);
  static size_t segment_size(size_t rounded);

 private:
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockLess>;
  struct DeviceState {
    mutable std::mutex mu;
    Pool small, large;
    std::vector<std::pair<void*, Block*>> pending;  // (event, block) waiting for other streams
    DeviceMemoryStats stats;
  };

  DeviceState& state(int device) const;
  void process_events(DeviceState& s);
  void free_block(DeviceState& s, Block* b);
  void release_cached(int device, DeviceState& s);
  [[noreturn]] void throw_oom(int device, DeviceState& s, size_t bytes);

  DeviceMemory& memory_;
  std::string label_;
  std::vector<std::unique_ptr<DeviceState>> devices_;
};

// Note [Pinned host cache]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The pinned host allocator (Note [Pinned host memory] in ember/core/Allocator.h) caches as
// PyTorch's CachingHostAllocator: cudaHostAlloc and cudaFreeHost cost milliseconds and
// synchronise, so freed blocks are kept. Sizes are rounded up to powers of two (at least 512
// bytes) and a request takes a cached block of exactly its rounded size, never splitting one.
// A block an asynchronous copy used (record_stream) is reusable once events recorded on those
// streams at free time have completed. When the host is out of page-locked memory the cache is
// released and the request retried once. One mutex guards it; a deleter may run on any thread.
class HostCachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;
  struct Block;

  HostCachingAllocator(DeviceMemory& memory, std::string label);
  ~HostCachingAllocator();
  HostCachingAllocator(const HostCachingAllocator&) = delete;
  HostCachingAllocator& operator=(const HostCachingAllocator&) = delete;

  // A block of at least `bytes` (> 0). Throws OutOfMemoryError.
  Block* malloc(size_t bytes);
  void free(Block* block);
  static void* ptr(const Block* block);
  // The block is read or written by work queued on `stream` of `device`.
  void record_stream(Block* block, int device, StreamId stream);
  // Whether `p` lies in a block held by the cache (handed out or cached).
  bool contains(const void* p) const;
  // Returns the cached blocks no stream still uses to the host.
  void empty_cache();
  HostMemoryStats stats() const;
  void reset_peak_stats();

  static size_t round_size(size_t bytes);

 private:
  struct BySize {
    bool operator()(const Block* a, const Block* b) const;
  };
  void process_events();
  void release_cached();

  DeviceMemory& memory_;
  std::string label_;
  mutable std::mutex mu_;
  std::map<const char*, Block*> blocks_;           // every block held, by address
  std::set<Block*, BySize> free_;                  // cached and reusable now
  std::vector<std::pair<void*, Block*>> pending_;  // (event, block) waiting for a stream
  HostMemoryStats stats_;
};

}  // namespace ember::gpu
