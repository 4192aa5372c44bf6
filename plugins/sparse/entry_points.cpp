// The sparse kernels' entry points for each device's dispatch keys (Note [Sparse kernels on every
// device] in SparseUtil.h): every key's kernel namespace forwards to the one body in ember::sparse,
// and holds the member kernels of ember/native/SparseRules.h.
#include "SparseUtil.h"
#include "ember/generated/SparseCPUFunctions.h"
#include "ember/generated/SparseCUDAFunctions.h"
#include "ember/generated/SparseCsrCPUFunctions.h"
#include "ember/generated/SparseCsrCUDAFunctions.h"
#include "ember/generated/SparseCsrHIPFunctions.h"
#include "ember/generated/SparseHIPFunctions.h"
#include "ember/native/SparseRules.h"

using ember::IntArrayRef;
using ember::OutKind;
using ember::Scalar;
using ember::ScalarType;
using ember::Tensor;

// The kernels both layouts register under one name.
#define EMBER_SPARSE_SHARED_ENTRY_POINTS()                                                                           \
  Tensor& sum_intlist_out_sparse(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype, \
                                 Tensor& out) {                                                                      \
    return ::ember::sparse::sum_intlist_out_sparse(self, dim, keepdim, dtype, out);                                  \
  }

#define EMBER_SPARSE_COO_ENTRY_POINTS()                                                                          \
  EMBER_DEFINE_SPARSE_COO_MEMBER_KERNELS()                                                                       \
  EMBER_SPARSE_SHARED_ENTRY_POINTS()                                                                             \
  Tensor coalesce_sparse(const Tensor& self) { return ::ember::sparse::coalesce_sparse(self); }                  \
  Tensor sparse_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {                                  \
    return ::ember::sparse::sparse_to_dense(self, dtype);                                                        \
  }                                                                                                              \
  void add_out_sparse(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) { \
    ::ember::sparse::add_out_sparse(self, other, alpha, out, kind);                                              \
  }                                                                                                              \
  void mul_out_sparse(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                      \
    ::ember::sparse::mul_out_sparse(self, other, out, kind);                                                     \
  }                                                                                                              \
  Tensor sum_dim_sparse(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {    \
    return ::ember::sparse::sum_dim_sparse(self, dim, keepdim, dtype);                                           \
  }                                                                                                              \
  Tensor mm_sparse(const Tensor& self, const Tensor& mat2) { return ::ember::sparse::mm_sparse(self, mat2); }    \
  Tensor addmm_sparse(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,            \
                      const Scalar& alpha) {                                                                     \
    return ::ember::sparse::addmm_sparse(self, mat1, mat2, beta, alpha);                                         \
  }                                                                                                              \
  Tensor sparse_mask_sparse(const Tensor& self, const Tensor& mask) {                                            \
    return ::ember::sparse::sparse_mask_sparse(self, mask);                                                      \
  }                                                                                                              \
  Tensor _sparse_softmax(const Tensor& self, int64_t dim, bool half_to_float) {                                  \
    return ::ember::sparse::_sparse_softmax(self, dim, half_to_float);                                           \
  }                                                                                                              \
  Tensor _sparse_log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {                              \
    return ::ember::sparse::_sparse_log_softmax(self, dim, half_to_float);                                       \
  }                                                                                                              \
  Tensor _sparse_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,             \
                                       const Tensor& self) {                                                     \
    return ::ember::sparse::_sparse_softmax_backward_data(grad_output, output, dim, self);                       \
  }                                                                                                              \
  Tensor _sparse_log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,         \
                                           const Tensor& self) {                                                 \
    return ::ember::sparse::_sparse_log_softmax_backward_data(grad_output, output, dim, self);                   \
  }

#define EMBER_SPARSE_CSR_ENTRY_POINTS()                                                                              \
  EMBER_DEFINE_SPARSE_CSR_MEMBER_KERNELS()                                                                           \
  EMBER_SPARSE_SHARED_ENTRY_POINTS()                                                                                 \
  Tensor sparse_csr_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {                                  \
    return ::ember::sparse::sparse_csr_to_dense(self, dtype);                                                        \
  }                                                                                                                  \
  void add_out_sparse_csr(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) { \
    ::ember::sparse::add_out_sparse_csr(self, other, alpha, out, kind);                                              \
  }                                                                                                                  \
  void mul_out_sparse_csr(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                      \
    ::ember::sparse::mul_out_sparse_csr(self, other, out, kind);                                                     \
  }                                                                                                                  \
  Tensor sum_dim_sparse_csr(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {    \
    return ::ember::sparse::sum_dim_sparse_csr(self, dim, keepdim, dtype);                                           \
  }                                                                                                                  \
  Tensor mm_sparse_csr(const Tensor& self, const Tensor& mat2) { return ::ember::sparse::mm_sparse(self, mat2); }    \
  Tensor addmm_sparse_csr(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,            \
                          const Scalar& alpha) {                                                                     \
    return ::ember::sparse::addmm_sparse(self, mat1, mat2, beta, alpha);                                             \
  }                                                                                                                  \
  Tensor sparse_mask_sparse_csr(const Tensor& self, const Tensor& mask) {                                            \
    return ::ember::sparse::sparse_mask_sparse_csr(self, mask);                                                      \
  }

namespace ember::sparsecpu {
EMBER_SPARSE_COO_ENTRY_POINTS()
}  // namespace ember::sparsecpu
namespace ember::sparsecuda {
EMBER_SPARSE_COO_ENTRY_POINTS()
}  // namespace ember::sparsecuda
namespace ember::sparsehip {
EMBER_SPARSE_COO_ENTRY_POINTS()
}  // namespace ember::sparsehip
namespace ember::sparsecsrcpu {
EMBER_SPARSE_CSR_ENTRY_POINTS()
}  // namespace ember::sparsecsrcpu
namespace ember::sparsecsrcuda {
EMBER_SPARSE_CSR_ENTRY_POINTS()
}  // namespace ember::sparsecsrcuda
namespace ember::sparsecsrhip {
EMBER_SPARSE_CSR_ENTRY_POINTS()
}  // namespace ember::sparsecsrhip
