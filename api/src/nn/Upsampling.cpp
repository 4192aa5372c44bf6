// Upsample: PyTorch's interpolate for 4-D inputs in modes nearest and bilinear.
#include "ember/nn/modules/Upsampling.h"

#include <cmath>

#include <fmt/format.h>

#include "ember/generated/Functions.h"

namespace ember::nn {

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options_) : options(options_) {}

void UpsampleImpl::reset() {}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Upsample(";
  if (options.scale_factor())
    stream << "scale_factor=[" << fmt::format("{}", fmt::join(*options.scale_factor(), ", ")) << "]";
  else
    stream << "size=[" << (options.size() ? fmt::format("{}", fmt::join(*options.size(), ", ")) : "") << "]";
  stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  const bool nearest = std::holds_alternative<enumtype::kNearest>(options.mode());
  const bool bilinear = std::holds_alternative<enumtype::kBilinear>(options.mode());
  EMBER_CHECK_NOT_IMPLEMENTED(nearest || bilinear,
                              "[Upsample] mode {}: not implemented (needs the {} operator); kNearest and kBilinear are",
                              enumtype::get_enum_name(options.mode()),
                              std::holds_alternative<enumtype::kLinear>(options.mode())    ? "upsample_linear1d"
                              : std::holds_alternative<enumtype::kBicubic>(options.mode()) ? "upsample_bicubic2d"
                                                                                           : "upsample_trilinear3d");
  EMBER_CHECK(!(nearest && options.align_corners()),
              "[Upsample] align_corners: can only be set with the interpolating modes (kBilinear), not kNearest");
  EMBER_CHECK(input.dim() == 4, "[Upsample] input: mode {} expects a 4-D (N, C, H, W) tensor, got shape {}",
              enumtype::get_enum_name(options.mode()), input.sizes());
  EMBER_CHECK(options.size().has_value() != options.scale_factor().has_value(),
              "[Upsample] size and scale_factor: exactly one of them must be given");
  std::vector<int64_t> out(2);
  std::optional<double> scale_h, scale_w;
  if (options.size()) {
    const auto& size = *options.size();
    EMBER_CHECK(size.size() == 2 || size.size() == 1, "[Upsample] size: expected 1 or 2 sizes for a 4-D input, got {}",
                size.size());
    out = {size.front(), size.back()};
  } else {
    const auto& scale = *options.scale_factor();
    EMBER_CHECK(scale.size() == 2 || scale.size() == 1,
                "[Upsample] scale_factor: expected 1 or 2 factors for a 4-D input, got {}", scale.size());
    scale_h = scale.front();
    scale_w = scale.back();
    out = {static_cast<int64_t>(std::floor(static_cast<double>(input.size(2)) * *scale_h)),
           static_cast<int64_t>(std::floor(static_cast<double>(input.size(3)) * *scale_w))};
  }
  if (nearest) return upsample_nearest2d(input, out, scale_h, scale_w);
  return upsample_bilinear2d(input, out, options.align_corners().value_or(false), scale_h, scale_w);
}

}  // namespace ember::nn
