// See Note [GPU caching allocator] in CachingAllocator.h.
#include "CachingAllocator.h"

#include <algorithm>
#include <unordered_set>

#include "ember/core/Exception.h"

namespace ember::gpu {

struct CachingAllocator::Block {
  int device;
  StreamId stream;
  size_t size;           // bytes of this block (rounded)
  size_t requested = 0;  // what the caller asked for, while allocated
  char* ptr;
  bool small;  // from the small pool
  bool allocated = false;
  int pending_events = 0;  // > 0: freed, waiting for other streams
  Block* prev = nullptr;   // neighbours in the same segment
  Block* next = nullptr;
  std::unordered_set<StreamId> stream_uses;

  Block(int d, StreamId s, size_t n, char* p, bool sm) : device(d), stream(s), size(n), ptr(p), small(sm) {}
  bool is_split() const { return prev != nullptr || next != nullptr; }
  bool free_in_pool() const { return !allocated && pending_events == 0; }
};

// Best fit within one stream: by stream, then size, then address.
bool CachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return a->ptr < b->ptr;
}

namespace {

void add(MemoryStat& s, int64_t n) {
  s.current += n;
  s.peak = std::max(s.peak, s.current);
  if (n > 0)
    s.allocated += n;
  else
    s.freed -= n;
}

std::string format_bytes(size_t n) {
  const double v = static_cast<double>(n);
  if (n < (size_t{1} << 10)) return fmt::format("{} bytes", n);
  if (n < (size_t{1} << 20)) return fmt::format("{:.2f} KiB", v / 1024.0);
  if (n < (size_t{1} << 30)) return fmt::format("{:.2f} MiB", v / 1048576.0);
  return fmt::format("{:.2f} GiB", v / 1073741824.0);
}

}  // namespace

CachingAllocator::CachingAllocator(DeviceMemory& memory, int num_devices, std::string label)
    : memory_(memory), label_(std::move(label)) {
  devices_.reserve(static_cast<size_t>(std::max(num_devices, 0)));
  for (int i = 0; i < num_devices; ++i) devices_.push_back(std::make_unique<DeviceState>());
}

CachingAllocator::~CachingAllocator() {
  // Blocks still allocated belong to tensors that outlive the allocator (process exit); their
  // memory goes with the device context. The cached ones are simply forgotten.
  for (auto& d : devices_) {
    std::set<Block*> all;
    for (Pool* p : {&d->small, &d->large})
      for (Block* b : *p) all.insert(b);
    for (auto& [ev, b] : d->pending) all.insert(b);
    for (Block* b : all) delete b;
  }
}

size_t CachingAllocator::round_size(size_t bytes) {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((bytes + kMinBlockSize - 1) / kMinBlockSize);
}

size_t CachingAllocator::segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

CachingAllocator::DeviceState& CachingAllocator::state(int device) const {
  EMBER_CHECK_INDEX(device >= 0 && device < num_devices(), "[{} allocator] device index {} is out of range ({} {})",
                    label_, device, num_devices(), num_devices() == 1 ? "device" : "devices");
  return *devices_[static_cast<size_t>(device)];
}

void* CachingAllocator::ptr(const Block* block) { return block->ptr; }
int CachingAllocator::device(const Block* block) { return block->device; }

// Blocks whose events have all completed go back to their pools.
void CachingAllocator::process_events(DeviceState& s) {
  auto done = std::stable_partition(s.pending.begin(), s.pending.end(),
                                    [&](const std::pair<void*, Block*>& p) { return !memory_.event_done(p.first); });
  for (auto it = done; it != s.pending.end(); ++it) {
    memory_.destroy_event(it->first);
    if (--it->second->pending_events == 0) free_block(s, it->second);
  }
  s.pending.erase(done, s.pending.end());
}

