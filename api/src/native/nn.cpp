// CNN wrappers: conv2d (unbatched inputs, int-or-pair arguments) onto convolution; batch_norm,
// layer_norm, max_pool2d and adaptive_avg_pool2d onto the primitives that return their
// saved statistics or indices.
#include "Composite.h"
#include "ember/native/NNRules.h"

namespace ember::native {

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  check_defined("conv2d", input, "input");
  check_defined("conv2d", weight, "weight");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "[conv2d] argument 'input': expected a 3-D (unbatched) or 4-D (batched) input, got shape {}",
              input.sizes());
  EMBER_CHECK(
      weight.dim() == 4,
      "[conv2d] argument 'weight': expected a 4-D weight (out_channels, in_channels / groups, kH, kW), got shape {}",
      weight.sizes());
  const nn::Pair s = nn::pair_arg(stride, "conv2d", "stride"), p = nn::pair_arg(padding, "conv2d", "padding"),
                 d = nn::pair_arg(dilation, "conv2d", "dilation");
  const std::array<int64_t, 2> s2 = {s.h, s.w}, p2 = {p.h, p.w}, d2 = {d.h, d.w}, zero = {0, 0};
  const bool batched = input.dim() == 4;
  const Tensor out =
      ember::convolution(batched ? input : input.unsqueeze(0), weight, bias, s2, p2, d2, false, zero, groups);
  return batched ? out : out.squeeze(0);
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  return std::get<0>(ember::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  (void)cudnn_enable;
  return std::get<0>(ember::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  if (self.is_quantized()) return ember::quantized_max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  return std::get<0>(ember::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  check_defined("adaptive_avg_pool2d", self, "self");
  const nn::Pair o = nn::pair_arg(output_size, "adaptive_avg_pool2d", "output_size");
  const std::array<int64_t, 2> o2 = {o.h, o.w};
  return ember::_adaptive_avg_pool2d(self, o2);
}

}  // namespace ember::native
