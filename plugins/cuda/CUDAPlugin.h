#pragma once
// Internal to the cuda plugin: what its host-side kernel files share (allocation, the
// TensorIter on gpu::kGpuDevice, the hand-off to the device kernels of kernels/Kernels.h).
#include "CUDARuntime.h"
#include "ember/core/DeviceGuard.h"
#include "ember/native/Geometry.h"
#include "ember/native/TensorHelpers.h"
#include "kernels/Kernels.h"

namespace ember::EMBER_GPU_NS {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<Layout>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

namespace impl {
// Registers the DeviceGuardImpl and the caching allocator of gpu::kGpuDevice (once, when the plugin loads).
void register_runtime();
// Registers the device's generator factory (counter-based, as the CPU's: random.cpp).
void register_generator();
}  // namespace impl

inline gpu::Dt to_dt(ScalarType t) { return static_cast<gpu::Dt>(static_cast<int8_t>(t)); }

// On the current device (a DeviceGuard of the operands' device is in place).
inline Tensor empty_cuda(IntArrayRef sizes, ScalarType dtype) {
  return native::empty_on(gpu::kGpuDevice, sizes, dtype);
}
inline Tensor empty_strided_cuda(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype) {
  return native::empty_strided_on(gpu::kGpuDevice, sizes, strides, dtype);
}

// A contiguous device copy (what the TensorIter reads an overlapping input from).
Tensor materialize(const Tensor& t);

class TensorIter : public native::TensorIter {
 public:
  explicit TensorIter(const char* op) : native::TensorIter(op, gpu::kGpuDevice, &materialize) {}
};

// The kernels' view of a built TensorIter; raises NotImplementedError for what the kernels
// cannot take (more dimensions than kMaxDims after coalescing, complex dtypes).
gpu::Iter kernel_iter(const native::TensorIter& it);

// The device of a tensor on gpu::kGpuDevice (for an OptionalDeviceGuard), else none.
std::optional<Device> device_of(const Tensor& t);
// A 0-dim cpu tensor beside device operands is a value (as PyTorch's): copied to the device into
// `holder`. Any other operand is returned as it is.
const Tensor* device_operand(const Tensor* t, Tensor& holder);

// The smallest and largest value of a (non-empty, integer) device index tensor, copied to the
// host: what a range check before a launch raises from (a kernel cannot raise, and PyTorch's
// device-side assert kills the context).
std::pair<int64_t, int64_t> index_extremes(const Tensor& index);

// Raises the cpu nn kernels' IndexError ("index i is out of range for <rows> <what>") when a value
// of the integer device tensor `index` lies outside [0, rows).
void check_rows(const char* op, const Tensor& index, int64_t rows, const char* what);

// An out= argument: defined, on the device, of dtype `expected` (checked before anything is
// written, so a failed call leaves every out as it was).
void check_out(const char* op, const Tensor& out, ScalarType expected, const char* name = "out");
// out = result: out resized as resize_output does, checked writable, written through its own strides.
Tensor& write_out(Tensor& out, const Tensor& result, const char* op);

// The flat (row-major) positions of the nonzero elements of the device tensor `t`, as a 1-d int64
// tensor (one sync: the count).
Tensor flat_positions(const Tensor& t);

// The running sums (or products) of the contiguous device tensor `in` along dim, in out_dt (Note
// [GPU scans] in kernels/scan.cu).
Tensor scan(const char* op, const Tensor& in, int64_t dim, ScalarType out_dt, bool prod);

// A 0-dim device tensor of `dtype` holding `value` (a Scalar operand).
Tensor scalar_tensor(const Scalar& value, ScalarType dtype);
gpu::Value to_value(const Scalar& s, ScalarType compute);

// Raises NotImplementedError naming the operator and dtype when a launcher returned false, and
// the CUDA error of a failed launch.
void check_launch(bool launched, const char* op, ScalarType compute);

// The current stream of the current device.
inline cudaStream_t stream() { return impl::current_native_stream(-1); }

}  // namespace ember::EMBER_GPU_NS
