// Host half of the GPU resampling (kernels/resample.cu): upsampling, grid_sampler_2d, im2col and
// col2im with the cpu's checks (ember/native/ResampleRules.h); upsampling through the cpu's index
// and weight tables (ResampleTables.h), copied to the device; then one launch, computed in float32
// (float16, bfloat16, float32) or float64, results contiguous.
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

gpu::GridSampleArgs grid_args(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                              bool align_corners) {
  gpu::GridSampleArgs a;
  a.N = input.size(0), a.C = input.size(1), a.H = input.size(2), a.W = input.size(3);
  a.oH = grid.size(1), a.oW = grid.size(2);
  a.mode = interpolation_mode, a.padding = padding_mode, a.align = align_corners;
  a.dtype = static_cast<int8_t>(input.dtype());
  return a;
}

Tensor grid_sampler_2d_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                            bool align_corners) {
  const char* op = "grid_sampler_2d";
  rs::check_grid_sampler_2d(op, gpu::kGpuDevice, input, grid, interpolation_mode, padding_mode);
  OptionalDeviceGuard guard(device_of(input));
  const Tensor x = input.contiguous(), gr = grid.contiguous();
  Tensor out = empty_cuda(rs::grid_sampler_2d_shape(input, grid), input.dtype());
  gpu::GridSampleArgs a = grid_args(input, grid, interpolation_mode, padding_mode, align_corners);
  a.input = static_cast<const char*>(x.data_ptr());
  a.grid = static_cast<const char*>(gr.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  check_launch(gpu::launch_grid_sample(a, false, stream()), op, input.dtype());
  return out;
}

// The image's geometry as the kernels' (N C planes).
gpu::ColArgs col_args(const rs::ColGeom& g, const void* in, void* out, ScalarType dt) {
  gpu::ColArgs a;
  a.planes = g.N * g.C, a.H = g.H, a.W = g.W, a.kH = g.kH, a.kW = g.kW, a.dH = g.dH, a.dW = g.dW;
  a.pH = g.pH, a.pW = g.pW, a.sH = g.sH, a.sW = g.sW, a.bH = g.bH, a.bW = g.bW;
  a.in = static_cast<const char*>(in);
  a.out = static_cast<char*>(out);
  a.dtype = static_cast<int8_t>(dt);
  a.itemsize = static_cast<int>(element_size(dt));
  return a;
}

Tensor im2col_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                   IntArrayRef stride) {
  const char* op = "im2col";
  const rs::ColGeom g = rs::check_im2col(op, gpu::kGpuDevice, self, kernel_size, dilation, padding, stride);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor x = self.contiguous();
  Tensor col = empty_cuda(g.col_sizes(), self.dtype());
  check_launch(gpu::launch_im2col(col_args(g, x.data_ptr(), col.data_ptr(), self.dtype()), stream()), op, self.dtype());
  return col;
}

Tensor col2im_impl(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride) {
  const char* op = "col2im";
  const rs::ColGeom g =
      rs::check_col2im(op, gpu::kGpuDevice, self, output_size, kernel_size, dilation, padding, stride);
  OptionalDeviceGuard guard(device_of(self));
  const ScalarType ct = native::nn::compute_float(self, op, "self");
  const Tensor x = self.to(ct).contiguous();
  Tensor img = empty_cuda(g.image_sizes(), ct);
  check_launch(gpu::launch_col2im(col_args(g, x.data_ptr(), img.data_ptr(), ct), stream()), op, ct);
  return img.dtype() == self.dtype() ? img : img.to(self.dtype());
}

}  // namespace

#include "ember/native/ResampleEntryPoints.inc"

std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t interpolation_mode, int64_t padding_mode,
                                                    bool align_corners, std::array<bool, 2> output_mask) {
  const char* op = "grid_sampler_2d_backward";
  rs::check_grid_sampler_2d_backward(op, gpu::kGpuDevice, grad_output, input, grid, interpolation_mode, padding_mode);
  OptionalDeviceGuard guard(device_of(input));
  const TensorOptions opts = TensorOptions().dtype(input.dtype()).device(input.device());
  Tensor gi = output_mask[0] ? ember::zeros(input.sizes(), opts) : Tensor();
  Tensor gg = output_mask[1] ? ember::zeros(grid.sizes(), opts) : Tensor();
  if ((!gi.defined() && !gg.defined()) || grad_output.numel() == 0) return {gi, gg};
  const Tensor go = grad_output.contiguous(), x = input.contiguous(), gr = grid.contiguous();
  gpu::GridSampleArgs a = grid_args(input, grid, interpolation_mode, padding_mode, align_corners);
  a.input = static_cast<const char*>(x.data_ptr());
  a.grid = static_cast<const char*>(gr.data_ptr());
  a.grad_out = static_cast<const char*>(go.data_ptr());
  a.grad_input = gi.defined() ? static_cast<char*>(gi.data_ptr()) : nullptr;
  a.grad_grid = gg.defined() ? static_cast<char*>(gg.data_ptr()) : nullptr;
  check_launch(gpu::launch_grid_sample(a, true, stream()), op, input.dtype());
  return {gi, gg};
}

}  // namespace ember::EMBER_GPU_NS
