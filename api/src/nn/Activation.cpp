// Activation layers.
#include "ember/nn/modules/Activation.h"

#include "ember/generated/Functions.h"

namespace ember::nn {

ReLUImpl::ReLUImpl(const ReLUOptions& options_) : options(options_) {}
void ReLUImpl::reset() {}
void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ReLU(";
  if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
  stream << ")";
}
Tensor ReLUImpl::forward(Tensor input) {
  if (options.inplace()) return input.relu_();
  return relu(input);
}

LeakyReLUImpl::LeakyReLUImpl(const LeakyReLUOptions& options_) : options(options_) {}
void LeakyReLUImpl::reset() {}
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) stream << ", inplace=" << options.inplace();
  stream << ")";
}
Tensor LeakyReLUImpl::forward(Tensor input) {
  if (options.inplace()) return leaky_relu_(input, options.negative_slope());
  return leaky_relu(input, options.negative_slope());
}

ELUImpl::ELUImpl(const ELUOptions& options_) : options(options_) {}
void ELUImpl::reset() {}
void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::ELU(alpha=" << options.alpha();
  if (options.inplace()) stream << ", inplace=" << options.inplace();
  stream << ")";
}
Tensor ELUImpl::forward(Tensor input) {
  if (options.inplace()) return elu_(input, options.alpha());
  return elu(input, options.alpha());
}

GELUImpl::GELUImpl(GELUOptions options_) : options(std::move(options_)) {}
void GELUImpl::reset() {}
void GELUImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::GELU()"; }
Tensor GELUImpl::forward(const Tensor& input) { return gelu(input, options.approximate()); }

void SiLUImpl::reset() {}
void SiLUImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::SiLU()"; }
Tensor SiLUImpl::forward(const Tensor& input) { return silu(input); }

void TanhImpl::reset() {}
void TanhImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Tanh()"; }
Tensor TanhImpl::forward(const Tensor& input) { return tanh(input); }

void SigmoidImpl::reset() {}
void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Sigmoid()"; }
Tensor SigmoidImpl::forward(const Tensor& input) { return sigmoid(input); }

SoftmaxImpl::SoftmaxImpl(const SoftmaxOptions& options_) : options(options_) {}
void SoftmaxImpl::reset() {}
void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softmax(dim=" << options.dim() << ")";
}
Tensor SoftmaxImpl::forward(const Tensor& input) { return softmax(input, options.dim()); }

LogSoftmaxImpl::LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
void LogSoftmaxImpl::reset() {}
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LogSoftmax(dim=" << options.dim() << ")";
}
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return log_softmax(input, options.dim()); }

}  // namespace ember::nn
