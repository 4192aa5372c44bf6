#pragma once
// Argument checks and result shapes of the sparse kernels, shared by the sparse plugin and the
// meta plugin's SparseMeta/SparseCsrMeta kernels (Note [Meta backend]), so both give the same
// errors and shapes. Note [Sparse tensors] in ember/sparse/SparseTensorImpl.h.
#include <vector>

#include "ember/generated/Functions.h"

namespace ember::native {

// A sparse (COO or CSR) matrix times a dense one: the checks of LibTorch's sparse addmm.
inline void check_sparse_mm(const char* op, const Tensor& sparse, const Tensor& dense) {
  EMBER_CHECK_NOT_IMPLEMENTED(dense.layout() == kStrided, "[{}] a product of two sparse matrices is not supported yet",
                              op);
  EMBER_CHECK(sparse.dim() == 2 && (sparse.layout() != kSparse || sparse.sparse_dim() == 2),
              "[{}] matrices expected, got {}D tensor", op,
              sparse.layout() == kSparse ? sparse.sparse_dim() : sparse.dim());
  EMBER_CHECK(dense.dim() == 2, "[{}] matrices expected, got {}D tensor", op, dense.dim());
  EMBER_CHECK(sparse.size(1) == dense.size(0), "[{}] Argument #3 (dense): Expected dim 0 size {}, got {}", op,
              sparse.size(1), dense.size(0));
  EMBER_CHECK_TYPE(sparse.scalar_type() == dense.scalar_type(),
                   "[{}] expected the sparse and dense operands to have the same dtype, but got {} and {}", op,
                   sparse.scalar_type(), dense.scalar_type());
}

// A dense matrix times a sparse one (computed as the transposed product).
inline void check_dense_sparse_mm(const char* op, const Tensor& dense, const Tensor& sparse) {
  EMBER_CHECK(dense.dim() == 2 && sparse.dim() == 2 && dense.size(1) == sparse.size(0),
              "[{}] mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", op, dense.size(0),
              dense.dim() > 1 ? dense.size(1) : 0, sparse.size(0), sparse.dim() > 1 ? sparse.size(1) : 0);
}

// addmm's dense self: broadcastable to the product's size (expand checks it).
inline void check_addmm_self(const char* op, const Tensor& self, IntArrayRef out_size) {
  EMBER_CHECK(self.layout() == kStrided, "[{}] expected a dense self, got layout {}", op, self.layout());
  (void)self.expand(out_size);
}

// _sparse_softmax/_sparse_log_softmax: the wrapped dim.
inline int64_t check_sparse_softmax(const char* op, const Tensor& self, int64_t dim, bool half_to_float) {
  EMBER_CHECK_NOT_IMPLEMENTED(!half_to_float, "[{}] softmax with half to float conversion is not supported on CPU", op);
  EMBER_CHECK_TYPE(self.scalar_type() == kFloat32 || self.scalar_type() == kFloat64,
                   "[{}] expected a float32 or float64 tensor, got {}", op, self.scalar_type());
  return maybe_wrap_dim(dim, self.dim(), op);
}

inline void check_to_dense_dtype(std::optional<ScalarType> dtype) {
  EMBER_CHECK(!dtype, "[to_dense] dtype argument is not supported by sparse_to_dense");
}

}  // namespace ember::native
