// ember::nn::utils, as PyTorch's torch/nn/utils/{clip_grad,convert_parameters}.py.
#include "ember/nn/Utils.h"

#include <fmt/ostream.h>

#include <cmath>
#include <limits>

#include "ember/api/Operators.h"
#include "ember/core/LocalState.h"
#include "ember/generated/Functions.h"

namespace ember::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.defined(), "[clip_grad_norm_] parameters: expected defined tensors, got an undefined one");
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  const Device device = grads[0].device();
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  const bool inf = std::isinf(norm_type) && norm_type > 0;
  for (const Tensor& g : grads) {
    Tensor n = inf ? g.detach().abs().max() : linalg_vector_norm(g.detach(), norm_type);
    norms.push_back(n.to(device));
  }
  const Tensor total = norms.size() == 1 ? norms[0]
                       : inf             ? stack(norms).max()
                                         : linalg_vector_norm(stack(norms), norm_type);
  const double total_norm = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_norm),
              "[clip_grad_norm_] The total norm of order {} for gradients from `parameters` is non-finite, so it "
              "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
              "`error_if_nonfinite=false`",
              norm_type);
  const Tensor clip_coef = (full_like(total, max_norm) / (total + 1e-6)).clamp(std::nullopt, 1.0);
  for (const Tensor& g : grads) g.detach().mul_(clip_coef.to(g.device()));
  return total_norm;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.defined(), "[clip_grad_value_] parameters: expected defined tensors, got an undefined one");
    if (p.grad().defined()) p.grad().detach().clamp_(-clip_value, clip_value);
  }
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!parameters.empty(), "[parameters_to_vector] parameters: expected at least one tensor");
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.defined(), "[parameters_to_vector] parameters: expected defined tensors, got an undefined one");
    EMBER_CHECK(p.device() == parameters[0].device(),
                "[parameters_to_vector] Found two parameters on different devices ({} and {}), this is currently not "
                "supported.",
                fmt::streamed(parameters[0].device()), fmt::streamed(p.device()));
    flat.push_back(p.reshape({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK(vec.defined() && vec.dim() == 1, "[vector_to_parameters] vec: expected a 1-D tensor, got {}",
              vec.defined() ? fmt::format("a {}-D one", vec.dim()) : std::string("an undefined tensor"));
  int64_t total = 0;
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.defined(), "[vector_to_parameters] parameters: expected defined tensors, got an undefined one");
    EMBER_CHECK(p.device() == vec.device(),
                "[vector_to_parameters] Found two parameters on different devices ({} and {}), this is currently not "
                "supported.",
                fmt::streamed(vec.device()), fmt::streamed(p.device()));
    total += p.numel();
  }
  EMBER_CHECK(total == vec.numel(), "[vector_to_parameters] vec: expected {} elements (the parameters' total), got {}",
              total, vec.numel());
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    const int64_t n = p.numel();
    p.set_data(vec.narrow(0, offset, n).view(p.sizes()).detach());
    offset += n;
  }
}

}  // namespace ember::nn::utils
