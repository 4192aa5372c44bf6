#pragma once
// The index and weight tables of the upsample kernels (Note [Upsample tables]), shared by the cpu
// and GPU plugins so that both interpolate with the same source indices and weights.
//
// Note [Upsample tables]
// ~~~~~~~~~~~~~~~~~~~~~~
// Each spatial dimension gets a table of source indices and weights, built with LibTorch's rules
// (aten/src/ATen/native/UpSample.h: nearest uses floor(dst * scale) in float32, with exact copies
// for out == in and out == 2 * in; linear clamps the source index at 0 without align_corners;
// bicubic takes 4 taps clamped at the borders, A = -0.75), in the compute dtype T (float32 for
// float16/bfloat16/float32, float64 for float64). An output element is then
//   sum over (kd, kh) of (w_d w_h) * (sum over kw of w_w in[d, h, w])
// accumulated in that order, the cpu's and the GPU's kernels alike.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/native/ResampleMath.h"
#include "ember/native/ResampleRules.h"

namespace ember::native::resample {

// Taps per output index along one dimension: index[k * out + o] and weight[k * out + o].
template <class T>
struct Table {
  int64_t taps = 1;
  std::vector<int64_t> index;
  std::vector<T> weight;
};

// LibTorch's compute_scales_value / area_pixel_compute_scale in type T.
template <class T>
T scale_value(int64_t in, int64_t out, std::optional<double> scale) {
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

template <class T>
T area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale_value<T>(in, out, scale);
}

// LibTorch's area_pixel_compute_source_index (its half-pixel offset is computed in double).
template <class T>
T source_index(T scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(o);
  const T src = static_cast<T>(static_cast<double>(scale) * (static_cast<double>(o) + 0.5) - 0.5);
  return !cubic && src < T(0) ? T(0) : src;
}

// LibTorch's nearest_idx: float32 scale whatever the dtype.
inline std::vector<int64_t> nearest_table(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  const float s = scale_value<float>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (out == in)
      i = o;
    else if (out == 2 * in)
      i = o >> 1;
    else
      i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    idx[static_cast<size_t>(o)] = i;
  }
  return idx;
}

template <class T>
Table<T> linear_table(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  Table<T> t;
  t.taps = 2;
  t.index.resize(static_cast<size_t>(2 * out));
  t.weight.resize(static_cast<size_t>(2 * out));
  const T s = area_scale<T>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0 = o, i1 = o;
    T l1 = 0;
    if (out != in) {
      const T real = source_index<T>(s, o, align_corners, false);
      i0 = static_cast<int64_t>(real);
      i1 = i0 + (i0 < in - 1 ? 1 : 0);
      l1 = std::min(std::max(real - static_cast<T>(i0), T(0)), T(1));
    }
    t.index[static_cast<size_t>(o)] = i0;
    t.index[static_cast<size_t>(out + o)] = i1;
    t.weight[static_cast<size_t>(o)] = T(1) - l1;
    t.weight[static_cast<size_t>(out + o)] = l1;
  }
  return t;
}

template <class T>
Table<T> cubic_table(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  Table<T> t;
  t.taps = 4;
  t.index.resize(static_cast<size_t>(4 * out));
  t.weight.resize(static_cast<size_t>(4 * out));
  const T s = area_scale<T>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const T real = source_index<T>(s, o, align_corners, true);
    const T fl = std::floor(real);
    const auto i = static_cast<int64_t>(fl);
    const auto w = cubic_coefficients<T>(real - fl);
    for (int64_t k = 0; k < 4; ++k) {
      t.index[static_cast<size_t>(k * out + o)] = std::clamp<int64_t>(i + k - 1, 0, in - 1);
      t.weight[static_cast<size_t>(k * out + o)] = w[static_cast<size_t>(k)];
    }
  }
  return t;
}

// A unit dimension's table (1 -> 1): one tap of weight 1.
template <class T>
Table<T> unit_table() {
  return {1, {0}, {T(1)}};
}

enum class Interp { Linear, Cubic };

// The three tables of a linear or cubic upsample (unit ones for the dimensions the call lacks).
template <class T>
std::array<Table<T>, 3> interp_tables(const UpsampleGeom& g, Interp mode, bool align_corners) {
  std::array<Table<T>, 3> t;
  for (size_t d = 0; d < 3; ++d) {
    if (static_cast<int64_t>(d) < 3 - g.nd)
      t[d] = unit_table<T>();
    else if (mode == Interp::Linear)
      t[d] = linear_table<T>(g.in[d], g.out[d], align_corners, g.scales[d]);
    else
      t[d] = cubic_table<T>(g.in[d], g.out[d], align_corners, g.scales[d]);
  }
  return t;
}

static_assert(static_cast<int64_t>(GridInterp::Nearest) == kGridNearest &&
              static_cast<int64_t>(GridInterp::Bicubic) == kGridBicubic &&
              static_cast<int64_t>(GridPadding::Border) == kGridBorder &&
              static_cast<int64_t>(GridPadding::Reflection) == kGridReflection);

// A checked grid_sampler_2d call's geometry (input (N, C, H, W), grid (N, oH, oW, 2)).
inline GridGeom grid_geom(const Tensor& input, const Tensor& grid, int64_t padding_mode, bool align_corners) {
  return {input.size(1), input.size(2), input.size(3), grid.size(1), grid.size(2), padding_mode, align_corners};
}

}  // namespace ember::native::resample
