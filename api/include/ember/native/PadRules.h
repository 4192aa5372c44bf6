#pragma once
// Argument checks and output shapes of the padding operators (constant_pad_nd, reflection_pad
// and replication_pad over 1 to 3 dimensions, and their backwards), shared by the cpu kernels
// (plugins/cpu/pad.cpp) and the meta kernels (plugins/meta/pad.cpp).
//
// Note [Padding geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~
// reflection_pad{1,2,3}d and replication_pad{1,2,3}d pad the last nd dimensions of a
// (C, spatial...) or (N, C, spatial...) input; `padding` lists (left, right) pairs from the last
// dimension backwards, as PyTorch (W's pair first). A negative pad crops. PadGeom holds the
// padded dimensions in (D, H, W) form with leading unit dimensions (as Note [Pooling over 1 to 3
// dimensions]): output element o of a dimension reads input o - lo there, reflected
// (-i, 2 (n - 1) - i) or clamped into [0, n).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "ember/native/TensorHelpers.h"

namespace ember::native::pad {

using Dims3 = std::array<int64_t, 3>;

struct PadGeom {
  int64_t planes = 0;                     // product of the unpadded leading dimensions
  Dims3 in = {1, 1, 1}, out = {1, 1, 1};  // (D, H, W) sizes
  Dims3 lo = {0, 0, 0};                   // left pad per dimension
  std::vector<int64_t> out_shape;
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// Floating or complex dtypes (LibTorch's reflection and replication padding); TypeError otherwise.
inline void check_pad_dtype(const char* op, const Tensor& t, const char* name) {
  EMBER_CHECK_TYPE(is_floating_type(t.dtype()) || is_complex_type(t.dtype()),
                   "[{}] argument '{}': expected a floating point or complex tensor, got {}", op, name, t.dtype());
}

// reflection_pad{nd}d (reflect) and replication_pad{nd}d: the checks and the geometry.
inline PadGeom check_pad(const char* op, DeviceType dev, const Tensor& self, int64_t nd, IntArrayRef padding,
                         bool reflect) {
  static constexpr const char* kForms[] = {"", "a 2-D (C, W) or 3-D (N, C, W)", "a 3-D (C, H, W) or 4-D (N, C, H, W)",
                                           "a 4-D (C, D, H, W) or 5-D (N, C, D, H, W)"};
  static constexpr const char* kNames[] = {"D", "H", "W"};
  check_defined(op, self, "self");
  if (dev == kCPU)
    EMBER_CHECK(self.device().type() == kCPU, "[{}] expected a CPU tensor, got one on {}", op, self.device());
  else
    EMBER_CHECK(self.device().type() == dev, "[{}] expected a {} tensor, got one on {}", op, Device(dev),
                self.device());
  EMBER_CHECK(static_cast<int64_t>(padding.size()) == 2 * nd, "[{}] argument 'padding': expected {} values, got {}", op,
              2 * nd, padding);
  EMBER_CHECK(self.dim() == nd + 1 || self.dim() == nd + 2, "[{}] argument 'self': expected {} input, got shape {}", op,
              kForms[nd], self.sizes());
  for (int64_t d = self.dim() == nd + 2 ? 1 : 0; d < self.dim(); ++d)
    EMBER_CHECK(self.size(d) > 0, "[{}] argument 'self': expected non-zero sizes except the batch, got shape {}", op,
                self.sizes());
  check_pad_dtype(op, self, "self");
  PadGeom g;
  g.out_shape.assign(self.sizes().begin(), self.sizes().end());
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = self.dim() - 1 - i, n = self.size(dim), l = padding[2 * i], r = padding[2 * i + 1];
    if (reflect)
      EMBER_CHECK(l < n && r < n,
                  "[{}] argument 'padding': padding size should be less than the corresponding input dimension, but "
                  "got padding ({}, {}) at dimension {} of input {}",
                  op, l, r, dim, self.sizes());
    g.in[2 - i] = n;
    g.out[2 - i] = n + l + r;
    g.lo[2 - i] = l;
    g.out_shape[dim] = n + l + r;
  }
  bool ok = true;
  for (int64_t i = 3 - nd; i < 3; ++i) ok = ok && g.out[i] >= 1;
  if (!ok) {
    std::string in, out;
    for (int64_t i = 3 - nd; i < 3; ++i) {
      const std::string sep = i > 3 - nd ? " " : "";
      in += sep + kNames[i] + ": " + std::to_string(g.in[i]);
      out += sep + kNames[i] + ": " + std::to_string(g.out[i]);
    }
    EMBER_THROW(ValueError, "[{}] input ({}) is too small. Calculated output {}", op, in, out);
  }
  g.planes = self.numel() / g.in_plane();
  return g;
}

// The backward: the forward's checks, and grad_output of the forward's output shape and dtype.
inline PadGeom check_pad_backward(const char* op, DeviceType dev, const Tensor& grad_output, const Tensor& self,
                                  int64_t nd, IntArrayRef padding, bool reflect) {
  PadGeom g = check_pad(op, dev, self, nd, padding, reflect);
  check_defined(op, grad_output, "grad_output");
  check_same_device(op, dev, grad_output, self);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(g.out_shape),
              "[{}] argument 'grad_output': expected shape {} (the output's), got {}", op, IntArrayRef(g.out_shape),
              grad_output.sizes());
  EMBER_CHECK_TYPE(grad_output.dtype() == self.dtype(),
                   "[{}] expected grad_output and self to have the same dtype, got {} and {}", op, grad_output.dtype(),
                   self.dtype());
  return g;
}

// constant_pad_nd: the output shape (any dtype; pads the last pad.size() / 2 dimensions).
inline std::vector<int64_t> constant_pad_shape(const char* op, const Tensor& self, IntArrayRef pad) {
  check_defined(op, self, "self");
  EMBER_CHECK(pad.size() % 2 == 0, "[{}] argument 'pad': expected an even number of values, got {}", op, pad);
  const int64_t n = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(n <= self.dim(),
              "[{}] argument 'pad': expected at most twice as many values as self has dimensions ({}), got {}", op,
              self.dim(), pad);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dim = self.dim() - 1 - i;
    shape[dim] = self.size(dim) + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(shape[dim] >= 0,
                "[{}] the input size {}, plus negative padding {} and {} resulted in a negative output size, which is "
                "invalid. Check dimension {} of your input.",
                op, self.size(dim), pad[2 * i], pad[2 * i + 1], dim);
    const int64_t kept = self.size(dim) + std::min<int64_t>(pad[2 * i], 0) + std::min<int64_t>(pad[2 * i + 1], 0);
    EMBER_CHECK(kept >= 0,
                "[{}] argument 'pad': negative padding {} and {} crop more than the input size {} of dimension {}", op,
                pad[2 * i], pad[2 * i + 1], self.size(dim), dim);
  }
  return shape;
}

}  // namespace ember::native::pad
