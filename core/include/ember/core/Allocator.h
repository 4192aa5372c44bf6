#pragma once
// Storage and the per-device allocator registry.
//
// Note [CPU caching allocator]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Fresh memory costs ~10 us per 4 KiB page to first-touch on this machine class, and glibc
// returns large blocks to the OS on free, so a framework without a cache pays that on every
// large temporary (LibTorch's add into a fresh 64 MiB output: 177 ms vs 4.4 ms of arithmetic).
// The CPU allocator keeps freed blocks: small ones (<= 1 MiB, power-of-two classes) in a
// per-thread cache with a global overflow pool, large ones (rounded to 2 MiB, backed by
// madvise(MADV_HUGEPAGE)) in a global pool. Every block is 64-byte aligned.
// cpu_allocator_empty_cache() returns the cached memory to the OS.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "ember/core/Device.h"
#include "ember/core/IntrusivePtr.h"

namespace ember {

struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;
  void (*deleter)(void* ptr, void* ctx) = nullptr;  // null: memory not owned
  Device device = kCPU;
};

class EMBER_API Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
};

class Stream;

// One counter of a device allocator's statistics: its value now, its highest value since the
// last reset_peak_stats, and the sum of all increases (c10's Stat).
struct MemoryStat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
};

// A caching device allocator's statistics for one device (c10's DeviceStats, the counters
// LibTorch users read most).
struct DeviceMemoryStats {
  MemoryStat allocated_bytes;     // handed out to tensors (rounded sizes)
  MemoryStat reserved_bytes;      // held from the device: allocated plus cached
  MemoryStat requested_bytes;     // what callers asked for (before rounding)
  MemoryStat allocation;          // blocks handed out
  MemoryStat segment;             // device allocations held
  int64_t num_device_alloc = 0;   // calls to the device's malloc (cudaMalloc)
  int64_t num_device_free = 0;    // calls to the device's free
  int64_t num_alloc_retries = 0;  // device mallocs that failed and were retried after freeing the cache
  int64_t num_ooms = 0;           // allocations that failed for good
};

// The allocator of a device with streams (cuda, hip): memory is cached per stream, and a block
// used on another stream than its allocation's must be recorded there (record_stream) so that
// it is not reused before that stream's work on it is done.
class EMBER_API DeviceAllocator : public Allocator {
 public:
  ~DeviceAllocator() override;
  // Releases the cached, unused memory back to the device (emptyCache).
  virtual void empty_cache() = 0;
  virtual DeviceMemoryStats stats(DeviceIndex device) const = 0;
  virtual void reset_peak_stats(DeviceIndex device) = 0;
  // `data` (a DataPtr this allocator made) is in use on `stream` (recordStream).
  virtual void record_stream(const DataPtr& data, const Stream& stream) = 0;
};

// Note [Pinned host memory]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Page-locked ("pinned") host memory is what a GPU's copy engine reads and writes directly, so
// copies between it and the device can run asynchronously (non_blocking) and at full speed. A
// pinned tensor is an ordinary CPU tensor whose storage comes from the host allocator of a GPU
// device type, which that device's plugin registers (set_host_allocator). pin_memory(),
// is_pinned() and the factories' pin_memory=true find it here; libember and the cpu plugin hold
// no GPU code. Like the device allocator it caches freed blocks, and a block that an
// asynchronous copy still reads or writes is recorded on that copy's stream (record_stream)
// and not reused before the stream's work is done (PyTorch's CachingHostAllocator).
struct HostMemoryStats {
  MemoryStat allocated_bytes;  // handed out to tensors (rounded sizes)
  MemoryStat reserved_bytes;   // held from the driver: allocated plus cached
  MemoryStat allocation;       // blocks handed out
  int64_t num_host_alloc = 0;  // calls to the driver's page-locked malloc (cudaHostAlloc)
  int64_t num_host_free = 0;   // calls to its free (cudaFreeHost)
};

class EMBER_API HostAllocator : public Allocator {
 public:
  ~HostAllocator() override;
  // Whether `ptr` lies in memory this allocator handed out (a view's pointer counts).
  virtual bool is_pinned(const void* ptr) const = 0;
  // `data` is read or written by work queued on `stream` (a device stream): its block is not
  // reused before that work is done. False, recording nothing, when `data` is not a block of
  // this allocator (memory pinned elsewhere, or a null block).
  virtual bool record_stream(const DataPtr& data, const Stream& stream) = 0;
  // Returns the cached blocks no stream still uses to the driver.
  virtual void empty_cache() = 0;
  virtual HostMemoryStats stats() const = 0;
  virtual void reset_peak_stats() = 0;
};

// The registry: one allocator per device type. Plugins set theirs at registration.
EMBER_API void set_allocator(DeviceType t, Allocator* a);
// Throws ValueError naming the device and the plugin to load when none is set. kCPU and kMeta
// are built in; kMeta's allocates nothing (a null block of any size: a meta tensor has no data).
EMBER_API Allocator* get_allocator(DeviceType t);
EMBER_API Allocator* cpu_allocator();
// The pinned host allocator of a GPU device type (Note [Pinned host memory]); null for none.
EMBER_API void set_host_allocator(DeviceType t, HostAllocator* a);
EMBER_API HostAllocator* find_host_allocator(DeviceType t);
// The allocator pinning for `device` (none given: cuda's, else hip's, the first registered).
// Throws ValueError naming `op` and the plugin to load when there is none.
EMBER_API HostAllocator* host_allocator_for(std::optional<Device> device, const char* op);

struct CpuAllocatorStats {
  uint64_t allocations = 0;   // calls to allocate
  uint64_t cache_hits = 0;    // served from a cache
  uint64_t bytes_cached = 0;  // held in caches now (global pools; per-thread caches included)
};
EMBER_API CpuAllocatorStats cpu_allocator_stats();
EMBER_API void cpu_allocator_empty_cache();

// Note [Version counter lives in the storage]: in-place writes bump the storage's counter, so
// every view of the same memory sees the bump without a separate shared object per tensor.
class EMBER_API StorageImpl : public IntrusiveTarget {
 public:
  StorageImpl(DataPtr data, size_t nbytes, Allocator* allocator, bool resizable)
      : data_(data), nbytes_(nbytes), allocator_(allocator), resizable_(resizable) {}
  ~StorageImpl() override;
  void* data() const { return data_.ptr; }
  const DataPtr& data_ptr() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device; }
  Allocator* allocator() const { return allocator_; }
  bool resizable() const { return resizable_; }
  // Replaces the memory (resize_); the old block is freed.
  void set_data(DataPtr d, size_t nbytes);
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  DataPtr data_;
  size_t nbytes_;
  Allocator* allocator_;
  bool resizable_;
  std::atomic<uint64_t> version_{0};
};

using Storage = IntrusivePtr<StorageImpl>;

// Allocates nbytes on device `d` with its registered allocator.
EMBER_API Storage make_storage(size_t nbytes, Device d);

}  // namespace ember
