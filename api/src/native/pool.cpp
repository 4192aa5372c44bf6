// Composite pooling and padding: max_pool1d/3d, adaptive_avg_pool3d and adaptive_max_pool1d onto
// the kernels that return indices or take the 2-d form, and pad (F::pad) onto constant_pad_nd,
// the reflection and replication kernels, and circular padding by concatenation. Each checks its
// arguments under its own name first, so errors name the function called.
#include <array>

#include "Composite.h"
#include "ember/native/NNRules.h"

namespace ember::native {

namespace {

// An int[1] argument of a 1-d pool as the int[2] of the 2-d kernel: `lead` for H, then the value.
std::array<int64_t, 2> widen(IntArrayRef v, int64_t lead) { return {lead, v[0]}; }

}  // namespace

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool1d";
  check_defined(op, self, "self");
  nn::check_pool(op, self.device().type(), self, 1, kernel_size, stride, padding, dilation, ceil_mode);
  const auto k = widen(kernel_size, 1), s = widen(stride.empty() ? kernel_size : stride, 1), p = widen(padding, 0),
             d = widen(dilation, 1);
  // Contiguous, as LibTorch's own max_pool1d kernel (its 2-d pool keeps a channels-last layout).
  return std::get<0>(ember::max_pool2d_with_indices(self.unsqueeze(-2), k, s, p, d, ceil_mode)).squeeze(-2).contiguous();
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  check_defined("max_pool3d", self, "self");
  nn::check_pool("max_pool3d", self.device().type(), self, 3, kernel_size, stride, padding, dilation, ceil_mode);
  return std::get<0>(ember::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool3d";
  check_defined(op, self, "self");
  const nn::Dims3 o = nn::pool_arg(output_size, 3, op, "output_size", 1);
  return ember::_adaptive_avg_pool3d(self, o);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_max_pool1d";
  check_defined(op, self, "self");
  nn::check_adaptive_pool(op, self.device().type(), self, 1, output_size);
  auto [out, ind] = ember::adaptive_max_pool2d(self.unsqueeze(-2), widen(output_size, 1));
  return {out.squeeze(-2), ind.squeeze(-2)};
}

// ---- pad ---------------------------------------------------------------------------------------

namespace {

// Circular padding of the last pad.size() / 2 dimensions: output o of a dimension of n reads
// input (o - left) mod n, as the concatenation [x[n - left:], x, x[:right]] with negative pads
// cropping instead (PyTorch's _pad_circular).
Tensor pad_circular(const Tensor& self, IntArrayRef pad) {
  const char* op = "pad";
  const int64_t nd = static_cast<int64_t>(pad.size()) / 2;
  Tensor x = self;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = self.dim() - 1 - i, n = self.size(dim), l = pad[2 * i], r = pad[2 * i + 1];
    EMBER_CHECK(l <= n && r <= n,
                "[{}] argument 'pad': circular padding ({}, {}) of dimension {} of size {} wraps around more than once",
                op, l, r, dim, n);
    const int64_t crop_l = std::max<int64_t>(-l, 0), kept = n - crop_l - std::max<int64_t>(-r, 0);
    EMBER_CHECK(kept >= 0 && n + l + r > 0,
                "[{}] argument 'pad': negative circular padding ({}, {}) leaves dimension {} of size {} empty", op, l,
                r, dim, n);
    std::vector<Tensor> parts;
    if (l > 0) parts.push_back(x.narrow(dim, n - l, l));
    parts.push_back(x.narrow(dim, crop_l, kept));
    if (r > 0) parts.push_back(x.narrow(dim, 0, r));
    x = parts.size() == 1 ? parts[0].clone() : ember::cat(parts, dim);
  }
  return x;
}

}  // namespace

Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  const char* op = "pad";
  check_defined(op, self, "self");
  EMBER_CHECK(pad.size() % 2 == 0, "[{}] argument 'pad': expected an even number of values, got {}", op, pad);
  if (mode == "constant") return ember::constant_pad_nd(self, pad, value.value_or(0.0));
  EMBER_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular",
              "[{}] argument 'mode': expected \"constant\", \"reflect\", \"replicate\" or \"circular\", got \"{}\"", op,
              mode);
  EMBER_CHECK(!value, "[{}] padding mode \"{}\" doesn't take in value argument", op, mode);
  const int64_t nd = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK_NOT_IMPLEMENTED(
      nd >= 1 && nd <= 3 && (self.dim() == nd + 1 || self.dim() == nd + 2),
      "[{}] mode \"{}\" pads the last 1, 2 or 3 dimensions of an input with 1 or 2 more (2-D or 3-D input for 2 pad "
      "values, 3-D or 4-D for 4, 4-D or 5-D for 6), got {} pad values for an input of shape {}",
      op, mode, pad.size(), self.sizes());
  if (mode == "circular") return pad_circular(self, pad);
  const bool reflect = mode == "reflect";
  switch (nd) {
    case 1:
      return reflect ? ember::reflection_pad1d(self, pad) : ember::replication_pad1d(self, pad);
    case 2:
      return reflect ? ember::reflection_pad2d(self, pad) : ember::replication_pad2d(self, pad);
    default:
      return reflect ? ember::reflection_pad3d(self, pad) : ember::replication_pad3d(self, pad);
  }
}

}  // namespace ember::native
