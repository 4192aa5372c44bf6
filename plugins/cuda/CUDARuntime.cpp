// Devices, errors, streams, events and the device allocator of the cuda plugin (see Note [No
// CUDA device] in CUDARuntime.h and Note [Device guards and streams] in
// ember/core/DeviceGuardImpl.h).
#include "CUDARuntime.h"

#include <array>
#include <atomic>
#include <mutex>

#include "CUDAPlugin.h"
#include "CachingAllocator.h"
#include "ember/core/Allocator.h"
#include "ember/core/DeviceGuard.h"

namespace ember::EMBER_GPU_NS::impl {

// ---- devices and errors ------------------------------------------------------------------------

namespace {

struct DeviceInfo {
  int count = 0;
  std::string reason;
  std::array<cudaDeviceProp, kMaxDevices> props{};
  std::array<std::once_flag, kMaxDevices> props_once;
};

DeviceInfo& info() {
  static DeviceInfo* d = [] {
    auto* r = new DeviceInfo();  // never destroyed: kernels may run during exit
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      r->reason =
          fmt::format("{}GetDeviceCount failed: {} ({})", gpu::kGpuApi, cudaGetErrorString(err), cudaGetErrorName(err));
      (void)cudaGetLastError();  // not sticky; clear it for later calls
    } else if (n == 0) {
      r->reason = fmt::format("{}GetDeviceCount found no device", gpu::kGpuApi);
    } else {
      r->count = std::min(n, kMaxDevices);
    }
    return r;
  }();
  return *d;
}

// Sets the current device for a scope when it differs.
class DeviceSwitch {
 public:
  explicit DeviceSwitch(int device) {
    EMBER_CUDA_CHECK(cudaGetDevice(&prev_));
    if (prev_ != device)
      EMBER_CUDA_CHECK(cudaSetDevice(device));
    else
      prev_ = -1;
  }
  ~DeviceSwitch() {
    if (prev_ >= 0) (void)cudaSetDevice(prev_);
  }
  DeviceSwitch(const DeviceSwitch&) = delete;
  DeviceSwitch& operator=(const DeviceSwitch&) = delete;

 private:
  int prev_ = -1;
};

}  // namespace

int device_count() noexcept {
  try {
    return info().count;
  } catch (...) {
    return 0;
  }
}

const std::string& unavailable_reason() { return info().reason; }

void check_device(const char* op, DeviceIndex index) {
  const int n = device_count();
  if (EMBER_UNLIKELY(n == 0))
    EMBER_THROW(Error, "[{}] no {} device is available: {}", op, gpu::kGpuLabel, unavailable_reason());
  EMBER_CHECK_INDEX(index >= -1 && index < n, "[{}] {} device index {} is out of range: {} {} available", op,
                    gpu::kGpuLabel, index, n, n == 1 ? "device is" : "devices are");
}

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  (void)cudaGetLastError();
  EMBER_THROW(Error, "{} error {}: {} (in {} at {}:{})", gpu::kGpuLabel, cudaGetErrorName(err), cudaGetErrorString(err),
              call, file, line);
}

DeviceIndex current_device() {
  check_device("current_device", -1);
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return static_cast<DeviceIndex>(d);
}

void set_device(DeviceIndex index) {
  check_device("set_device", index);
  if (index >= 0) EMBER_CUDA_CHECK(cudaSetDevice(index));
}

const cudaDeviceProp& properties(DeviceIndex index) {
  check_device("get_device_properties", index);
  const int d = index < 0 ? current_device() : index;
  DeviceInfo& i = info();
  std::call_once(i.props_once[static_cast<size_t>(d)],
                 [&] { EMBER_CUDA_CHECK(cudaGetDeviceProperties(&i.props[static_cast<size_t>(d)], d)); });
  return i.props[static_cast<size_t>(d)];
}

namespace {
// Whether work before an event / on a stream is done: cudaErrorNotReady is an answer, not an error.
bool is_done(cudaError_t err) {
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}
}  // namespace

// ---- streams ------------------------------------------------------------------------------------

