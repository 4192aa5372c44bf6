#pragma once
// CUDA from C++ with LibTorch's spellings (torch::cuda, c10::cuda, at::cuda), in namespace
// ember::cuda: devices, streams, guards, events and the caching allocator's controls.
// Everything goes through core's device seams (Note [Device guards and streams] in
// ember/core/DeviceGuardImpl.h), so libember holds no CUDA code and links no CUDA library: the
// cuda plugin (libember-cuda.so) provides the device. Without the plugin, or without a usable
// GPU, is_available() is false and device_count() 0; the rest raises an error naming the cause.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "ember/core/Allocator.h"
#include "ember/core/DeviceGuard.h"
#include "ember/core/Event.h"
#include "ember/dispatcher/Tensor.h"

// The runtime's stream type, as cuda_runtime_api.h declares it (no CUDA header needed here).
struct CUstream_st;
using cudaStream_t = CUstream_st*;

namespace ember::cuda {

// Loads the cuda plugin when it is installed and not loaded yet; true when a device can be used
// (torch::cuda::is_available).
EMBER_API bool is_available();
// Usable CUDA devices; 0 without the plugin or a GPU (torch::cuda::device_count).
EMBER_API int64_t device_count();
// Waits for all work on the device (-1: the current one; torch::cuda::synchronize).
EMBER_API void synchronize(int64_t device_index = -1);
// The current device's index (c10::cuda::current_device).
EMBER_API DeviceIndex current_device();
EMBER_API void set_device(DeviceIndex device);

// Whether float32 matrix products may use TF32 tensor cores (at::globalContext()'s
// setAllowTF32CuBLAS; off by default, as PyTorch since 1.12).
EMBER_API void setAllowTF32CuBLAS(bool allow);
EMBER_API bool allowTF32CuBLAS();

// A stream of a CUDA device (c10::cuda::CUDAStream).
class EMBER_API CUDAStream {
 public:
  // Throws ValueError unless `stream` is a CUDA stream.
  explicit CUDAStream(Stream stream);
  operator Stream() const { return stream_; }  // NOLINT: implicit as c10's
  Stream unwrap() const { return stream_; }
  Device device() const { return stream_.device(); }
  DeviceIndex device_index() const { return stream_.device_index(); }
  StreamId id() const { return stream_.id(); }
  bool query() const { return stream_.query(); }
  void synchronize() const { stream_.synchronize(); }
  // The runtime's handle, for kernels and libraries of the caller's own.
  cudaStream_t stream() const;
  bool operator==(const CUDAStream& o) const { return stream_ == o.stream_; }
  bool operator!=(const CUDAStream& o) const { return !(*this == o); }

 private:
  Stream stream_;
};

// A stream of the device's pool, round robin (32 of each priority per device).
EMBER_API CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device = -1);
// A stream made outside Ember (it must outlive every use).
EMBER_API CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device);
EMBER_API CUDAStream getDefaultCUDAStream(DeviceIndex device = -1);
EMBER_API CUDAStream getCurrentCUDAStream(DeviceIndex device = -1);
// Makes `stream` its device's current stream on this thread (the current device is unchanged).
EMBER_API void setCurrentCUDAStream(CUDAStream stream);

// Sets the current CUDA device for the scope (c10::cuda::CUDAGuard).
class EMBER_API CUDAGuard {
 public:
  explicit CUDAGuard(DeviceIndex device);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  void set_device(Device device);
  void set_index(DeviceIndex index) { guard_.set_index(index); }
  Device original_device() const { return guard_.original_device(); }
  Device current_device() const { return guard_.current_device(); }

 private:
  DeviceGuard guard_;
};

// A CUDAGuard that may hold no device (c10::cuda::OptionalCUDAGuard).
class EMBER_API OptionalCUDAGuard {
 public:
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(std::optional<Device> device);
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> device);
  void set_device(Device device);
  void reset() { guard_.reset(); }
  std::optional<Device> original_device() const { return guard_.original_device(); }
  std::optional<Device> current_device() const { return guard_.current_device(); }

 private:
  OptionalDeviceGuard guard_;
};

