// to_dense and coalesce of COO and CSR tensors, and the index helpers every kernel uses (Note
// [Sparse kernels on every device] in SparseUtil.h). Values move through dense operators
// (index_put_ with accumulate sums duplicates), so every dtype the device supports works here.
#include "SparseUtil.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

Tensor linear_index(const Tensor& indices, IntArrayRef sizes) {
  const int64_t sd = indices.size(0);
  if (sd == 0) return zeros({indices.size(1)}, index_options(indices));
  Tensor lin = indices.select(0, 0);
  for (int64_t d = 1; d < sd; ++d) lin = lin.mul(sizes[static_cast<size_t>(d)]).add(indices.select(0, d));
  return lin;
}

Tensor csr_rows(const Tensor& csr) { return csr.to_sparse()._indices().select(0, 0); }

namespace {

// Dense tensor of `sizes` with values[k] added at the linear sparse position lin[k].
Tensor scatter_dense(IntArrayRef sizes, int64_t sparse_dim, const Tensor& lin, const Tensor& values) {
  int64_t rows = 1;
  for (int64_t d = 0; d < sparse_dim; ++d) rows *= sizes[static_cast<size_t>(d)];
  std::vector<int64_t> flat{rows};
  flat.insert(flat.end(), sizes.begin() + sparse_dim, sizes.end());
  Tensor out = zeros(flat, values.options());
  if (values.size(0) > 0) index_put_(out, {lin}, values, /*accumulate=*/true);
  return out.reshape(sizes);
}

}  // namespace

Tensor sparse_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  const auto& s = sparse_coo_impl(self, "to_dense");
  return scatter_dense(self.sizes(), s.sparse_dim(), linear_index(s.indices(), self.sizes()), s.values());
}

Tensor sparse_csr_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  const auto& c = sparse_csr_impl(self, "to_dense");
  const Tensor lin = csr_rows(self).mul(self.size(1)).add(c.col_indices().to(kInt64));
  return scatter_dense(self.sizes(), 2, lin, c.values());
}

Tensor coalesce_sorted(IntArrayRef sizes, int64_t sparse_dim, const Tensor& lin, const Tensor& values) {
  const auto [uniq, slot, counts] = unique_consecutive(lin, /*return_inverse=*/true);
  const int64_t n = uniq.size(0);
  std::vector<int64_t> vs(values.sizes().begin(), values.sizes().end());
  vs[0] = n;
  Tensor summed = zeros(vs, values.options());
  index_put_(summed, {slot}, values, /*accumulate=*/true);
  // The indices back from the linear ones, last dimension first.
  std::vector<Tensor> rows(static_cast<size_t>(sparse_dim));
  Tensor rem = uniq;
  for (int64_t d = sparse_dim - 1; d >= 0; --d) {
    rows[static_cast<size_t>(d)] = rem.remainder(sizes[static_cast<size_t>(d)]);
    rem = rem.div(sizes[static_cast<size_t>(d)], "trunc");  // non-negative: truncation is floor
  }
  Tensor indices = sparse_dim == 0 ? empty({0, n}, index_options(values)) : stack(rows, 0);
  return make_sparse_coo(sizes, std::move(indices), std::move(summed), true);
}

// A stable sort of the linear indices, so duplicates are summed in the input's order.
Tensor coalesce_sparse(const Tensor& self) {
  const auto& s = sparse_coo_impl(self, "coalesce");
  if (s.coalesced()) return self;
  if (s.nnz() < 2) return make_sparse_coo(self.sizes(), s.indices().clone(), s.values().clone(), true);
  const auto [sorted, perm] = linear_index(s.indices(), self.sizes()).sort(/*stable=*/true, 0, false);
  return coalesce_sorted(self.sizes(), s.sparse_dim(), sorted, s.values().index_select(0, perm));
}

}  // namespace ember::sparse