namespace {

constexpr int kStreamsPerPool = 32;
constexpr StreamId kFirstExternal = 1 + 2 * kStreamsPerPool;

struct DeviceStreams {
  std::once_flag once;
  std::array<cudaStream_t, kStreamsPerPool> low{}, high{};
  std::atomic<uint32_t> next_low{0}, next_high{0};
};

DeviceStreams& streams(int device) {
  static auto* all = new std::array<DeviceStreams, kMaxDevices>();  // never destroyed
  DeviceStreams& s = (*all)[static_cast<size_t>(device)];
  std::call_once(s.once, [&] {
    DeviceSwitch sw(device);
    int least = 0, greatest = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (int i = 0; i < kStreamsPerPool; ++i) {
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&s.low[static_cast<size_t>(i)], cudaStreamNonBlocking, least));
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&s.high[static_cast<size_t>(i)], cudaStreamNonBlocking, greatest));
    }
  });
  return s;
}

// The thread's current stream id per device (0, the default stream, until set).
thread_local std::array<StreamId, kMaxDevices> t_current{};

int resolve(DeviceIndex index) { return index < 0 ? current_device() : index; }

}  // namespace

cudaStream_t native(const Stream& s) {
  const StreamId id = s.id();
  if (id == 0) return nullptr;  // the legacy default stream
  if (id >= kFirstExternal) return reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(id));
  DeviceStreams& ds = streams(s.device_index());
  return id <= kStreamsPerPool ? ds.low[static_cast<size_t>(id - 1)]
                               : ds.high[static_cast<size_t>(id - 1 - kStreamsPerPool)];
}

Stream current_stream(DeviceIndex index) {
  const int d = resolve(index);
  return Stream(Stream::UNSAFE, Device(gpu::kGpuDevice, static_cast<DeviceIndex>(d)),
                t_current[static_cast<size_t>(d)]);
}

cudaStream_t current_native_stream(DeviceIndex index) { return native(current_stream(index)); }

// ---- the DeviceGuardImpl ------------------------------------------------------------------------

namespace {

unsigned event_flags(EventFlag flag) {
  switch (flag) {
    case EventFlag::PYTORCH_DEFAULT:
    case EventFlag::CUDA_EVENT_DISABLE_TIMING:
      return cudaEventDisableTiming;
    case EventFlag::BACKEND_DEFAULT:
    case EventFlag::CUDA_EVENT_DEFAULT:
      return cudaEventDefault;
    default:
      EMBER_THROW(ValueError, "[Event] event flag {} is not a {} one", static_cast<int>(flag), gpu::kGpuLabel);
  }
}

class CUDAGuardImpl final : public ember::impl::DeviceGuardImplInterface {
 public:
  DeviceType type() const override { return gpu::kGpuDevice; }
  Device exchangeDevice(Device d) const override {
    const Device old = getDevice();
    if (d.index() >= 0 && d.index() != old.index()) setDevice(d);
    return old;
  }
  Device getDevice() const override { return Device(gpu::kGpuDevice, current_device()); }
  void setDevice(Device d) const override { set_device(d.index()); }
  void uncheckedSetDevice(Device d) const noexcept override {
    if (d.index() >= 0) (void)cudaSetDevice(d.index());
  }
  Stream getStream(Device d) const noexcept override {
    try {
      return current_stream(d.index());
    } catch (...) {
      return Stream(Stream::DEFAULT, Device(gpu::kGpuDevice, d.index() < 0 ? 0 : d.index()));
    }
  }
  Stream getDefaultStream(Device d) const override {
    return Stream(Stream::DEFAULT, Device(gpu::kGpuDevice, static_cast<DeviceIndex>(resolve(d.index()))));
  }
  Stream getStreamFromGlobalPool(Device d, bool high) const override {
    const int dev = resolve(d.index());
    DeviceStreams& s = streams(dev);
    const uint32_t i = (high ? s.next_high : s.next_low).fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
    return Stream(Stream::UNSAFE, Device(gpu::kGpuDevice, static_cast<DeviceIndex>(dev)),
                  StreamId{1} + static_cast<StreamId>(i) + (high ? kStreamsPerPool : 0));
  }
  Stream exchangeStream(Stream s) const noexcept override {
    const size_t d = static_cast<size_t>(s.device_index());
    const Stream old(Stream::UNSAFE, s.device(), t_current[d]);
    t_current[d] = s.id();
    return old;
  }
  DeviceIndex deviceCount() const noexcept override { return static_cast<DeviceIndex>(device_count()); }

