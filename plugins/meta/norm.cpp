// Meta batch and layer norm and their backwards (plugins/cpu/norm.cpp), with the cpu kernels'
// checks and statistic shapes (ember/native/NNRules.h).
#include "MetaHelpers.h"
#include "ember/native/NNRules.h"

namespace ember::meta {

namespace nn = native::nn;

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
