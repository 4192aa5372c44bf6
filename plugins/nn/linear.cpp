// linear and bilinear.
#include "ember/ember.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  EMBER_CHECK(weight.dim() == 1 || weight.dim() == 2, "[linear] weight: expected a 1-D or 2-D tensor, got {}-D",
              weight.dim());
  const bool has_bias = bias && bias->defined();
  // One fused GEMM when it is a plain matrix product with a bias, as PyTorch does.
  if (input.dim() == 2 && weight.dim() == 2 && has_bias) return ember::addmm(*bias, input, weight.t());
  Tensor out = ember::matmul(input, weight.t());
  return has_bias ? ember::add(out, *bias) : out;
}

}  // namespace ember::native
