// leaky_relu and elu as composites: their gradients come from where/mul/exp's.
#include "NNUtil.h"
#include "ember/ember.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {

Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  check_defined("leaky_relu", self, "self");
  nnutil::check_floating("leaky_relu", self, "self");
  return ember::where(self > 0, self, self * negative_slope);
}

Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  check_defined("elu", self, "self");
  nnutil::check_floating("elu", self, "self");
  // exp of the non-positive part only: exp(large x) in the branch not taken would make its
  // gradient 0 * inf = nan. x == 0 takes the negative branch's slope, as PyTorch's elu_backward.
  Tensor neg = ember::exp(ember::clamp(self, std::nullopt, 0) * input_scale) - 1;
  return ember::where(self > 0, self * scale, neg * (alpha.to<double>() * scale.to<double>()));
}

}  // namespace ember::native
