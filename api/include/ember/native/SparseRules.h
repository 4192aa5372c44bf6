#pragma once
// Argument checks and result shapes of the sparse kernels, shared by the sparse plugin and the
// meta plugin's SparseMeta/SparseCsrMeta kernels (Note [Meta backend]), so both give the same
// errors and shapes. Note [Sparse tensors] in ember/sparse/SparseTensorImpl.h.
#include <vector>

#include "ember/core/TypePromotion.h"
#include "ember/generated/Functions.h"
#include "ember/native/TensorHelpers.h"
#include "ember/plugin/Structured.h"
#include "ember/sparse/SparseTensorImpl.h"

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

// _sparse_softmax/_sparse_log_softmax: the dim. As LibTorch's, these internal forms take no negative
// dim (only the softmax/log_softmax front ends wrap), except on an empty tensor.
inline int64_t check_sparse_softmax(const char* op, const Tensor& self, int64_t dim, bool half_to_float) {
  EMBER_CHECK_NOT_IMPLEMENTED(!half_to_float, "[{}] softmax with half to float conversion is not supported on CPU", op);
  EMBER_CHECK_TYPE(is_floating_type(self.scalar_type()), "[{}] expected a floating point tensor, got {}", op,
                   self.scalar_type());
  EMBER_CHECK_INDEX(self.numel() == 0 || (dim >= 0 && dim < self.dim()),
                    "[{}] expected argument 'dim' to be non-negative and less than the input's {} dimensions, got {}",
                    op, self.dim(), dim);
  return maybe_wrap_dim(dim, self.dim(), op);
}

// Their backward: a COO output and a gradient of its size (any layout); the wrapped dim.
inline int64_t check_sparse_softmax_backward(const char* op, const Tensor& grad, const Tensor& output, int64_t dim) {
  EMBER_CHECK(output.layout() == kSparse, "[{}] expected output to be a sparse COO tensor, got layout {}", op,
              output.layout());
  EMBER_CHECK(grad.sizes() == output.sizes(),
              "[{}] expected grad_output and output to have the same size, got {} and {}", op, grad.sizes(),
              output.sizes());
  return maybe_wrap_dim(dim, output.dim(), op);
}

// sparse_mask: self (strided, or sparse as later LibTorch) of the mask's size.
inline void check_sparse_mask(const char* op, const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.layout() == kSparse || mask.layout() == kSparseCsr,
              "[{}] expected mask to be a sparse tensor, got layout {}", op, mask.layout());
  EMBER_CHECK(self.sizes() == mask.sizes(),
              "[{}] operands have incompatible sizes; self has size {} but mask has size {}", op, self.sizes(),
              mask.sizes());
}

// The in-place and out= forms of the sparse kernels (every backend): the functional result `r`
// written into `dst` (self or out), whose layout must be r's. A sparse dst gets r's members (dtype
// converted), a strided one r's values.
inline void assign_sparse_result(const char* op, const Tensor& r, Tensor& dst, OutKind kind) {
  const char* what = kind == OutKind::InPlace ? "self" : "out";
  EMBER_CHECK_TYPE(can_cast(r.scalar_type(), dst.scalar_type()),
                   "[{}] result type {} can't be cast to the desired output type {}", op, r.scalar_type(),
                   dst.scalar_type());
  EMBER_CHECK_NOT_IMPLEMENTED(dst.layout() == r.layout(),
                              "[{}] writing a result of layout {} into {} of layout {} is not supported", op,
                              r.layout(), what, dst.layout());
  if (r.layout() == kStrided) {
    if (kind == OutKind::Out) native::resize_output(dst, r.sizes(), op);
    dst.copy_(r);
    return;
  }
  EMBER_CHECK_NOT_IMPLEMENTED(dst.sizes() == r.sizes(),
                              "[{}] resizing a sparse {} (size {}) to the result's size {} is not supported", op, what,
                              dst.sizes(), r.sizes());
  if (r.layout() == kSparse) {
    const auto& s = sparse_coo_impl(r, op);
    sparse_coo_impl(dst, op).set_members_unsafe(s.indices(), s.values().to(dst.scalar_type()).contiguous(),
                                                s.coalesced());
  } else {
    const auto& s = sparse_csr_impl(r, op);
    sparse_csr_impl(dst, op).set_members_unsafe(s.crow_indices(), s.col_indices(),
                                                s.values().to(dst.scalar_type()).contiguous());
  }
}

inline void check_to_dense_dtype(std::optional<ScalarType> dtype) {
  EMBER_CHECK(!dtype, "[to_dense] dtype argument is not supported by sparse_to_dense");
}

// A member returned to the user: a fresh impl sharing its data and version counter (LibTorch's
// alias; detach() builds exactly that), so autograd metadata set on the result never lands on
// the member itself (a member holding a grad_fn that saves the sparse tensor would be a cycle).
inline Tensor member_alias(const Tensor& member) { return member.detach(); }

}  // namespace ember::native

