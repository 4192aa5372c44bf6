// The functional forms of the in-place indexing operators: clone, then the backend's in-place kernel.
#include "Composite.h"

namespace ember::native {

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  Tensor r = ember::clone(self);
  return ember::index_put_(r, indices, values, accumulate);
}

Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor r = ember::clone(self);
  return r.scatter_(dim, index, src);
}

Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor r = ember::clone(self);
  return r.scatter_(dim, index, value);
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor r = ember::clone(self);
  return r.scatter_add_(dim, index, src);
}

}  // namespace ember::native
