// conv1d, conv3d and conv_transpose1d/2d/3d onto convolution (conv2d is libember's): int-or-tuple
// arguments expanded, unbatched inputs batched as 1.
#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"
#include "ember/native/NNRules.h"

namespace ember::native {
namespace {

// An int[nd] argument (one value or nd) as nd values.
std::vector<int64_t> expand(IntArrayRef v, int64_t nd, int64_t fill, const char* op, const char* name) {
  const std::array<int64_t, 3> a = nn::spatial_arg(v, nd, fill, op, name);
  return std::vector<int64_t>(a.end() - nd, a.end());
}

Tensor conv_nd(const char* op, int64_t nd, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
               IntArrayRef output_padding, int64_t groups) {
  check_defined(op, input, "input");
  check_defined(op, weight, "weight");
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2,
              "[{}] argument 'input': expected a {}-D (unbatched) or {}-D (batched) input, got shape {}", op, nd + 1,
              nd + 2, input.sizes());
  EMBER_CHECK(weight.dim() == nd + 2, "[{}] argument 'weight': expected a {}-D weight ({}, kernel...), got shape {}",
              op, nd + 2, transposed ? "in_channels, out_channels / groups" : "out_channels, in_channels / groups",
              weight.sizes());
  const auto s = expand(stride, nd, 1, op, "stride"), p = expand(padding, nd, 0, op, "padding"),
             d = expand(dilation, nd, 1, op, "dilation"), o = expand(output_padding, nd, 0, op, "output_padding");
  const bool batched = input.dim() == nd + 2;
  const Tensor out = convolution(batched ? input : input.unsqueeze(0), weight, bias, s, p, d, transposed, o, groups);
  return batched ? out : out.squeeze(0);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, false, 0, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, false, 0, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

}  // namespace ember::native