// The kernels that only read an impl's members or run dense operators on them (accessors,
// multiplication by a scalar, sum, zero_) are the same on every backend (SparseCPU, SparseMeta,
// ...): each defines them from these, inside its kernel namespace.
#define EMBER_DEFINE_SPARSE_COO_MEMBER_KERNELS()                                                                      \
  bool is_coalesced_sparse(const Tensor& self) { return sparse_coo_impl(self, "is_coalesced").coalesced(); }          \
  Tensor _indices_sparse(const Tensor& self) {                                                                        \
    return ::ember::native::member_alias(sparse_coo_impl(self, "_indices").indices());                                \
  }                                                                                                                   \
  Tensor indices_sparse(const Tensor& self) {                                                                         \
    const auto& s = sparse_coo_impl(self, "indices");                                                                 \
    EMBER_CHECK(s.coalesced(),                                                                                        \
                "[indices] Cannot get indices on an uncoalesced tensor, please call .coalesce() first");              \
    return ::ember::native::member_alias(s.indices());                                                                \
  }                                                                                                                   \
  Tensor _values_sparse(const Tensor& self) {                                                                         \
    return ::ember::native::member_alias(sparse_coo_impl(self, "_values").values());                                  \
  }                                                                                                                   \
  Tensor values_sparse(const Tensor& self) {                                                                          \
    const auto& s = sparse_coo_impl(self, "values");                                                                  \
    EMBER_CHECK(s.coalesced(), "[values] Cannot get values on an uncoalesced tensor, please call .coalesce() first"); \
    return ::ember::native::member_alias(s.values());                                                                 \
  }                                                                                                                   \
  int64_t _nnz_sparse(const Tensor& self) { return sparse_coo_impl(self, "_nnz").nnz(); }                             \
  int64_t sparse_dim_sparse(const Tensor& self) { return sparse_coo_impl(self, "sparse_dim").sparse_dim(); }          \
  int64_t dense_dim_sparse(const Tensor& self) { return sparse_coo_impl(self, "dense_dim").dense_dim(); }             \
  Tensor mul_scalar_sparse(const Tensor& self, const Scalar& other) {                                                 \
    const auto& s = sparse_coo_impl(self, "mul");                                                                     \
    return make_sparse_coo(self.sizes(), s.indices(), s.values().mul(other).contiguous(), s.coalesced());             \
  }                                                                                                                   \
  /* In place: the dense mul_ on a copy (its dtype rules; self untouched if it throws). */                            \
  Tensor& mul__scalar_sparse(Tensor& self, const Scalar& other) {                                                     \
    auto& s = sparse_coo_impl(self, "mul_");                                                                          \
    s.set_members_unsafe(s.indices(), s.values().clone().mul_(other), s.coalesced());                                 \
    return self;                                                                                                      \
  }                                                                                                                   \
  /* As LibTorch: no specified elements left, sizes and sparse/dense dims kept. */                                    \
  Tensor& zero_sparse(Tensor& self) {                                                                                 \
    auto& s = sparse_coo_impl(self, "zero_");                                                                         \
    std::vector<int64_t> vsize{0};                                                                                    \
    vsize.insert(vsize.end(), self.sizes().begin() + s.sparse_dim(), self.sizes().end());                             \
    const TensorOptions o = TensorOptions().device(self.device());                                                    \
    s.set_members_unsafe(empty({s.sparse_dim(), 0}, o.dtype(kInt64)), empty(vsize, o.dtype(self.scalar_type())),      \
                         true);                                                                                       \
    return self;                                                                                                      \
  }                                                                                                                   \
  Tensor sum_sparse(const Tensor& self, std::optional<ScalarType> dtype) {                                            \
    return sparse_coo_impl(self, "sum").values().sum(dtype);                                                          \
  }

#define EMBER_DEFINE_SPARSE_CSR_MEMBER_KERNELS()                                                                 \
  Tensor values_sparse_csr(const Tensor& self) {                                                                 \
    return ::ember::native::member_alias(sparse_csr_impl(self, "values").values());                              \
  }                                                                                                              \
  Tensor crow_indices_sparse_csr(const Tensor& self) {                                                           \
    return ::ember::native::member_alias(sparse_csr_impl(self, "crow_indices").crow_indices());                  \
  }                                                                                                              \
  Tensor col_indices_sparse_csr(const Tensor& self) {                                                            \
    return ::ember::native::member_alias(sparse_csr_impl(self, "col_indices").col_indices());                    \
  }                                                                                                              \
  int64_t _nnz_sparse_csr(const Tensor& self) { return sparse_csr_impl(self, "_nnz").nnz(); }                    \
  int64_t sparse_dim_sparse_csr(const Tensor& self) {                                                            \
    (void)sparse_csr_impl(self, "sparse_dim");                                                                   \
    return 2;                                                                                                    \
  }                                                                                                              \
  int64_t dense_dim_sparse_csr(const Tensor& self) {                                                             \
    (void)sparse_csr_impl(self, "dense_dim");                                                                    \
    return 0;                                                                                                    \
  }                                                                                                              \
  Tensor mul_scalar_sparse_csr(const Tensor& self, const Scalar& other) {                                        \
    const auto& c = sparse_csr_impl(self, "mul");                                                                \
    return make_sparse_csr(self.sizes(), c.crow_indices(), c.col_indices(), c.values().mul(other).contiguous()); \
  }                                                                                                              \
  Tensor& mul__scalar_sparse_csr(Tensor& self, const Scalar& other) {                                            \
    auto& c = sparse_csr_impl(self, "mul_");                                                                     \
    c.set_members_unsafe(c.crow_indices(), c.col_indices(), c.values().clone().mul_(other));                     \
    return self;                                                                                                 \
  }                                                                                                              \
  /* As LibTorch: nnz 0, every row empty. */                                                                     \
  Tensor& zero_sparse_csr(Tensor& self) {                                                                        \
    auto& c = sparse_csr_impl(self, "zero_");                                                                    \
    const TensorOptions o = TensorOptions().device(self.device());                                               \
    const ScalarType it = c.crow_indices().scalar_type();                                                        \
    c.set_members_unsafe(zeros({self.size(0) + 1}, o.dtype(it)), empty({0}, o.dtype(it)),                        \
                         empty({0}, o.dtype(self.scalar_type())));                                               \
    return self;                                                                                                 \
  }                                                                                                              \
  Tensor sum_sparse_csr(const Tensor& self, std::optional<ScalarType> dtype) {                                   \
    return sparse_csr_impl(self, "sum").values().sum(dtype);                                                     \
  }
