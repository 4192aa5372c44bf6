// Meta sum and the whole-tensor queries (plugins/cpu/sum.cpp): sum; item, equal and allclose
// need values, which a meta tensor has not.
#include "MetaHelpers.h"

namespace ember::meta {

Tensor sum(const Tensor& self, OptDtype dtype) { return meta::sum_dim(self, {}, false, dtype); }
Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  native::check_defined("sum", self, "self");
  return reduce("sum", self, dim, keepdim, native::sum_like_dtype("sum", self, dtype));
}

Scalar item(const Tensor& self) {
  native::check_defined("item", self, "self");
  no_data("item");
}
bool equal(const Tensor& /*self*/, const Tensor& /*other*/) { no_data("equal"); }
bool allclose(const Tensor& /*self*/, const Tensor& /*other*/, double /*rtol*/, double /*atol*/, bool /*equal_nan*/) {
  no_data("allclose");
}

}  // namespace ember::meta
