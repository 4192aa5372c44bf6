// softmax/log_softmax of a COO tensor over its specified entries only (the unspecified ones act
// as -inf, so the result has the input's pattern), as LibTorch's _sparse_softmax: along a sparse
// dimension, the entries sharing every other sparse index form one group per dense element;
// along a dense dimension, it is the dense softmax of the values. A group's max and sum are
// scatter_reduce and index_add over group ids, computed as LibTorch's accumulate type: double on
// the cpu, float (double for float64) on a GPU. The backward gathers the gradient at the output's
// pattern (gather_at) and sums it per group.
#include <cmath>

#include "SparseUtil.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

namespace {

// Each entry's group along sparse dimension d: entries whose indices differ only in dimension d
// share one. Returns the ids (int64, 0..groups-1) and sets `groups`.
Tensor group_ids(const SparseTensorImpl& s, IntArrayRef sizes, int64_t d, int64_t& groups) {
  int64_t stride = 1;
  for (int64_t k = d + 1; k < s.sparse_dim(); ++k) stride *= sizes[static_cast<size_t>(k)];
  const Tensor key = linear_index(s.indices(), sizes).sub(s.indices().select(0, d).mul(stride));
  const auto [uniq, ids, counts] = _unique2(key, /*sorted=*/true, /*return_inverse=*/true);
  groups = uniq.size(0);
  return ids;
}

// Per-group sums of x ([nnz, dense...]) gathered back per entry.
Tensor group_sums(const Tensor& x, const Tensor& ids, int64_t groups) {
  std::vector<int64_t> gs(x.sizes().begin(), x.sizes().end());
  gs[0] = groups;
  Tensor per_group = zeros(gs, x.options());
  index_put_(per_group, {ids}, x, /*accumulate=*/true);
  return per_group.index_select(0, ids);
}

Tensor sparse_softmax(const char* op, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  const int64_t d = native::check_sparse_softmax(op, self, dim, half_to_float);
  const Tensor c = coalesce_sparse(self);
  const auto& s = sparse_coo_impl(c, op);
  const int64_t sd = s.sparse_dim();
  if (d >= sd) {
    Tensor v = log ? s.values().log_softmax(d - sd + 1) : s.values().softmax(d - sd + 1);
    return make_sparse_coo(self.sizes(), s.indices(), v.contiguous(), true);
  }
  if (s.nnz() == 0) return make_sparse_coo(self.sizes(), s.indices(), s.values().clone(), true);
  int64_t groups = 0;
  const Tensor ids = group_ids(s, self.sizes(), d, groups);
  const ScalarType dt = s.values().scalar_type();
  const Tensor x = s.values().to(self.is_cpu() || dt == kFloat64 ? kFloat64 : kFloat32);
  std::vector<int64_t> gs(x.sizes().begin(), x.sizes().end()), each(x.dim(), 1);
  gs[0] = groups;
  each[0] = s.nnz();
  const Tensor spread = ids.reshape(each).expand(x.sizes()).contiguous();
  const Tensor mx = full(gs, -INFINITY, x.options()).scatter_reduce(0, spread, x, "amax");
  const Tensor shifted = x.sub(mx.index_select(0, ids));
  const Tensor e = shifted.exp();
  const Tensor sums = group_sums(e, ids, groups);
  Tensor out = log ? shifted.sub(sums.log()) : e.div(sums);
  return make_sparse_coo(self.sizes(), s.indices(), out.to(dt).contiguous(), true);
}

// softmax: out * (g - sum_group(g * out)); log_softmax: g - exp(out) * sum_group(g).
Tensor sparse_softmax_backward(const char* op, const Tensor& grad, const Tensor& output, int64_t dim, bool log) {
  const int64_t d = native::check_sparse_softmax_backward(op, grad, output, dim);
  const auto& o = sparse_coo_impl(output, op);
  const Tensor g = gather_at(grad, o.indices(), output.sizes(), op).to(output.scalar_type());
  const Tensor& v = o.values();
  const Tensor summand = log ? g : g.mul(v);
  Tensor sums;
  if (d >= o.sparse_dim()) {
    sums = summand.sum({d - o.sparse_dim() + 1}, /*keepdim=*/true);
  } else {
    int64_t groups = 0;
    const Tensor ids = group_ids(o, output.sizes(), d, groups);
    sums = group_sums(summand, ids, groups);
  }
  Tensor values = log ? g.sub(v.exp().mul(sums)) : v.mul(g.sub(sums));
  return make_sparse_coo(output.sizes(), o.indices(), values.contiguous(), o.coalesced());
}

}  // namespace

Tensor _sparse_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return sparse_softmax("_sparse_softmax", self, dim, half_to_float, false);
}

Tensor _sparse_log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return sparse_softmax("_sparse_log_softmax", self, dim, half_to_float, true);
}

Tensor _sparse_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor&) {
  return sparse_softmax_backward("_sparse_softmax_backward_data", grad_output, output, dim, false);
}

Tensor _sparse_log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor&) {
  return sparse_softmax_backward("_sparse_log_softmax_backward_data", grad_output, output, dim, true);
}

}  // namespace ember::sparse
