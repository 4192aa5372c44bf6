// Order statistics (kthvalue, median, nanmedian, mode), unique (_unique2, unique_dim,
// unique_consecutive), searchsorted/bucketize and the vector products dot and mv on the CPU.
// Checks and shapes are shared with the meta plugin (ember/native/OrderRules.h).
//
// Note [CPU order statistics]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The order statistics work on lines along `dim` (copied contiguous), ordering (value, index)
// pairs with NaN above every number: the k-th pair of that strict order is the k-th element of a
// stable sort, so kthvalue and median give LibTorch's indices on ties (the later of equal values
// that straddle k). median and median.dim return NaN (the first one's index) when a line has one;
// nanmedian leaves NaNs out (NaN only when a line has nothing else). mode takes the most frequent
// value, the smallest on ties, with the index of its last occurrence; NaNs never equal each other.
// unique sorts always (sorted=False too: LibTorch 1.13's unsorted order is its hash set's) with
// -0 equal to 0 and every NaN distinct. Values compare in their own type (float16 and bfloat16
// through float).
#include <cblas.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "CPUKernels.h"
#include "Loops.h"
#include "NN.h"
#include "Reduce.h"
#include "ember/native/OrderRules.h"

namespace ember::cpu {
namespace {

namespace order = native::order;

// The strict order of Note [CPU order statistics] on (value, index) pairs.
template <class C>
struct PairLess {
  bool operator()(const std::pair<C, int64_t>& a, const std::pair<C, int64_t>& b) const {
    const bool na = is_nan(a.first), nb = is_nan(b.first);
    if (na || nb) return na == nb ? a.second < b.second : nb;
    if (a.first < b.first) return true;
    if (b.first < a.first) return false;
    return a.second < b.second;
  }
};

// t with dimension w last, contiguous (t itself when it already is).
Tensor lines_along(const Tensor& t, int64_t w) {
  if (t.dim() == 0) return t.is_contiguous() ? t : materialize(t);
  const Tensor v = dim_last_view(t, w);
  return v.is_contiguous() ? v : materialize(v);
}

// pick(row, n, buf, value, index) over every line of self along p.dim: the (values, indices)
// of p.shape.
template <class F>
std::tuple<Tensor, Tensor> pick_along(const char* op, const Tensor& self, const order::Pick& p, const F& pick) {
  check_cpu(op, self);
  const Tensor v = lines_along(self, p.dim);
  const int64_t len = self.dim() == 0 ? 1 : self.size(p.dim);
  const int64_t rows = len == 0 ? 0 : self.numel() / len;
  Tensor values = empty_cpu(p.shape, self.dtype()), indices = empty_cpu(p.shape, kInt64);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = CmpOf<T>;
    const T* x = static_cast<const T*>(v.data_ptr());
    T* vo = static_cast<T*>(values.data_ptr());
    int64_t* io = indices.data_ptr<int64_t>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
      std::vector<std::pair<C, int64_t>> buf;
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * len;
        buf.resize(static_cast<size_t>(len));
        for (int64_t k = 0; k < len; ++k) buf[static_cast<size_t>(k)] = {static_cast<C>(row[k]), k};
        int64_t idx = 0;
        pick(buf, idx);
        io[i] = idx;
        vo[i] = row[idx];
      }
    });
  });
  return {values, indices};
}

// The pair at position k of the order (k < buf.size()).
template <class C>
const std::pair<C, int64_t>& nth(std::vector<std::pair<C, int64_t>>& buf, size_t k) {
  std::nth_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(k), buf.end(), PairLess<C>());
  return buf[k];
}

// median's pick (Note [CPU order statistics]).
template <bool IgnoreNan>
auto median_pick() {
  return [](auto& buf, int64_t& idx) {
    using C = typename std::decay_t<decltype(buf)>::value_type::first_type;
    if (!IgnoreNan) {
      for (const auto& e : buf)
        if (is_nan(e.first)) {
          idx = e.second;
          return;
        }
    } else {
      buf.erase(std::remove_if(buf.begin(), buf.end(), [](const auto& e) { return is_nan(e.first); }), buf.end());
      if (buf.empty()) {  // every element NaN: the first
        idx = 0;
        return;
      }
    }
    idx = nth<C>(buf, (buf.size() - 1) / 2).second;
  };
}

