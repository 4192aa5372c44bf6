// LayerNorm and GroupNorm.
#include "ember/nn/modules/Normalization.h"

#include <fmt/format.h>

#include "ember/generated/Functions.h"
#include "ember/nn/Init.h"

namespace ember::nn {

LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) { reset(); }

void LayerNormImpl::reset() {
  for (int64_t s : options.normalized_shape())
    EMBER_CHECK(s >= 0, "[LayerNorm] normalized_shape: expected non-negative sizes, got [{}]",
                fmt::join(options.normalized_shape(), ", "));
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LayerNorm([" << fmt::format("{}", fmt::join(options.normalized_shape(), ", "))
         << "], eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) { reset(); }

void GroupNormImpl::reset() {
  EMBER_CHECK(options.num_groups() > 0 && options.num_channels() >= 0,
              "[GroupNorm] num_groups and num_channels: expected a positive and a non-negative size, got {} and {}",
              options.num_groups(), options.num_channels());
  EMBER_CHECK(options.num_channels() % options.num_groups() == 0,
              "[GroupNorm] num_channels must be divisible by num_groups (got {} and {})", options.num_channels(),
              options.num_groups());
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({options.num_channels()}));
    bias = register_parameter("bias", ember::empty({options.num_channels()}));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::GroupNorm(" << options.num_groups() << ", " << options.num_channels()
         << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return group_norm(input, options.num_groups(), weight, bias, options.eps());
}

}  // namespace ember::nn
