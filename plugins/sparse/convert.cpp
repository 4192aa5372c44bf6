// Accessors, to_dense and coalesce of COO and CSR tensors. Index arithmetic runs over int64 in
// plain loops; values move through dense operators (index_put_ with accumulate sums duplicates),
// so every dtype the CPU backend supports works here.
#include <algorithm>
#include <numeric>

#include "SparseUtil.h"
#include "ember/generated/SparseCPUFunctions.h"
#include "ember/generated/SparseCsrCPUFunctions.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

std::vector<int64_t> sparse_strides(IntArrayRef sizes, int64_t sparse_dim) {
  std::vector<int64_t> st(static_cast<size_t>(sparse_dim), 1);
  for (int64_t d = sparse_dim - 2; d >= 0; --d)
    st[static_cast<size_t>(d)] = st[static_cast<size_t>(d) + 1] * sizes[static_cast<size_t>(d) + 1];
  return st;
}

std::vector<int64_t> linear_indices(const Tensor& indices, IntArrayRef sizes) {
  const int64_t sd = indices.size(0), nnz = indices.size(1);
  const std::vector<int64_t> st = sparse_strides(sizes, sd);
  std::vector<int64_t> lin(static_cast<size_t>(nnz), 0);
  const int64_t* p = indices.data_ptr<int64_t>();  // contiguous by construction
  for (int64_t d = 0; d < sd; ++d)
    for (int64_t k = 0; k < nnz; ++k) lin[static_cast<size_t>(k)] += p[d * nnz + k] * st[static_cast<size_t>(d)];
  return lin;
}

Tensor csr_rows(const SparseCsrTensorImpl& csr) {
  const Tensor crow = csr.crow_indices().to(kInt64).contiguous();
  const int64_t rows = crow.numel() - 1;
  Tensor out = empty({csr.nnz()}, TensorOptions().dtype(kInt64));
  const int64_t* r = crow.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < rows; ++i) std::fill(o + r[i], o + r[i + 1], i);
  return out;
}

namespace {

Tensor from_vector(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kInt64));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// Dense tensor of `sizes` with values[k] added at the linear sparse position lin[k].
Tensor scatter_dense(IntArrayRef sizes, int64_t sparse_dim, const Tensor& lin, const Tensor& values) {
  int64_t rows = 1;
  for (int64_t d = 0; d < sparse_dim; ++d) rows *= sizes[static_cast<size_t>(d)];
  std::vector<int64_t> flat{rows};
  flat.insert(flat.end(), sizes.begin() + sparse_dim, sizes.end());
  Tensor out = zeros(flat, TensorOptions().dtype(values.scalar_type()));
  if (values.size(0) > 0) index_put_(out, {lin}, values, /*accumulate=*/true);
  return out.reshape(sizes);
}

}  // namespace

}  // namespace ember::sparse

namespace ember::sparsecpu {

using sparse::from_vector;

Tensor sparse_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  const auto& s = sparse_coo_impl(self, "to_dense");
  const Tensor lin = sparse::from_vector(sparse::linear_indices(s.indices(), self.sizes()));
  return sparse::scatter_dense(self.sizes(), s.sparse_dim(), lin, s.values());
}

Tensor coalesce_sparse(const Tensor& self) {
  const auto& s = sparse_coo_impl(self, "coalesce");
  if (s.coalesced()) return self;
  const int64_t sd = s.sparse_dim(), nnz = s.nnz();
  const std::vector<int64_t> lin = sparse::linear_indices(s.indices(), self.sizes());
  std::vector<int64_t> perm(static_cast<size_t>(nnz));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](int64_t a, int64_t b) { return lin[static_cast<size_t>(a)] < lin[static_cast<size_t>(b)]; });
  // group[k]: the output slot of entry k; uniq: each slot's linear index, ascending.
  std::vector<int64_t> group(static_cast<size_t>(nnz)), uniq;
  for (int64_t j = 0; j < nnz; ++j) {
    const int64_t k = perm[static_cast<size_t>(j)];
    if (uniq.empty() || uniq.back() != lin[static_cast<size_t>(k)]) uniq.push_back(lin[static_cast<size_t>(k)]);
    group[static_cast<size_t>(k)] = static_cast<int64_t>(uniq.size()) - 1;
  }
  const int64_t n = static_cast<int64_t>(uniq.size());
  Tensor indices = empty({sd, n}, TensorOptions().dtype(kInt64));
  int64_t* ip = indices.data_ptr<int64_t>();
  const std::vector<int64_t> st = sparse::sparse_strides(self.sizes(), sd);
  for (int64_t j = 0; j < n; ++j) {
    int64_t rem = uniq[static_cast<size_t>(j)];
    for (int64_t d = 0; d < sd; ++d) {
      ip[d * n + j] = rem / st[static_cast<size_t>(d)];
      rem %= st[static_cast<size_t>(d)];
    }
  }
  const Tensor& v = s.values();
  std::vector<int64_t> vs(v.sizes().begin(), v.sizes().end());
  vs[0] = n;
  Tensor values = zeros(vs, TensorOptions().dtype(v.scalar_type()));
  if (nnz > 0) index_put_(values, {from_vector(group)}, v, /*accumulate=*/true);
  return make_sparse_coo(self.sizes(), std::move(indices), std::move(values), true);
}

EMBER_DEFINE_SPARSE_COO_MEMBER_KERNELS()

}  // namespace ember::sparsecpu

namespace ember::sparsecsrcpu {

Tensor sparse_csr_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  native::check_to_dense_dtype(dtype);
  const auto& c = sparse_csr_impl(self, "to_dense");
  const Tensor lin = sparse::csr_rows(c).mul(self.size(1)).add(c.col_indices().to(kInt64));
  return sparse::scatter_dense(self.sizes(), 2, lin, c.values());
}

EMBER_DEFINE_SPARSE_CSR_MEMBER_KERNELS()

}  // namespace ember::sparsecsrcpu
