// CNN wrappers: conv2d (unbatched inputs, int-or-pair arguments) onto convolution, conv1d/2d/3d's
// string paddings ("valid", "same") onto the int ones; batch_norm,
// layer_norm, max_pool2d and adaptive_avg_pool2d onto the primitives that return their
// saved statistics or indices.
#include "Composite.h"
#include "ember/native/NNRules.h"

namespace ember::native {

namespace {
// The string paddings of conv1d/2d/3d (LibTorch's _convolution_mode): "valid" is none; "same" pads
// dilation * (k - 1) per spatial dim, half on each side and an odd one more after the input (by
// constant_pad_nd), for stride 1 only. `conv(input, padding)` is the int-padding overload.
template <class Conv>
Tensor conv_padding_mode(const char* op, int64_t nd, const Tensor& input, const Tensor& weight, IntArrayRef stride,
                         std::string_view padding, IntArrayRef dilation, Conv&& conv) {
  check_defined(op, input, "input");
  check_defined(op, weight, "weight");
  DimVector pad(static_cast<size_t>(nd), 0);
  if (padding == "valid") return conv(input, pad);
  EMBER_CHECK(padding == "same", "[{}] argument 'padding': expected \"valid\" or \"same\", got \"{}\"", op, padding);
  for (int64_t s : stride)
    EMBER_CHECK(s == 1, "[{}] padding='same' is not supported for strided convolutions, got stride {}", op, stride);
  const bool dilation_ok = dilation.size() == 1 || static_cast<int64_t>(dilation.size()) == nd;
  // Shapes the padding cannot be read from: the operator reports them.
  if (weight.dim() != nd + 2 || input.dim() < nd + 1 || !dilation_ok) return conv(input, pad);
  DimVector extra(static_cast<size_t>(2 * nd), 0);  // constant_pad_nd's order: last dim first
  bool asymmetric = false;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t total = dilation[dilation.size() == 1 ? 0 : static_cast<size_t>(i)] * (weight.size(2 + i) - 1);
    pad[static_cast<size_t>(i)] = total / 2;
    if (total % 2 == 1) {
      extra[static_cast<size_t>(2 * (nd - 1 - i) + 1)] = 1;
      asymmetric = true;
    }
  }
  return conv(asymmetric ? ember::constant_pad_nd(input, extra, 0) : input, pad);
}
}  // namespace

Tensor conv1d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_mode("conv1d", 1, input, weight, stride, padding, dilation, [&](const Tensor& x, IntArrayRef p) {
    return ember::conv1d(x, weight, bias, stride, p, dilation, groups);
  });
}
Tensor conv2d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_mode("conv2d", 2, input, weight, stride, padding, dilation, [&](const Tensor& x, IntArrayRef p) {
    return ember::conv2d(x, weight, bias, stride, p, dilation, groups);
  });
}
Tensor conv3d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_mode("conv3d", 3, input, weight, stride, padding, dilation, [&](const Tensor& x, IntArrayRef p) {
    return ember::conv3d(x, weight, bias, stride, p, dilation, groups);
  });
}

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
