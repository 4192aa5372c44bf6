// SparseMeta/SparseCsrMeta kernels: the sparse plugin's checks (ember/native/SparseRules.h) and
// result shapes on meta tensors (Note [Meta backend]). A meta COO or CSR tensor holds meta member
// tensors; a result whose nnz depends on the values (coalesce) keeps the input's nnz, an upper
// bound, as PyTorch's meta sparse tensors do. Where even that bound is unknown (sparse + sparse,
// sparse * sparse, sum over some sparse dims) the kernel raises NotImplementedError.
#include "ember/core/TypePromotion.h"
#include "ember/generated/SparseCsrMetaFunctions.h"
#include "ember/generated/SparseMetaFunctions.h"
#include "ember/native/SparseRules.h"
#include "ember/native/TensorHelpers.h"
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

[[noreturn]] void data_dependent_nnz(const char* op) {
  EMBER_THROW(NotImplementedError,
              "[{}] on meta sparse tensors: the result's number of specified elements (nnz) depends on the values", op);
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

EMBER_DEFINE_SPARSE_COO_MEMBER_KERNELS()

// dense + sparse is dense and sparse * dense keeps the sparse pattern; other results' nnz depend
// on the values. In-place and out= forms write a result, so they need it too.
void add_out_sparse(const Tensor& self, const Tensor& other, const Scalar&, Tensor& out, OutKind kind) {
  if (self.layout() == kStrided && other.layout() == kSparse) {
    EMBER_CHECK(self.sizes() == other.sizes(),
                "[add] expected 'self' and 'other' to have same size, but self has size {} while other has size {} "
                "(FYI: dense-sparse addition does not currently support broadcasting)",
                self.sizes(), other.sizes());
    const ScalarType rt = promote_types(self.scalar_type(), other.scalar_type());
    if (kind == OutKind::Functional) {
      out = meta_empty(self.sizes(), rt);
      return;
    }
    EMBER_CHECK_TYPE(can_cast(rt, out.scalar_type()),
                     "[add] result type {} can't be cast to the desired output type {}", rt, out.scalar_type());
    if (kind == OutKind::Out) native::resize_output(out, self.sizes(), "add");
    return;
  }
  data_dependent_nnz("add");
}

void mul_out_sparse(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  if (kind != OutKind::Functional) {
    Tensor r;
    mul_out_sparse(self, other, r, OutKind::Functional);
    native::assign_sparse_result("mul", r, out, kind);
    return;
  }
  if ((self.layout() == kStrided) != (other.layout() == kStrided)) {
    EMBER_CHECK(self.sizes() == other.sizes(), "[mul] expected sizes of 'self' and 'other' to match, but {} != {}",
                self.sizes(), other.sizes());
    const Tensor& sp = self.layout() == kSparse ? self : other;
    const auto& s = sparse_coo_impl(sp, "mul");
    const ScalarType rt = promote_types(self.scalar_type(), other.scalar_type());
    out = make_sparse_coo(sp.sizes(), s.indices(), empty_like(s.values()).to(rt), s.coalesced());
    return;
  }
  data_dependent_nnz("mul");
}

Tensor sum_dim_sparse(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>) {
  sparsemeta::data_dependent_nnz("sum");
}

Tensor& sum_intlist_out_sparse(const Tensor& self, IntArrayRef, bool, std::optional<ScalarType>, Tensor& out) {
  EMBER_THROW(NotImplementedError, "[sum] the out= form is not supported with sparse tensors (self: {}, out: {})",
              self.layout(), out.layout());
}

Tensor sparse_mask_sparse(const Tensor& self, const Tensor& mask) {
  native::check_sparse_mask("sparse_mask", self, mask);
  if (mask.layout() == kSparseCsr) return sparsecsrmeta::sparse_mask_sparse_csr(self, mask);
  const auto& m = sparse_coo_impl(mask, "sparse_mask");  // nnz: an upper bound when uncoalesced
  return make_sparse_coo(mask.sizes(), m.indices(), empty_like(m.values()).to(self.scalar_type()), true);
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

Tensor _sparse_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor&) {
  (void)native::check_sparse_softmax_backward("_sparse_softmax_backward_data", grad_output, output, dim);
  const auto& o = sparse_coo_impl(output, "_sparse_softmax_backward_data");
  return make_sparse_coo(output.sizes(), o.indices(), empty_like(o.values()), o.coalesced());
}

Tensor _sparse_log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor&) {
  (void)native::check_sparse_softmax_backward("_sparse_log_softmax_backward_data", grad_output, output, dim);
  const auto& o = sparse_coo_impl(output, "_sparse_log_softmax_backward_data");
  return make_sparse_coo(output.sizes(), o.indices(), empty_like(o.values()), o.coalesced());
}

}  // namespace ember::sparsemeta

namespace ember::sparsecsrmeta {

Tensor sparse_csr_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  (void)sparse_csr_impl(self, "to_dense");
  return empty(self.sizes(), TensorOptions().dtype(self.scalar_type()).device(Device(kMeta)));
}
EMBER_DEFINE_SPARSE_CSR_MEMBER_KERNELS()

Tensor mm_sparse_csr(const Tensor& self, const Tensor& mat2) { return sparsemeta::mm_sparse(self, mat2); }

void add_out_sparse_csr(const Tensor&, const Tensor&, const Scalar&, Tensor&, OutKind) {
  sparsemeta::data_dependent_nnz("add");
}
void mul_out_sparse_csr(const Tensor&, const Tensor&, Tensor&, OutKind) { sparsemeta::data_dependent_nnz("mul"); }
Tensor sum_dim_sparse_csr(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>) {
  sparsemeta::data_dependent_nnz("sum");
}

Tensor& sum_intlist_out_sparse(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                               Tensor& out) {
  return sparsemeta::sum_intlist_out_sparse(self, dim, keepdim, dtype, out);
}

Tensor sparse_mask_sparse_csr(const Tensor& self, const Tensor& mask) {
  native::check_sparse_mask("sparse_mask", self, mask);
  if (mask.layout() == kSparse) return sparsemeta::sparse_mask_sparse(self, mask);
  const auto& m = sparse_csr_impl(mask, "sparse_mask");
  return make_sparse_csr(mask.sizes(), m.crow_indices(), m.col_indices(),
                         empty_like(m.values()).to(self.scalar_type()));
}

Tensor addmm_sparse_csr(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                        const Scalar& alpha) {
  return sparsemeta::addmm_sparse(self, mat1, mat2, beta, alpha);
}

}  // namespace ember::sparsecsrmeta
