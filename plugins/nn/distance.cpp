// cosine_similarity and pairwise_distance (PyTorch's formulas); cdist and pdist (their kernels).
#include <algorithm>

#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const char* op = "cosine_similarity";
  check_defined(op, x1, "x1");
  check_defined(op, x2, "x2");
  nnutil::check_floating(op, x1, "x1");
  nnutil::check_floating(op, x2, "x2");
  const DimVector common = broadcast_shapes(x1.sizes(), x2.sizes(), op);
  const int64_t nd = static_cast<int64_t>(common.size());
  EMBER_CHECK_INDEX(dim >= -nd && dim < nd, "[{}] argument 'dim': expected a value in [-{}, {}), got {}", op, nd, nd,
                    dim);
  const Tensor a = x1.expand(IntArrayRef(common.data(), common.size())),
               b = x2.expand(IntArrayRef(common.data(), common.size()));
  // Each vector divided by its norm (at least eps) first: the result stays within [-1, 1].
  const int64_t dims[1] = {dim};
  const std::optional<IntArrayRef> over = IntArrayRef(dims, 1);
  const Tensor na = linalg_vector_norm(a, 2, over, true).clamp(eps),
               nb = linalg_vector_norm(b, 2, over, true).clamp(eps);
  return ((a / na) * (b / nb)).sum({dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const char* op = "pairwise_distance";
  check_defined(op, x1, "x1");
  check_defined(op, x2, "x2");
  nnutil::check_floating(op, x1, "x1");
  nnutil::check_floating(op, x2, "x2");
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  EMBER_CHECK(last >= 0, "[{}] expected x1 or x2 to have at least 1 dimension, got shapes {} and {}", op, x1.sizes(),
              x2.sizes());
  const int64_t dims[1] = {last};
  return norm(x1 - x2 + eps, std::optional<Scalar>(p), IntArrayRef(dims, 1), keepdim);
}

// PyTorch's cdist picks the matrix-product path for p = 2 inside _cdist_forward's kernel
// (compute_mode), so both spellings are _cdist_forward, whose formula is exact for every p.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return _cdist_forward(x1, x2, p, compute_mode);
}

Tensor pdist(const Tensor& self, double p) { return _pdist_forward(self, p); }

}  // namespace ember::native
