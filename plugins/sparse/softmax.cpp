// softmax/log_softmax of a COO tensor over its specified entries only (the unspecified ones act
// as -inf, so the result has the input's pattern), as LibTorch's _sparse_softmax: along a sparse
// dimension, the entries sharing every other sparse index form one group per dense element;
// along a dense dimension, it is the dense softmax of the values.
#include <cmath>
#include <map>

#include "Dtype.h"
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

Tensor sparse_softmax(const char* op, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  const int64_t d = native::check_sparse_softmax(op, self, dim, half_to_float);
  const Tensor c = sparsecpu::coalesce_sparse(self);
  const auto& s = sparse_coo_impl(c, op);
  const int64_t sd = s.sparse_dim();
  if (d >= sd) {
    Tensor v = log ? s.values().log_softmax(d - sd + 1) : s.values().softmax(d - sd + 1);
    return make_sparse_coo(self.sizes(), s.indices(), v.contiguous(), true);
  }
  // Group the entries by their linear index with dimension d's contribution removed.
  const std::vector<int64_t> lin = linear_indices(s.indices(), self.sizes());
  const int64_t stride = sparse_strides(self.sizes(), sd)[static_cast<size_t>(d)];
  const int64_t* ix = s.indices().data_ptr<int64_t>() + d * s.nnz();
  std::map<int64_t, std::vector<int64_t>> by_key;
  for (int64_t k = 0; k < s.nnz(); ++k) by_key[lin[static_cast<size_t>(k)] - ix[k] * stride].push_back(k);
  std::vector<std::vector<int64_t>> groups;
  groups.reserve(by_key.size());
  for (auto& [key, g] : by_key) groups.push_back(std::move(g));
  const Tensor in = s.values().contiguous();
  Tensor out = empty(in.sizes(), TensorOptions().dtype(in.scalar_type()));
  const int64_t width = s.nnz() == 0 ? 0 : in.numel() / s.nnz();
  visit_numeric(in.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>)
      softmax_groups<T>(groups, width, in.data_ptr<T>(), out.data_ptr<T>(), log);
  });
  return make_sparse_coo(self.sizes(), s.indices(), std::move(out), true);
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

}  // namespace ember::sparsecpu
