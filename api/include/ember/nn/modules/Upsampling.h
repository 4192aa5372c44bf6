#pragma once
// Upsample (LibTorch's modules/upsampling.h: F::interpolate over 3-D, 4-D and 5-D inputs), and
// Fold and Unfold (LibTorch's modules/fold.h: F::fold and F::unfold).
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
#include "ember/nn/functional/resample.h"

namespace ember::nn {

struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear>;
  // The output's spatial size; or scale_factor, one per spatial dim (output = floor(input * scale),
  // and the source index dst / scale).
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

// Sums sliding blocks (N, C * kH * kW, L) into an image (N, C, H, W): col2im.
class EMBER_API FoldImpl : public Cloneable<FoldImpl> {
 public:
  explicit FoldImpl(const FoldOptions& options_);
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  void reset() override;
  // "ember::nn::Fold(output_size=[4, 5], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1])".
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  FoldOptions options;
};
EMBER_MODULE(Fold);

// Extracts sliding blocks (N, C * kH * kW, L) from an image (N, C, H, W): im2col.
class EMBER_API UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  explicit UnfoldImpl(const UnfoldOptions& options_);
  UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}  // NOLINT
  void reset() override;
  // "ember::nn::Unfold(kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1])".
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace ember::nn
