// Host half of the GPU upsampling (kernels/resample.cu): the cpu's checks (ember/native/
// ResampleRules.h) and index and weight tables (ResampleTables.h), copied to the device, then one
// launch; computed in float32 (float16, bfloat16, float32) or float64, results contiguous.
#include <cstring>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/native/NNRules.h"
#include "ember/native/ResampleRules.h"
#include "ember/native/ResampleTables.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
namespace {

namespace rs = native::resample;
using rs::UpsampleGeom;
using Scales = std::array<std::optional<double>, 3>;

// A host vector as a device tensor of `dtype` (int64, float32 or float64 values).
template <class T>
Tensor to_device(const std::vector<T>& v, ScalarType dtype, Device device) {
  Tensor host = ember::empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(dtype));
  std::memcpy(host.data_ptr(), v.data(), v.size() * sizeof(T));
  return host.to(device);
}

// The launch over g's planes and sizes (tables, operands and mode set by the caller).
gpu::UpsampleArgs upsample_args(const UpsampleGeom& g) {
  gpu::UpsampleArgs a;
  a.planes = g.planes();
  for (size_t d = 0; d < 3; ++d) a.in[d] = g.in[d], a.out[d] = g.out[d];
  return a;
}

Tensor upsample_nearest_impl(const char* op, const Tensor& self, IntArrayRef output_size, int64_t nd, Scales scales,
                             const Tensor* grad_output = nullptr, IntArrayRef input_size = {}) {
  const UpsampleGeom g =
      grad_output ? rs::check_upsample_backward(op, gpu::kGpuDevice, *grad_output, output_size, input_size, nd, scales)
                  : rs::check_upsample(op, gpu::kGpuDevice, self, output_size, nd, scales, true);
  const Tensor& x = grad_output ? *grad_output : self;
  OptionalDeviceGuard guard(device_of(x));
  gpu::UpsampleArgs a = upsample_args(g);
  a.nearest = true;
  std::vector<Tensor> held;
  for (size_t d = 0; d < 3; ++d) {
    held.push_back(to_device(rs::nearest_table(g.in[d], g.out[d], g.scales[d]), kInt64, x.device()));
    a.index[d] = static_cast<const int64_t*>(held.back().data_ptr());
  }
  if (!grad_output) {
    const Tensor in = self.contiguous();
    Tensor out = empty_cuda(g.output_sizes(), self.dtype());
    a.src = static_cast<const char*>(in.data_ptr());
    a.dst = static_cast<char*>(out.data_ptr());
    a.itemsize = static_cast<int>(self.itemsize());
    check_launch(gpu::launch_upsample(a, stream()), op, self.dtype());
    return out;
  }
  a.backward = true;
  const ScalarType ct = native::nn::compute_float(x, op, "grad_output");
  const Tensor go = x.to(ct).contiguous();
  Tensor gi = ember::zeros(g.input_sizes(), TensorOptions().dtype(ct).device(x.device()));
  a.src = static_cast<const char*>(go.data_ptr());
  a.dst = static_cast<char*>(gi.data_ptr());
  a.dtype = static_cast<int8_t>(ct);
  check_launch(gpu::launch_upsample(a, stream()), op, ct);
  return gi.dtype() == x.dtype() ? gi : gi.to(x.dtype());
}

template <class T>
void set_tables(gpu::UpsampleArgs& a, const UpsampleGeom& g, rs::Interp mode, bool align_corners, ScalarType ct,
                Device device, std::vector<Tensor>& held) {
  const auto t = rs::interp_tables<T>(g, mode, align_corners);
  for (size_t d = 0; d < 3; ++d) {
    a.taps[d] = t[d].taps;
    held.push_back(to_device(t[d].index, kInt64, device));
    a.index[d] = static_cast<const int64_t*>(held.back().data_ptr());
    held.push_back(to_device(t[d].weight, ct, device));
    a.weight[d] = static_cast<const char*>(held.back().data_ptr());
  }
}

Tensor upsample_interp(const char* op, const Tensor& self, IntArrayRef output_size, int64_t nd, rs::Interp mode,
                       bool align_corners, Scales scales, const Tensor* grad_output = nullptr,
                       IntArrayRef input_size = {}) {
  const UpsampleGeom g =
      grad_output ? rs::check_upsample_backward(op, gpu::kGpuDevice, *grad_output, output_size, input_size, nd, scales)
                  : rs::check_upsample(op, gpu::kGpuDevice, self, output_size, nd, scales, false);
  const Tensor& x = grad_output ? *grad_output : self;
  OptionalDeviceGuard guard(device_of(x));
  const ScalarType ct = native::nn::compute_float(x, op, grad_output ? "grad_output" : "self");
  gpu::UpsampleArgs a = upsample_args(g);
  a.dtype = static_cast<int8_t>(ct);
  a.backward = grad_output != nullptr;
  std::vector<Tensor> held;
  if (ct == kFloat32)
    set_tables<float>(a, g, mode, align_corners, ct, x.device(), held);
  else
    set_tables<double>(a, g, mode, align_corners, ct, x.device(), held);
  const Tensor in = x.to(ct).contiguous();
  Tensor r = grad_output ? ember::zeros(g.input_sizes(), TensorOptions().dtype(ct).device(x.device()))
                         : empty_cuda(g.output_sizes(), ct);
  a.src = static_cast<const char*>(in.data_ptr());
  a.dst = static_cast<char*>(r.data_ptr());
  check_launch(gpu::launch_upsample(a, stream()), op, ct);
  return r.dtype() == x.dtype() ? r : r.to(x.dtype());
}

Tensor upsample_nearest(const char* op, const Tensor& self, IntArrayRef output_size, int64_t nd, Scales scales) {
  return upsample_nearest_impl(op, self, output_size, nd, scales);
}
Tensor upsample_nearest_backward(const char* op, const Tensor& grad_output, IntArrayRef output_size,
                                 IntArrayRef input_size, int64_t nd, Scales scales) {
  return upsample_nearest_impl(op, grad_output, output_size, nd, scales, &grad_output, input_size);
}
Tensor upsample_interp_backward(const char* op, const Tensor& grad_output, IntArrayRef output_size,
                                IntArrayRef input_size, int64_t nd, rs::Interp mode, bool align_corners,
                                Scales scales) {
  return upsample_interp(op, grad_output, output_size, nd, mode, align_corners, scales, &grad_output, input_size);
}

using Interp = rs::Interp;

// An out= variant: the functional result written into out (resized; no dtype casting).
Tensor& write_out(const char* op, const Tensor& result, Tensor& out) {
  native::nn::check_on(op, gpu::kGpuDevice, out);
  rs::check_out_dtype(op, out, result.dtype());
  native::resize_output(out, result.sizes(), op);
  native::check_out_writable(op, out);
  return EMBER_GPU_NS::copy_(out, result, false);
}

}  // namespace

#include "ember/native/UpsampleEntryPoints.inc"

}  // namespace ember::EMBER_GPU_NS
