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

Tensor pad_backward_impl(const char* op, int64_t nd, bool reflect, const Tensor& grad_output, const Tensor& self,
                         IntArrayRef padding) {
  native::pad::check_pad_backward(op, kMeta, grad_output, self, nd, padding, reflect);
  return empty_meta(self.sizes(), self.dtype());
}

Tensor constant_pad_impl(const Tensor& self, IntArrayRef pad, const Scalar& /*value*/) {
  const char* op = "constant_pad_nd";
  const std::vector<int64_t> shape = native::pad::constant_pad_shape(op, self, pad);
  EMBER_CHECK(self.is_meta(), "[{}] expected a meta tensor, got one on {}", op, self.device());
  return empty_meta(shape, self.dtype());
}

}  // namespace

#include "ember/native/PadEntryPoints.inc"

}  // namespace ember::meta