template <bool IgnoreNan>
std::tuple<Tensor, Tensor> median_dim_impl(const char* op, const Tensor& self, int64_t dim, bool keepdim) {
  const order::Pick p = order::check_pick(op, self, dim, keepdim, false);
  return pick_along(op, self, p, median_pick<IgnoreNan>());
}

template <bool IgnoreNan>
Tensor median_all_impl(const char* op, const Tensor& self) {
  order::check_median_all(op, self);
  check_cpu(op, self);
  if (self.numel() == 0) {
    EMBER_CHECK_INDEX(self.is_floating_point(), "[{}] cannot compute the median of an empty {} tensor", op,
                      self.dtype());
    Tensor r = empty_cpu({}, self.dtype());
    cpu::fill_(r, Scalar(std::numeric_limits<double>::quiet_NaN()));
    return r;
  }
  const Tensor flat = make_view(self.is_contiguous() ? self : materialize(self), {self.numel()}, {1},
                                self.is_contiguous() ? self.storage_offset() : 0);
  const order::Pick p{0, {}};
  return std::get<0>(pick_along(op, flat, p, median_pick<IgnoreNan>()));
}

}  // namespace

// ---- order statistics ------------------------------------------------------------------------

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const order::Pick p = order::check_kthvalue(self, k, dim, keepdim);
  return pick_along("kthvalue", self, p, [k](auto& buf, int64_t& idx) {
    using C = typename std::decay_t<decltype(buf)>::value_type::first_type;
    idx = nth<C>(buf, static_cast<size_t>(k - 1)).second;
  });
}

Tensor median(const Tensor& self) { return median_all_impl<false>("median", self); }
Tensor nanmedian(const Tensor& self) { return median_all_impl<true>("nanmedian", self); }
std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim_impl<false>("median", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> nanmedian_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim_impl<true>("nanmedian", self, dim, keepdim);
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  const order::Pick p = order::check_pick("mode", self, dim, keepdim, true);
  return pick_along("mode", self, p, [](auto& buf, int64_t& idx) {
    using C = typename std::decay_t<decltype(buf)>::value_type::first_type;
    std::sort(buf.begin(), buf.end(), PairLess<C>());
    size_t best = 0;
    for (size_t i = 0; i < buf.size();) {
      size_t j = i + 1;
      while (j < buf.size() && buf[j].first == buf[i].first) ++j;  // NaN != NaN: runs of one
      if (j - i > best) {
        best = j - i;
        idx = buf[j - 1].second;
      }
      i = j;
    }
  });
}

// ---- unique ----------------------------------------------------------------------------------