// Sets the stream's device and makes the stream current for the scope (c10::cuda::CUDAStreamGuard).
class EMBER_API CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(Stream stream);
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  void reset_stream(Stream stream);
  CUDAStream original_stream() const { return CUDAStream(guard_.original_stream()); }
  CUDAStream current_stream() const { return CUDAStream(guard_.current_stream()); }
  Device original_device() const { return guard_.original_device(); }
  Device current_device() const { return guard_.current_device(); }

 private:
  StreamGuard guard_;
};

// Makes each stream current on its device for the scope and restores the previous ones; the
// current device is unchanged (c10::cuda::CUDAMultiStreamGuard).
class EMBER_API CUDAMultiStreamGuard {
 public:
  explicit CUDAMultiStreamGuard(ArrayRef<CUDAStream> streams);
  CUDAMultiStreamGuard(std::initializer_list<CUDAStream> streams)
      : CUDAMultiStreamGuard(ArrayRef<CUDAStream>(streams.begin(), streams.size())) {}
  ~CUDAMultiStreamGuard();
  CUDAMultiStreamGuard(const CUDAMultiStreamGuard&) = delete;
  CUDAMultiStreamGuard& operator=(const CUDAMultiStreamGuard&) = delete;

 private:
  std::vector<Stream> originals_;
};

// A CUDA event (at::cuda::CUDAEvent). `flags` as cudaEventCreateWithFlags's: the default
// disables timing (cudaEventDisableTiming, 2); 0 (cudaEventDefault) records times for
// elapsed_time.
class EMBER_API CUDAEvent {
 public:
  static constexpr unsigned kDisableTiming = 2;
  explicit CUDAEvent(unsigned flags = kDisableTiming);
  // Records on the current stream of the current device / on `stream`.
  void record();
  void record(const CUDAStream& stream);
  void recordOnce(const CUDAStream& stream) { event_.recordOnce(stream); }
  void block(const CUDAStream& stream) const { event_.block(stream); }
  bool query() const { return event_.query(); }
  void synchronize() const { event_.synchronize(); }
  // Milliseconds from this event to `end` (both made with flags 0 and recorded).
  float elapsed_time(const CUDAEvent& end) const { return static_cast<float>(event_.elapsed_time(end.event_)); }
  bool isCreated() const { return event_.eventId() != nullptr; }
  DeviceIndex device_index() const { return event_.device_index(); }

 private:
  Event event_;
};

// The caching allocator's controls (c10::cuda::CUDACachingAllocator); see Note [GPU caching
// allocator] in the plugin.
namespace CUDACachingAllocator {
// Returns the cached, unused device memory to the driver.
EMBER_API void emptyCache();
EMBER_API DeviceMemoryStats getDeviceStats(DeviceIndex device = -1);
EMBER_API void resetPeakStats(DeviceIndex device = -1);
// The memory behind `data` is used on `stream` too: it is not reused before that stream's work
// queued so far is done.
EMBER_API void recordStream(const DataPtr& data, CUDAStream stream);
}  // namespace CUDACachingAllocator

// The pinned host allocator (at::cuda::getCachingHostAllocator, getPinnedMemoryAllocator): CPU
// tensors in page-locked memory, for asynchronous copies (Note [Pinned host memory] in
// ember/core/Allocator.h). Throws when the cuda plugin is not loaded.
EMBER_API HostAllocator* getCachingHostAllocator();
EMBER_API HostAllocator* getPinnedMemoryAllocator();
// The pinned block behind `data` is used by work queued on `stream`: not reused before it is done.
// False when `data` is not the allocator's block (nothing recorded).
EMBER_API bool CachingHostAllocator_recordEvent(const DataPtr& data, CUDAStream stream);
// Returns the cached pinned blocks no stream still uses; nothing to do without the plugin.
EMBER_API void CachingHostAllocator_emptyCache();
EMBER_API HostMemoryStats CachingHostAllocator_getStats();
EMBER_API void CachingHostAllocator_resetPeakStats();

// Tensor::record_stream: recordStream of the tensor's storage.
EMBER_API void record_stream(const Tensor& tensor, CUDAStream stream);
// Bytes held by tensors / by the allocator on the device (torch.cuda.memory_allocated,
// memory_reserved, max_memory_allocated).
EMBER_API int64_t memory_allocated(DeviceIndex device = -1);
EMBER_API int64_t memory_reserved(DeviceIndex device = -1);
EMBER_API int64_t max_memory_allocated(DeviceIndex device = -1);

}  // namespace ember::cuda
