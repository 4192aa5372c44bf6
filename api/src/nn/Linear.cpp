// Identity, Linear, Bilinear, Flatten, Unflatten.
#include "ember/nn/modules/Linear.h"

#include <cmath>

#include <fmt/format.h>

#include "ember/generated/Functions.h"
#include "ember/nn/Init.h"

namespace ember::nn {

void IdentityImpl::reset() {}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Identity()"; }

Tensor IdentityImpl::forward(const Tensor& input) { return input; }

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) { reset(); }

void LinearImpl::reset() {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "[Linear] in_features and out_features: expected non-negative sizes, got {} and {}",
              options.in_features(), options.out_features());
  weight = register_parameter("weight", ember::empty({options.out_features(), options.in_features()}));
  if (options.bias())
    bias = register_parameter("bias", ember::empty({options.out_features()}));
  else
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor LinearImpl::forward(const Tensor& input) { return linear(input, weight, bias); }

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) { reset(); }

void BilinearImpl::reset() {
  EMBER_CHECK(options.in1_features() >= 0 && options.in2_features() >= 0 && options.out_features() >= 0,
              "[Bilinear] in1_features, in2_features and out_features: expected non-negative sizes, got {}, {} and {}",
              options.in1_features(), options.in2_features(), options.out_features());
  weight = register_parameter("weight",
                              ember::empty({options.out_features(), options.in1_features(), options.in2_features()}));
  if (options.bias())
    bias = register_parameter("bias", ember::empty({options.out_features()}));
  else
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = options.in1_features() > 0 ? 1 / std::sqrt(static_cast<double>(options.in1_features())) : 0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
         << ", bias=" << options.bias() << ")";
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return bilinear(input1, input2, weight, bias);
}

FlattenImpl::FlattenImpl(const FlattenOptions& options_) : options(options_) {}

void FlattenImpl::reset() {}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}

Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }

UnflattenImpl::UnflattenImpl(UnflattenOptions options_) : options(std::move(options_)) {}

void UnflattenImpl::reset() {}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  const auto& sizes = options.sizes();
  for (size_t i = 0; i < sizes.size(); ++i) stream << (i ? ", " : "") << sizes[i];
  stream << "})";
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  const int64_t ndim = input.dim();
  const int64_t dim = options.dim() < 0 ? options.dim() + ndim : options.dim();
  EMBER_CHECK_INDEX(dim >= 0 && dim < ndim, "[Unflatten] dim: {} is out of range for a {}-D input", options.dim(),
                    ndim);
  const auto& sizes = options.sizes();
  EMBER_CHECK(!sizes.empty(), "[Unflatten] unflattened_size: expected at least one size");
  int64_t known = 1, inferred = 0;
  for (int64_t s : sizes) {
    if (s == -1)
      ++inferred;
    else
      known *= s;
  }
  EMBER_CHECK(inferred <= 1, "[Unflatten] unflattened_size: only one size can be -1, got {}", fmt::join(sizes, ", "));
  EMBER_CHECK(inferred == 1 ? (known != 0 && input.size(dim) % known == 0) : known == input.size(dim),
              "[Unflatten] Provided sizes [{}] don't multiply up to the size of dim {} ({}) in the input tensor",
              fmt::join(sizes, ", "), options.dim(), input.size(dim));
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, sizes.begin(), sizes.end());
  return input.view(shape);
}

}  // namespace ember::nn