  void record(void** event, const Stream& stream, DeviceIndex device_index, EventFlag flag) const override {
    EMBER_CHECK(device_index < 0 || device_index == stream.device_index(),
                "[CUDAEvent::record] the event was made on device {} but the stream is on device {}", device_index,
                stream.device_index());
    DeviceSwitch sw(stream.device_index());
    if (*event == nullptr) {
      cudaEvent_t e = nullptr;
      EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, event_flags(flag)));
      *event = e;
    }
    EMBER_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(*event), native(stream)));
  }
  void block(void* event, const Stream& stream) const override {
    if (event == nullptr) return;
    DeviceSwitch sw(stream.device_index());
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(native(stream), static_cast<cudaEvent_t>(event), 0));
  }
  bool queryEvent(void* event) const override {
    return event == nullptr || is_done(cudaEventQuery(static_cast<cudaEvent_t>(event)));
  }
  void synchronizeEvent(void* event) const override {
    if (event != nullptr) EMBER_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
  }
  void destroyEvent(void* event, DeviceIndex) const noexcept override {
    if (event != nullptr) (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }
  bool queryStream(const Stream& stream) const override { return is_done(cudaStreamQuery(native(stream))); }
  void synchronizeStream(const Stream& stream) const override {
    DeviceSwitch sw(stream.device_index());
    EMBER_CUDA_CHECK(cudaStreamSynchronize(native(stream)));
  }
  void* nativeStream(const Stream& stream) const override { return native(stream); }
  Stream getStreamFromExternal(void* handle, DeviceIndex device_index) const override {
    const int dev = resolve(device_index);
    const auto id = static_cast<StreamId>(reinterpret_cast<intptr_t>(handle));
    if (id == 0) return Stream(Stream::DEFAULT, Device(gpu::kGpuDevice, static_cast<DeviceIndex>(dev)));
    EMBER_CHECK(id >= kFirstExternal, "[getStreamFromExternal] {} is not a {} stream handle", handle, gpu::kGpuLabel);
    return Stream(Stream::UNSAFE, Device(gpu::kGpuDevice, static_cast<DeviceIndex>(dev)), id);
  }
  double elapsedTime(void* start, void* end, DeviceIndex) const override {
    EMBER_CHECK(start != nullptr && end != nullptr,
                "[CUDAEvent::elapsed_time] both events must be recorded before measuring the time between them");
    float ms = 0;
    EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
    return ms;
  }
  void synchronizeDevice(DeviceIndex device_index) const override {
    DeviceSwitch sw(resolve(device_index));
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

// ---- the device allocator -----------------------------------------------------------------------

class CUDAMemory final : public gpu::DeviceMemory {
 public:
  void* malloc(int device, size_t bytes) override {
    DeviceSwitch sw(device);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }
  void free(int device, void* ptr) override {
    DeviceSwitch sw(device);
    EMBER_CUDA_CHECK(cudaFree(ptr));
  }
  void* record_event(int device, gpu::StreamId stream) override {
    DeviceSwitch sw(device);
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(
        e, native(Stream(Stream::UNSAFE, Device(gpu::kGpuDevice, static_cast<DeviceIndex>(device)), stream))));
    return e;
  }
  bool event_done(void* event) override { return is_done(cudaEventQuery(static_cast<cudaEvent_t>(event))); }
  void destroy_event(void* event) override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(event)); }
  void synchronize(int device) override {
    DeviceSwitch sw(device);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::pair<size_t, size_t> mem_info(int device) override {
    DeviceSwitch sw(device);
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) (void)cudaGetLastError();
    return {free_bytes, total};
  }
  void* host_malloc(size_t bytes) override {
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }
  void host_free(void* ptr) override { EMBER_CUDA_CHECK(cudaFreeHost(ptr)); }
};

CUDAMemory& memory() {
  static auto* m = new CUDAMemory();  // never destroyed: deleters may run at exit
  return *m;
}

