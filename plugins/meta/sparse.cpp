// SparseMeta/SparseCsrMeta kernels: the sparse plugin's checks (ember/native/SparseRules.h) and
// result shapes on meta tensors (Note [Meta backend]). A meta COO or CSR tensor holds meta member
// tensors; a result whose nnz depends on the values (coalesce) keeps the input's nnz, an upper
// bound, as PyTorch's meta sparse tensors do.
#include "ember/generated/SparseCsrMetaFunctions.h"
#include "ember/generated/SparseMetaFunctions.h"
#include "ember/native/SparseRules.h"
#include "ember/sparse/SparseTensorImpl.h"

namespace ember::sparsemeta {

namespace {

Tensor meta_empty(IntArrayRef sizes, ScalarType dtype) {
  return empty(sizes, TensorOptions().dtype(dtype).device(Device(kMeta)));
}

Tensor mm_result(const char* op, const Tensor* self, const Tensor& mat1, const Tensor& mat2) {
  if (mat1.layout() == kStrided && mat2.layout() != kStrided)
    native::check_dense_sparse_mm(op, mat1, mat2);
  else
    native::check_sparse_mm(op, mat1, mat2);
  const int64_t size[2] = {mat1.size(0), mat2.size(1)};
  if (self) native::check_addmm_self(op, *self, size);
  return meta_empty(size, mat2.layout() == kStrided ? mat2.scalar_type() : mat1.scalar_type());
}

}  // namespace

Tensor sparse_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  (void)sparse_coo_impl(self, "to_dense");
  return meta_empty(self.sizes(), self.scalar_type());
}

Tensor coalesce_sparse(const Tensor& self) {
  const auto& s = sparse_coo_impl(self, "coalesce");
  if (s.coalesced()) return self;
  return make_sparse_coo(self.sizes(), empty_like(s.indices()), empty_like(s.values()), true);
}

bool is_coalesced_sparse(const Tensor& self) { return sparse_coo_impl(self, "is_coalesced").coalesced(); }
Tensor _indices_sparse(const Tensor& self) { return sparse_coo_impl(self, "_indices").indices(); }
Tensor indices_sparse(const Tensor& self) {
  const auto& s = sparse_coo_impl(self, "indices");
  EMBER_CHECK(s.coalesced(), "[indices] Cannot get indices on an uncoalesced tensor, please call .coalesce() first");
  return s.indices();
}
Tensor _values_sparse(const Tensor& self) { return sparse_coo_impl(self, "_values").values(); }
Tensor values_sparse(const Tensor& self) {
  const auto& s = sparse_coo_impl(self, "values");
  EMBER_CHECK(s.coalesced(), "[values] Cannot get values on an uncoalesced tensor, please call .coalesce() first");
  return s.values();
}
int64_t _nnz_sparse(const Tensor& self) { return sparse_coo_impl(self, "_nnz").nnz(); }
int64_t sparse_dim_sparse(const Tensor& self) { return sparse_coo_impl(self, "sparse_dim").sparse_dim(); }
int64_t dense_dim_sparse(const Tensor& self) { return sparse_coo_impl(self, "dense_dim").dense_dim(); }

Tensor mul_scalar_sparse(const Tensor& self, const Scalar& other) {
  const auto& s = sparse_coo_impl(self, "mul");
  return make_sparse_coo(self.sizes(), s.indices(), s.values().mul(other), s.coalesced());
}

Tensor sum_sparse(const Tensor& self, std::optional<ScalarType> dtype) {
  return sparse_coo_impl(self, "sum").values().sum(dtype);
}

Tensor mm_sparse(const Tensor& self, const Tensor& mat2) { return mm_result("mm", nullptr, self, mat2); }

Tensor addmm_sparse(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar&, const Scalar&) {
  return mm_result("addmm", &self, mat1, mat2);
}

Tensor _sparse_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  (void)native::check_sparse_softmax("_sparse_softmax", self, dim, half_to_float);
  const Tensor c = coalesce_sparse(self);
  const auto& s = sparse_coo_impl(c, "_sparse_softmax");
  return make_sparse_coo(self.sizes(), s.indices(), empty_like(s.values()), true);
}

Tensor _sparse_log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  (void)native::check_sparse_softmax("_sparse_log_softmax", self, dim, half_to_float);
  const Tensor c = coalesce_sparse(self);
  const auto& s = sparse_coo_impl(c, "_sparse_log_softmax");
  return make_sparse_coo(self.sizes(), s.indices(), empty_like(s.values()), true);
}

}  // namespace ember::sparsemeta

namespace ember::sparsecsrmeta {

Tensor sparse_csr_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  (void)sparse_csr_impl(self, "to_dense");
  return empty(self.sizes(), TensorOptions().dtype(self.scalar_type()).device(Device(kMeta)));
}
Tensor values_sparse_csr(const Tensor& self) { return sparse_csr_impl(self, "values").values(); }
Tensor crow_indices_sparse_csr(const Tensor& self) { return sparse_csr_impl(self, "crow_indices").crow_indices(); }
Tensor col_indices_sparse_csr(const Tensor& self) { return sparse_csr_impl(self, "col_indices").col_indices(); }
int64_t _nnz_sparse_csr(const Tensor& self) { return sparse_csr_impl(self, "_nnz").nnz(); }
int64_t sparse_dim_sparse_csr(const Tensor& self) {
  (void)sparse_csr_impl(self, "sparse_dim");
  return 2;
}
int64_t dense_dim_sparse_csr(const Tensor& self) {
  (void)sparse_csr_impl(self, "dense_dim");
  return 0;
}

Tensor mul_scalar_sparse_csr(const Tensor& self, const Scalar& other) {
  const auto& c = sparse_csr_impl(self, "mul");
  return make_sparse_csr(self.sizes(), c.crow_indices(), c.col_indices(), c.values().mul(other));
}

Tensor sum_sparse_csr(const Tensor& self, std::optional<ScalarType> dtype) {
  return sparse_csr_impl(self, "sum").values().sum(dtype);
}

Tensor mm_sparse_csr(const Tensor& self, const Tensor& mat2) { return sparsemeta::mm_sparse(self, mat2); }

Tensor addmm_sparse_csr(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                        const Scalar& alpha) {
  return sparsemeta::addmm_sparse(self, mat1, mat2, beta, alpha);
}

}  // namespace ember::sparsecsrmeta
