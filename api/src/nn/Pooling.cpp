// Pooling layers.
#include "ember/nn/modules/Pooling.h"

#include "ember/generated/Functions.h"

namespace ember::nn {

// Through max_pool2d over a height-1 view (Ember has no max_pool1d operator yet).
Tensor MaxPool1dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "[MaxPool1d] Expected 2D or 3D input tensor, but got {}D",
              input.dim());
  const auto& o = options;
  Tensor out = max_pool2d(input.unsqueeze(-2), {1, o.kernel_size()->at(0)}, {1, o.stride()->at(0)},
                          {0, o.padding()->at(0)}, {1, o.dilation()->at(0)}, o.ceil_mode());
  return out.squeeze(-2);
}

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  const auto& o = options;
  return max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  const auto& o = options;
  return avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                    o.divisor_override());
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "[AdaptiveAvgPool2d] Expected 3D or 4D input tensor, but got {}D",
              input.dim());
  const auto& size = *options.output_size();
  const int64_t out[2] = {size[0].value_or(input.size(-2)), size[1].value_or(input.size(-1))};
  return adaptive_avg_pool2d(input, out);
}

}  // namespace ember::nn
