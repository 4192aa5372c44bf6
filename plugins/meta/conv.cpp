// Meta convolution and its backward (plugins/cpu/conv.cpp): the cpu kernels' checks and output
// shapes (ember/native/NNRules.h); results are in the input's dtype and layout as the cpu
// kernels' are (the forward's is channels-last as conv_output_format says, the rest contiguous) (Note [CPU CNN kernel
// dtypes] in plugins/cpu/NN.h).
#include "MetaHelpers.h"
#include "ember/native/NNRules.h"

namespace ember::meta {

namespace nn = native::nn;

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const nn::ConvGeom g = nn::check_conv("convolution", kMeta, input, weight, bias, stride, padding, dilation,
                                        transposed, output_padding, groups);
  const auto sizes = g.output_sizes();
  return native::empty_strided_on(kMeta, sizes,
                                  memory_format_strides(sizes, nn::conv_output_format(g, input, weight), "convolution"),
                                  input.dtype());
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
          empty_if(output_mask[2], {g.out_channels()}, dt)};
}

}  // namespace ember::meta
