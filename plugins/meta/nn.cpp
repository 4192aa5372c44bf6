// Meta kernels of the CNN operators: convolution, pooling, batch and layer norm (and their
// backwards). The argument checks and output shapes are the cpu kernels' own
// (ember/native/NNRules.h); results are contiguous and in the input's dtype, as the cpu kernels'
// are (Note [CPU CNN kernel dtypes] in plugins/cpu/NN.h).
#include "MetaKernels.h"
#include "ember/native/Geometry.h"
#include "ember/native/NNRules.h"

namespace ember::meta {
namespace {

namespace nn = native::nn;

Tensor empty_meta(IntArrayRef sizes, ScalarType dtype) { return native::empty_on(kMeta, sizes, dtype); }
Tensor empty_if(bool want, IntArrayRef sizes, ScalarType dtype) { return want ? empty_meta(sizes, dtype) : Tensor(); }

// The cpu kernel writes the running statistics in place and bumps their versions, which the
// schema does not mark written (Note [Version counters]).
void touch(const std::optional<Tensor>& t) {
  if (t && t->defined()) t->unsafeGetTensorImpl()->bump_version();
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const char* op = "convolution";
  nn::check_not_transposed(op, transposed, output_padding);
  const nn::ConvGeom g = nn::check_conv(op, kMeta, input, weight, bias, stride, padding, dilation, groups);
  return empty_meta({g.N, g.O, g.oH, g.oW}, input.dtype());
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const nn::ConvGeom g =
      nn::check_conv_backward("convolution_backward", kMeta, grad_output, input, weight, bias_sizes, stride, padding,
                              dilation, transposed, output_padding, groups, output_mask);
  const ScalarType dt = input.dtype();
  return {empty_if(output_mask[0], input.sizes(), dt), empty_if(output_mask[1], weight.sizes(), dt),
          empty_if(output_mask[2], {g.O}, dt)};
}

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

// Training returns the batch statistics (save_mean, save_invstd) per channel; evaluation returns
// two empty tensors in their place, as the cpu kernel.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double /*momentum*/, double /*eps*/) {
  const nn::BnShape s =
      nn::check_batch_norm("native_batch_norm", kMeta, input, weight, bias, running_mean, running_var, training);
  const ScalarType dt = input.dtype();
  Tensor y = empty_meta(input.sizes(), dt);
  if (!training) return {y, empty_meta({0}, dt), empty_meta({0}, dt)};
  touch(running_mean);
  touch(running_var);
  return {y, empty_meta({s.C}, dt), empty_meta({s.C}, dt)};
}

// The weight and bias gradients take the weight's dtype when there is one.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& running_mean,
                                                              const std::optional<Tensor>& running_var,
                                                              const std::optional<Tensor>& save_mean,
                                                              const std::optional<Tensor>& save_invstd, bool train,
                                                              double /*eps*/, std::array<bool, 3> output_mask) {
  const nn::BnShape s = nn::check_batch_norm_backward("native_batch_norm_backward", kMeta, grad_out, input, weight,
                                                      running_mean, running_var, save_mean, save_invstd, train);
  const ScalarType dt = input.dtype(), wdt = weight && weight->defined() ? weight->dtype() : dt;
  return {empty_if(output_mask[0], input.sizes(), dt), empty_if(output_mask[1], {s.C}, wdt),
          empty_if(output_mask[2], {s.C}, wdt)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double /*eps*/) {
  nn::check_layer_norm("native_layer_norm", kMeta, input, normalized_shape, weight, bias);
  const ScalarType dt = input.dtype();
  const auto ss = nn::ln_stat_shape(input, static_cast<int64_t>(normalized_shape.size()));
  return {empty_meta(input.sizes(), dt), empty_meta(ss, dt), empty_meta(ss, dt)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              std::array<bool, 3> output_mask) {
  nn::check_layer_norm_backward("native_layer_norm_backward", kMeta, grad_out, input, normalized_shape, mean, rstd,
                                weight, bias);
  const ScalarType dt = input.dtype();
  return {empty_if(output_mask[0], input.sizes(), dt), empty_if(output_mask[1], normalized_shape, dt),
          empty_if(output_mask[2], normalized_shape, dt)};
}

}  // namespace ember::meta
