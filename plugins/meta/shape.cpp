// Meta kernels of the shape operators that copy data on the cpu (plugins/cpu/shape.cpp): cat,
// flip, linspace, eye. The views and the other shape composites live in libember.
#include "MetaHelpers.h"
#include "ember/generated/Functions.h"

namespace ember::meta {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const native::CatShape cs = native::cat_shape(
      tensors, dim, [](const Tensor& a, const Tensor& b) { native::check_same_device("cat", kMeta, a, b); });
  return empty_meta(cs.sizes, cs.dtype);
}

// flip's result is empty_like(self): the dispatched composite, as on the cpu.
Tensor flip(const Tensor& self, IntArrayRef dims) {
  native::check_defined("flip", self, "self");
  native::wrap_dims(dims, self.dim(), "flip");
  return ember::empty_like(self);
}

Tensor linspace(const Scalar& /*start*/, const Scalar& /*end*/, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory) {
  check_factory("linspace", layout, device, pin_memory);
  EMBER_CHECK(steps >= 0, "[linspace] number of steps must be non-negative, got {}", steps);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && !is_complex_type(dt), "[linspace] not implemented for dtype {} on the CPU",
                              dt);
  return empty_meta({steps}, dt);
}

Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("eye", layout, device, pin_memory);
  native::check_eye(n, m);
  return empty_meta({n, m}, dtype.value_or(get_default_dtype()));
}

Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return meta::eye_m(n, n, dtype, layout, device, pin_memory);
}

}  // namespace ember::meta
