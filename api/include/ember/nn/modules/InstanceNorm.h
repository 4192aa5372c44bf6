#pragma once
// Instance normalization (LibTorch's modules/instancenorm.h): InstanceNorm2d, on NormImplBase
// (ember/nn/modules/BatchNorm.h) for its parameters and running statistics.
#include <cstdint>
#include <ostream>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/modules/BatchNorm.h"

namespace ember::nn {

struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  // PyTorch's defaults: no affine parameters and no running statistics.
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm2dOptions = InstanceNormOptions;

// Normalizes each (sample, channel) plane of an [N, C, H, W] (or [C, H, W]) input with its own
// statistics; with track_running_stats, eval mode uses the running ones instead.
class EMBER_API InstanceNorm2dImpl : public NormImplBase<2, InstanceNorm2dImpl, InstanceNormOptions> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using NormImplBase<2, InstanceNorm2dImpl, InstanceNormOptions>::NormImplBase;
  Tensor forward(const Tensor& input);
  // "ember::nn::InstanceNorm2d(4, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)".
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(InstanceNorm2d);

}  // namespace ember::nn
