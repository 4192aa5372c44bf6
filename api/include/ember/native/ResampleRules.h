#pragma once
// Argument checks and output shapes of the resampling operators (upsample_*, grid_sampler_2d,
// im2col, col2im), shared by the cpu kernels (plugins/cpu/resample.cpp) and the meta kernels
// (plugins/meta/resample.cpp), so both give the same sizes and the same errors.
//
// Note [Upsample geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// upsample_{nearest,linear,bilinear,bicubic,trilinear}{1,2,3}d take an (N, C, spatial...) input
// with nd = 1, 2 or 3 spatial dimensions. UpsampleGeom holds them in 3-D form with leading unit
// dimensions (a length L is D = H = 1, W = L), so the kernels have one code path. The scales
// are LibTorch's: a given positive scale s maps output index o to source o / s (not o * in / out),
// which is what F::interpolate's scale_factor (without recompute_scale_factor) means. The .vec
// overloads take either output_size or scale_factors; with scale factors the output size is
// trunc(in * s) and the scales are passed on (PyTorch's upsample compute_output_size).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ember/native/NNRules.h"
#include "ember/native/TensorHelpers.h"

namespace ember::native::resample {

using nn::check_on;

struct UpsampleGeom {
  int64_t nd = 2;  // spatial dimensions
  int64_t N = 0, C = 0;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1};                                       // (D, H, W)
  std::array<std::optional<double>, 3> scales{std::nullopt, std::nullopt, std::nullopt};  // per (D, H, W)

  std::vector<int64_t> input_sizes() const { return sizes(in); }
  std::vector<int64_t> output_sizes() const { return sizes(out); }
  int64_t planes() const { return N * C; }

 private:
  std::vector<int64_t> sizes(const std::array<int64_t, 3>& s) const {
    std::vector<int64_t> r{N, C};
    for (int64_t i = 3 - nd; i < 3; ++i) r.push_back(s[static_cast<size_t>(i)]);
    return r;
  }
};

// "(N, C, L)", "(N, C, H, W)" or "(N, C, D, H, W)".
inline const char* upsample_layout(int64_t nd) {
  return nd == 1 ? "(N, C, L)" : nd == 2 ? "(N, C, H, W)" : "(N, C, D, H, W)";
}

// "(H: 4, W: 4)" of the last nd of a 3-D form (LibTorch's wording of the size check).
inline std::string upsample_sizes_str(const std::array<int64_t, 3>& s, int64_t nd) {
  static const char* const kNames[] = {"D", "H", "W"};
  std::string r;
  for (int64_t i = 3 - nd; i < 3; ++i)
    r += fmt::format("{}{}: {}", r.empty() ? "(" : ", ", nd == 1 ? "L" : kNames[i], s[static_cast<size_t>(i)]);
  return r + ")";
}

// The dtypes of the upsample kernels: floating types, and uint8 for the nearest forward (LibTorch's).
inline void check_upsample_dtype(const char* op, const Tensor& t, const char* name, bool uint8_ok) {
  const ScalarType dt = t.dtype();
  if (uint8_ok)
    EMBER_CHECK_TYPE(is_floating_type(dt) || dt == kUInt8,
                     "[{}] argument '{}': expected a floating point or uint8 tensor, got {}", op, name, dt);
  else
    EMBER_CHECK_TYPE(is_floating_type(dt), "[{}] argument '{}': expected a floating point tensor, got {}", op, name,
                     dt);
}

// Fills g.in/g.out from an (N, C, spatial...) input's sizes and output_size; checks both.
inline void upsample_sizes(const char* op, UpsampleGeom& g, IntArrayRef input_sizes, IntArrayRef output_size,
                           const char* input_name) {
  const int64_t nd = g.nd;
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == nd, "[{}] argument 'output_size': expected {} sizes, got {}",
              op, nd, output_size);
  EMBER_CHECK(static_cast<int64_t>(input_sizes.size()) == nd + 2,
              "[{}] argument '{}': expected a {}-D {} input, got shape {}", op, input_name, nd + 2, upsample_layout(nd),
              input_sizes);
  g.N = input_sizes[0];
  g.C = input_sizes[1];
  for (int64_t i = 0; i < nd; ++i) {
    g.in[static_cast<size_t>(3 - nd + i)] = input_sizes[static_cast<size_t>(2 + i)];
    g.out[static_cast<size_t>(3 - nd + i)] = output_size[static_cast<size_t>(i)];
  }
  bool positive = true;
  for (size_t i = 0; i < 3; ++i) positive = positive && g.in[i] > 0 && g.out[i] > 0;
  EMBER_CHECK(positive, "[{}] expected input and output sizes greater than 0, got input {} and output {}", op,
              upsample_sizes_str(g.in, nd), upsample_sizes_str(g.out, nd));
}

