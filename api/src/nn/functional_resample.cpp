// ember::nn::functional's resampling functions (ember/nn/functional/resample.h), with the
// dispatch and checks of LibTorch's torch/nn/functional/upsampling.h, vision.h and fold.h.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "ember/ember.h"
#include "ember/nn/functional/resample.h"

namespace ember::nn::functional {
namespace {

// The output size of interpolate: size, or floor(input * scale_factor) per spatial dimension.
std::vector<int64_t> interp_output_size(const Tensor& input, int64_t nd, const InterpolateFuncOptions& o) {
  EMBER_CHECK(o.size() || o.scale_factor(), "[interpolate] either size or scale_factor should be defined");
  EMBER_CHECK(!(o.size() && o.scale_factor()), "[interpolate] only one of size or scale_factor should be defined");
  if (o.size()) {
    EMBER_CHECK(static_cast<int64_t>(o.size()->size()) == nd,
                "[interpolate] size: expected {} sizes for a {}-D input, got {}", nd, nd + 2, IntArrayRef(*o.size()));
    return *o.size();
  }
  const auto& s = *o.scale_factor();
  EMBER_CHECK(static_cast<int64_t>(s.size()) == nd,
              "[interpolate] scale_factor: expected {} factors for a {}-D input (one per spatial dimension), got {}",
              nd, nd + 2, ArrayRef<double>(s));
  std::vector<int64_t> r;
  for (int64_t i = 0; i < nd; ++i)
    r.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * s[static_cast<size_t>(i)])));
  return r;
}

std::string mode_name(const InterpolateFuncOptions::mode_t& m) { return enumtype::get_enum_name(m); }

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  const auto& mode = options.mode();
  const bool nearest = std::holds_alternative<enumtype::kNearest>(mode),
             area = std::holds_alternative<enumtype::kArea>(mode);
  EMBER_CHECK_NOT_IMPLEMENTED(!std::holds_alternative<enumtype::kNearestExact>(mode),
                              "[interpolate] mode kNearestExact needs the _upsample_nearest_exact operators, which are "
                              "not implemented yet");
  std::optional<bool> align_corners = options.align_corners();
  if (nearest || area)
    EMBER_CHECK(!align_corners,
                "[interpolate] align_corners can only be set with the interpolating modes: kLinear, "
                "kBilinear, kBicubic, kTrilinear");
  EMBER_CHECK(input.defined(), "[interpolate] argument 'input': expected a defined tensor");
  const int64_t dim = input.dim();
  EMBER_CHECK(dim >= 3 && dim <= 5,
              "[interpolate] only 3-D, 4-D and 5-D inputs are supported (got {}-D) for the modes kNearest, kLinear, "
              "kBilinear, kBicubic, kTrilinear, kArea (got {})",
              dim, mode_name(mode));
  EMBER_CHECK_NOT_IMPLEMENTED(!options.antialias(),
                              "[interpolate] antialias=true needs the _upsample_bilinear2d_aa operators, which are not "
                              "implemented yet");
  const int64_t nd = dim - 2;
  const std::vector<int64_t> size = interp_output_size(input, nd, options);
  // The scales the operators get: the scale factors unless the size is to be recomputed from them.
  std::vector<std::optional<double>> s(static_cast<size_t>(nd));
  if (options.scale_factor() && !options.recompute_scale_factor().value_or(false))
    for (int64_t i = 0; i < nd; ++i) s[static_cast<size_t>(i)] = (*options.scale_factor())[static_cast<size_t>(i)];
  const bool ac = align_corners.value_or(false);
  if (nearest) {
    if (nd == 1) return ember::upsample_nearest1d(input, size, s[0]);
    if (nd == 2) return ember::upsample_nearest2d(input, size, s[0], s[1]);
    return ember::upsample_nearest3d(input, size, s[0], s[1], s[2]);
  }
  if (area) {
    if (nd == 1) return ember::adaptive_avg_pool1d(input, size);
    if (nd == 2) return ember::adaptive_avg_pool2d(input, size);
    return ember::adaptive_avg_pool3d(input, size);
  }
  // The interpolating modes each take one input rank.
  const int64_t want = std::holds_alternative<enumtype::kLinear>(mode)      ? 1
                       : std::holds_alternative<enumtype::kTrilinear>(mode) ? 3
                                                                            : 2;
  EMBER_CHECK(nd == want, "[interpolate] got a {}-D input, but mode {} needs a {}-D input", dim, mode_name(mode),
              want + 2);
  if (std::holds_alternative<enumtype::kLinear>(mode)) return ember::upsample_linear1d(input, size, ac, s[0]);
  if (std::holds_alternative<enumtype::kBilinear>(mode)) return ember::upsample_bilinear2d(input, size, ac, s[0], s[1]);
  if (std::holds_alternative<enumtype::kBicubic>(mode)) return ember::upsample_bicubic2d(input, size, ac, s[0], s[1]);
  return ember::upsample_trilinear3d(input, size, ac, s[0], s[1], s[2]);
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  const int64_t mode = std::holds_alternative<enumtype::kBilinear>(options.mode())  ? 0
                       : std::holds_alternative<enumtype::kNearest>(options.mode()) ? 1
                                                                                    : 2;
  const int64_t padding = std::holds_alternative<enumtype::kZeros>(options.padding_mode())    ? 0
                          : std::holds_alternative<enumtype::kBorder>(options.padding_mode()) ? 1
                                                                                              : 2;
  return ember::grid_sampler(input, grid, mode, padding, options.align_corners().value_or(false));
}

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  return ember::affine_grid_generator(theta, size, align_corners);
}

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  EMBER_CHECK(input.defined(), "[fold] argument 'input': expected a defined tensor");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 2,
              "[fold] argument 'input': expected a 2-D (unbatched) or 3-D (batched) input, got shape {}",
              input.sizes());
  return ember::col2im(input, options.output_size(), options.kernel_size(), options.dilation(), options.padding(),
                       options.stride());
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  EMBER_CHECK(input.defined(), "[unfold] argument 'input': expected a defined tensor");
  EMBER_CHECK(input.dim() == 4 || input.dim() == 3,
              "[unfold] argument 'input': expected a 3-D (unbatched) or 4-D (batched) input, got shape {}",
              input.sizes());
  return ember::im2col(input, options.kernel_size(), options.dilation(), options.padding(), options.stride());
}

}  // namespace ember::nn::functional
