// InstanceNorm2d.
#include "ember/nn/modules/InstanceNorm.h"

#include "ember/nn/functional.h"

namespace ember::nn {

void InstanceNorm2dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "[InstanceNorm2d] input: expected a 3-D (unbatched) or 4-D (batched) tensor, got shape {}",
              input.sizes());
}

Tensor InstanceNorm2dImpl::forward(const Tensor& input) {
  _check_input_dim(input);
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  EMBER_CHECK(x.size(1) == options.num_features() || options.affine() || options.track_running_stats(),
              "[InstanceNorm2d] input: expected {} channels, got shape {}", options.num_features(), input.sizes());
  Tensor out = functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                                .running_mean(running_mean)
                                                .running_var(running_var)
                                                .weight(weight)
                                                .bias(bias)
                                                .use_input_stats(is_training() || !options.track_running_stats())
                                                .momentum(options.momentum())
                                                .eps(options.eps()));
  return unbatched ? out.squeeze(0) : out;
}

void InstanceNorm2dImpl::pretty_print(std::ostream& stream) const {
  detail::print_batch_norm(stream, "InstanceNorm2d", options.num_features(), options.eps(), options.momentum(),
                           options.affine(), options.track_running_stats());
}

}  // namespace ember::nn
