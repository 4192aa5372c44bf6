// sparse_mask: the entries of self at a sparse mask's specified positions, a sparse tensor of the
// mask's (coalesced) pattern and layout. self may be strided (LibTorch 1.13) or COO (as later LibTorch): a
// COO self is coalesced and looked up by binary search, with zeros where it has no entry. This is
// how the sparse gradients gather a gradient at an input's pattern without densifying it.
#include <algorithm>

#include "SparseUtil.h"
#include "ember/generated/SparseCPUFunctions.h"
#include "ember/generated/SparseCsrCPUFunctions.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

Tensor gather_at(const Tensor& self, const Tensor& indices, IntArrayRef sizes, const char* op) {
  const int64_t sd = indices.size(0);
  const std::vector<int64_t> lin = linear_indices(indices, sizes);
  Tensor pos = empty({static_cast<int64_t>(lin.size())}, TensorOptions().dtype(kInt64));
  int64_t* pp = pos.data_ptr<int64_t>();
  if (self.layout() == kStrided) {
    std::copy(lin.begin(), lin.end(), pp);
    std::vector<int64_t> flat{-1};
    flat.insert(flat.end(), sizes.begin() + sd, sizes.end());
    return index_select(self.reshape(flat), 0, pos);
  }
  const Tensor c = sparsecpu::coalesce_sparse(self.layout() == kSparseCsr ? self.to_sparse() : self);
  const auto& s = sparse_coo_impl(c, op);
  EMBER_CHECK(s.sparse_dim() == sd, "[{}] expected self and mask to have the same sparse_dim, but got {} and {}", op,
              s.sparse_dim(), sd);
  const std::vector<int64_t> have = linear_indices(s.indices(), sizes);  // ascending (coalesced)
  const int64_t missing = s.nnz();                                       // the zero row appended below
  for (size_t k = 0; k < lin.size(); ++k) {
    const auto it = std::lower_bound(have.begin(), have.end(), lin[k]);
    pp[k] = it != have.end() && *it == lin[k] ? it - have.begin() : missing;
  }
  std::vector<int64_t> zsize(s.values().sizes().begin(), s.values().sizes().end());
  zsize[0] = 1;
  const Tensor padded = cat({s.values(), zeros(zsize, TensorOptions().dtype(self.scalar_type()))}, 0);
  return index_select(padded, 0, pos);
}

}  // namespace ember::sparse

namespace ember::sparsecpu {

Tensor sparse_mask_sparse(const Tensor& self, const Tensor& mask) {
  const char* op = "sparse_mask";
  native::check_sparse_mask(op, self, mask);
  if (mask.layout() == kSparseCsr) return sparsecsrcpu::sparse_mask_sparse_csr(self, mask);
  // An uncoalesced mask stands for its pattern: its unique indices (as later LibTorch).
  const Tensor mc = coalesce_sparse(mask);
  const auto& m = sparse_coo_impl(mc, op);
  Tensor values = sparse::gather_at(self, m.indices(), mask.sizes(), op).contiguous();
  return make_sparse_coo(mask.sizes(), m.indices(), std::move(values), true);
}

}  // namespace ember::sparsecpu

namespace ember::sparsecsrcpu {

// Also reached with a COO mask when self is CSR (dispatch takes the CSR key).
Tensor sparse_mask_sparse_csr(const Tensor& self, const Tensor& mask) {
  const char* op = "sparse_mask";
  native::check_sparse_mask(op, self, mask);
  if (mask.layout() == kSparse) return sparsecpu::sparse_mask_sparse(self, mask);
  const auto& m = sparse_csr_impl(mask, op);
  // The mask's entries in CSR order, row-major: the order of its COO indices.
  const Tensor indices = stack({sparse::csr_rows(m), m.col_indices().to(kInt64)}, 0).contiguous();
  Tensor values = sparse::gather_at(self, indices, mask.sizes(), op).contiguous();
  return make_sparse_csr(mask.sizes(), m.crow_indices(), m.col_indices(), std::move(values));
}

}  // namespace ember::sparsecsrcpu
