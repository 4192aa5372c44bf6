// Sorting along one dimension: sort, argsort, topk.
//
// Note [CPU sort order]
// ~~~~~~~~~~~~~~~~~~~~~
// Lines along `dim` come from the row machinery (Note [CPU row reductions], reduction.cpp): the
// input viewed with `dim` last, copied only when that view is not contiguous. Each row is sorted
// as (key, index) pairs under one strict total order: keys compare in their own type (float16
// and bfloat16 through float), NaN is greater than every number (last ascending, first
// descending, as PyTorch), and equal keys go by index. So every sort is stable (sort.stable's
// flag changes nothing) and topk's ties go to the lower index. topk selects with a heap of the
// best k, fed one element at a time, when k is small next to the row, else with nth_element,
// sorting the k selected only when `sorted`. A full sort of a long row (>= kRadixMin) of a type compared in 32
// bits or fewer (all but int64 and double) is a stable LSD radix sort on an unsigned key with the
// same order (order_key: NaN largest, -0.0 equal to 0.0; complemented for descending), so it
// gives exactly the comparison sort's result. Values are copied from the input by index, so
// -0.0 and NaN payloads survive.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "CPUKernels.h"
#include "Loops.h"
#include "Reduce.h"
#include "ember/native/Rules.h"

namespace ember::cpu {
namespace {

// Whether key a goes strictly before key b.
template <bool Desc, class C>
EMBER_ALWAYS_INLINE bool key_before(C a, C b) {
  if constexpr (Desc)
    return is_nan(a) ? !is_nan(b) : a > b;
  else
    return is_nan(b) ? !is_nan(a) : a < b;
}

template <bool Desc, class C>
struct PairBefore {
  bool operator()(const std::pair<C, int64_t>& a, const std::pair<C, int64_t>& b) const {
    if (key_before<Desc>(a.first, b.first)) return true;
    if (key_before<Desc>(b.first, a.first)) return false;
    return a.second < b.second;
  }
};

// Types whose comparison fits an unsigned 32-bit key (all but int64 and double).
template <class T>
constexpr bool kHasKey32 = sizeof(CmpOf<T>) <= 4;

// The key of v whose unsigned order is the ascending order of Note [CPU sort order]: NaN above
// everything, -0.0 equal to 0.0.
template <class T>
EMBER_ALWAYS_INLINE uint32_t order_key(T v) {
  if constexpr (std::is_same_v<CmpOf<T>, float>) {
    const float f = convert<float>(v);
    if (f != f) return UINT32_MAX;
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    if (u == 0x80000000u) u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  } else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return static_cast<uint32_t>(v);
  } else {
    return static_cast<uint32_t>(static_cast<int32_t>(v)) ^ 0x80000000u;
  }
}

// Stable LSD radix sort of (key, index) pairs by key, 8 bits a pass; a pass whose digit is the
// same for every key is skipped. Stability keeps equal keys in index order. The result is in
// (key, idx); (key2, idx2) is scratch of the same size.
void radix_sort(uint32_t* key, int64_t* idx, uint32_t* key2, int64_t* idx2, int64_t n) {
  bool in_scratch = false;
  for (int shift = 0; shift < 32; shift += 8) {
    int64_t count[257] = {};
    for (int64_t i = 0; i < n; ++i) ++count[((key[i] >> shift) & 255) + 1];
    if (std::find(count + 1, count + 257, n) != count + 257) continue;
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t to = count[(key[i] >> shift) & 255]++;
      key2[to] = key[i];
      idx2[to] = idx[i];
    }
    std::swap(key, key2);
    std::swap(idx, idx2);
    in_scratch = !in_scratch;
  }
  if (in_scratch) {
    std::copy(key, key + n, key2);
    std::copy(idx, idx + n, idx2);
  }
}

// Rows at least this long are fully sorted by radix (for types with a 32-bit key).
constexpr int64_t kRadixMin = 256;

// Every row of p sorted by radix on order_key (complemented for descending).
template <bool Desc, class T>
void radix_rows(const T* p, int64_t outer, int64_t len, T* vo, int64_t* io) {
  std::vector<uint32_t> keys(static_cast<size_t>(2 * len));
  std::vector<int64_t> idx(static_cast<size_t>(2 * len));
  for (int64_t r = 0; r < outer; ++r) {
    const T* row = p + r * len;
    for (int64_t i = 0; i < len; ++i) {
      keys[i] = Desc ? ~order_key(row[i]) : order_key(row[i]);
      idx[i] = i;
    }
    radix_sort(keys.data(), idx.data(), keys.data() + len, idx.data() + len, len);
    for (int64_t i = 0; i < len; ++i) {
      vo[r * len + i] = row[idx[i]];
      io[r * len + i] = idx[i];
    }
  }
}

