#pragma once
// Dropout layers (LibTorch's modules/dropout.h): Dropout, Dropout2d, AlphaDropout and
// FeatureAlphaDropout. They drop only while the module is training (is_training()).
#include <ostream>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  // The probability of zeroing an element (a channel for Dropout2d).
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace detail {
// The checks and printing the four layers share.
EMBER_API void check_dropout_p(const char* layer, double p);
EMBER_API void print_dropout(std::ostream& stream, const char* layer, const DropoutOptions& options);
}  // namespace detail

// What the four share: options (p checked in [0, 1]) and printing "ember::nn::Dropout(p=0.5, inplace=false)".
template <typename Derived>
class DropoutImplBase : public Cloneable<Derived> {
 public:
  explicit DropoutImplBase(const DropoutOptions& options_ = {}) : options(options_) {
    detail::check_dropout_p(Derived::kName, options.p());
  }
  void reset() override { detail::check_dropout_p(Derived::kName, options.p()); }
  void pretty_print(std::ostream& stream) const override { detail::print_dropout(stream, Derived::kName, options); }

  DropoutOptions options;
};

class EMBER_API DropoutImpl : public DropoutImplBase<DropoutImpl> {
 public:
  static constexpr const char* kName = "Dropout";
  using DropoutImplBase::DropoutImplBase;
  explicit DropoutImpl(double p) : DropoutImplBase(DropoutOptions(p)) {}
  Tensor forward(Tensor input);
};
EMBER_MODULE(Dropout);

// Zeros whole channels of an (N, C, H, W) or (C, H, W) input.
class EMBER_API Dropout2dImpl : public DropoutImplBase<Dropout2dImpl> {
 public:
  static constexpr const char* kName = "Dropout2d";
  using DropoutImplBase::DropoutImplBase;
  explicit Dropout2dImpl(double p) : DropoutImplBase(DropoutOptions(p)) {}
  Tensor forward(Tensor input);
};
EMBER_MODULE(Dropout2d);

// For SELU networks: keeps mean 0 and variance 1.
class EMBER_API AlphaDropoutImpl : public DropoutImplBase<AlphaDropoutImpl> {
 public:
  static constexpr const char* kName = "AlphaDropout";
  using DropoutImplBase::DropoutImplBase;
  explicit AlphaDropoutImpl(double p) : DropoutImplBase(DropoutOptions(p)) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AlphaDropout);

class EMBER_API FeatureAlphaDropoutImpl : public DropoutImplBase<FeatureAlphaDropoutImpl> {
 public:
  static constexpr const char* kName = "FeatureAlphaDropout";
  using DropoutImplBase::DropoutImplBase;
  explicit FeatureAlphaDropoutImpl(double p) : DropoutImplBase(DropoutOptions(p)) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(FeatureAlphaDropout);

}  // namespace ember::nn