CachingAllocator::Block* CachingAllocator::malloc(int device, size_t bytes, StreamId stream) {
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.pending.empty()) process_events(s);
  const size_t size = round_size(bytes);
  const bool small = size <= kSmallSize;
  Pool& pool = small ? s.small : s.large;

  Block key(device, stream, size, nullptr, small);
  Block* block = nullptr;
  if (auto it = pool.lower_bound(&key); it != pool.end() && (*it)->stream == stream) {
    block = *it;
    pool.erase(it);
  } else {
    const size_t seg = segment_size(size);
    void* p = memory_.malloc(device, seg);
    if (p == nullptr) {
      ++s.stats.num_alloc_retries;
      release_cached(device, s);
      p = memory_.malloc(device, seg);
    }
    if (p == nullptr) throw_oom(device, s, bytes);
    ++s.stats.num_device_alloc;
    add(s.stats.reserved_bytes, static_cast<int64_t>(seg));
    add(s.stats.segment, 1);
    block = new Block(device, stream, seg, static_cast<char*>(p), small);
  }

  // Split off the rest when it is worth keeping.
  const size_t rest = block->size - size;
  if (small ? rest >= kMinBlockSize : rest > kSmallSize) {
    auto* r = new Block(device, stream, rest, block->ptr + size, small);
    r->prev = block;
    r->next = block->next;
    if (r->next) r->next->prev = r;
    block->next = r;
    block->size = size;
    pool.insert(r);
  }
  block->allocated = true;
  block->requested = bytes;
  add(s.stats.allocated_bytes, static_cast<int64_t>(block->size));
  add(s.stats.requested_bytes, static_cast<int64_t>(bytes));
  add(s.stats.allocation, 1);
  return block;
}

void CachingAllocator::free(Block* block) {
  DeviceState& s = state(block->device);
  std::lock_guard<std::mutex> lock(s.mu);
  block->allocated = false;
  add(s.stats.allocated_bytes, -static_cast<int64_t>(block->size));
  add(s.stats.requested_bytes, -static_cast<int64_t>(block->requested));
  add(s.stats.allocation, -1);
  block->requested = 0;
  if (!block->stream_uses.empty()) {
    for (StreamId other : block->stream_uses) {
      s.pending.emplace_back(memory_.record_event(block->device, other), block);
      ++block->pending_events;
    }
    block->stream_uses.clear();
    return;
  }
  free_block(s, block);
}

// Merges a free block with its free neighbours and puts it in its pool.
void CachingAllocator::free_block(DeviceState& s, Block* b) {
  Pool& pool = b->small ? s.small : s.large;
  if (Block* p = b->prev; p && p->free_in_pool()) {
    pool.erase(p);
    p->size += b->size;
    p->next = b->next;
    if (p->next) p->next->prev = p;
    delete b;
    b = p;
  }
  if (Block* n = b->next; n && n->free_in_pool()) {
    pool.erase(n);
    b->size += n->size;
    b->next = n->next;
    if (b->next) b->next->prev = b;
    delete n;
  }
  pool.insert(b);
}

void CachingAllocator::release_cached(int device, DeviceState& s) {
  memory_.synchronize(device);
  process_events(s);  // all complete now
  for (Pool* pool : {&s.small, &s.large}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->is_split()) {
        ++it;
        continue;
      }
      memory_.free(device, b->ptr);
      ++s.stats.num_device_free;
      add(s.stats.reserved_bytes, -static_cast<int64_t>(b->size));
      add(s.stats.segment, -1);
      it = pool->erase(it);
      delete b;
    }
  }
}

void CachingAllocator::throw_oom(int device, DeviceState& s, size_t bytes) {
  ++s.stats.num_ooms;
  const auto [free_bytes, total] = memory_.mem_info(device);
  EMBER_THROW(OutOfMemoryError,
              "{} out of memory. Tried to allocate {}. {} device {} has a total capacity of {} of which {} is "
              "free. Of the memory in use, {} is allocated by Ember and {} is reserved by Ember but unallocated "
              "(the cache was emptied and the allocation retried once).",
              label_, format_bytes(bytes), label_, device, format_bytes(total), format_bytes(free_bytes),
              format_bytes(static_cast<size_t>(s.stats.allocated_bytes.current)),
              format_bytes(static_cast<size_t>(s.stats.reserved_bytes.current - s.stats.allocated_bytes.current)));
}

void CachingAllocator::record_stream(Block* block, StreamId stream) {
  DeviceState& s = state(block->device);
  std::lock_guard<std::mutex> lock(s.mu);
  if (stream != block->stream) block->stream_uses.insert(stream);
}

void CachingAllocator::empty_cache() {
  for (int d = 0; d < num_devices(); ++d) {
    DeviceState& s = *devices_[static_cast<size_t>(d)];
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.stats.segment.current > 0 || !s.pending.empty()) release_cached(d, s);
  }
}

DeviceMemoryStats CachingAllocator::stats(int device) const {
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mu);
  return s.stats;
}

void CachingAllocator::reset_peak_stats(int device) {
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mu);
  for (MemoryStat* m : {&s.stats.allocated_bytes, &s.stats.reserved_bytes, &s.stats.requested_bytes,
                        &s.stats.allocation, &s.stats.segment})
    m->peak = m->current;
}

