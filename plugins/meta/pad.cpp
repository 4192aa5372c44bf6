// Meta padding (plugins/cpu/pad.cpp): constant_pad_nd, reflection_pad{1,2,3}d and
// replication_pad{1,2,3}d with their out= forms and backwards, with the cpu kernels' checks and
// shapes (ember/native/PadRules.h); results are contiguous and in the input's dtype.
#include "MetaHelpers.h"
#include "ember/native/PadRules.h"

namespace ember::meta {

namespace {

Tensor pad_impl(const char* op, int64_t nd, bool reflect, const Tensor& self, IntArrayRef padding) {
  const native::pad::PadGeom g = native::pad::check_pad(op, kMeta, self, nd, padding, reflect);
  return empty_meta(g.out_shape, self.dtype());
}

}  // namespace

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& /*value*/) {
  const char* op = "constant_pad_nd";
  const std::vector<int64_t> shape = native::pad::constant_pad_shape(op, self, pad);
  EMBER_CHECK(self.is_meta(), "[{}] expected a meta tensor, got one on {}", op, self.device());
  return empty_meta(shape, self.dtype());
}

Tensor& constant_pad_nd_out(const Tensor& self, IntArrayRef pad, const Scalar& value, Tensor& out) {
  const char* op = "constant_pad_nd_out";
  const Tensor r = meta::constant_pad_nd(self, pad, value);
  check_out(op, out, self.dtype());
  return write_out(out, r, op);
}

#define EMBER_PAD_KERNELS(NAME, ND, REFLECT)                                                                   \
  Tensor NAME(const Tensor& self, IntArrayRef padding) { return pad_impl(#NAME, ND, REFLECT, self, padding); } \
  Tensor& NAME##_out(const Tensor& self, IntArrayRef padding, Tensor& out) {                                   \
    const Tensor r = pad_impl(#NAME, ND, REFLECT, self, padding);                                              \
    check_out(#NAME "_out", out, self.dtype());                                                                \
    return write_out(out, r, #NAME "_out");                                                                    \
  }                                                                                                            \
  Tensor NAME##_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {                 \
    native::pad::check_pad_backward(#NAME "_backward", kMeta, grad_output, self, ND, padding, REFLECT);        \
    return empty_meta(self.sizes(), self.dtype());                                                             \
  }

EMBER_PAD_KERNELS(reflection_pad1d, 1, true)
EMBER_PAD_KERNELS(reflection_pad2d, 2, true)
EMBER_PAD_KERNELS(reflection_pad3d, 3, true)
EMBER_PAD_KERNELS(replication_pad1d, 1, false)
EMBER_PAD_KERNELS(replication_pad2d, 2, false)
EMBER_PAD_KERNELS(replication_pad3d, 3, false)
#undef EMBER_PAD_KERNELS

}  // namespace ember::meta
