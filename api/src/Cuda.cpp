// ember::cuda: LibTorch's CUDA C++ spellings over core's device seams (see ember/cuda.h). No CUDA
// code here: the cuda plugin registers kCUDA's DeviceGuardImpl and DeviceAllocator.
#include "ember/cuda.h"

#include <atomic>

#include "ember/dispatcher/Plugins.h"

namespace ember::cuda {
namespace {

const impl::DeviceGuardImplInterface* guard_impl() { return impl::getDeviceGuardImpl(kCUDA); }

// The plugin's allocator, with the error a missing plugin deserves.
DeviceAllocator& allocator() {
  auto* a = dynamic_cast<DeviceAllocator*>(get_allocator(kCUDA));
  EMBER_CHECK(a != nullptr, "[CUDACachingAllocator] the allocator registered for cuda is not a caching one");
  return *a;
}

Device cuda_device(DeviceIndex index) { return Device(kCUDA, index); }

void check_cuda(const char* what, Device d) {
  EMBER_CHECK(d.type() == kCUDA, "[{}] expected a CUDA device, got {}", what, d);
}

}  // namespace

namespace {
std::atomic<bool> g_allow_tf32{false};
}  // namespace

void setAllowTF32CuBLAS(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool allowTF32CuBLAS() { return g_allow_tf32.load(std::memory_order_relaxed); }

bool is_available() { return device_count() > 0; }

int64_t device_count() {
  if (!impl::hasDeviceGuardImpl(kCUDA) && !plugins::is_loaded("cuda")) {
    // Loaded on first ask when installed, as LibTorch's CUDA library is linked in; not an error
    // when it is not.
    try {
      plugins::load("cuda");
    } catch (const plugins::PluginError& e) {
      if (e.kind() != plugins::PluginErrorKind::NotFound) throw;
      return 0;
    }
  }
  return impl::hasDeviceGuardImpl(kCUDA) ? guard_impl()->deviceCount() : 0;
}

void synchronize(int64_t device_index) { guard_impl()->synchronizeDevice(static_cast<DeviceIndex>(device_index)); }

DeviceIndex current_device() { return guard_impl()->getDevice().index(); }
void set_device(DeviceIndex device) { guard_impl()->setDevice(cuda_device(device)); }

// ---- streams ------------------------------------------------------------------------------------

CUDAStream::CUDAStream(Stream stream) : stream_(stream) {
  EMBER_CHECK(stream.device_type() == kCUDA, "[CUDAStream] expected a CUDA stream, got stream {} on {}", stream.id(),
              stream.device());
}

cudaStream_t CUDAStream::stream() const { return static_cast<cudaStream_t>(guard_impl()->nativeStream(stream_)); }

CUDAStream getStreamFromPool(bool isHighPriority, DeviceIndex device) {
  return CUDAStream(guard_impl()->getStreamFromGlobalPool(cuda_device(device), isHighPriority));
}
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device) {
  return CUDAStream(guard_impl()->getStreamFromExternal(ext_stream, device));
}
CUDAStream getDefaultCUDAStream(DeviceIndex device) { return CUDAStream(default_stream(cuda_device(device))); }
CUDAStream getCurrentCUDAStream(DeviceIndex device) { return CUDAStream(current_stream(cuda_device(device))); }
void setCurrentCUDAStream(CUDAStream stream) { set_current_stream(stream); }

// ---- guards -------------------------------------------------------------------------------------

CUDAGuard::CUDAGuard(DeviceIndex device) : guard_(cuda_device(device)) {}
CUDAGuard::CUDAGuard(Device device) : guard_((check_cuda("CUDAGuard", device), device)) {}
void CUDAGuard::set_device(Device device) {
  check_cuda("CUDAGuard::set_device", device);
  guard_.reset_device(device);
}

OptionalCUDAGuard::OptionalCUDAGuard(std::optional<Device> device) {
  if (device) set_device(*device);
}
OptionalCUDAGuard::OptionalCUDAGuard(std::optional<DeviceIndex> device) {
  if (device) set_device(cuda_device(*device));
}
void OptionalCUDAGuard::set_device(Device device) {
  check_cuda("OptionalCUDAGuard::set_device", device);
  guard_.reset_device(device);
}

CUDAStreamGuard::CUDAStreamGuard(Stream stream) : guard_((CUDAStream(stream), stream)) {}
void CUDAStreamGuard::reset_stream(Stream stream) { guard_.reset_stream(CUDAStream(stream)); }

CUDAMultiStreamGuard::CUDAMultiStreamGuard(ArrayRef<CUDAStream> streams) {
  originals_.reserve(streams.size());
  for (const CUDAStream& s : streams) {
    originals_.push_back(current_stream(s.device()));
    set_current_stream(s);
  }
}
CUDAMultiStreamGuard::~CUDAMultiStreamGuard() {
  for (auto it = originals_.rbegin(); it != originals_.rend(); ++it) set_current_stream(*it);
}

// ---- events -------------------------------------------------------------------------------------

CUDAEvent::CUDAEvent(unsigned flags)
    : event_(kCUDA, (flags & kDisableTiming) ? EventFlag::CUDA_EVENT_DISABLE_TIMING : EventFlag::CUDA_EVENT_DEFAULT) {}
void CUDAEvent::record() { event_.record(current_stream(Device(kCUDA, -1))); }
void CUDAEvent::record(const CUDAStream& stream) { event_.record(stream); }

// ---- the caching allocator ----------------------------------------------------------------------

namespace CUDACachingAllocator {
void emptyCache() {
  if (impl::hasDeviceGuardImpl(kCUDA)) allocator().empty_cache();  // nothing to do without a plugin
}
DeviceMemoryStats getDeviceStats(DeviceIndex device) { return allocator().stats(device); }
void resetPeakStats(DeviceIndex device) { allocator().reset_peak_stats(device); }
void recordStream(const DataPtr& data, CUDAStream stream) { allocator().record_stream(data, stream); }
}  // namespace CUDACachingAllocator

// ---- pinned host memory -------------------------------------------------------------------------

HostAllocator* getCachingHostAllocator() { return host_allocator_for(Device(kCUDA), "CachingHostAllocator"); }
HostAllocator* getPinnedMemoryAllocator() { return getCachingHostAllocator(); }
bool CachingHostAllocator_recordEvent(const DataPtr& data, CUDAStream stream) {
  return getCachingHostAllocator()->record_stream(data, stream);
}
void CachingHostAllocator_emptyCache() {
  if (HostAllocator* a = find_host_allocator(kCUDA)) a->empty_cache();
}
HostMemoryStats CachingHostAllocator_getStats() { return getCachingHostAllocator()->stats(); }
void CachingHostAllocator_resetPeakStats() { getCachingHostAllocator()->reset_peak_stats(); }

void record_stream(const Tensor& tensor, CUDAStream stream) {
  EMBER_CHECK(tensor.defined() && tensor.is_cuda() && tensor.unsafeGetTensorImpl()->has_storage(),
              "[record_stream] expected a CUDA tensor with storage");
  CUDACachingAllocator::recordStream(tensor.unsafeGetTensorImpl()->storage()->data_ptr(), stream);
}

int64_t memory_allocated(DeviceIndex device) { return allocator().stats(device).allocated_bytes.current; }
int64_t memory_reserved(DeviceIndex device) { return allocator().stats(device).reserved_bytes.current; }
int64_t max_memory_allocated(DeviceIndex device) { return allocator().stats(device).allocated_bytes.peak; }

}  // namespace ember::cuda
