#pragma once
// Pooling layers (LibTorch's modules/pooling.h): MaxPool1d/2d/3d, AvgPool1d/2d/3d,
// AdaptiveAvgPool1d/2d/3d and AdaptiveMaxPool1d/2d, each from a MaxPoolImpl / AvgPoolImpl /
// AdaptiveAvgPoolImpl / AdaptiveMaxPoolImpl base shared by the dims.
#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  // Defaults to kernel_size.
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  // A missing (nullopt) size keeps the input's.
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  // A missing (nullopt) size keeps the input's.
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;

template <size_t D, typename Derived>
class MaxPoolImpl : public Cloneable<Derived> {
 public:
  MaxPoolImpl(ExpandingArray<D> kernel_size) : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  // "ember::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)".
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "ember::nn::MaxPool" << D << "d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding()
           << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
  }

  MaxPoolOptions<D> options;
};

// Over [N, C, L] or [C, L] inputs.
class EMBER_API MaxPool1dImpl : public MaxPoolImpl<1, MaxPool1dImpl> {
 public:
  using MaxPoolImpl<1, MaxPool1dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(MaxPool1d);

// Over [N, C, H, W] or [C, H, W] inputs.
class EMBER_API MaxPool2dImpl : public MaxPoolImpl<2, MaxPool2dImpl> {
 public:
  using MaxPoolImpl<2, MaxPool2dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(MaxPool2d);

// Over [N, C, D, H, W] or [C, D, H, W] inputs.
class EMBER_API MaxPool3dImpl : public MaxPoolImpl<3, MaxPool3dImpl> {
 public:
  using MaxPoolImpl<3, MaxPool3dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
  // The output and the flat index of each maximum within its input plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(MaxPool3d);

template <size_t D, typename Derived>
class AvgPoolImpl : public Cloneable<Derived> {
 public:
  AvgPoolImpl(ExpandingArray<D> kernel_size) : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  // "ember::nn::AvgPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])" (LibTorch prints no more).
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::AvgPool" << D << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", padding=" << options.padding() << ")";
  }

  AvgPoolOptions<D> options;
};

class EMBER_API AvgPool1dImpl : public AvgPoolImpl<1, AvgPool1dImpl> {
 public:
  using AvgPoolImpl<1, AvgPool1dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool1d);

class EMBER_API AvgPool2dImpl : public AvgPoolImpl<2, AvgPool2dImpl> {
 public:
  using AvgPoolImpl<2, AvgPool2dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool2d);

class EMBER_API AvgPool3dImpl : public AvgPoolImpl<3, AvgPool3dImpl> {
 public:
  using AvgPoolImpl<3, AvgPool3dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool3d);

template <size_t D, typename output_size_t, typename Derived>
class AdaptiveAvgPoolImpl : public Cloneable<Derived> {
 public:
  AdaptiveAvgPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<output_size_t>& options_) : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::AdaptiveAvgPool" << D << "d(output_size=" << options.output_size() << ")";
  }

  AdaptiveAvgPoolOptions<output_size_t> options;
};

class EMBER_API AdaptiveAvgPool2dImpl
    : public AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl> {
 public:
  using AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool2d);

class EMBER_API AdaptiveAvgPool1dImpl : public AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl> {
 public:
  using AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool1d);

class EMBER_API AdaptiveAvgPool3dImpl
    : public AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl> {
 public:
  using AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool3d);

template <size_t D, typename output_size_t, typename Derived>
class AdaptiveMaxPoolImpl : public Cloneable<Derived> {
 public:
  AdaptiveMaxPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<output_size_t>& options_) : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::AdaptiveMaxPool" << D << "d(output_size=" << options.output_size() << ")";
  }

  AdaptiveMaxPoolOptions<output_size_t> options;
};

class EMBER_API AdaptiveMaxPool1dImpl : public AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl> {
 public:
  using AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool1d);

class EMBER_API AdaptiveMaxPool2dImpl
    : public AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl> {
 public:
  using AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool2d);

}  // namespace ember::nn
