// Dropout, Dropout2d, AlphaDropout, FeatureAlphaDropout: ember::nn::functional's, with the
// module's training flag.
#include "ember/nn/modules/Dropout.h"

#include "ember/nn/functional.h"

namespace ember::nn {

namespace F = functional;

namespace detail {

void check_dropout_p(const char* layer, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, "[{}] p: dropout probability has to be between 0 and 1, but got {}", layer, p);
}

void print_dropout(std::ostream& stream, const char* layer, const DropoutOptions& options) {
  stream << std::boolalpha << "ember::nn::" << layer << "(p=" << options.p() << ", inplace=" << options.inplace()
         << ")";
}

}  // namespace detail

Tensor DropoutImpl::forward(Tensor input) {
  return F::dropout(std::move(input),
                    F::DropoutFuncOptions().p(options.p()).inplace(options.inplace()).training(is_training()));
}

Tensor Dropout2dImpl::forward(Tensor input) {
  return F::dropout2d(std::move(input),
                      F::Dropout2dFuncOptions().p(options.p()).inplace(options.inplace()).training(is_training()));
}

Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  return F::alpha_dropout(
      input, F::AlphaDropoutFuncOptions().p(options.p()).inplace(options.inplace()).training(is_training()));
}

Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  return F::feature_alpha_dropout(
      input, F::FeatureAlphaDropoutFuncOptions().p(options.p()).inplace(options.inplace()).training(is_training()));
}

}  // namespace ember::nn