// An upsample forward's checks: its input (N, C, spatial...) with C > 0, output_size, dtype.
inline UpsampleGeom check_upsample(const char* op, DeviceType dev, const Tensor& self, IntArrayRef output_size,
                                   int64_t nd, std::array<std::optional<double>, 3> scales, bool uint8_ok) {
  check_defined(op, self, "self");
  check_on(op, dev, self);
  UpsampleGeom g;
  g.nd = nd;
  g.scales = scales;
  upsample_sizes(op, g, self.sizes(), output_size, "self");
  EMBER_CHECK(g.C > 0, "[{}] argument 'self': expected non-zero sizes except the batch, got shape {}", op,
              self.sizes());
  check_upsample_dtype(op, self, "self", uint8_ok);
  return g;
}

// An upsample backward's checks: input_size, output_size, and grad_output of the output's shape.
inline UpsampleGeom check_upsample_backward(const char* op, DeviceType dev, const Tensor& grad_output,
                                            IntArrayRef output_size, IntArrayRef input_size, int64_t nd,
                                            std::array<std::optional<double>, 3> scales) {
  check_defined(op, grad_output, "grad_output");
  check_on(op, dev, grad_output);
  UpsampleGeom g;
  g.nd = nd;
  g.scales = scales;
  upsample_sizes(op, g, input_size, output_size, "input_size");
  const auto expected = g.output_sizes();
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(expected),
              "[{}] argument 'grad_output': expected shape {} (the output's), got {}", op, IntArrayRef(expected),
              grad_output.sizes());
  check_upsample_dtype(op, grad_output, "grad_output", false);
  return g;
}

// The scales of a 1-, 2- or 3-D call in 3-D form (D, H, W).
inline std::array<std::optional<double>, 3> scales3(std::optional<double> d, std::optional<double> h,
                                                    std::optional<double> w) {
  return {d, h, w};
}

// The .vec overloads: the output size from output_size or scale_factors (exactly one given), and
// the scales passed on (the scale factors, or none). See Note [Upsample geometry].
struct VecArgs {
  std::vector<int64_t> output_size;
  std::array<std::optional<double>, 3> scales{std::nullopt, std::nullopt, std::nullopt};
};

inline VecArgs upsample_vec_args(const char* op, const Tensor& input, std::optional<IntArrayRef> output_size,
                                 std::optional<ArrayRef<double>> scale_factors, int64_t nd) {
  check_defined(op, input, "input");
  EMBER_CHECK(output_size.has_value() != scale_factors.has_value(),
              "[{}] expected exactly one of output_size and scale_factors, got {}", op,
              output_size ? "both" : "neither");
  EMBER_CHECK(input.dim() == nd + 2, "[{}] argument 'input': expected a {}-D {} input, got shape {}", op, nd + 2,
              upsample_layout(nd), input.sizes());
  VecArgs r;
  if (output_size) {
    r.output_size.assign(output_size->begin(), output_size->end());
    return r;
  }
  EMBER_CHECK(static_cast<int64_t>(scale_factors->size()) == nd,
              "[{}] argument 'scale_factors': expected {} values for a {}-D input, got {}", op, nd, nd + 2,
              *scale_factors);
  for (int64_t i = 0; i < nd; ++i) {
    const double s = (*scale_factors)[static_cast<size_t>(i)];
    const double o = static_cast<double>(input.size(2 + i)) * s;
    EMBER_CHECK(std::isfinite(o) && std::fabs(o) < 9.2e18,
                "[{}] argument 'scale_factors': {} gives an output size out of range", op, s);
    r.output_size.push_back(static_cast<int64_t>(o));
    r.scales[static_cast<size_t>(3 - nd + i)] = s;
  }
  return r;
}

// ---- grid_sampler_2d ---------------------------------------------------------------------------

// interpolation_mode and padding_mode as grid_sampler_2d takes them (F::grid_sample's enums).
enum class GridInterp : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

