// Batch normalization: the forward and printing the BatchNormNd layers share.
#include "ember/nn/modules/BatchNorm.h"

#include "ember/generated/Functions.h"

namespace ember::nn {

namespace detail {

void print_batch_norm(std::ostream& stream, const char* layer, int64_t num_features, double eps,
                      std::optional<double> momentum, bool affine, bool track_running_stats) {
  stream << std::boolalpha << "ember::nn::" << layer << "(" << num_features << ", eps=" << eps << ", momentum=";
  if (momentum)
    stream << *momentum;
  else
    stream << "None";
  stream << ", affine=" << affine << ", track_running_stats=" << track_running_stats << ")";
}

Tensor batch_norm_forward(const char* layer, const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const Tensor& running_mean, const Tensor& running_var, const Tensor& num_batches_tracked,
                          bool training, bool track_running_stats, std::optional<double> momentum, double eps) {
  // PyTorch's _BatchNorm.forward: the update factor, cumulative (1 / batches seen) without a
  // momentum.
  double factor = momentum.value_or(0.0);
  if (training && track_running_stats && num_batches_tracked.defined()) {
    {
      NoGradGuard no_grad;
      num_batches_tracked.add_(1);
    }
    if (!momentum) factor = 1.0 / num_batches_tracked.item<double>();
  }
  const bool use_batch_stats = training || !running_mean.defined();
  if (use_batch_stats) {
    int64_t per_channel = input.size(0);
    for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
    EMBER_CHECK(per_channel != 1, "[{}] Expected more than 1 value per channel when training, got input size {}", layer,
                input.sizes());
  }
  // Running statistics are updated while training when tracked, and used otherwise.
  const bool pass_running = !training || track_running_stats;
  return batch_norm(input, weight, bias, pass_running ? running_mean : Tensor(), pass_running ? running_var : Tensor(),
                    use_batch_stats, factor, eps, /*cudnn_enabled=*/true);
}

}  // namespace detail

void BatchNorm1dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "[BatchNorm1d] expected 2D or 3D input (got {}D input)",
              input.dim());
}

void BatchNorm2dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4, "[BatchNorm2d] expected 4D input (got {}D input)", input.dim());
}

}  // namespace ember::nn
