// Sorting along one dimension: sort, argsort, topk.
//
// Note [CPU sort order]
// ~~~~~~~~~~~~~~~~~~~~~
// Lines along `dim` come from the row machinery (Note [CPU row reductions], reduce2.cpp): the
// input viewed with `dim` last, copied only when that view is not contiguous. Each row is sorted
// as (key, index) pairs under one strict total order: keys compare in their own type (float16
// and bfloat16 through float), NaN is greater than every number (last ascending, first
// descending, as PyTorch), and equal keys go by index. So every sort is stable (sort.stable's
// flag changes nothing) and topk's ties go to the lower index. topk selects with a heap
// (std::partial_sort) when k is small next to the row, else with nth_element, sorting the k
// selected only when `sorted`. Values are copied from the input by index, so -0.0 and NaN
// payloads survive.
#include <algorithm>
#include <utility>
#include <vector>

#include "Loops.h"
#include "Ops.h"
#include "Reduce.h"

namespace ember::cpu {
namespace {

// Whether key a goes strictly before key b.
template <bool Desc, class C>
EMBER_ALWAYS_INLINE bool key_before(C a, C b) {
  if constexpr (Desc) return is_nan(a) ? !is_nan(b) : a > b;
  else return is_nan(b) ? !is_nan(a) : a < b;
}

template <bool Desc, class C>
struct PairBefore {
  bool operator()(const std::pair<C, int64_t>& a, const std::pair<C, int64_t>& b) const {
    if (key_before<Desc>(a.first, b.first)) return true;
    if (key_before<Desc>(b.first, a.first)) return false;
    return a.second < b.second;
  }
};

// The first k of every row of p (outer rows of len) in the order of Note [CPU sort order]: values
// into vo and indices into io, k per row.
template <bool Desc, class T>
void select_rows(const T* p, int64_t outer, int64_t len, int64_t k, bool sorted, T* vo, int64_t* io) {
  using C = CmpOf<T>;
  std::vector<std::pair<C, int64_t>> buf(static_cast<size_t>(len));
  const PairBefore<Desc, C> before;
  for (int64_t r = 0; r < outer; ++r) {
    const T* row = p + r * len;
    for (int64_t i = 0; i < len; ++i) buf[i] = {convert<C>(row[i]), i};
    const auto first = buf.begin(), kth = buf.begin() + k, last = buf.end();
    if (k == len) {
      std::sort(first, last, before);
    } else if (k * 16 <= len) {
      std::partial_sort(first, kth, last, before);
    } else if (k > 0) {
      std::nth_element(first, kth, last, before);
      if (sorted) std::sort(first, kth, before);
    }
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = buf[i].second;
      vo[r * k + i] = row[j];
      io[r * k + i] = j;
    }
  }
}

// The first k elements along dim (all of them when k is nullopt), in the order of Note [CPU sort
// order]: (values, indices), contiguous, of self's shape with k along dim.
std::tuple<Tensor, Tensor> sorted_along(const Tensor& self, int64_t dim, bool desc, std::optional<int64_t> k,
                                        bool sorted, const char* op) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  const int64_t len = self.dim() > 0 ? self.size(w) : 1;
  const int64_t kk = k.value_or(len);
  EMBER_CHECK_INDEX(kk >= 0 && kk <= len,
                    "[{}] argument 'k': selected index k out of range (expected 0 <= k <= {}, the size of dim "
                    "{}, got {})",
                    op, len, w, kk);
  Rows r = prepare(self, one_dim(w), true, op, false);
  DimVector shape(self.sizes());
  if (self.dim() > 0) shape[w] = kk;
  Tensor values = empty_cpu(shape, self.dtype());
  Tensor indices = empty_cpu(shape, kInt64);
  // Results are computed with dim last; when dim is not last they go through a permuted view.
  const bool last = self.dim() == 0 || w == self.dim() - 1;
  Tensor vview = dim_last_view(values, w), iview = dim_last_view(indices, w);
  Tensor vt = last ? values : empty_cpu(vview.sizes(), self.dtype());
  Tensor it = last ? indices : empty_cpu(iview.sizes(), kInt64);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    T* vo = static_cast<T*>(vt.data_ptr());
    auto* io = static_cast<int64_t*>(it.data_ptr());
    if (desc) select_rows<true>(p, r.outer, r.len, kk, sorted, vo, io);
    else select_rows<false>(p, r.outer, r.len, kk, sorted, vo, io);
  });
  if (!last) {
    cpu::copy_(vview, vt, false);
    cpu::copy_(iview, it, false);
  }
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> sorted_out(const std::tuple<Tensor, Tensor>& r, Tensor& values, Tensor& indices,
                                        const char* op) {
  write_out(values, std::get<0>(r), op);
  write_out(indices, std::get<1>(r), op);
  return {values, indices};
}

void check_sorted_outs(const Tensor& self, const Tensor& values, const Tensor& indices, const char* op) {
  check_defined(op, self, "self");
  check_out(op, values, self.dtype(), "values");
  check_out(op, indices, kInt64, "indices");
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sorted_along(self, dim, descending, std::nullopt, true, "sort");
}
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, std::optional<bool> /*stable: always*/, int64_t dim,
                                       bool descending) {
  return sorted_along(self, dim, descending, std::nullopt, true, "sort");
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(sorted_along(self, dim, descending, std::nullopt, true, "argsort"));
}
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  return sorted_along(self, dim, largest, k, sorted, "topk");
}


std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool descending, Tensor& values,
                                         Tensor& indices) {
  check_sorted_outs(self, values, indices, "sort");
  return sorted_out(sorted_along(self, dim, descending, std::nullopt, true, "sort"), values, indices, "sort");
}
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                                         Tensor& values, Tensor& indices) {
  check_sorted_outs(self, values, indices, "topk");
  return sorted_out(sorted_along(self, dim, largest, k, sorted, "topk"), values, indices, "topk");
}

}  // namespace ember::cpu
