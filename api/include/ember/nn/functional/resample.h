#pragma once
// ember::nn::functional's resampling functions, LibTorch's torch::nn::functional spellings
// (functional/upsampling.h, vision.h, fold.h): interpolate, grid_sample, affine_grid, fold and
// unfold, over the upsample_*, adaptive_avg_pool*, grid_sampler, affine_grid_generator, col2im and
// im2col operators. Options and defaults are LibTorch's (Note [Functional options] in
// ember/nn/functional.h); the checks LibTorch's functions add are added here.
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "ember/core/Macros.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Enum.h"
#include "ember/nn/ExpandingArray.h"

namespace ember::nn {

// torch::nn::FoldOptions: col2im's output_size and kernel geometry.
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)  // NOLINT
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

// torch::nn::UnfoldOptions: im2col's kernel geometry.
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {

using FoldFuncOptions = FoldOptions;
using UnfoldFuncOptions = UnfoldOptions;

struct InterpolateFuncOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  // The output's spatial size; or scale_factor, one per spatial dimension.
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = ember::kNearest;
  // Interpolating modes only; unset means false (LibTorch warns).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  // True: the operator gets only the output size floor(input * scale_factor), so its source index
  // is dst * in / out; otherwise it also gets the scale factors and uses dst / scale_factor.
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  // Anti-aliased bilinear/bicubic downsampling (not implemented yet).
  EMBER_ARG(bool, antialias) = false;
};

struct GridSampleFuncOptions {
  using mode_t = std::variant<enumtype::kBilinear, enumtype::kNearest, enumtype::kBicubic>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  EMBER_ARG(mode_t, mode) = ember::kBilinear;
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
  // Unset means false (LibTorch warns).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

// Resizes a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input (F::interpolate).
EMBER_API Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});
// Samples input (N, C, H, W) at grid (N, H_out, W_out, 2), coordinates in [-1, 1] (F::grid_sample).
EMBER_API Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options = {});
// The sampling grid of a batch of affine matrices theta (N, 2, 3) or (N, 3, 4) for an output of
// `size` (N, C, H, W) or (N, C, D, H, W) (F::affine_grid).
EMBER_API Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);
// Sums sliding blocks (N, C * kH * kW, L) back into an image (N, C, H, W) (F::fold, col2im).
EMBER_API Tensor fold(const Tensor& input, const FoldFuncOptions& options);
// Extracts sliding blocks (N, C * kH * kW, L) from an image (N, C, H, W) (F::unfold, im2col).
EMBER_API Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);

}  // namespace functional
}  // namespace ember::nn
