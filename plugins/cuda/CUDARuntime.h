#pragma once
// The cuda plugin's view of the CUDA runtime: devices, errors, streams and the caching
// allocator. Host code only (compiled by the C++ compiler); kernels live in the .cu files.
//
// Note [No CUDA device]
// ~~~~~~~~~~~~~~~~~~~~~
// The plugin loads and registers its kernels whether or not a GPU is present, as LibTorch's
// CUDA library does: where the driver is missing or too old cudaGetDeviceCount returns an error
// (cudaErrorInsufficientDriver, cudaErrorNoDevice), not a count of 0. device_count() is then 0
// and unavailable_reason() keeps the runtime's message; anything that needs a device (a
// factory, a copy, a kernel, the guards) raises "no CUDA device is available" with that reason.
#include "GpuConfig.h"

#include <string>

#include "ember/core/Device.h"
#include "ember/core/Exception.h"
#include "ember/core/Stream.h"

namespace ember::EMBER_GPU_NS::impl {

constexpr int kMaxDevices = 64;

// Devices the runtime can use; 0 when it cannot (Note [No CUDA device]). Never throws.
int device_count() noexcept;
// Why device_count() is 0 ("" when it is not).
const std::string& unavailable_reason();
// Throws when no device can be used ("[op] no CUDA device is available: ...") or `index` is out
// of range; index -1 is the current device.
void check_device(const char* op, DeviceIndex index);

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

DeviceIndex current_device();
void set_device(DeviceIndex index);
const cudaDeviceProp& properties(DeviceIndex index);

// Streams: id 0 is the device's default (legacy) stream; ids 1..32 the low-priority pool, 33..64
// the high-priority pool; any larger id is a cudaStream_t made outside Ember.
cudaStream_t native(const Stream& s);
Stream current_stream(DeviceIndex index);  // index -1: the current device
cudaStream_t current_native_stream(DeviceIndex index);

}  // namespace ember::EMBER_GPU_NS::impl

#define EMBER_CUDA_CHECK(expr)                                                                   \
  do {                                                                                           \
    const cudaError_t ember_cuda_err_ = (expr);                                                  \
    if (ember_cuda_err_ != cudaSuccess)                                                          \
      ::ember::EMBER_GPU_NS::impl::throw_cuda_error(ember_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)
