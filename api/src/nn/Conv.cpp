// Convolution layers: the options checks, printing and input preparation ConvNdImpl shares, and
// Conv2d's forward.
#include "ember/nn/modules/Conv.h"

#include <fmt/format.h>

#include <cstring>

#include "ember/generated/Functions.h"

namespace ember::nn {

namespace detail {

void check_conv_options(const char* layer, int64_t in_channels, int64_t out_channels, int64_t groups,
                        const std::vector<int64_t>& stride, bool same) {
  EMBER_CHECK(in_channels > 0 && groups > 0 && out_channels > 0,
              "[{}] in_channels, groups and out_channels must be a positive integer (got {}, {} and {})", layer,
              in_channels, groups, out_channels);
  EMBER_CHECK(in_channels % groups == 0, "[{}] in_channels must be divisible by groups (got {} and {})", layer,
              in_channels, groups);
  EMBER_CHECK(out_channels % groups == 0, "[{}] out_channels must be divisible by groups (got {} and {})", layer,
              out_channels, groups);
  if (same)
    for (int64_t s : stride)
      EMBER_CHECK(s == 1, "[{}] padding='same' is not supported for strided convolutions (stride {})", layer,
                  fmt::join(stride, ", "));
}

namespace {
bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}
void print_sizes(std::ostream& stream, const std::vector<int64_t>& v) {
  if (v.size() == 1) {
    stream << v[0];
    return;
  }
  stream << '[';
  for (size_t i = 0; i < v.size(); ++i) stream << (i ? ", " : "") << v[i];
  stream << ']';
}
}  // namespace

void print_conv(std::ostream& stream, size_t dims, int64_t in_channels, int64_t out_channels,
                const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                const std::vector<int64_t>* padding, const char* padding_name, const std::vector<int64_t>& dilation,
                const std::vector<int64_t>& output_padding, int64_t groups, bool bias, const char* padding_mode,
                bool transposed) {
  stream << "ember::nn::Conv" << (transposed ? "Transpose" : "") << dims << "d(" << in_channels << ", " << out_channels
         << ", kernel_size=";
  print_sizes(stream, kernel_size);
  stream << ", stride=";
  print_sizes(stream, stride);
  if (!padding) {
    stream << ", padding='" << padding_name << "'";
  } else if (!all_equal(*padding, 0)) {
    stream << ", padding=";
    print_sizes(stream, *padding);
  }
  if (!all_equal(dilation, 1)) {
    stream << ", dilation=";
    print_sizes(stream, dilation);
  }
  if (!all_equal(output_padding, 0)) {
    stream << ", output_padding=";
    print_sizes(stream, output_padding);
  }
  if (groups != 1) stream << ", groups=" << groups;
  if (!bias) stream << ", bias=false";
  if (std::strcmp(padding_mode, "kZeros") != 0) stream << ", padding_mode=" << padding_mode;
  stream << ")";
}

Tensor conv_pad_input(const Tensor& input, const std::vector<int64_t>& kernel_size,
                      const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding, bool same,
                      const char* padding_mode) {
  // LibTorch's _reversed_padding_repeated_twice: the input padded by F::pad in that mode, then
  // an unpadded convolution ('same' splits an odd total with the extra element on the right).
  const size_t d = kernel_size.size();
  std::vector<int64_t> pad(2 * d);
  for (size_t i = 0; i < d; ++i) {
    const int64_t total = same ? dilation[i] * (kernel_size[i] - 1) : 2 * padding[i];
    pad[2 * (d - 1 - i)] = same ? total / 2 : padding[i];
    pad[2 * (d - 1 - i) + 1] = total - pad[2 * (d - 1 - i)];
  }
  const char* mode = std::strcmp(padding_mode, "kReflect") == 0     ? "reflect"
                     : std::strcmp(padding_mode, "kReplicate") == 0 ? "replicate"
                                                                    : "circular";
  return ember::pad(input, pad, mode);
}

}  // namespace detail

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options_) : ConvNdImpl(options_.nd()) {}

Tensor Conv2dImpl::forward(const Tensor& input) {
  return conv_forward(input, [&](const Tensor& x, auto padding) {
    return conv2d(x, weight, bias, options.stride(), padding, options.dilation(), options.groups());
  });
}

}  // namespace ember::nn