namespace {

Tensor int64_from(const std::vector<int64_t>& v, IntArrayRef sizes) {
  Tensor t = empty_cpu(sizes, kInt64);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// unique over the flattened self (sorted: sorted unique values; else consecutive runs).
std::tuple<Tensor, Tensor, Tensor> unique_flat(const char* op, const Tensor& self, bool sort, bool return_inverse,
                                               bool return_counts) {
  order::check_unique(op, self);
  check_cpu(op, self);
  const Tensor c = self.is_contiguous() ? self : materialize(self);
  const int64_t n = self.numel();
  Tensor values, inverse, counts;
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(c.data_ptr());
    using C = CmpOf<T>;
    std::vector<int64_t> inv(static_cast<size_t>(n)), cnt;  // each element's run; each run's length
    if (sort) {
      // Sorted: the values alone sorted and deduplicated, then each element's run found by binary
      // search (no index array to carry through the sort). NaNs last, each its own run in index order.
      auto less = [](C a, C b) { return is_nan(a) || is_nan(b) ? !is_nan(a) && is_nan(b) : a < b; };
      std::vector<C> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<C>(x[i]);
      std::sort(v.begin(), v.end(), less);
      int64_t nn = n;
      while (nn > 0 && is_nan(v[static_cast<size_t>(nn - 1)])) --nn;
      const int64_t k0 = std::unique(v.begin(), v.begin() + nn) - v.begin(), k = k0 + (n - nn);
      values = empty_cpu({k}, self.dtype());
      T* vo = static_cast<T*>(values.data_ptr());
      for (int64_t j = 0; j < k0; ++j) vo[j] = static_cast<T>(v[static_cast<size_t>(j)]);
      cnt.assign(static_cast<size_t>(k), 0);
      int64_t next_nan = k0;
      for (int64_t i = 0; i < n; ++i) {
        const C xi = static_cast<C>(x[i]);
        int64_t j;
        if (is_nan(xi)) {
          j = next_nan++;
          vo[j] = x[i];
        } else {
          j = std::lower_bound(v.begin(), v.begin() + k0, xi, less) - v.begin();
        }
        inv[static_cast<size_t>(i)] = j;
        ++cnt[static_cast<size_t>(j)];
      }
    } else {
      // Consecutive runs: a new one wherever the value changes (each NaN its own).
      std::vector<int64_t> starts;
      for (int64_t i = 0; i < n; ++i) {
        if (i == 0 || !(static_cast<C>(x[i - 1]) == static_cast<C>(x[i]))) starts.push_back(i);
        inv[static_cast<size_t>(i)] = static_cast<int64_t>(starts.size()) - 1;
      }
      const int64_t k = static_cast<int64_t>(starts.size());
      values = empty_cpu({k}, self.dtype());
      T* vo = static_cast<T*>(values.data_ptr());
      cnt.resize(static_cast<size_t>(k));
      for (int64_t j = 0; j < k; ++j) {
        const int64_t s = starts[static_cast<size_t>(j)];
        vo[j] = x[s];
        cnt[static_cast<size_t>(j)] = (j + 1 < k ? starts[static_cast<size_t>(j + 1)] : n) - s;
      }
    }
    inverse = return_inverse ? int64_from(inv, self.sizes()) : empty_cpu({0}, kInt64);
    counts = return_counts ? int64_from(cnt, {values.numel()}) : empty_cpu({0}, kInt64);
  });
  return {values, inverse, counts};
}

