#pragma once
// ember::nn::init: in-place initialisers (LibTorch's torch::nn::init, with PyTorch's formulas).
// Each runs under no-grad, fills `tensor` in place and returns it. The random ones take an
// optional Generator last (PyTorch 2's generator argument; LibTorch 1.13 has none), else they
// draw from the default generator of the tensor's device.
#include <optional>
#include <tuple>
#include <variant>

#include "ember/core/Generator.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Enum.h"

namespace ember::nn::init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D, enumtype::kConvTranspose1D,
                 enumtype::kConvTranspose2D, enumtype::kConvTranspose3D, enumtype::kSigmoid, enumtype::kTanh,
                 enumtype::kReLU, enumtype::kLeakyReLU, enumtype::kSELU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

// The recommended gain for a nonlinearity: 1 (linear, conv, sigmoid), 5/3 (tanh), sqrt(2)
// (relu), sqrt(2 / (1 + param^2)) (leaky_relu, param its negative slope), 3/4 (selu).
EMBER_API double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

EMBER_API Tensor constant_(Tensor tensor, Scalar value);
EMBER_API Tensor ones_(Tensor tensor);
EMBER_API Tensor zeros_(Tensor tensor);
// The identity matrix (2-D tensors).
EMBER_API Tensor eye_(Tensor matrix);
// The Dirac delta of a 3-, 4- or 5-D convolution weight: each output channel of each group
// copies one input channel (PyTorch's groups argument).
EMBER_API Tensor dirac_(Tensor tensor, int64_t groups = 1);

EMBER_API Tensor uniform_(Tensor tensor, double low = 0, double high = 1,
                          std::optional<Generator> generator = std::nullopt);
EMBER_API Tensor normal_(Tensor tensor, double mean = 0, double std = 1,
                         std::optional<Generator> generator = std::nullopt);
// Normal(mean, std) restricted to [a, b] (by inverse transform sampling, as PyTorch).
EMBER_API Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2,
                               std::optional<Generator> generator = std::nullopt);
// U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)).
EMBER_API Tensor xavier_uniform_(Tensor tensor, double gain = 1.0, std::optional<Generator> generator = std::nullopt);
// N(0, std), std = gain * sqrt(2 / (fan_in + fan_out)).
EMBER_API Tensor xavier_normal_(Tensor tensor, double gain = 1.0, std::optional<Generator> generator = std::nullopt);
// U(-bound, bound), bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a).
EMBER_API Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = ember::kFanIn,
                                  NonlinearityType nonlinearity = ember::kLeakyReLU,
                                  std::optional<Generator> generator = std::nullopt);
// N(0, std), std = gain / sqrt(fan).
EMBER_API Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = ember::kFanIn,
                                 NonlinearityType nonlinearity = ember::kLeakyReLU,
                                 std::optional<Generator> generator = std::nullopt);
// A (semi-)orthogonal matrix from the QR decomposition of a normal sample, times gain; a tensor
// of more than 2 dims is viewed as [size(0), numel / size(0)].
EMBER_API Tensor orthogonal_(Tensor tensor, double gain = 1.0, std::optional<Generator> generator = std::nullopt);
// A 2-D tensor whose columns each have a `sparsity` fraction of zeros, the rest N(0, std).
EMBER_API Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01,
                         std::optional<Generator> generator = std::nullopt);

// (fan_in, fan_out) of a weight of at least 2 dims: size(1) and size(0) times the receptive
// field (the product of the remaining sizes).
EMBER_API std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

}  // namespace ember::nn::init