// grid_sampler_2d's checks (PyTorch's check_grid_sampler_common and _2d): input (N, C, H, W) with
// non-empty H and W, grid (N, H_out, W_out, 2) of input's dtype, a known mode and padding.
inline void check_grid_sampler_2d(const char* op, DeviceType dev, const Tensor& input, const Tensor& grid,
                                  int64_t interpolation_mode, int64_t padding_mode) {
  check_defined(op, input, "input");
  check_defined(op, grid, "grid");
  check_on(op, dev, input, grid);
  EMBER_CHECK(input.dim() == 4 && grid.dim() == 4,
              "[{}] expected a 4-D input (N, C, H, W) and a 4-D grid (N, H_out, W_out, 2), got input of shape {} "
              "and grid of shape {}",
              op, input.sizes(), grid.sizes());
  EMBER_CHECK(input.size(0) == grid.size(0),
              "[{}] expected grid and input to have the same batch size, got input of shape {} and grid of shape {}",
              op, input.sizes(), grid.sizes());
  EMBER_CHECK(grid.size(3) == 2, "[{}] expected grid to have size 2 in its last dimension, got grid of shape {}", op,
              grid.sizes());
  EMBER_CHECK(input.size(2) > 0 && input.size(3) > 0,
              "[{}] expected input to have non-empty spatial dimensions, got input of shape {}", op, input.sizes());
  EMBER_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2,
              "[{}] argument 'interpolation_mode': expected 0 (bilinear), 1 (nearest) or 2 (bicubic), got {}", op,
              interpolation_mode);
  EMBER_CHECK(padding_mode >= 0 && padding_mode <= 2,
              "[{}] argument 'padding_mode': expected 0 (zeros), 1 (border) or 2 (reflection), got {}", op,
              padding_mode);
  EMBER_CHECK_TYPE(input.dtype() == kFloat32 || input.dtype() == kFloat64,
                   "[{}] argument 'input': expected a float32 or float64 tensor, got {}", op, input.dtype());
  EMBER_CHECK_TYPE(grid.dtype() == input.dtype(), "[{}] expected input and grid to have the same dtype, got {} and {}",
                   op, input.dtype(), grid.dtype());
}

inline std::vector<int64_t> grid_sampler_2d_shape(const Tensor& input, const Tensor& grid) {
  return {input.size(0), input.size(1), grid.size(1), grid.size(2)};
}

// grid_sampler_2d_backward: grad_output of the forward's output shape and dtype.
inline void check_grid_sampler_2d_backward(const char* op, DeviceType dev, const Tensor& grad_output,
                                           const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                                           int64_t padding_mode) {
  check_grid_sampler_2d(op, dev, input, grid, interpolation_mode, padding_mode);
  check_defined(op, grad_output, "grad_output");
  check_on(op, dev, grad_output, input);
  const auto expected = grid_sampler_2d_shape(input, grid);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(expected),
              "[{}] argument 'grad_output': expected shape {} (the output's), got {}", op, IntArrayRef(expected),
              grad_output.sizes());
  EMBER_CHECK_TYPE(grad_output.dtype() == input.dtype(),
                   "[{}] expected grad_output and input to have the same dtype, got {} and {}", op, grad_output.dtype(),
                   input.dtype());
}

// ---- im2col / col2im ---------------------------------------------------------------------------

// The sliding-block geometry of im2col (F::unfold) and col2im (F::fold) over an (N, C, H, W)
// image: kernel k, dilation d, padding p, stride s; L = bH * bW blocks of C * kH * kW values.
struct ColGeom {
  int64_t kH = 1, kW = 1, dH = 1, dW = 1, pH = 0, pW = 0, sH = 1, sW = 1;
  int64_t N = 1, C = 0, H = 0, W = 0;  // the image (im2col's input, col2im's output)
  int64_t bH = 0, bW = 0;              // blocks along H and W
  bool batched = true;

  int64_t block_size() const { return C * kH * kW; }
  int64_t blocks() const { return bH * bW; }
  std::vector<int64_t> image_sizes() const {
    return batched ? std::vector<int64_t>{N, C, H, W} : std::vector<int64_t>{C, H, W};
  }
  std::vector<int64_t> col_sizes() const {
    return batched ? std::vector<int64_t>{N, block_size(), blocks()} : std::vector<int64_t>{block_size(), blocks()};
  }
};