// unique slices along dim (sorted lexicographically, or consecutive runs); inverse and counts
// always, as LibTorch's unique_dim.
std::tuple<Tensor, Tensor, Tensor> unique_slices(const char* op, const Tensor& self, int64_t dim, bool sort) {
  const int64_t w = order::check_unique_dim(op, self, dim);
  check_cpu(op, self);
  // self with w first, contiguous: n slices of `len` elements.
  DimVector sz, st;
  sz.push_back(self.size(w));
  st.push_back(self.stride(w));
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != w) {
      sz.push_back(self.size(d));
      st.push_back(self.stride(d));
    }
  const Tensor first = make_view(self, sz, st, self.storage_offset());
  const Tensor c = first.is_contiguous() ? first : materialize(first);
  const int64_t n = self.size(w), len = n == 0 ? 0 : self.numel() / n;
  Tensor values, inverse, counts;
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = CmpOf<T>;
    const T* x = static_cast<const T*>(c.data_ptr());
    auto cmp = [&](int64_t a, int64_t b) {  // -1, 0, 1 lexicographically
      for (int64_t k = 0; k < len; ++k) {
        const C va = static_cast<C>(x[a * len + k]), vb = static_cast<C>(x[b * len + k]);
        if (va < vb) return -1;
        if (vb < va) return 1;
      }
      return 0;
    };
    std::vector<int64_t> ord(static_cast<size_t>(n));
    std::iota(ord.begin(), ord.end(), int64_t{0});
    if (sort) std::stable_sort(ord.begin(), ord.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
    std::vector<int64_t> starts, inv(static_cast<size_t>(n)), cnt;
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || cmp(ord[static_cast<size_t>(i - 1)], ord[static_cast<size_t>(i)]) != 0) starts.push_back(i);
      inv[static_cast<size_t>(ord[static_cast<size_t>(i)])] = static_cast<int64_t>(starts.size()) - 1;
    }
    const int64_t k = static_cast<int64_t>(starts.size());
    for (int64_t j = 0; j < k; ++j)
      cnt.push_back((j + 1 < k ? starts[static_cast<size_t>(j + 1)] : n) - starts[static_cast<size_t>(j)]);
    // The unique slices, w first, then viewed in self's dim order (LibTorch's layout: its stack of
    // the slices moved back to dim w).
    DimVector tsz(sz);
    tsz[0] = k;
    Tensor tmp = empty_cpu(tsz, self.dtype());
    T* to = static_cast<T*>(tmp.data_ptr());
    for (int64_t j = 0; j < k; ++j) {
      const T* src = x + ord[static_cast<size_t>(starts[static_cast<size_t>(j)])] * len;
      std::copy(src, src + len, to + j * len);
    }
    DimVector osz, ost;
    for (int64_t d = 0, j = 1; d < self.dim(); ++d) {
      osz.push_back(d == w ? k : self.size(d));
      ost.push_back(d == w ? tmp.stride(0) : tmp.stride(j++));
    }
    values = make_view(tmp, osz, ost, 0);
    inverse = int64_from(inv, {n});
    counts = int64_from(cnt, {k});
  });
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  (void)sorted;  // always sorted (Note [CPU order statistics])
  return unique_flat("_unique2", self, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  (void)sorted, (void)return_inverse, (void)return_counts;  // LibTorch returns both anyway
  return unique_slices("unique_dim", self, dim, true);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  if (dim && self.dim() > 0) return unique_slices("unique_consecutive", self, *dim, false);
  return unique_flat("unique_consecutive", self, false, return_inverse, return_counts);
}

// ---- searchsorted, bucketize -----------------------------------------------------------------

namespace {

// Note [searchsorted comparisons]: LibTorch's binary searches, so NaN values go past the end:
// left: the first i with boundaries[i] >= v; right: the first with boundaries[i] > v.
Tensor search(const char* op, const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
              const std::optional<Tensor>& sorter) {
  check_cpu(op, boundaries, values);
  const ScalarType ct = promote_types(boundaries.dtype(), values.dtype());
  const Tensor b = nn::compute_input(boundaries, ct), v = nn::compute_input(values, ct);
  const int64_t M = boundaries.size(-1);
  const int64_t inner = values.dim() == 0 ? 1 : values.size(-1);
  const bool one_d = boundaries.dim() == 1;
  std::vector<int64_t> srt;
  if (sorter && sorter->defined()) {
    const Tensor s = nn::compute_input(*sorter, kInt64);
    srt.assign(s.data_ptr<int64_t>(), s.data_ptr<int64_t>() + s.numel());
    for (int64_t x : srt)
      EMBER_CHECK_INDEX(x >= 0 && x < M, "[{}] argument 'sorter': index {} is out of range for {} boundaries", op, x,
                        M);
  }
  Tensor out = empty_cpu(values.sizes(), out_int32 ? kInt32 : kInt64);
  const int64_t n = values.numel();
  visit_dtype(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = CmpOf<T>;
    const T* bp = static_cast<const T*>(b.data_ptr());
    const T* vp = static_cast<const T*>(v.data_ptr());
    int32_t* o32 = out_int32 ? out.data_ptr<int32_t>() : nullptr;
    int64_t* o64 = out_int32 ? nullptr : out.data_ptr<int64_t>();
    auto store = [&](int64_t i, int64_t pos) {
      if (o32)
        o32[i] = static_cast<int32_t>(pos);
      else
        o64[i] = pos;
    };
    // Ascending values against one sorted row (a merge of two sorted lists, the common case): each
    // search gallops forward from the previous result instead of halving all M boundaries. Only
    // where the boundaries are checked sorted (one pass, worth it for many values): on unsorted
    // ones the halving's answer is LibTorch's, which a gallop would not reproduce.
    bool sorted_row = one_d && srt.empty() && n >= 64 && 16 * n >= M;
    for (int64_t k = 1; sorted_row && k < M; ++k) sorted_row = static_cast<C>(bp[k - 1]) <= static_cast<C>(bp[k]);
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / 32), [&](int64_t i0, int64_t i1) {
      // Whether boundary m lies before val's place.
      auto passes = [right](C m, C val) { return right ? !(m > val) : !(m >= val); };
      bool ascending = sorted_row;
      for (int64_t i = i0 + 1; ascending && i < i1; ++i) ascending = static_cast<C>(vp[i - 1]) <= static_cast<C>(vp[i]);
      int64_t prev = 0;
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t row = one_d ? 0 : i / inner;
        const T* br = bp + row * M;
        const int64_t* sr = srt.empty() ? nullptr : srt.data() + row * M;
        const C val = static_cast<C>(vp[i]);
        int64_t lo = 0, len = M;
        if (ascending) {
          // Every boundary before prev passes; widen [lo, bound) until bound does not.
          lo = prev;
          int64_t bound = lo, step = 1;
          while (bound < M && passes(static_cast<C>(br[bound]), val)) {
            lo = bound + 1;
            bound = lo + step;
            step *= 2;
          }
          len = std::min(bound, M) - lo;
        }
        // Branch-free halving: the first boundary in [lo, lo + len) that val does not pass.
        while (len > 0) {
          const int64_t half = len / 2, mid = lo + half;
          const bool go_right = passes(static_cast<C>(br[sr ? sr[mid] : mid]), val);
          lo = go_right ? mid + 1 : lo;
          len = go_right ? len - half - 1 : half;
        }
        store(i, lo);
        prev = lo;
      }
    });
  });
  return out;
}