// The first k of every row of p (outer rows of len) in the order of Note [CPU sort order]: values
// into vo and indices into io, k per row.
template <bool Desc, class T>
void select_rows(const T* p, int64_t outer, int64_t len, int64_t k, bool sorted, T* vo, int64_t* io) {
  if constexpr (kHasKey32<T>) {
    if (k == len && len >= kRadixMin) return radix_rows<Desc>(p, outer, len, vo, io);
  }
  using C = CmpOf<T>;
  const PairBefore<Desc, C> before;
  const bool small_k = k > 0 && k * 16 <= len;
  std::vector<std::pair<C, int64_t>> buf(static_cast<size_t>(small_k ? k : len));
  for (int64_t r = 0; r < outer; ++r) {
    const T* row = p + r * len;
    const auto first = buf.begin(), kth = buf.begin() + k, last = buf.end();  // last == kth for small k
    if (small_k) {
      // A heap of the best k so far, the worst on top: most elements are rejected by one
      // comparison with it. A later index never beats an equal key, so ties keep the lower index.
      for (int64_t i = 0; i < k; ++i) buf[i] = {convert<C>(row[i]), i};
      std::make_heap(first, kth, before);
      for (int64_t i = k; i < len; ++i) {
        const C v = convert<C>(row[i]);
        if (!key_before<Desc>(v, buf[0].first)) continue;
        std::pop_heap(first, kth, before);
        buf[k - 1] = {v, i};
        std::push_heap(first, kth, before);
      }
      std::sort_heap(first, kth, before);
    } else {
      for (int64_t i = 0; i < len; ++i) buf[i] = {convert<C>(row[i]), i};
      if (k == len) {
        std::sort(first, last, before);
      } else if (k > 0) {
        std::nth_element(first, kth, last, before);
        if (sorted) std::sort(first, kth, before);
      }
    }
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = buf[i].second;
      vo[r * k + i] = row[j];
      io[r * k + i] = j;
    }
  }
}

// The first k elements along dim (all of them when k is nullopt), in the order of Note [CPU sort
// order]: (values, indices) of self's shape with k along dim (into the out= arguments ov, oi when
// given: Note [CPU out= results]).
std::tuple<Tensor, Tensor> sorted_along(const Tensor& self, int64_t dim, bool desc, std::optional<int64_t> k,
                                        bool sorted, const char* op, const OutArg* ov = nullptr,
                                        const OutArg* oi = nullptr) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  const native::SortShape ss = native::sort_shape(op, self, dim, k);
  const int64_t w = ss.dim, kk = ss.k;
  const DimVector& shape = ss.sizes;
  Rows r = prepare(self, one_dim(w), true, op, false);
  // The results' layout (native::sort_strides): a resized out= takes it too.
  const DimVector st = native::sort_strides(self, k);
  auto result = [&](const OutArg* o, ScalarType dt) {
    if (st.empty()) return result_tensor(o, shape, dt);
    if (!o || !o->out) return empty_strided_cpu(shape, st, dt);
    native::resize_sort_out(*o->out, shape, st, op);
    return result_tensor(o, shape, dt);  // out itself when contiguous, else written back by the caller
  };
  Tensor values = result(ov, self.dtype());
  Tensor indices = result(oi, kInt64);
  // Results are computed with dim last into contiguous rows; otherwise through a permuted view.
  const bool last = (self.dim() == 0 || w == self.dim() - 1) && values.is_contiguous() && indices.is_contiguous();
  Tensor vview = dim_last_view(values, w), iview = dim_last_view(indices, w);
  Tensor vt = last ? values : empty_cpu(vview.sizes(), self.dtype());
  Tensor it = last ? indices : empty_cpu(iview.sizes(), kInt64);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    T* vo = static_cast<T*>(vt.data_ptr());
    auto* io = static_cast<int64_t*>(it.data_ptr());
    // A 0-dim input keeps its shape and its value for k = 0 too (LibTorch's topk copies it).
    const int64_t kw = self.dim() == 0 ? 1 : kk;
    if (desc)
      select_rows<true>(p, r.outer, r.len, kw, sorted, vo, io);
    else
      select_rows<false>(p, r.outer, r.len, kw, sorted, vo, io);
  });
  if (!last) {
    cpu::copy_(vview, vt, false);
    cpu::copy_(iview, it, false);
  }
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> sorted_out(const Tensor& self, int64_t dim, bool desc, std::optional<int64_t> k,
                                        bool sorted, Tensor& values, Tensor& indices, const char* op) {
  check_defined(op, self, "self");
  check_out(op, values, self.dtype(), "values");
  check_out(op, indices, kInt64, "indices");
  const OutArg ov{&values, &self, op}, oi{&indices, &self, op};
  const auto r = sorted_along(self, dim, desc, k, sorted, op, &ov, &oi);
  write_out(values, std::get<0>(r), op);
  write_out(indices, std::get<1>(r), op);
  return {values, indices};
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
  return sorted_out(self, dim, descending, std::nullopt, true, values, indices, "sort");
}
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                                         Tensor& values, Tensor& indices) {
  return sorted_out(self, dim, largest, k, sorted, values, indices, "topk");
}

}  // namespace ember::cpu
