// linear and bilinear.
#include "NNUtil.h"
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

namespace ember::native {

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const std::optional<Tensor>& bias) {
  const char* op = "bilinear";
  check_defined(op, input1, "input1");
  check_defined(op, input2, "input2");
  check_defined(op, weight, "weight");
  // As LibTorch's _trilinear: one dtype for the three (the bias is added after, with promotion).
  EMBER_CHECK_TYPE(input2.dtype() == input1.dtype() && weight.dtype() == input1.dtype(),
                   "[{}] expected input1, input2 and weight of one dtype, got {}, {} and {}", op, input1.dtype(),
                   input2.dtype(), weight.dtype());
  EMBER_CHECK(weight.dim() == 3, "[{}] argument 'weight': expected a 3-D (out, in1, in2) tensor, got shape {}", op,
              weight.sizes());
  EMBER_CHECK(
      input1.dim() >= 1 && input1.dim() == input2.dim(),
      "[{}] expected input1 and input2 to have the same number of dimensions (at least 1), got shapes {} and {}", op,
      input1.sizes(), input2.sizes());
  const IntArrayRef lead = input1.sizes().slice(0, static_cast<size_t>(input1.dim() - 1));
  EMBER_CHECK(lead == input2.sizes().slice(0, static_cast<size_t>(input2.dim() - 1)),
              "[{}] expected input1 and input2 to have the same batch dimensions, got shapes {} and {}", op,
              input1.sizes(), input2.sizes());
  const int64_t O = weight.size(0), I = weight.size(1), J = weight.size(2);
  EMBER_CHECK(input1.size(-1) == I, "[{}] argument 'input1': expected {} features (weight {}), got shape {}", op, I,
              weight.sizes(), input1.sizes());
  EMBER_CHECK(input2.size(-1) == J, "[{}] argument 'input2': expected {} features (weight {}), got shape {}", op, J,
              weight.sizes(), input2.sizes());
  const bool has_bias = bias && bias->defined();
  if (has_bias)
    EMBER_CHECK(bias->dim() == 1 && bias->size(0) == O,
                "[{}] argument 'bias': expected a 1-D tensor of {} elements (weight {}), got shape {}", op, O,
                weight.sizes(), bias->sizes());
  int64_t B = 1;
  for (int64_t s : lead) B *= s;
  // t[b, o, j] = sum_i x1[b, i] w[o, i, j], one GEMM; then the sum over j against x2.
  const Tensor t = matmul(input1.reshape({B, I}), weight.permute({1, 0, 2}).reshape({I, O * J})).view({B, O, J});
  Tensor y = (t * input2.reshape({B, 1, J})).sum({2});
  if (has_bias) y = y + *bias;
  std::vector<int64_t> shape(lead.begin(), lead.end());
  shape.push_back(O);
  return y.view(shape);
}

}  // namespace ember::native
