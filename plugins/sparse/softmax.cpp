// softmax/log_softmax of a COO tensor over its specified entries only (the unspecified ones act
// as -inf, so the result has the input's pattern), as LibTorch's _sparse_softmax: along a sparse
// dimension, the entries sharing every other sparse index form one group per dense element;
// along a dense dimension, it is the dense softmax of the values. Computed in double (float16
// and bfloat16 included). The backward gathers the gradient at the output's pattern
// (gather_at) and sums it per group with index_put.
#include <cmath>
#include <map>

#include "../cpu/DtypeVisit.h"
#include "SparseUtil.h"
#include "ember/generated/SparseCPUFunctions.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

namespace {

template <class T>
void softmax_groups(const std::vector<std::vector<int64_t>>& groups, int64_t width, const T* in, T* out, bool log) {
  for (const auto& g : groups) {
    for (int64_t j = 0; j < width; ++j) {
      double mx = -INFINITY;
      for (int64_t k : g) mx = std::max(mx, static_cast<double>(in[k * width + j]));
      double sum = 0;
      for (int64_t k : g) sum += std::exp(static_cast<double>(in[k * width + j]) - mx);
      for (int64_t k : g) {
        const double x = static_cast<double>(in[k * width + j]) - mx;
        out[k * width + j] = static_cast<T>(log ? x - std::log(sum) : std::exp(x) / sum);
      }
    }
  }
}

// The groups along sparse dimension d of a coalesced COO tensor: entries whose linear index
// differs only in dimension d, in ascending order of that remainder.
std::vector<std::vector<int64_t>> groups_along(const SparseTensorImpl& s, IntArrayRef sizes, int64_t d) {
  const std::vector<int64_t> lin = linear_indices(s.indices(), sizes);
  const int64_t stride = sparse_strides(sizes, s.sparse_dim())[static_cast<size_t>(d)];
  const int64_t* ix = s.indices().data_ptr<int64_t>() + d * s.nnz();
  std::map<int64_t, std::vector<int64_t>> by_key;
  for (int64_t k = 0; k < s.nnz(); ++k) by_key[lin[static_cast<size_t>(k)] - ix[k] * stride].push_back(k);
  std::vector<std::vector<int64_t>> groups;
  groups.reserve(by_key.size());
  for (auto& [key, g] : by_key) groups.push_back(std::move(g));
  return groups;
}

Tensor sparse_softmax(const char* op, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  const int64_t d = native::check_sparse_softmax(op, self, dim, half_to_float);
  const Tensor c = sparsecpu::coalesce_sparse(self);
  const auto& s = sparse_coo_impl(c, op);
  const int64_t sd = s.sparse_dim();
  if (d >= sd) {
    Tensor v = log ? s.values().log_softmax(d - sd + 1) : s.values().softmax(d - sd + 1);
    return make_sparse_coo(self.sizes(), s.indices(), v.contiguous(), true);
  }
  const std::vector<std::vector<int64_t>> groups = groups_along(s, self.sizes(), d);
  const Tensor in = s.values().contiguous();
  Tensor out = empty(in.sizes(), TensorOptions().dtype(in.scalar_type()));
  const int64_t width = s.nnz() == 0 ? 0 : in.numel() / s.nnz();
  cpu::visit_dtype(in.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) softmax_groups<T>(groups, width, in.data_ptr<T>(), out.data_ptr<T>(), log);
  });
  return make_sparse_coo(self.sizes(), s.indices(), std::move(out), true);
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
    // Each entry's group id; the group sums gathered back per entry.
    const auto groups = groups_along(o, output.sizes(), d);
    Tensor gid = empty({o.nnz()}, TensorOptions().dtype(kInt64));
    int64_t* gp = gid.data_ptr<int64_t>();
    for (size_t i = 0; i < groups.size(); ++i)
      for (int64_t k : groups[i]) gp[k] = static_cast<int64_t>(i);
    std::vector<int64_t> gs(v.sizes().begin(), v.sizes().end());
    gs[0] = static_cast<int64_t>(groups.size());
    Tensor per_group = zeros(gs, TensorOptions().dtype(v.scalar_type()));
    if (o.nnz() > 0) index_put_(per_group, {gid}, summand, /*accumulate=*/true);
    sums = index_select(per_group, 0, gid);
  }
  Tensor values = log ? g.sub(v.exp().mul(sums)) : v.mul(g.sub(sums));
  return make_sparse_coo(output.sizes(), o.indices(), values.contiguous(), o.coalesced());
}

}  // namespace

}  // namespace ember::sparse

namespace ember::sparsecpu {

Tensor _sparse_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return sparse::sparse_softmax("_sparse_softmax", self, dim, half_to_float, false);
}

Tensor _sparse_log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return sparse::sparse_softmax("_sparse_log_softmax", self, dim, half_to_float, true);
}

Tensor _sparse_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor&) {
  return sparse::sparse_softmax_backward("_sparse_softmax_backward_data", grad_output, output, dim, false);
}

Tensor _sparse_log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor&) {
  return sparse::sparse_softmax_backward("_sparse_log_softmax_backward_data", grad_output, output, dim, true);
}

}  // namespace ember::sparsecpu
