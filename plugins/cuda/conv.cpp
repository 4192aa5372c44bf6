// Host half of the GPU convolution and pooling: the shared checks and geometry
// (ember/native/NNRules.h), contiguous operands, one implicit-GEMM launch per product (Note
// [Implicit GEMM convolution] in kernels/conv.cu), then LibTorch's result layouts.
#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/generated/Functions.h"
#include "ember/native/NNRules.h"

namespace ember::EMBER_GPU_NS {
namespace {

using native::nn::ConvGeom;
using native::nn::PoolGeom;

gpu::ConvArgs conv_args(const ConvGeom& g, ScalarType dt) {
  gpu::ConvArgs a;
  a.N = g.N, a.C = g.C, a.D = g.D, a.H = g.H, a.W = g.W;
  a.O = g.O, a.kD = g.kD, a.kH = g.kH, a.kW = g.kW, a.G = g.G;
  a.sD = g.sD, a.sH = g.sH, a.sW = g.sW, a.pD = g.pD, a.pH = g.pH, a.pW = g.pW, a.dD = g.dD, a.dH = g.dH, a.dW = g.dW;
  a.oD = g.oD, a.oH = g.oH, a.oW = g.oW;
  a.dtype = static_cast<int8_t>(dt);
  return a;
}

void run_conv(const char* op, gpu::ConvMode mode, gpu::ConvArgs a, ScalarType dt) {
  check_launch(gpu::launch_conv(mode, a, stream()), op, dt);
}

// The gradient of the bias: grad_output summed over every dimension but the channels.
Tensor bias_grad(const Tensor& go) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < go.dim(); ++d) dims.push_back(d);
  return ember::sum(go, dims, false, std::nullopt);
}

// The layout of a pooled result (Note [Pooled layouts] in ember/native/NNRules.h).
Tensor pool_layout(const Tensor& t, bool channels_last) {
  if (!channels_last) return t;
  Tensor r = empty_strided_cuda(t.sizes(), native::nn::pooled_strides(t.sizes(), true), t.dtype());
  return EMBER_GPU_NS::copy_(r, t, false);
}

gpu::PoolArgs pool_args(const PoolGeom& g, ScalarType dt) {
  gpu::PoolArgs p;
  p.planes = g.planes, p.D = g.D, p.H = g.H, p.W = g.W;
  p.kD = g.kD, p.kH = g.kH, p.kW = g.kW, p.sD = g.sD, p.sH = g.sH, p.sW = g.sW;
  p.pD = g.pD, p.pH = g.pH, p.pW = g.pW, p.dD = g.dD, p.dH = g.dH, p.dW = g.dW;
  p.oD = g.oD, p.oH = g.oH, p.oW = g.oW;
  p.dtype = static_cast<int8_t>(dt);
  return p;
}

// Max pooling over g's windows (or the adaptive ones): the result and the flat indices.
std::tuple<Tensor, Tensor> max_pool_run(const char* op, int64_t nd, const PoolGeom& g, const Tensor& self,
                                        bool adaptive) {
  OptionalDeviceGuard guard(self.device());
  const Tensor x = self.contiguous();
  const auto shape = native::nn::pooled_shape(self, nd, g);
  Tensor out = empty_cuda(shape, self.dtype()), ind = empty_cuda(shape, kInt64);
  gpu::PoolArgs p = pool_args(g, self.dtype());
  p.adaptive = adaptive;
  p.in = static_cast<const char*>(x.data_ptr());
  p.out = static_cast<char*>(out.data_ptr());
  p.indices = static_cast<int64_t*>(ind.data_ptr());
  check_launch(gpu::launch_max_pool(p, stream()), op, self.dtype());
  const bool cl = native::nn::pool_keeps_channels_last(self, nd);
  return {pool_layout(out, cl), pool_layout(ind, cl)};
}

std::tuple<Tensor, Tensor> max_pool(const char* op, int64_t nd, const Tensor& self, IntArrayRef kernel_size,
                                    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const PoolGeom g =
      native::nn::check_pool(op, gpu::kGpuDevice, self, nd, kernel_size, stride, padding, dilation, ceil_mode);
  return max_pool_run(op, nd, g, self, false);
}

Tensor max_pool_backward(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self,
                         IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                         bool ceil_mode, const Tensor& indices) {
  const PoolGeom g = native::nn::check_max_pool_backward(op, gpu::kGpuDevice, grad_output, self, nd, kernel_size,
                                                         stride, padding, dilation, ceil_mode, indices);
  OptionalDeviceGuard guard(self.device());
  const Tensor go = grad_output.contiguous(), idx = indices.contiguous();
  Tensor gi = empty_cuda(self.sizes(), self.dtype());
  gpu::PoolArgs p = pool_args(g, self.dtype());
  p.in = static_cast<const char*>(go.data_ptr());
  p.out = static_cast<char*>(gi.data_ptr());
  p.indices = static_cast<int64_t*>(idx.data_ptr());
  check_launch(gpu::launch_max_pool_backward(p, stream()), op, self.dtype());
  return pool_layout(gi, native::nn::pool_keeps_channels_last(self, nd));
}

