// Meta 2-D pooling (plugins/cpu/pool.cpp): max_pool2d_with_indices, avg_pool2d,
// _adaptive_avg_pool2d and their backwards, with the cpu kernels' checks and output shapes
// (ember/native/NNRules.h); results are contiguous and in the input's dtype.
#include "MetaHelpers.h"
#include "ember/native/NNRules.h"

namespace ember::meta {

namespace nn = native::nn;

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const nn::PoolGeom g =
      nn::check_pool("max_pool2d_with_indices", kMeta, self, kernel_size, stride, padding, dilation, ceil_mode);
  const auto shape = nn::pooled_shape(self, g.oH, g.oW);
  return {empty_meta(shape, self.dtype()), empty_meta(shape, kInt64)};
}

// The indices' values are not checked: a meta tensor has none.
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  nn::check_max_pool_backward("max_pool2d_with_indices_backward", kMeta, grad_output, self, kernel_size, stride,
                              padding, dilation, ceil_mode, indices);
  return empty_meta(self.sizes(), self.dtype());
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  const nn::PoolGeom g =
      nn::check_avg_pool("avg_pool2d", kMeta, self, kernel_size, stride, padding, ceil_mode, divisor_override);
  return empty_meta(nn::pooled_shape(self, g.oH, g.oW), self.dtype());
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool /*count_include_pad*/,
                           std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  const nn::PoolGeom g = nn::check_avg_pool(op, kMeta, self, kernel_size, stride, padding, ceil_mode, divisor_override);
  nn::check_pool_grad(op, kMeta, grad_output, self, nn::pooled_shape(self, g.oH, g.oW));
  return empty_meta(self.sizes(), self.dtype());
}

Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const nn::Pair o = nn::check_adaptive_pool("adaptive_avg_pool2d", kMeta, self, output_size);
  return empty_meta(nn::pooled_shape(self, o.h, o.w), self.dtype());
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  nn::check_adaptive_pool_backward("adaptive_avg_pool2d_backward", kMeta, grad_output, self);
  return empty_meta(self.sizes(), self.dtype());
}

}  // namespace ember::meta