// Floor division (PyTorch's div_rtn): the block count may come out negative before the check.
inline int64_t div_floor(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

inline nn::Pair col_pair(IntArrayRef v, const char* op, const char* name) {
  EMBER_CHECK(v.size() == 2, "[{}] argument '{}': expected 2 values, got {}", op, name, v);
  return {v[0], v[1]};
}

// The kernel_size/dilation/padding/stride checks shared by im2col and col2im.
inline ColGeom col_params(const char* op, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                          IntArrayRef stride) {
  const nn::Pair k = col_pair(kernel_size, op, "kernel_size"), d = col_pair(dilation, op, "dilation"),
                 p = col_pair(padding, op, "padding"), s = col_pair(stride, op, "stride");
  EMBER_CHECK(k.h > 0 && k.w > 0, "[{}] argument 'kernel_size': expected positive values, got {}", op, kernel_size);
  EMBER_CHECK(d.h > 0 && d.w > 0, "[{}] argument 'dilation': expected positive values, got {}", op, dilation);
  EMBER_CHECK(p.h >= 0 && p.w >= 0, "[{}] argument 'padding': expected non-negative values, got {}", op, padding);
  EMBER_CHECK(s.h > 0 && s.w > 0, "[{}] argument 'stride': expected positive values, got {}", op, stride);
  ColGeom g;
  g.kH = k.h, g.kW = k.w, g.dH = d.h, g.dW = d.w, g.pH = p.h, g.pW = p.w, g.sH = s.h, g.sW = s.w;
  return g;
}

inline void col_blocks(ColGeom& g) {
  g.bH = div_floor(g.H + 2 * g.pH - (g.dH * (g.kH - 1) + 1), g.sH) + 1;
  g.bW = div_floor(g.W + 2 * g.pW - (g.dW * (g.kW - 1) + 1), g.sW) + 1;
}

inline std::string col_params_str(const ColGeom& g) {
  return fmt::format("kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), stride=({}, {})", g.kH, g.kW, g.dH,
                     g.dW, g.pH, g.pW, g.sH, g.sW);
}

// The dtypes of im2col and col2im: the floating types.
inline void check_col_dtype(const char* op, const Tensor& self) {
  EMBER_CHECK_TYPE(is_floating_type(self.dtype()), "[{}] argument 'self': expected a floating point tensor, got {}", op,
                   self.dtype());
}

// im2col: self (C, H, W) or (N, C, H, W) with non-zero sizes except the batch.
inline ColGeom check_im2col(const char* op, DeviceType dev, const Tensor& self, IntArrayRef kernel_size,
                            IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  check_defined(op, self, "self");
  check_on(op, dev, self);
  ColGeom g = col_params(op, kernel_size, dilation, padding, stride);
  const int64_t nd = self.dim();
  bool valid = (nd == 3 || nd == 4);
  for (int64_t i = nd == 4 ? 1 : 0; valid && i < nd; ++i) valid = self.size(i) != 0;
  EMBER_CHECK(valid,
              "[{}] argument 'self': expected a 3-D (C, H, W) or 4-D (N, C, H, W) input with non-zero sizes except "
              "the batch, got shape {}",
              op, self.sizes());
  g.batched = nd == 4;
  g.N = g.batched ? self.size(0) : 1;
  g.C = self.size(-3), g.H = self.size(-2), g.W = self.size(-1);
  col_blocks(g);
  EMBER_CHECK(g.bH >= 1 && g.bW >= 1,
              "[{}] given input with spatial size ({}, {}), {}, the calculated shape of the array of sliding blocks "
              "is ({}, {}), but its components must be at least one",
              op, g.H, g.W, col_params_str(g), g.bH, g.bW);
  check_col_dtype(op, self);
  return g;
}

// col2im: self (C * kH * kW, L) or (N, C * kH * kW, L) with L the blocks that fit output_size.
inline ColGeom check_col2im(const char* op, DeviceType dev, const Tensor& self, IntArrayRef output_size,
                            IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  check_defined(op, self, "self");
  check_on(op, dev, self);
  const nn::Pair o = col_pair(output_size, op, "output_size");
  ColGeom g = col_params(op, kernel_size, dilation, padding, stride);
  const int64_t nd = self.dim();
  bool valid = (nd == 2 || nd == 3);
  for (int64_t i = nd == 3 ? 1 : 0; valid && i < nd; ++i) valid = self.size(i) != 0;
  EMBER_CHECK(valid,
              "[{}] argument 'self': expected a 2-D (C * kernel_size, L) or 3-D (N, C * kernel_size, L) input with "
              "non-zero sizes except the batch, got shape {}",
              op, self.sizes());
  g.batched = nd == 3;
  g.N = g.batched ? self.size(0) : 1;
  const int64_t planes = self.size(-2), L = self.size(-1);
  EMBER_CHECK(planes % (g.kH * g.kW) == 0,
              "[{}] expected size of self's dimension {} to be divisible by the product of kernel_size, got {} and "
              "kernel_size=({}, {})",
              op, nd - 2, planes, g.kH, g.kW);
  g.C = planes / (g.kH * g.kW);
  g.H = o.h, g.W = o.w;
  col_blocks(g);
  EMBER_CHECK(g.bH >= 1 && g.bW >= 1,
              "[{}] given output_size=({}, {}), {}, the calculated shape of the array of sliding blocks is ({}, {}), "
              "which is invalid",
              op, g.H, g.W, col_params_str(g), g.bH, g.bW);
  EMBER_CHECK(L == g.blocks(),
              "[{}] given output_size=({}, {}), {}, expected size of self's dimension {} to match the calculated "
              "number of sliding blocks {} * {} = {}, got {}",
              op, g.H, g.W, col_params_str(g), nd - 1, g.bH, g.bW, g.blocks(), L);
  check_col_dtype(op, self);
  return g;
}

// An out= of a resampling kernel: the result's dtype (no casting, as LibTorch's kernels).
inline void check_out_dtype(const char* op, const Tensor& out, ScalarType dt) {
  EMBER_CHECK_TYPE(out.dtype() == dt, "[{}] argument 'out': expected dtype {} (the result's), got {}", op, dt,
                   out.dtype());
}

}  // namespace ember::native::resample
