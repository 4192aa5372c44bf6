#pragma once
// Batch normalization (LibTorch's modules/batchnorm.h): NormImplBase (affine parameters and
// running statistics, shared with instance normalization), BatchNormImplBase (the forward) and
// BatchNorm1d/2d, which only check the input's rank.
#include <cstdint>
#include <optional>
#include <ostream>

#include "ember/core/LocalState.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/generated/Functions.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Init.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  // The running statistics' update factor; nullopt: a cumulative average.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

namespace detail {
EMBER_API void print_batch_norm(std::ostream& stream, const char* layer, int64_t num_features, double eps,
                                std::optional<double> momentum, bool affine, bool track_running_stats);
EMBER_API Tensor batch_norm_forward(const char* layer, const Tensor& input, const Tensor& weight, const Tensor& bias,
                                    const Tensor& running_mean, const Tensor& running_var,
                                    const Tensor& num_batches_tracked, bool training, bool track_running_stats,
                                    std::optional<double> momentum, double eps);
}  // namespace detail

// weight (ones) and bias (zeros) when affine; running_mean (zeros), running_var (ones) and
// num_batches_tracked (int64 0) buffers when track_running_stats, else those are undefined.
template <size_t D, typename Derived, typename DerivedOptions>
class NormImplBase : public Cloneable<Derived> {
 protected:
  virtual void _check_input_dim(const Tensor& input) = 0;

 public:
  explicit NormImplBase(const DerivedOptions& options_) : options(options_) { reset(); }

  void reset() override {
    if (options.affine()) {
      weight = this->register_parameter("weight", ember::empty({options.num_features()}));
      bias = this->register_parameter("bias", ember::empty({options.num_features()}));
    } else {
      weight = this->register_parameter("weight", Tensor(), /*requires_grad=*/false);
      bias = this->register_parameter("bias", Tensor(), /*requires_grad=*/false);
    }
    if (options.track_running_stats()) {
      running_mean = this->register_buffer("running_mean", ember::zeros({options.num_features()}));
      running_var = this->register_buffer("running_var", ember::ones({options.num_features()}));
      num_batches_tracked = this->register_buffer("num_batches_tracked", ember::zeros({}, kInt64));
    } else {
      running_mean = this->register_buffer("running_mean", Tensor());
      running_var = this->register_buffer("running_var", Tensor());
      num_batches_tracked = this->register_buffer("num_batches_tracked", Tensor());
    }
    reset_parameters();
  }

  void reset_running_stats() {
    if (!options.track_running_stats()) return;
    NoGradGuard no_grad;
    running_mean.zero_();
    running_var.fill_(1);
    num_batches_tracked.zero_();
  }

  void reset_parameters() {
    reset_running_stats();
    if (options.affine()) {
      init::ones_(weight);
      init::zeros_(bias);
    }
  }

  DerivedOptions options;
  Tensor weight, bias;
  Tensor running_mean, running_var, num_batches_tracked;
};

template <size_t D, typename Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  using NormImplBase<D, Derived, BatchNormOptions>::NormImplBase;

  // Normalizes with the batch's statistics while training (and updates the running ones, by
  // `momentum`, or cumulatively when it is nullopt), and with the running statistics in eval
  // mode; without running statistics, always with the batch's.
  Tensor forward(const Tensor& input) {
    this->_check_input_dim(input);
    return detail::batch_norm_forward(
        layer_name(), input, this->weight, this->bias, this->running_mean, this->running_var, this->num_batches_tracked,
        this->is_training(), this->options.track_running_stats(), this->options.momentum(), this->options.eps());
  }

  // "ember::nn::BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)".
  void pretty_print(std::ostream& stream) const override {
    detail::print_batch_norm(stream, layer_name(), this->options.num_features(), this->options.eps(),
                             this->options.momentum(), this->options.affine(), this->options.track_running_stats());
  }

 private:
  static const char* layer_name() {
    if constexpr (D == 1) return "BatchNorm1d";
    if constexpr (D == 2) return "BatchNorm2d";
    return "BatchNorm3d";
  }
};

// Over [N, C] or [N, C, L] inputs.
class EMBER_API BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
EMBER_MODULE(BatchNorm1d);

// Over [N, C, H, W] inputs.
class EMBER_API BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;
};
EMBER_MODULE(BatchNorm2d);

}  // namespace ember::nn