// A 0-d tensor of a Scalar value searched against boundaries: the boundaries' dtype, or the
// default dtype for a floating value among integer boundaries (LibTorch's wrapped-number rule).
Tensor scalar_values(const Scalar& s, const Tensor& boundaries) {
  const bool fl = s.isFloatingPoint() && !boundaries.is_floating_point();
  Tensor t = empty_cpu({}, fl ? get_default_dtype() : boundaries.dtype());
  cpu::fill_(t, s);
  return t;
}

}  // namespace

#include "ember/native/SearchEntryPoints.inc"

// ---- dot, mv ---------------------------------------------------------------------------------

namespace {

// A vector's data with a positive element stride for BLAS (a contiguous copy otherwise).
template <class T>
std::pair<const T*, int> blas_vector(const Tensor& t, Tensor& keep) {
  if (t.numel() <= 1 || t.stride(0) >= 1)
    return {static_cast<const T*>(t.data_ptr()), std::max<int>(1, static_cast<int>(t.stride(0)))};
  keep = materialize(t);
  return {static_cast<const T*>(keep.data_ptr()), 1};
}

Tensor dot_impl(const Tensor& self, const Tensor& other) {
  const char* op = "dot";
  order::check_dot(op, self, other);
  check_cpu(op, self, other);
  Tensor r = empty_cpu({}, self.dtype());
  const int64_t n = self.numel();
  if (self.dtype() == kFloat32 || self.dtype() == kFloat64) {
    Tensor k1, k2;
    if (self.dtype() == kFloat32) {
      const auto [a, ia] = blas_vector<float>(self, k1);
      const auto [b, ib] = blas_vector<float>(other, k2);
      r.data_ptr<float>()[0] = n == 0 ? 0.0f : cblas_sdot(static_cast<int>(n), a, ia, b, ib);
    } else {
      const auto [a, ia] = blas_vector<double>(self, k1);
      const auto [b, ib] = blas_vector<double>(other, k2);
      r.data_ptr<double>()[0] = n == 0 ? 0.0 : cblas_ddot(static_cast<int>(n), a, ia, b, ib);
    }
    return r;
  }
  const Tensor a = materialize(self), b = materialize(other);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_integral_v<T>, T, float>;
    const T* ap = static_cast<const T*>(a.data_ptr());
    const T* bp = static_cast<const T*>(b.data_ptr());
    Acc s = 0;
    for (int64_t i = 0; i < n; ++i) s = static_cast<Acc>(s + static_cast<Acc>(ap[i]) * static_cast<Acc>(bp[i]));
    static_cast<T*>(r.data_ptr())[0] = static_cast<T>(s);
  });
  return r;
}