// Average pools, forward (`in` = self) or backward (`in` = grad_output), in self's layout rule.
Tensor avg_pool_run(const char* op, int64_t nd, const PoolGeom& g, const Tensor& self, const Tensor& in, bool backward,
                    bool adaptive, bool count_include_pad, std::optional<int64_t> divisor) {
  OptionalDeviceGuard guard(self.device());
  const Tensor x = in.contiguous();
  Tensor out = empty_cuda(
      backward ? std::vector<int64_t>(self.sizes().begin(), self.sizes().end()) : native::nn::pooled_shape(self, nd, g),
      self.dtype());
  gpu::AvgPoolArgs a;
  a.p = pool_args(g, self.dtype());
  a.p.in = static_cast<const char*>(x.data_ptr());
  a.p.out = static_cast<char*>(out.data_ptr());
  a.adaptive = adaptive, a.count_include_pad = count_include_pad, a.backward = backward;
  a.divisor = divisor.value_or(0);
  check_launch(gpu::launch_avg_pool(a, stream()), op, self.dtype());
  return pool_layout(out, native::nn::pool_keeps_channels_last(self, nd));
}

Tensor avg_pool(const char* op, int64_t nd, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                IntArrayRef padding, bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor) {
  const PoolGeom g =
      native::nn::check_avg_pool(op, gpu::kGpuDevice, self, nd, kernel_size, stride, padding, ceil_mode, divisor);
  return avg_pool_run(op, nd, g, self, self, false, false, count_include_pad, divisor);
}

Tensor avg_pool_backward(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self,
                         IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                         bool count_include_pad, std::optional<int64_t> divisor) {
  const PoolGeom g =
      native::nn::check_avg_pool(op, gpu::kGpuDevice, self, nd, kernel_size, stride, padding, ceil_mode, divisor);
  native::nn::check_pool_grad(op, gpu::kGpuDevice, grad_output, self, native::nn::pooled_shape(self, nd, g));
  return avg_pool_run(op, nd, g, self, grad_output, true, false, count_include_pad, divisor);
}

Tensor adaptive_avg(const char* op, int64_t nd, const Tensor& self, IntArrayRef output_size) {
  const PoolGeom g = native::nn::check_adaptive_pool(op, gpu::kGpuDevice, self, nd, output_size);
  return avg_pool_run(op, nd, g, self, self, false, true, true, std::nullopt);
}

Tensor adaptive_avg_backward(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self) {
  const PoolGeom g = native::nn::check_adaptive_pool_backward(op, gpu::kGpuDevice, grad_output, self, nd);
  return avg_pool_run(op, nd, g, self, grad_output, true, true, true, std::nullopt);
}

}  // namespace

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_max_pool2d";
  return max_pool_run(op, 2, native::nn::check_adaptive_pool(op, gpu::kGpuDevice, self, 2, output_size), self, true);
}

