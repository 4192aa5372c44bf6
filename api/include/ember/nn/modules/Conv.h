#pragma once
// Convolutions (LibTorch's modules/conv.h): ConvOptions<D>, the shared ConvNdImpl<D, Derived>
// (parameters, initialisation, printing) and Conv2d. A ConvNd layer is ConvNdImpl plus a
// forward.
#include <cmath>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ember/dispatcher/Tensor.h"
#include "ember/generated/Functions.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Enum.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Init.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/modules/AnyModule.h"

namespace ember::nn {

namespace detail {
// Every convolution's options, transposed ones included (LibTorch's detail::ConvNdOptions).
template <size_t D>
struct ConvNdOptions {
  using padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;

  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(ExpandingArray<D>(il)); }

  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, transposed) = false;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};
}  // namespace detail

// Conv1dOptions, Conv2dOptions, Conv3dOptions: ConvOptions<1>, <2>, <3>.
template <size_t D>
struct ConvOptions {
  using padding_t = typename detail::ConvNdOptions<D>::padding_t;
  using padding_mode_t = typename detail::ConvNdOptions<D>::padding_mode_t;

  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  // An int, one int per spatial dim, ember::kValid (no padding) or ember::kSame (the output keeps
  // the input's size; stride 1 only).
  EMBER_ARG(padding_t, padding) = 0;

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(ExpandingArray<D>(il)); }

  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  // kZeros, or kReflect / kReplicate / kCircular: the input padded by F::pad in that mode.
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;

 public:
  detail::ConvNdOptions<D> nd() const {
    return detail::ConvNdOptions<D>(in_channels(), out_channels(), kernel_size())
        .stride(stride())
        .padding(padding())
        .dilation(dilation())
        .groups(groups())
        .bias(bias())
        .padding_mode(padding_mode());
  }
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

namespace detail {
EMBER_API void check_conv_options(const char* layer, int64_t in_channels, int64_t out_channels, int64_t groups,
                                  const std::vector<int64_t>& stride, bool same);
EMBER_API void print_conv(std::ostream& stream, size_t dims, int64_t in_channels, int64_t out_channels,
                          const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                          const std::vector<int64_t>* padding, const char* padding_name,
                          const std::vector<int64_t>& dilation, const std::vector<int64_t>& output_padding,
                          int64_t groups, bool bias, const char* padding_mode, bool transposed);
// The input padded by a padding mode other than kZeros (reflect, replicate, circular) for an
// unpadded convolution: `padding` on each side, or for 'same' dilation * (kernel - 1) in all, the
// odd one after the input (PyTorch's asymmetric 'same').
EMBER_API Tensor conv_pad_input(const Tensor& input, const std::vector<int64_t>& kernel_size,
                                const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding, bool same,
                                const char* padding_mode);

template <size_t D>
std::vector<int64_t> to_vector(const ExpandingArray<D>& a) {
  return std::vector<int64_t>(a->begin(), a->end());
}
}  // namespace detail