// ---- pinned host memory (Note [Pinned host cache]) ------------------------------------------------

struct HostCachingAllocator::Block {
  Block(size_t n, char* p) : size(n), ptr(p) {}
  size_t size;  // rounded
  char* ptr;
  bool allocated = false;
  int pending_events = 0;                   // > 0: freed, waiting for streams
  std::set<std::pair<int, StreamId>> uses;  // (device, stream) of recorded work, while allocated
};

bool HostCachingAllocator::BySize::operator()(const Block* a, const Block* b) const {
  if (a->size != b->size) return a->size < b->size;
  return a->ptr < b->ptr;
}

HostCachingAllocator::HostCachingAllocator(DeviceMemory& memory, std::string label)
    : memory_(memory), label_(std::move(label)) {}

HostCachingAllocator::~HostCachingAllocator() {
  // As the device cache: blocks of tensors that outlive it go with the process.
  for (auto& [p, b] : blocks_) delete b;
}

size_t HostCachingAllocator::round_size(size_t bytes) {
  size_t n = kMinBlockSize;
  while (n < bytes) n <<= 1;
  return n;
}

void* HostCachingAllocator::ptr(const Block* block) { return block->ptr; }

void HostCachingAllocator::process_events() {
  auto done = std::remove_if(pending_.begin(), pending_.end(), [&](const std::pair<void*, Block*>& e) {
    if (!memory_.event_done(e.first)) return false;
    memory_.destroy_event(e.first);
    if (--e.second->pending_events == 0) free_.insert(e.second);
    return true;
  });
  pending_.erase(done, pending_.end());
}

void HostCachingAllocator::release_cached() {
  for (Block* b : free_) {
    memory_.host_free(b->ptr);
    ++stats_.num_host_free;
    add(stats_.reserved_bytes, -static_cast<int64_t>(b->size));
    blocks_.erase(b->ptr);
    delete b;
  }
  free_.clear();
}

HostCachingAllocator::Block* HostCachingAllocator::malloc(size_t bytes) {
  const size_t size = round_size(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  process_events();
  Block key(size, nullptr);
  Block* b = nullptr;
  if (auto it = free_.lower_bound(&key); it != free_.end() && (*it)->size == size) {
    b = *it;
    free_.erase(it);
  } else {
    void* p = memory_.host_malloc(size);
    ++stats_.num_host_alloc;
    if (p == nullptr) {
      release_cached();
      p = memory_.host_malloc(size);
      ++stats_.num_host_alloc;
    }
    if (p == nullptr)
      EMBER_THROW(OutOfMemoryError,
                  "{} out of pinned host memory. Tried to allocate {} (page-locked). Ember holds {} of pinned "
                  "memory, {} of it in tensors (the cache was emptied and the allocation retried once).",
                  label_, format_bytes(size), format_bytes(static_cast<size_t>(stats_.reserved_bytes.current)),
                  format_bytes(static_cast<size_t>(stats_.allocated_bytes.current)));
    b = new Block(size, static_cast<char*>(p));
    blocks_.emplace(b->ptr, b);
    add(stats_.reserved_bytes, static_cast<int64_t>(size));
  }
  b->allocated = true;
  add(stats_.allocated_bytes, static_cast<int64_t>(size));
  add(stats_.allocation, 1);
  return b;
}

void HostCachingAllocator::free(Block* b) {
  std::lock_guard<std::mutex> lock(mu_);
  b->allocated = false;
  add(stats_.allocated_bytes, -static_cast<int64_t>(b->size));
  add(stats_.allocation, -1);
  for (const auto& [device, stream] : b->uses) {
    pending_.emplace_back(memory_.record_event(device, stream), b);
    ++b->pending_events;
  }
  b->uses.clear();
  if (b->pending_events == 0) free_.insert(b);
}

void HostCachingAllocator::record_stream(Block* b, int device, StreamId stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (b->allocated) b->uses.emplace(device, stream);
}

bool HostCachingAllocator::contains(const void* p) const {
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.upper_bound(c);
  if (it == blocks_.begin()) return false;
  --it;
  return c < it->first + it->second->size;
}

void HostCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  process_events();
  release_cached();
}

HostMemoryStats HostCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void HostCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  for (MemoryStat* m : {&stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.allocation}) m->peak = m->current;
}

}  // namespace ember::gpu
