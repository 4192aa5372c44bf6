// Padding layers.
#include "ember/nn/modules/Padding.h"

#include "ember/generated/Functions.h"

namespace ember::nn::detail {

// Constant padding pads the trailing dimensions of any input (as LibTorch's ConstantPadNd); the
// other layers take (C, spatial...) or (N, C, spatial...) inputs.
Tensor pad_forward(const char* layer, const Tensor& input, IntArrayRef padding, const char* kind, double value,
                   size_t dims) {
  if (std::string_view(kind) == "constant") return constant_pad_nd(input, padding, value);
  const auto d = static_cast<int64_t>(dims);
  EMBER_CHECK(input.dim() == d + 1 || input.dim() == d + 2, "[{}] Expected {}D or {}D input tensor, but got {}D", layer,
              d + 1, d + 2, input.dim());
  return pad(input, padding, kind);
}

}  // namespace ember::nn::detail
