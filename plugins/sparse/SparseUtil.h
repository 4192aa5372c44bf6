#pragma once
// Internal to the sparse plugin: helpers shared by its kernel files.
#include <vector>

#include "ember/generated/Functions.h"
#include "ember/sparse/SparseTensorImpl.h"

namespace ember::sparse {

// Row-major strides of the sparse dimensions of `sizes` (the first sparse_dim).
std::vector<int64_t> sparse_strides(IntArrayRef sizes, int64_t sparse_dim);
// Each entry's linear index over the sparse dimensions: sum_d indices[d][k] * stride_d.
std::vector<int64_t> linear_indices(const Tensor& indices, IntArrayRef sizes);
// The row index of each CSR entry (int64), from crow_indices.
Tensor csr_rows(const SparseCsrTensorImpl& csr);
// The entries of self (strided, COO or CSR, of `sizes`) at the positions `indices` ([sparse_dim,
// n] int64, any order, repeats allowed): [n, dense sizes...], zero where a sparse self has none.
Tensor gather_at(const Tensor& self, const Tensor& indices, IntArrayRef sizes, const char* op);

}  // namespace ember::sparse
