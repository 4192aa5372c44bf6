#pragma once
// Padding layers (LibTorch's modules/padding.h): ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
// ConstantPad1d/2d/3d and ZeroPad2d over the reflection_pad*, replication_pad* and
// constant_pad_nd operators. `padding` is one int for every side or the 2 * D values
// (left, right, top, bottom, front, back), as F::pad's.
#include <cstdint>
#include <ostream>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<4>, padding);
};

namespace detail {
// The layers' forward: the operator of `kind` ("reflect", "replicate", "constant") over D dims.
EMBER_API Tensor pad_forward(const char* layer, const Tensor& input, IntArrayRef padding, const char* kind,
                             double value, size_t dims);
}  // namespace detail

// Reflection, replication and zero padding: `Name` prints "ember::nn::Name(padding=[...])".
#define EMBER_PAD_MODULE(Name, Options, D, kind)                                                                       \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                                                          \
   public:                                                                                                             \
    Name##Impl(ExpandingArray<D * 2> padding) : Name##Impl(Options(padding)) {} /* NOLINT */                           \
    explicit Name##Impl(const Options& options_) : options(options_) {}                                                \
    void reset() override {}                                                                                           \
    void pretty_print(std::ostream& stream) const override {                                                           \
      stream << "ember::nn::" #Name "(padding=" << options.padding() << ")";                                           \
    }                                                                                                                  \
    Tensor forward(const Tensor& input) { return detail::pad_forward(#Name, input, options.padding(), kind, 0.0, D); } \
    Options options;                                                                                                   \
  };                                                                                                                   \
  EMBER_MODULE(Name);

EMBER_PAD_MODULE(ReflectionPad1d, ReflectionPad1dOptions, 1, "reflect")
EMBER_PAD_MODULE(ReflectionPad2d, ReflectionPad2dOptions, 2, "reflect")
EMBER_PAD_MODULE(ReflectionPad3d, ReflectionPad3dOptions, 3, "reflect")
EMBER_PAD_MODULE(ReplicationPad1d, ReplicationPad1dOptions, 1, "replicate")
EMBER_PAD_MODULE(ReplicationPad2d, ReplicationPad2dOptions, 2, "replicate")
EMBER_PAD_MODULE(ReplicationPad3d, ReplicationPad3dOptions, 3, "replicate")
EMBER_PAD_MODULE(ZeroPad2d, ZeroPad2dOptions, 2, "constant")
#undef EMBER_PAD_MODULE

// ConstantPad1d/2d/3d: "ember::nn::ConstantPad2d(padding=[1, 1, 1, 1], value=3.5)".
#define EMBER_CONSTANT_PAD_MODULE(Name, D)                                                                         \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                                                      \
   public:                                                                                                         \
    Name##Impl(ExpandingArray<D * 2> padding, double value) : Name##Impl(ConstantPadOptions<D>(padding, value)) {} \
    explicit Name##Impl(const ConstantPadOptions<D>& options_) : options(options_) {}                              \
    void reset() override {}                                                                                       \
    void pretty_print(std::ostream& stream) const override {                                                       \
      stream << "ember::nn::" #Name "(padding=" << options.padding() << ", value=" << options.value() << ")";      \
    }                                                                                                              \
    Tensor forward(const Tensor& input) {                                                                          \
      return detail::pad_forward(#Name, input, options.padding(), "constant", options.value(), D);                 \
    }                                                                                                              \
    ConstantPadOptions<D> options;                                                                                 \
  };                                                                                                               \
  EMBER_MODULE(Name);

EMBER_CONSTANT_PAD_MODULE(ConstantPad1d, 1)
EMBER_CONSTANT_PAD_MODULE(ConstantPad2d, 2)
EMBER_CONSTANT_PAD_MODULE(ConstantPad3d, 3)
#undef EMBER_CONSTANT_PAD_MODULE

}  // namespace ember::nn