namespace ember::nn {

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options_) : ConvNdImpl(options_.nd()) {}

Tensor Conv1dImpl::forward(const Tensor& input) {
  return conv_forward(input, [&](const Tensor& x, auto padding) {
    return conv1d(x, weight, bias, options.stride(), padding, options.dilation(), options.groups());
  });
}

Conv3dImpl::Conv3dImpl(const Conv3dOptions& options_) : ConvNdImpl(options_.nd()) {}

Tensor Conv3dImpl::forward(const Tensor& input) {
  return conv_forward(input, [&](const Tensor& x, auto padding) {
    return conv3d(x, weight, bias, options.stride(), padding, options.dilation(), options.groups());
  });
}

namespace detail {

std::vector<int64_t> conv_transpose_output_padding(
    const char* layer, const Tensor& input, const std::optional<IntArrayRef>& output_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& dilation, const std::vector<int64_t>& output_padding, const char* padding_mode) {
  EMBER_CHECK(std::strcmp(padding_mode, "kZeros") == 0,
              "[{}] padding_mode: only kZeros is supported for transposed convolutions, got {}", layer, padding_mode);
  if (!output_size) return output_padding;
  const size_t k = kernel_size.size();
  const int64_t spatial_start = input.dim() - static_cast<int64_t>(k);
  EMBER_CHECK(spatial_start == 1 || spatial_start == 2,
              "[{}] input: expected a {}-D (unbatched) or {}-D (batched) tensor, got shape {}", layer, k + 1, k + 2,
              input.sizes());
  IntArrayRef size = *output_size;
  if (size.size() == static_cast<size_t>(input.dim())) size = size.slice(static_cast<size_t>(spatial_start));
  EMBER_CHECK(size.size() == k, "[{}] output_size: must have {} or {} elements (got {})", layer, k,
              static_cast<size_t>(input.dim()), output_size->size());
  std::vector<int64_t> result(k);
  for (size_t d = 0; d < k; ++d) {
    const int64_t in = input.size(spatial_start + static_cast<int64_t>(d));
    const int64_t min_size = (in - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1;
    const int64_t max_size = min_size + stride[d] - 1;
    EMBER_CHECK(size[d] >= min_size && size[d] <= max_size,
                "[{}] output_size: requested an output size of {}, but valid sizes range from {} to {} (for an "
                "input of {})",
                layer, fmt::join(size, ", "), min_size, max_size, fmt::join(input.sizes().slice(2), ", "));
    result[d] = size[d] - min_size;
  }
  return result;
}

}  // namespace detail

ConvTranspose1dImpl::ConvTranspose1dImpl(const ConvTranspose1dOptions& options_) : ConvNdImpl(options_.nd()) {}

Tensor ConvTranspose1dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  const auto pad = detail::to_vector(std::get<ExpandingArray<1>>(options.padding()));
  const std::string mode = enumtype::get_enum_name(options.padding_mode());
  const auto output_padding = detail::conv_transpose_output_padding(
      "ConvTranspose1d", input, output_size, detail::to_vector(options.stride()), pad,
      detail::to_vector(options.kernel_size()), detail::to_vector(options.dilation()),
      detail::to_vector(options.output_padding()), mode.c_str());
  return conv_transpose1d(input, weight, bias, options.stride(), pad, output_padding, options.groups(),
                          options.dilation());
}

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions& options_) : ConvNdImpl(options_.nd()) {}

Tensor ConvTranspose2dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  const auto pad = detail::to_vector(std::get<ExpandingArray<2>>(options.padding()));
  const std::string mode = enumtype::get_enum_name(options.padding_mode());
  const auto output_padding = detail::conv_transpose_output_padding(
      "ConvTranspose2d", input, output_size, detail::to_vector(options.stride()), pad,
      detail::to_vector(options.kernel_size()), detail::to_vector(options.dilation()),
      detail::to_vector(options.output_padding()), mode.c_str());
  return conv_transpose2d(input, weight, bias, options.stride(), pad, output_padding, options.groups(),
                          options.dilation());
}

}  // namespace ember::nn
