// instance_norm (batch_norm over a (1, N*C, ...) view, as PyTorch) and group_norm (its checks, then
// the native_group_norm kernel).
#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {
namespace {

Tensor repeat_if_defined(const std::optional<Tensor>& t, int64_t times) {
  return t && t->defined() ? t->repeat({times}) : Tensor();
}

// weight or bias of a per-channel affine map: absent, or 1-D with C elements.
void check_channel_vector(const char* op, const std::optional<Tensor>& t, int64_t C, const Tensor& input,
                          const char* name) {
  if (!t || !t->defined()) return;
  EMBER_CHECK(t->dim() == 1 && t->numel() == C,
              "[{}] argument '{}': expected a 1-D tensor of {} elements (the input's channels), got shape {} for input "
              "{}",
              op, name, C, t->sizes(), input.sizes());
}

}  // namespace

Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                     bool use_input_stats, double momentum, double eps, bool cudnn_enabled) {
  const char* op = "instance_norm";
  check_defined(op, input, "input");
  const bool has_rm = running_mean && running_mean->defined(), has_rv = running_var && running_var->defined();
  EMBER_CHECK(use_input_stats || (has_rm && has_rv),
              "[{}] expected running_mean and running_var to be defined when use_input_stats is false", op);
  EMBER_CHECK(input.dim() >= 2, "[{}] argument 'input': expected (N, C, ...) with at least 2 dimensions, got shape {}",
              op, input.sizes());
  const int64_t b = input.size(0), c = input.size(1);
  check_channel_vector(op, weight, c, input, "weight");
  check_channel_vector(op, bias, c, input, "bias");
  check_channel_vector(op, running_mean, c, input, "running_mean");
  check_channel_vector(op, running_var, c, input, "running_var");
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  shape[0] = 1;
  shape[1] = b * c;
  const Tensor rm = repeat_if_defined(running_mean, b), rv = repeat_if_defined(running_var, b);
  const Tensor out = batch_norm(input.contiguous().view(shape), repeat_if_defined(weight, b),
                                repeat_if_defined(bias, b), rm, rv, use_input_stats, momentum, eps, cudnn_enabled);
  if (has_rm || has_rv) {  // the running stats take the mean of the per-sample ones batch_norm updated
    NoGradGuard no_grad;
    if (has_rm) running_mean->copy_(rm.view({b, c}).mean({0}));
    if (has_rv) running_var->copy_(rv.view({b, c}).mean({0}));
  }
  return out.view(input.sizes());
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  const char* op = "group_norm";
  check_defined(op, input, "input");
  EMBER_CHECK(input.dim() >= 2, "[{}] argument 'input': expected (N, C, ...) with at least 2 dimensions, got shape {}",
              op, input.sizes());
  nnutil::check_floating(op, input, "input");
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(num_groups > 0 && C % num_groups == 0,
              "[{}] expected the number of channels of input {} to be divisible by num_groups, got num_groups={}", op,
              input.sizes(), num_groups);
  check_channel_vector(op, weight, C, input, "weight");
  check_channel_vector(op, bias, C, input, "bias");
  int64_t HxW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HxW *= input.size(d);
  return std::get<0>(native_group_norm(input, weight, bias, N, C, HxW, num_groups, eps));
}

}  // namespace ember::native
