// Meta sum and the whole-tensor queries (plugins/cpu/sum.cpp): sum; item, equal and allclose
// need values, which a meta tensor has not.
#include "MetaHelpers.h"

namespace ember::meta {

Tensor sum(const Tensor& self, OptDtype dtype) { return meta::sum_dim(self, {}, false, dtype); }
Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  native::check_defined("sum", self, "self");
  return reduce("sum", self, dim, keepdim, native::sum_like_dtype("sum", self, dtype, true));
}

// The cpu kernels' argument errors first (a 2-element item is a ValueError, as PyTorch's meta
// item), then the values, which a meta tensor has not.
Scalar item(const Tensor& self) {
  native::check_item(self);
  no_data("item");
}
bool equal(const Tensor& self, const Tensor& other) {
  (void)native::equal_dtype(kMeta, self, other);
  no_data("equal");
}
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool /*equal_nan*/) {
  native::check_allclose(kMeta, self, other, rtol, atol);
  (void)native::broadcast_shapes(self.sizes(), other.sizes(), "allclose");  // the cpu's TensorIter check
  no_data("allclose");
}

}  // namespace ember::meta
