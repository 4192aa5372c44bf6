#pragma once
// Internal to the sparse plugin: the kernels' bodies and the helpers shared by its files.
//
// Note [Sparse kernels on every device]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A sparse tensor is its members (indices, values: dense tensors on one device), so each sparse
// kernel is written once over dense operators -- sort, unique_consecutive, searchsorted,
// index_add, scatter_reduce -- that run wherever the members are. The bodies live in
// ember::sparse; entry_points.cpp registers them for SparseCPU, SparseCUDA and SparseHIP (and the
// Csr keys) by forwarding from each key's kernel namespace. Index arithmetic never reads a device
// tensor on the host; only sizes whose values are data (nnz after coalescing, matches of an
// intersection) synchronise, as LibTorch's CUDA kernels do. The one per-device path is the
// CSR x dense product: the cpu runs its row loop over threads, another device gathers the
// products per entry and sums them per row with index_add (cuSPARSE would be the GPU's fast path).
#include <vector>

#include "ember/generated/Functions.h"
#include "ember/plugin/Structured.h"
#include "ember/sparse/SparseTensorImpl.h"

namespace ember::sparse {

// Each entry's linear index over the sparse dimensions (row-major over the first sparse_dim sizes),
// an int64 tensor on the indices' device.
Tensor linear_index(const Tensor& indices, IntArrayRef sizes);
// The row index of each CSR entry (int64, on the tensor's device).
Tensor csr_rows(const Tensor& csr);
// The entries of self (strided, COO or CSR, of `sizes`) at the positions `indices` ([sparse_dim,
// n] int64, any order, repeats allowed): [n, dense sizes...], zero where a sparse self has none.
Tensor gather_at(const Tensor& self, const Tensor& indices, IntArrayRef sizes, const char* op);
// The coalesced COO tensor of `sizes` whose entries are at the ascending (ties adjacent) linear
// indices `lin` with `values`: each run of equal ones is one entry, its values summed in order.
Tensor coalesce_sorted(IntArrayRef sizes, int64_t sparse_dim, const Tensor& lin, const Tensor& values);
// Options for int64 index tensors on t's device.
inline TensorOptions index_options(const Tensor& t) { return TensorOptions().dtype(kInt64).device(t.device()); }

// The kernels (ops.yaml's names), for every device.
Tensor coalesce_sparse(const Tensor& self);
Tensor sparse_to_dense(const Tensor& self, std::optional<ScalarType> dtype);
Tensor sparse_csr_to_dense(const Tensor& self, std::optional<ScalarType> dtype);
void add_out_sparse(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind);
void mul_out_sparse(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind);
void add_out_sparse_csr(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind);
void mul_out_sparse_csr(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind);
Tensor& sum_intlist_out_sparse(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                               Tensor& out);
Tensor sum_dim_sparse(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor sum_dim_sparse_csr(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor mm_sparse(const Tensor& self, const Tensor& mat2);
Tensor addmm_sparse(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                    const Scalar& alpha);
Tensor sparse_mask_sparse(const Tensor& self, const Tensor& mask);
Tensor sparse_mask_sparse_csr(const Tensor& self, const Tensor& mask);
Tensor _sparse_softmax(const Tensor& self, int64_t dim, bool half_to_float);
Tensor _sparse_log_softmax(const Tensor& self, int64_t dim, bool half_to_float);
Tensor _sparse_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor& self);
Tensor _sparse_log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                         const Tensor& self);

}  // namespace ember::sparse
