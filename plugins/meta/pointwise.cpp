// Pointwise meta kernels (plugins/cpu/pointwise.cpp): masked_fill, its dtype rule
// (ember/native/Rules.h, shared with the cpu kernels) and one TensorIter build on kMeta; the
// structured families (pow, clamp, where, lerp, addcmul, the logical ops) have none here
// (plugins/common/ElementwiseMeta.cpp).
#include "MetaHelpers.h"

namespace ember::meta {

// masked_fill keeps self's dtype and returns a contiguous result; the in-place form cannot grow self.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor out = empty_meta(native::masked_fill_shape("masked_fill", self, mask), self.dtype());
  native::check_scalar_fits(value, self.dtype(), "masked_fill");
  iterate("masked_fill", out, OutKind::InPlace, self.dtype(), {&mask, &self});
  return out;
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  native::check_masked_fill("masked_fill_", self, mask);
  native::check_scalar_fits(value, self.dtype(), "masked_fill_");
  iterate("masked_fill_", self, OutKind::InPlace, self.dtype(), {&mask, &self});
  return self;
}

}  // namespace ember::meta