Tensor mv_impl(const Tensor& self, const Tensor& vec) {
  const char* op = "mv";
  order::check_mv(op, self, vec);
  check_cpu(op, self, vec);
  const int64_t n = self.size(0), m = self.size(1);
  Tensor r = empty_cpu({n}, self.dtype());
  if (n == 0) return r;
  const ScalarType dt = self.dtype();
  if ((dt == kFloat32 || dt == kFloat64) && m > 0) {
    // Row-major or column-major self goes to gemv as it is; anything else is copied.
    const bool rowm = self.stride(1) == 1 && self.stride(0) >= std::max<int64_t>(1, m);
    const bool colm = !rowm && self.stride(0) == 1 && self.stride(1) >= std::max<int64_t>(1, n);
    const Tensor a = rowm || colm ? self : materialize(self);
    const bool trans = colm;
    const int lda = static_cast<int>(trans ? a.stride(1) : (rowm ? a.stride(0) : m));
    Tensor keep;
    if (dt == kFloat32) {
      const auto [x, ix] = blas_vector<float>(vec, keep);
      cblas_sgemv(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, trans ? static_cast<int>(m) : static_cast<int>(n),
                  trans ? static_cast<int>(n) : static_cast<int>(m), 1.0f, static_cast<const float*>(a.data_ptr()), lda,
                  x, ix, 0.0f, r.data_ptr<float>(), 1);
    } else {
      const auto [x, ix] = blas_vector<double>(vec, keep);
      cblas_dgemv(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, trans ? static_cast<int>(m) : static_cast<int>(n),
                  trans ? static_cast<int>(n) : static_cast<int>(m), 1.0, static_cast<const double*>(a.data_ptr()), lda,
                  x, ix, 0.0, r.data_ptr<double>(), 1);
    }
    return r;
  }
  const Tensor a = materialize(self), x = materialize(vec);
  visit_dtype(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc =
        std::conditional_t<std::is_integral_v<T>, T, std::conditional_t<std::is_same_v<T, double>, double, float>>;
    const T* ap = static_cast<const T*>(a.data_ptr());
    const T* xp = static_cast<const T*>(x.data_ptr());
    T* rp = static_cast<T*>(r.data_ptr());
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, m)), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        Acc s = 0;
        for (int64_t k = 0; k < m; ++k)
          s = static_cast<Acc>(s + static_cast<Acc>(ap[i * m + k]) * static_cast<Acc>(xp[k]));
        rp[i] = static_cast<T>(s);
      }
    });
  });
  return r;
}

}  // namespace

Tensor dot(const Tensor& self, const Tensor& tensor) { return dot_impl(self, tensor); }
Tensor& dot_out(const Tensor& self, const Tensor& tensor, Tensor& out) {
  const Tensor r = dot_impl(self, tensor);
  check_defined("dot", out, "out");
  EMBER_CHECK_TYPE(out.dtype() == r.dtype(), "[dot] result dtype {} does not match input dtype {}", out.dtype(),
                   r.dtype());
  check_cpu("dot", out);
  return write_out(out, r, "dot");
}
Tensor mv(const Tensor& self, const Tensor& vec) { return mv_impl(self, vec); }
Tensor& mv_out(const Tensor& self, const Tensor& vec, Tensor& out) {
  const Tensor r = mv_impl(self, vec);
  check_out("mv", out, r.dtype());
  return write_out(out, r, "mv");
}

}  // namespace ember::cpu