// What every convolution layer shares: its options, `weight` ([out, in / groups, *kernel], or
// [in, out / groups, *kernel] when transposed) and `bias`, PyTorch's initialisation and printing.
template <size_t D, typename Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(detail::ConvNdOptions<D> options_) : options(std::move(options_)) { reset(); }

  void reset() override {
    detail::check_conv_options(layer_name(), options.in_channels(), options.out_channels(), options.groups(),
                               detail::to_vector(options.stride()),
                               std::holds_alternative<enumtype::kSame>(options.padding()));
    std::vector<int64_t> weight_sizes;
    if (options.transposed())
      weight_sizes = {options.in_channels(), options.out_channels() / options.groups()};
    else
      weight_sizes = {options.out_channels(), options.in_channels() / options.groups()};
    weight_sizes.insert(weight_sizes.end(), options.kernel_size()->begin(), options.kernel_size()->end());
    weight = this->register_parameter("weight", ember::empty(weight_sizes));
    if (options.bias())
      bias = this->register_parameter("bias", ember::empty({options.out_channels()}));
    else
      bias = this->register_parameter("bias", Tensor(), /*requires_grad=*/false);
    reset_parameters();
  }

  void reset_parameters() {
    init::kaiming_uniform_(weight, /*a=*/std::sqrt(5.0));
    if (bias.defined()) {
      const auto fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
      const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
      init::uniform_(bias, -bound, bound);
    }
  }

  // "ember::nn::Conv2d(3, 8, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])" (LibTorch's).
  void pretty_print(std::ostream& stream) const override {
    std::vector<int64_t> pad_vec;
    const std::vector<int64_t>* pad = nullptr;
    if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
      pad_vec = detail::to_vector(*p);
      pad = &pad_vec;
    }
    const char* padding_name = std::holds_alternative<enumtype::kSame>(options.padding()) ? "same" : "valid";
    const std::string mode = enumtype::get_enum_name(options.padding_mode());
    detail::print_conv(stream, D, options.in_channels(), options.out_channels(),
                       detail::to_vector(options.kernel_size()), detail::to_vector(options.stride()), pad, padding_name,
                       detail::to_vector(options.dilation()), detail::to_vector(options.output_padding()),
                       options.groups(), options.bias(), mode.c_str(), options.transposed());
  }

  detail::ConvNdOptions<D> options;
  Tensor weight;
  Tensor bias;

 protected:
  // A forward: `conv(x, padding)` is the operator, which takes an int padding or the string
  // "same"/"valid" (its own 'same' splits the padding). A padding mode other than kZeros pads the
  // input first, then convolves unpadded.
  template <class Conv>
  Tensor conv_forward(const Tensor& input, Conv&& conv) const {
    const auto* explicit_pad = std::get_if<ExpandingArray<D>>(&options.padding());
    const bool same = std::holds_alternative<enumtype::kSame>(options.padding());
    const std::string mode = enumtype::get_enum_name(options.padding_mode());
    if (mode != "kZeros") {
      const std::vector<int64_t> none(D, 0);
      const Tensor x =
          detail::conv_pad_input(input, detail::to_vector(options.kernel_size()), detail::to_vector(options.dilation()),
                                 explicit_pad ? detail::to_vector(*explicit_pad) : none, same, mode.c_str());
      return conv(x, IntArrayRef(none));
    }
    if (explicit_pad) return conv(input, IntArrayRef(**explicit_pad));
    return conv(input, std::string_view(same ? "same" : "valid"));
  }

 private:
  const char* layer_name() const {
    static constexpr const char* kNames[2][3] = {{"Conv1d", "Conv2d", "Conv3d"},
                                                 {"ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"}};
    return kNames[options.transposed() ? 1 : 0][D - 1];
  }
};

// 1-D convolution over [N, C, L] (or [C, L]) inputs.
class EMBER_API Conv1dImpl : public ConvNdImpl<1, Conv1dImpl> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options_);
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv1d);

// 2-D convolution over [N, C, H, W] (or [C, H, W]) inputs.
class EMBER_API Conv2dImpl : public ConvNdImpl<2, Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options_);
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv2d);

// 3-D convolution over [N, C, D, H, W] (or [C, D, H, W]) inputs.
class EMBER_API Conv3dImpl : public ConvNdImpl<3, Conv3dImpl> {
 public:
  Conv3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv3dImpl(const Conv3dOptions& options_);
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv3d);

// ConvTranspose1dOptions, ConvTranspose2dOptions: ConvTransposeOptions<1>, <2>.
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = typename detail::ConvNdOptions<D>::padding_mode_t;

  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  // Removed from each side of the full transposed convolution's output.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  // Added to one side of the output: picks among the sizes a strided convolution maps back from.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  // kZeros only (as PyTorch's transposed convolutions).
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;

 public:
  detail::ConvNdOptions<D> nd() const {
    return detail::ConvNdOptions<D>(in_channels(), out_channels(), kernel_size())
        .stride(stride())
        .padding(padding())
        .dilation(dilation())
        .transposed(true)
        .output_padding(output_padding())
        .groups(groups())
        .bias(bias())
        .padding_mode(padding_mode());
  }
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;

namespace detail {
// The output_padding that makes a transposed convolution's output `output_size` (its spatial
// sizes, or with the batch and channel dims too), checked to be reachable (PyTorch's
// _ConvTransposeNd._output_padding); options' output_padding without an output_size.
EMBER_API std::vector<int64_t> conv_transpose_output_padding(
    const char* layer, const Tensor& input, const std::optional<IntArrayRef>& output_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& dilation, const std::vector<int64_t>& output_padding, const char* padding_mode);
}  // namespace detail

// Transposed 1-D convolution (the gradient of conv1d with respect to its input); weight is
// [in_channels, out_channels / groups, k].
class EMBER_API ConvTranspose1dImpl : public ConvNdImpl<1, ConvTranspose1dImpl> {
 public:
  ConvTranspose1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options_);
  // output_size: the output's spatial size (or its full shape), instead of options' output_padding.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::optional<IntArrayRef>())})
};
EMBER_MODULE(ConvTranspose1d);

// Transposed 2-D convolution; weight is [in_channels, out_channels / groups, kH, kW].
class EMBER_API ConvTranspose2dImpl : public ConvNdImpl<2, ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options_);
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::optional<IntArrayRef>())})
};
EMBER_MODULE(ConvTranspose2d);

}  // namespace ember::nn
