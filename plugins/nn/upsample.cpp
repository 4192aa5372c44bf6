// upsample_nearest2d and upsample_bilinear2d as gathers (index_select) along H then W, with
// PyTorch's source-index rules (aten/src/ATen/native/UpSample.h), so autograd flows through them.
#include <algorithm>
#include <cmath>
#include <vector>

#include "NNUtil.h"
#include "ember/ember.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {
namespace {

void check_input(const char* op, const Tensor& self, IntArrayRef output_size) {
  check_defined(op, self, "self");
  nnutil::check_floating(op, self, "self");
  EMBER_CHECK(self.dim() == 4, "[{}] argument 'self': expected a 4-D (N, C, H, W) tensor, got shape {}", op,
              self.sizes());
  EMBER_CHECK(output_size.size() == 2, "[{}] argument 'output_size': expected 2 elements, got {}", op,
              output_size.size());
  EMBER_CHECK(self.size(2) > 0 && self.size(3) > 0 && output_size[0] > 0 && output_size[1] > 0,
              "[{}] expected input and output sizes greater than 0, got input {} and output_size {}", op, self.sizes(),
              output_size);
}

// in / out, or 1 / scale when the caller gave the scale factor (PyTorch's area_pixel_compute_scale).
double ratio(int64_t in, int64_t out, std::optional<double> scale, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (scale && *scale > 0) return 1.0 / *scale;
  return static_cast<double>(in) / static_cast<double>(out);
}

// A 1-D tensor holding v on like's device.
template <class T>
Tensor on_device(std::vector<T>& v, ScalarType dtype, const Tensor& like) {
  const int64_t n = static_cast<int64_t>(v.size());
  return ember::from_blob(v.data(), {n}, TensorOptions().dtype(dtype)).clone().to(like.device());
}

Tensor nearest_dim(const Tensor& x, int64_t dim, int64_t out, std::optional<double> scale) {
  const int64_t in = x.size(dim);
  const double r = ratio(in, out, scale, false);
  std::vector<int64_t> idx(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o)
    idx[static_cast<size_t>(o)] = std::min(static_cast<int64_t>(std::floor(static_cast<double>(o) * r)), in - 1);
  return ember::index_select(x, dim, on_device(idx, kInt64, x));
}

Tensor bilinear_dim(const Tensor& x, int64_t dim, int64_t out, bool align_corners, std::optional<double> scale) {
  const int64_t in = x.size(dim);
  const double r = ratio(in, out, scale, align_corners);
  std::vector<int64_t> i0(static_cast<size_t>(out)), i1(static_cast<size_t>(out));
  std::vector<double> lambda(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const double src =
        align_corners ? r * static_cast<double>(o) : std::max(r * (static_cast<double>(o) + 0.5) - 0.5, 0.0);
    const int64_t lo = std::min(static_cast<int64_t>(src), in - 1);
    const auto k = static_cast<size_t>(o);
    i0[k] = lo;
    i1[k] = lo < in - 1 ? lo + 1 : lo;
    lambda[k] = src - static_cast<double>(lo);
  }
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[static_cast<size_t>(dim)] = out;
  Tensor l1 = on_device(lambda, kFloat64, x).to(x.dtype()).reshape(shape);
  Tensor a = ember::index_select(x, dim, on_device(i0, kInt64, x));
  Tensor b = ember::index_select(x, dim, on_device(i1, kInt64, x));
  return a * (1 - l1) + b * l1;
}

}  // namespace

Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  check_input("upsample_nearest2d", self, output_size);
  return nearest_dim(nearest_dim(self, 2, output_size[0], scales_h), 3, output_size[1], scales_w);
}

Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  check_input("upsample_bilinear2d", self, output_size);
  return bilinear_dim(bilinear_dim(self, 2, output_size[0], align_corners, scales_h), 3, output_size[1], align_corners,
                      scales_w);
}

}  // namespace ember::native
