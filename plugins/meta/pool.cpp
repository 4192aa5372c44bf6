// Meta pooling over 1 to 3 dimensions (plugins/cpu/pool.cpp): the max, average and adaptive
// pools and their backwards, with the cpu kernels' checks and output shapes
// (ember/native/NNRules.h); results in the input's dtype and LibTorch's layout (Note [Pooled layouts]).
#include "MetaHelpers.h"
#include "ember/native/NNRules.h"

namespace ember::meta {

namespace nn = native::nn;

namespace {

// An uninitialised pooled tensor in LibTorch's layout (Note [Pooled layouts] in NNRules.h).
Tensor pooled_meta(IntArrayRef sizes, ScalarType dtype, const Tensor& self, int64_t nd) {
  return native::empty_strided_on(kMeta, sizes, nn::pooled_strides(sizes, nn::pool_keeps_channels_last(self, nd)),
                                  dtype);
}

std::tuple<Tensor, Tensor> max_pool(const char* op, int64_t nd, const Tensor& self, IntArrayRef kernel_size,
                                    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const nn::PoolGeom g = nn::check_pool(op, kMeta, self, nd, kernel_size, stride, padding, dilation, ceil_mode);
  const auto shape = nn::pooled_shape(self, nd, g);
  return {pooled_meta(shape, self.dtype(), self, nd), pooled_meta(shape, kInt64, self, nd)};
}

Tensor avg_pool(const char* op, int64_t nd, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                IntArrayRef padding, bool ceil_mode, std::optional<int64_t> divisor_override) {
  const nn::PoolGeom g =
      nn::check_avg_pool(op, kMeta, self, nd, kernel_size, stride, padding, ceil_mode, divisor_override);
  return pooled_meta(nn::pooled_shape(self, nd, g), self.dtype(), self, nd);
}

Tensor avg_pool_backward(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self,
                         IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                         std::optional<int64_t> divisor_override) {
  const nn::PoolGeom g =
      nn::check_avg_pool(op, kMeta, self, nd, kernel_size, stride, padding, ceil_mode, divisor_override);
  nn::check_pool_grad(op, kMeta, grad_output, self, nn::pooled_shape(self, nd, g));
  return pooled_meta(self.sizes(), self.dtype(), self, nd);
}

Tensor adaptive_avg(const char* op, int64_t nd, const Tensor& self, IntArrayRef output_size) {
  const nn::PoolGeom g = nn::check_adaptive_pool(op, kMeta, self, nd, output_size);
  return pooled_meta(nn::pooled_shape(self, nd, g), self.dtype(), self, nd);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool("max_pool2d_with_indices", 2, self, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool("max_pool3d_with_indices", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(const Tensor& self, IntArrayRef kernel_size,
                                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                         bool ceil_mode, Tensor& out, Tensor& indices) {
  const char* op = "max_pool3d_with_indices_out";
  auto [o, i] = max_pool("max_pool3d_with_indices", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
  check_out(op, out, self.dtype());
  check_out(op, indices, kInt64, "indices");
  write_out(out, o, op);
  write_out(indices, i, op);
  return {out, indices};
}

// The indices' values are not checked: a meta tensor has none.
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  nn::check_max_pool_backward("max_pool2d_with_indices_backward", kMeta, grad_output, self, 2, kernel_size, stride,
                              padding, dilation, ceil_mode, indices);
  return pooled_meta(self.sizes(), self.dtype(), self, 2);
}

Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  nn::check_max_pool_backward("max_pool3d_with_indices_backward", kMeta, grad_output, self, 3, kernel_size, stride,
                              padding, dilation, ceil_mode, indices);
  return empty_meta(self.sizes(), self.dtype());
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool /*count_include_pad*/) {
  return avg_pool("avg_pool1d", 1, self, kernel_size, stride, padding, ceil_mode, std::nullopt);
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool2d", 2, self, kernel_size, stride, padding, ceil_mode, divisor_override);
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode, divisor_override);
}

Tensor& avg_pool3d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool /*count_include_pad*/, std::optional<int64_t> divisor_override,
                       Tensor& out) {
  const char* op = "avg_pool3d_out";
  const Tensor r = avg_pool("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode, divisor_override);
  check_out(op, out, self.dtype());
  return write_out(out, r, op);
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool /*count_include_pad*/,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward("avg_pool2d_backward", 2, grad_output, self, kernel_size, stride, padding, ceil_mode,
                           divisor_override);
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool /*count_include_pad*/,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward("avg_pool3d_backward", 3, grad_output, self, kernel_size, stride, padding, ceil_mode,
                           divisor_override);
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

Tensor& _adaptive_avg_pool3d_out(const Tensor& self, IntArrayRef output_size, Tensor& out) {
  const char* op = "adaptive_avg_pool3d_out";
  const Tensor r = adaptive_avg("adaptive_avg_pool3d", 3, self, output_size);
  check_out(op, out, self.dtype());
  return write_out(out, r, op);
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  nn::check_adaptive_pool_backward("adaptive_avg_pool2d_backward", kMeta, grad_output, self, 2);
  return pooled_meta(self.sizes(), self.dtype(), self, 2);
}

Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  nn::check_adaptive_pool_backward("adaptive_avg_pool3d_backward", kMeta, grad_output, self, 3);
  return empty_meta(self.sizes(), self.dtype());
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  const nn::PoolGeom g = nn::check_adaptive_pool("adaptive_max_pool2d", kMeta, self, 2, output_size);
  const auto shape = nn::pooled_shape(self, 2, g);
  return {pooled_meta(shape, self.dtype(), self, 2), pooled_meta(shape, kInt64, self, 2)};
}

Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  const char* op = "adaptive_max_pool2d_backward";
  nn::check_adaptive_pool_backward(op, kMeta, grad_output, self, 2);
  nn::check_pool_indices(op, kMeta, indices, grad_output.sizes());
  return pooled_meta(self.sizes(), self.dtype(), self, 2);
}

}  // namespace ember::meta
