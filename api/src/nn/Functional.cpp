// Functional.
#include "ember/nn/modules/Functional.h"

namespace ember::nn {

FunctionalImpl::FunctionalImpl(Function function) : function_(std::move(function)) {
  EMBER_CHECK(static_cast<bool>(function_), "[Functional] function: expected a callable, got an empty one");
}

void FunctionalImpl::reset() {}

void FunctionalImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Functional()"; }

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

Tensor FunctionalImpl::operator()(Tensor input) { return forward(std::move(input)); }

}  // namespace ember::nn
