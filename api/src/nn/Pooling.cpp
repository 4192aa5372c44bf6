// Pooling layers.
#include "ember/nn/modules/Pooling.h"

#include "ember/generated/Functions.h"
#include "ember/nn/functional.h"

namespace ember::nn {

Tensor MaxPool1dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "[MaxPool1d] Expected 2D or 3D input tensor, but got {}D",
              input.dim());
  const auto& o = options;
  return max_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  const auto& o = options;
  return max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor MaxPool3dImpl::forward(const Tensor& input) {
  const auto& o = options;
  return max_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> MaxPool3dImpl::forward_with_indices(const Tensor& input) {
  const auto& o = options;
  return max_pool3d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

// As LibTorch's AvgPool1d: no divisor_override.
Tensor AvgPool1dImpl::forward(const Tensor& input) {
  const auto& o = options;
  return avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad());
}

Tensor AvgPool3dImpl::forward(const Tensor& input) {
  const auto& o = options;
  return avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                    o.divisor_override());
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

Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool1d(input, options.output_size());
}

Tensor AdaptiveAvgPool3dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool3d(input, options.output_size());
}

Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }

std::tuple<Tensor, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool1d_with_indices(input, options.output_size());
}

Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }

std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool2d_with_indices(input, options.output_size());
}

}  // namespace ember::nn