// Adaptive windows overlap, and any in-range indices are accepted (as the cpu's): the gradient is
// added at the indices (atomics, in float32 or float64) rather than gathered per window.
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  const char* op = "adaptive_max_pool2d_backward";
  const PoolGeom g = native::nn::check_adaptive_pool_backward(op, gpu::kGpuDevice, grad_output, self, 2);
  native::nn::check_pool_indices(op, gpu::kGpuDevice, indices, grad_output.sizes());
  OptionalDeviceGuard guard(self.device());
  const int64_t HW = g.in_plane(), L = g.out_plane();
  if (indices.numel() > 0) {
    const auto [lo, hi] = index_extremes(indices);
    const int64_t bad = lo < 0 ? lo : hi;
    EMBER_CHECK_INDEX(lo >= 0 && hi < HW,
                      "[{}] argument 'indices': index {} is out of range for an input plane of {} elements", op, bad,
                      HW);
  }
  const ScalarType ct = native::nn::compute_float(self, op, "self");
  Tensor gi = ember::zeros({g.planes, HW}, TensorOptions().dtype(ct).device(self.device()));
  if (L > 0 && g.planes > 0)
    gi = ember::scatter_add(gi, 1, indices.reshape({g.planes, L}), grad_output.to(ct).reshape({g.planes, L}));
  gi = gi.reshape(self.sizes());
  return pool_layout(gi.dtype() == self.dtype() ? gi : gi.to(self.dtype()),
                     native::nn::pool_keeps_channels_last(self, 2));
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  return avg_pool("avg_pool1d", 1, self, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt);
}
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool2d", 2, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward("avg_pool2d_backward", 2, grad_output, self, kernel_size, stride, padding, ceil_mode,
                           count_include_pad, divisor_override);
}
Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward("avg_pool3d_backward", 3, grad_output, self, kernel_size, stride, padding, ceil_mode,
                           count_include_pad, divisor_override);
}
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg("adaptive_avg_pool1d", 1, self, output_size);
}
Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg("adaptive_avg_pool2d", 2, self, output_size);
}
Tensor _adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg("adaptive_avg_pool3d", 3, self, output_size);
}
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward("adaptive_avg_pool2d_backward", 2, grad_output, self);
}
Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward("adaptive_avg_pool3d_backward", 3, grad_output, self);
}

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const char* op = "convolution";
  const ConvGeom g = native::nn::check_conv(op, gpu::kGpuDevice, input, weight, bias, stride, padding, dilation,
                                            transposed, output_padding, groups);
  OptionalDeviceGuard guard(input.device());
  const ScalarType dt = input.dtype();
  const MemoryFormat format = native::nn::conv_output_format(g, input, weight);
  const auto sizes = g.output_sizes();
  int64_t numel = 1;
  for (int64_t v : sizes) numel *= v;
  if (numel == 0) return empty_strided_cuda(sizes, memory_format_strides(sizes, format, op), dt);
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor b = bias && bias->defined() ? bias->contiguous() : Tensor();
  Tensor out = empty_cuda(sizes, dt);
  gpu::ConvArgs a = conv_args(g, dt);
  a.weight = static_cast<const char*>(w.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  if (b.defined()) a.bias = static_cast<const char*>(b.data_ptr());
  if (!g.transposed) {
    a.input = static_cast<const char*>(x.data_ptr());
    run_conv(op, gpu::ConvMode::Forward, a, dt);
  } else {  // the forward convolution's data gradient, with the bias (Note [Convolution geometry])
    a.grad_out = static_cast<const char*>(x.data_ptr());
    run_conv(op, gpu::ConvMode::InputGrad, a, dt);
  }
  return format == MemoryFormat::Contiguous ? out : out.contiguous(format);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const char* op = "convolution_backward";
  const ConvGeom g =
      native::nn::check_conv_backward(op, gpu::kGpuDevice, grad_output, input, weight, bias_sizes, stride, padding,
                                      dilation, transposed, output_padding, groups, output_mask);
  OptionalDeviceGuard guard(input.device());
  const ScalarType dt = input.dtype();
  const Tensor go = grad_output.contiguous(), x = input.contiguous(), w = weight.contiguous();
  Tensor gi = output_mask[0] ? empty_cuda(input.sizes(), dt) : Tensor();
  Tensor gw = output_mask[1] ? empty_cuda(weight.sizes(), dt) : Tensor();
  gpu::ConvArgs a = conv_args(g, dt);
  a.weight = static_cast<const char*>(w.data_ptr());
  // Not transposed: go is the forward's output gradient and x its input; transposed, go is the
  // forward's input and x its output (Note [Convolution geometry]).
  const Tensor& fwd_in = g.transposed ? go : x;
  const Tensor& fwd_out_grad = g.transposed ? x : go;
  a.input = static_cast<const char*>(fwd_in.data_ptr());
  a.grad_out = static_cast<const char*>(fwd_out_grad.data_ptr());
  if (gi.defined() && gi.numel() > 0) {
    a.out = static_cast<char*>(gi.data_ptr());
    run_conv(op, g.transposed ? gpu::ConvMode::Forward : gpu::ConvMode::InputGrad, a, dt);
  }
  if (gw.defined() && gw.numel() > 0) {
    a.out = static_cast<char*>(gw.data_ptr());
    run_conv(op, gpu::ConvMode::WeightGrad, a, dt);
  }
  Tensor gb;
  if (output_mask[2]) gb = bias_grad(go);
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool("max_pool2d_with_indices", 2, self, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool("max_pool3d_with_indices", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  return max_pool_backward("max_pool2d_with_indices_backward", 2, grad_output, self, kernel_size, stride, padding,
                           dilation, ceil_mode, indices);
}

Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  return max_pool_backward("max_pool3d_with_indices_backward", 3, grad_output, self, kernel_size, stride, padding,
                           dilation, ceil_mode, indices);
}

// The 3-d pools' out= forms: the functional result (its errors first), then the outs checked
// (both before either is written) and written.
Tensor& avg_pool3d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  const Tensor r =
      EMBER_GPU_NS::avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
  check_out("avg_pool3d_out", out, self.dtype());
  return write_out(out, r, "avg_pool3d_out");
}

std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(const Tensor& self, IntArrayRef kernel_size,
                                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                         bool ceil_mode, Tensor& out, Tensor& indices) {
  const char* op = "max_pool3d_with_indices_out";
  const auto [o, i] = EMBER_GPU_NS::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode);
  check_out(op, out, self.dtype());
  check_out(op, indices, kInt64, "indices");
  write_out(out, o, op);
  write_out(indices, i, op);
  return {out, indices};
}

Tensor& _adaptive_avg_pool3d_out(const Tensor& self, IntArrayRef output_size, Tensor& out) {
  const Tensor r = EMBER_GPU_NS::_adaptive_avg_pool3d(self, output_size);
  check_out("adaptive_avg_pool3d_out", out, self.dtype());
  return write_out(out, r, "adaptive_avg_pool3d_out");
}

}  // namespace ember::EMBER_GPU_NS
