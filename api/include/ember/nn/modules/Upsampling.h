#pragma once
// Upsample (LibTorch's modules/upsampling.h) over (N, C, H, W) inputs, modes kNearest and
// kBilinear (the upsample_nearest2d and upsample_bilinear2d operators); the other modes raise
// NotImplementedError naming the operator they need.
#include <cstdint>
#include <optional>
#include <ostream>
#include <variant>
#include <vector>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Enum.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear>;
  // The output's spatial size; or scale_factor, one per spatial dim (output = floor(input * scale)).
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = ember::kNearest;
  // Interpolating modes only: the corner pixels' centres of input and output line up.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

class EMBER_API UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {});
  void reset() override;
  // "ember::nn::Upsample(scale_factor=[2, 2], mode=kNearest)" (LibTorch's).
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
