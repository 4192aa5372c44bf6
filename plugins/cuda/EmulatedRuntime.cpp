// The emulated CUDA runtime of the cuda-emulated test plugin (Note [The emulated cuda plugin] in
// EmulatedRuntime.h): devices are counters, device memory is host memory with a per-device
// budget, and every launch and copy has completed when its call returns, so streams and events
// only keep order trivially and record times.
#include "EmulatedRuntime.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace {

struct State {
  int devices = 1;
  size_t budget = size_t{8} << 30;  // bytes per device
  std::mutex mu;
  std::map<const char*, std::pair<int, size_t>> blocks;  // pointer -> (device, bytes)
  std::vector<size_t> used;
};

size_t env_size(const char* name, size_t fallback) {
  const char* e = std::getenv(name);
  if (e == nullptr || *e == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(e, &end, 10);
  return end != nullptr && *end == '\0' ? static_cast<size_t>(v) : fallback;
}

State& state() {
  static State* s = [] {
    auto* r = new State();  // never destroyed: memory may be freed during exit
    r->devices = static_cast<int>(std::min<size_t>(env_size("EMBER_CUDA_EMULATED_DEVICES", 1), 64));
    r->budget = env_size("EMBER_CUDA_EMULATED_MEMORY", r->budget);
    r->used.assign(static_cast<size_t>(r->devices), 0);
    return r;
  }();
  return *s;
}

thread_local int t_device = 0;
thread_local cudaError_t t_last = cudaSuccess;

cudaError_t fail(cudaError_t e) {
  t_last = e;
  return e;
}

// The device whose allocation holds all of [p, p + n), or -1 when none does (host memory, or a
// range that runs past its block). The copies check their pointers with it, as a real device
// would fault on them, so that a host pointer passed as a device one is caught here too.
int device_of(const void* p, size_t n) {
  State& s = state();
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.blocks.upper_bound(c);
  if (it == s.blocks.begin()) return -1;
  --it;
  const size_t off = static_cast<size_t>(c - it->first);
  return off < std::max<size_t>(it->second.second, 1) && n <= it->second.second - off ? it->second.first : -1;
}

bool is_device(const void* p, size_t n) { return device_of(p, n) >= 0; }
// Host memory: no part of it is a device allocation.
bool is_host(const void* p, size_t n) {
  return device_of(p, 1) < 0 && device_of(static_cast<const char*>(p) + n - 1, 1) < 0;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct EmulatedEvent {
  unsigned flags = 0;
  bool recorded = false;
  double ms = 0;
};

cudaError_t cudaGetDeviceCount(int* count) {
  *count = state().devices;
  return state().devices == 0 ? fail(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = t_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= state().devices) return fail(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device < 0 || device >= state().devices) return fail(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  std::strncpy(prop->name, "Ember emulated CUDA device (host threads)", sizeof(prop->name) - 1);
  prop->totalGlobalMem = state().budget;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 1;
  prop->maxThreadsPerBlock = 1024;
  prop->warpSize = 32;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

cudaError_t cudaGetLastError() {
  const cudaError_t e = t_last;
  t_last = cudaSuccess;
  return e;
}

const char* cudaGetErrorName(cudaError_t err) {
  switch (err) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t err) {
  switch (err) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected (emulated: EMBER_CUDA_EMULATED_DEVICES=0)";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
  }
  return "unknown error";
}

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  State& s = state();
  *ptr = nullptr;
  std::lock_guard<std::mutex> lock(s.mu);
  size_t& used = s.used[static_cast<size_t>(t_device)];
  if (bytes > s.budget - used) return fail(cudaErrorMemoryAllocation);
  // 256-byte alignment, as cudaMalloc's.
  void* p = ::operator new (std::max<size_t>(bytes, 1), std::align_val_t{256}, std::nothrow);
  if (p == nullptr) return fail(cudaErrorMemoryAllocation);
  s.blocks.emplace(static_cast<const char*>(p), std::make_pair(t_device, bytes));
  used += bytes;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.blocks.find(static_cast<const char*>(ptr));
  if (it == s.blocks.end()) return fail(cudaErrorInvalidValue);
  s.used[static_cast<size_t>(it->second.first)] -= it->second.second;
  s.blocks.erase(it);
  ::operator delete (ptr, std::align_val_t{256});
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned) {
  *ptr = ::operator new (std::max<size_t>(bytes, 1), std::align_val_t{4096}, std::nothrow);
  return *ptr == nullptr ? fail(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  ::operator delete (ptr, std::align_val_t{4096});
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  *total = s.budget;
  *free_bytes = s.budget - s.used[static_cast<size_t>(t_device)];
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  if (bytes == 0) return cudaSuccess;
  const bool ok = kind == cudaMemcpyHostToDevice     ? is_device(dst, bytes) && is_host(src, bytes)
                  : kind == cudaMemcpyDeviceToHost   ? is_host(dst, bytes) && is_device(src, bytes)
                  : kind == cudaMemcpyDeviceToDevice ? is_device(dst, bytes) && is_device(src, bytes)
                                                     : true;
  if (!ok) return fail(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                                cudaStream_t) {
  if (bytes == 0) return cudaSuccess;
  if (device_of(dst, bytes) != dst_device || device_of(src, bytes) != src_device) return fail(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t) {
  if (bytes == 0) return cudaSuccess;
  if (!is_device(ptr, bytes)) return fail(cudaErrorInvalidValue);
  std::memset(ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = 0;
  *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned, int) {
  // A distinct, never-dereferenced handle per stream (aligned: stream ids must not collide with pool ids).
  *stream = ::operator new (64, std::align_val_t{64});
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  *event = new EmulatedEvent{flags, false, 0};
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (event == nullptr) return fail(cudaErrorInvalidResourceHandle);
  event->recorded = true;
  event->ms = now_ms();
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return event == nullptr ? fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) { return cudaEventQuery(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (start == nullptr || end == nullptr) return fail(cudaErrorInvalidResourceHandle);
  // As CUDA: events made with cudaEventDisableTiming, or not recorded, have no time.
  if ((start->flags & cudaEventDisableTiming) || (end->flags & cudaEventDisableTiming))
    return fail(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return fail(cudaErrorInvalidResourceHandle);
  *ms = static_cast<float>(end->ms - start->ms);
  return cudaSuccess;
}
