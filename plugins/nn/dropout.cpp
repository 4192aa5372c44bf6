// dropout, feature_dropout (Dropout2d/3d), alpha_dropout and feature_alpha_dropout, functional and
// in place: PyTorch's _dropout_impl. The mask is one Bernoulli(1 - p) draw per element (per
// (N, C) plane for the feature forms) from the global generator, so manual_seed fixes it.
#include <cmath>
#include <utility>

#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {
namespace {

struct Kind {
  const char* op;
  bool feature;  // one draw per (N, C) plane
  bool alpha;    // SELU's alpha dropout: dropped elements take the saturation value
};

// Whether dropout changes the input at all; checks p.
bool active(const Kind& k, const Tensor& input, double p, bool train) {
  check_defined(k.op, input, "input");
  EMBER_CHECK(p >= 0 && p <= 1, "[{}] argument 'p': dropout probability has to be between 0 and 1, but got {}", k.op,
              p);
  return p > 0 && train && input.numel() > 0;
}

// The factor input is multiplied by and, for alpha dropout, the term then added (p in (0, 1)).
std::pair<Tensor, Tensor> noise(const Kind& k, const Tensor& input, double p) {
  std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().end());
  if (k.feature) {
    EMBER_CHECK(input.dim() >= 2,
                "[{}] feature dropout needs an input of at least 2 dimensions (N, C, ...), got shape {}", k.op,
                input.sizes());
    for (size_t d = 2; d < sizes.size(); ++d) sizes[d] = 1;
  }
  Tensor keep = empty(sizes, input.options()).bernoulli_(1 - p);
  if (!k.alpha) return {keep.div_(1 - p), Tensor()};
  // Keeps mean 0 and variance 1 for SELU activations (Klambauer et al. 2017).
  constexpr double alpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  Tensor b = (keep - 1) * (alpha * a) + alpha * a * p;
  return {keep.mul_(a), b};
}

Tensor apply(const Kind& k, const Tensor& input, double p, bool train) {
  if (!active(k, input, p, train)) return input;
  if (p == 1) return input * zeros({}, input.options());
  auto [mul, add] = noise(k, input, p);
  return k.alpha ? input * mul + add : input * mul;
}

Tensor& apply_(const Kind& k, Tensor& self, double p, bool train) {
  if (!active(k, self, p, train)) return self;
  if (p == 1) return self.mul_(zeros({}, self.options()));
  auto [mul, add] = noise(k, self, p);
  self.mul_(mul);
  if (k.alpha) self.add_(add);
  return self;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) { return apply({"dropout", false, false}, input, p, train); }
Tensor& dropout_(Tensor& self, double p, bool train) { return apply_({"dropout_", false, false}, self, p, train); }

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return apply({"feature_dropout", true, false}, input, p, train);
}
Tensor& feature_dropout_(Tensor& self, double p, bool train) {
  return apply_({"feature_dropout_", true, false}, self, p, train);
}

Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return apply({"alpha_dropout", false, true}, input, p, train);
}
Tensor& alpha_dropout_(Tensor& self, double p, bool train) {
  return apply_({"alpha_dropout_", false, true}, self, p, train);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return apply({"feature_alpha_dropout", true, true}, input, p, train);
}
Tensor& feature_alpha_dropout_(Tensor& self, double p, bool train) {
  return apply_({"feature_alpha_dropout_", true, true}, self, p, train);
}

}  // namespace ember::native