class CUDAAllocator final : public DeviceAllocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    const DeviceIndex d = current_device();  // checks that there is a device
    if (nbytes == 0) return DataPtr{nullptr, nullptr, nullptr, Device(gpu::kGpuDevice, d)};
    auto* b = cache().malloc(d, nbytes, t_current[static_cast<size_t>(d)]);
    return DataPtr{gpu::CachingAllocator::ptr(b), b, &CUDAAllocator::deleter, Device(gpu::kGpuDevice, d)};
  }
  void empty_cache() override {
    if (device_count() > 0) cache().empty_cache();
  }
  DeviceMemoryStats stats(DeviceIndex device) const override {
    check_device("memory_stats", device);
    return cache().stats(resolve(device));
  }
  void reset_peak_stats(DeviceIndex device) override {
    check_device("reset_peak_memory_stats", device);
    cache().reset_peak_stats(resolve(device));
  }
  void record_stream(const DataPtr& data, const Stream& stream) override {
    if (data.ptr == nullptr) return;
    EMBER_CHECK(data.deleter == &CUDAAllocator::deleter,
                "[record_stream] the tensor's memory was not allocated by the {} caching allocator", gpu::kGpuLabel);
    EMBER_CHECK(stream.device_type() == gpu::kGpuDevice, "[record_stream] expected a {} stream, got one on {}",
                gpu::kGpuLabel, stream.device());
    cache().record_stream(static_cast<gpu::CachingAllocator::Block*>(data.ctx), stream.id());
  }

 private:
  static gpu::CachingAllocator& cache() {
    static auto* c = new gpu::CachingAllocator(memory(), device_count(), gpu::kGpuLabel);  // never destroyed
    return *c;
  }
  static void deleter(void*, void* ctx) { cache().free(static_cast<gpu::CachingAllocator::Block*>(ctx)); }
};

// Pinned host memory (Note [Pinned host memory], Note [Pinned host cache]): CPU tensors.
class CUDAHostAllocator final : public HostAllocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    check_device("pin_memory", -1);
    if (nbytes == 0) return DataPtr{nullptr, nullptr, nullptr, kCPU};
    auto* b = cache().malloc(nbytes);
    return DataPtr{gpu::HostCachingAllocator::ptr(b), b, &CUDAHostAllocator::deleter, kCPU};
  }
  bool is_pinned(const void* ptr) const override {
    return ptr != nullptr && device_count() > 0 && cache().contains(ptr);
  }
  bool record_stream(const DataPtr& data, const Stream& stream) override {
    if (data.ptr == nullptr || data.deleter != &CUDAHostAllocator::deleter) return false;
    EMBER_CHECK(stream.device_type() == gpu::kGpuDevice, "[record_stream] expected a {} stream, got one on {}",
                gpu::kGpuLabel, stream.device());
    cache().record_stream(static_cast<gpu::HostCachingAllocator::Block*>(data.ctx), stream.device_index(), stream.id());
    return true;
  }
  void empty_cache() override {
    if (device_count() > 0) cache().empty_cache();
  }
  HostMemoryStats stats() const override { return device_count() > 0 ? cache().stats() : HostMemoryStats{}; }
  void reset_peak_stats() override {
    if (device_count() > 0) cache().reset_peak_stats();
  }

 private:
  static gpu::HostCachingAllocator& cache() {
    static auto* c = new gpu::HostCachingAllocator(memory(), gpu::kGpuLabel);  // never destroyed
    return *c;
  }
  static void deleter(void*, void* ctx) { cache().free(static_cast<gpu::HostCachingAllocator::Block*>(ctx)); }
};

}  // namespace

void register_runtime() {
  static const CUDAGuardImpl guard;
  static CUDAAllocator allocator;
  static CUDAHostAllocator host_allocator;
  register_device_guard_impl(gpu::kGpuDevice, &guard);
  set_allocator(gpu::kGpuDevice, &allocator);
  set_host_allocator(gpu::kGpuDevice, &host_allocator);
  register_generator();
}

}  // namespace ember::EMBER_GPU_NS::impl
