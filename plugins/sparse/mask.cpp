// sparse_mask: the entries of self at a sparse mask's specified positions, a sparse tensor of the
// mask's (coalesced) pattern and layout. self may be strided (LibTorch 1.13) or COO (as later
// LibTorch): a COO self is coalesced and looked up by binary search (searchsorted), with zeros
// where it has no entry. This is how the sparse gradients gather a gradient at an input's pattern
// without densifying it.
#include "SparseUtil.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

Tensor gather_at(const Tensor& self, const Tensor& indices, IntArrayRef sizes, const char* op) {
  const int64_t sd = indices.size(0);
  const Tensor lin = linear_index(indices, sizes);
  if (self.layout() == kStrided) {
    std::vector<int64_t> flat{-1};
    flat.insert(flat.end(), sizes.begin() + sd, sizes.end());
    return index_select(self.reshape(flat), 0, lin);
  }
  const Tensor c = coalesce_sparse(self.layout() == kSparseCsr ? self.to_sparse() : self);
  const auto& s = sparse_coo_impl(c, op);
  EMBER_CHECK(s.sparse_dim() == sd, "[{}] expected self and mask to have the same sparse_dim, but got {} and {}", op,
              s.sparse_dim(), sd);
  // Each position's row of self's values, or the zero row appended below (at nnz) where none is.
  std::vector<int64_t> zsize(s.values().sizes().begin(), s.values().sizes().end());
  zsize[0] = 1;
  const Tensor padded = cat({s.values(), zeros(zsize, s.values().options())}, 0);
  if (s.nnz() == 0) return index_select(padded, 0, zeros({lin.size(0)}, index_options(lin)));
  const Tensor have = linear_index(s.indices(), sizes);  // ascending (coalesced)
  const Tensor pos = searchsorted(have, lin).clamp_max(s.nnz() - 1);
  const Tensor found = have.index_select(0, pos).eq(lin);
  return index_select(padded, 0, pos.masked_fill(found.logical_not(), s.nnz()));
}

Tensor sparse_mask_sparse(const Tensor& self, const Tensor& mask) {
  const char* op = "sparse_mask";
  native::check_sparse_mask(op, self, mask);
  if (mask.layout() == kSparseCsr) return sparse_mask_sparse_csr(self, mask);
  // An uncoalesced mask stands for its pattern: its unique indices (as later LibTorch).
  const Tensor mc = coalesce_sparse(mask);
  const auto& m = sparse_coo_impl(mc, op);
  Tensor values = gather_at(self, m.indices(), mask.sizes(), op).contiguous();
  return make_sparse_coo(mask.sizes(), m.indices(), std::move(values), true);
}

// Also reached with a COO mask when self is CSR (dispatch takes the CSR key).
Tensor sparse_mask_sparse_csr(const Tensor& self, const Tensor& mask) {
  const char* op = "sparse_mask";
  native::check_sparse_mask(op, self, mask);
  if (mask.layout() == kSparse) return sparse_mask_sparse(self, mask);
  const auto& m = sparse_csr_impl(mask, op);
  // The mask's entries in CSR order, row-major: the order of its COO indices.
  const Tensor indices = stack({csr_rows(mask), m.col_indices().to(kInt64)}, 0);
  Tensor values = gather_at(self, indices, mask.sizes(), op).contiguous();
  return make_sparse_csr(mask.sizes(), m.crow_indices(), m.col_indices(), std::move(values));
}

}  // namespace ember::sparse
