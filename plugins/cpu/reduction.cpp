// Reductions: mean, prod, amax/amin, max/min (with indices), argmax/argmin, any/all,
// logsumexp, var/std (with a correction), var_mean/std_mean, the norms; the ops along one
// dimension: softmax, log_softmax, cumsum, cumprod; and the out= variants of the reductions.
//
// Note [CPU row reductions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Every reduction here runs on rows: the input is viewed with its kept dimensions first and its
// reduced dimensions last (a permutation of strides, no copy), copied to a contiguous buffer
// only when that view is not already contiguous, and then each output element i is the
// reduction of the contiguous row [i * len, (i + 1) * len). The output is contiguous with the
// kept dimensions in order, so row i is output element i, with or without keepdim. (amax/amin
// reducing the leading dimensions of a contiguous input skip that transposing copy: one sweep
// over the rows updates a running extreme per column.) Values are compared in their own type
// (float16 and bfloat16 through float), so amax/amin/max/min are exact for every dtype;
// float and double rows are reduced in vector lanes compiled per ISA (extreme_lanes_*), and the
// index of max.dim/argmax is a second pass for the first element equal to the extreme.
// Products accumulate in int64 (integers and bool, wrapping) or double. NaN propagates as in
// PyTorch: max/min/amax/amin return NaN and max.dim/argmax give the index of the first NaN.
// mean is sum (Note [CPU sum accumulation]) in its double accumulator divided by the count.
// logsumexp, var, std and the norms read rows in the input's type and accumulate in double;
// softmax, log_softmax and floating cumsum/cumprod compute in double (the input is converted
// once; float32 softmax along a contiguous last dimension computes in float with vector exp, as
// LibTorch's), integer cumsum/cumprod in int64 with wrap-around; softmax and logsumexp subtract the
// row's maximum first, so they are stable for large inputs. An out= variant computes into out
// (Note [CPU out= results] in Reduce.h).
#include <memory>

#include "Loops.h"
#include "CPUKernels.h"
#include "Reduce.h"
#include "VecMath.h"
#include "ember/native/Rules.h"

namespace ember::cpu {

using native::reduced_mask;

Rows prepare(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op, bool nonempty) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  const auto red = reduced_mask(self, dims, op);
  const int64_t nd = self.dim();
  if (nonempty) native::check_nonempty_reduction(self, dims, red, op);
  Rows r;
  DimVector sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (!red[d]) {
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
      r.out_shape.push_back(self.size(d));
      r.outer *= self.size(d);
    } else if (keepdim) {
      r.out_shape.push_back(1);
    }
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (red[d]) {
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
      r.len *= self.size(d);
    }
  }
  Tensor v = make_view(self, sizes, strides, self.storage_offset());
  if (v.is_contiguous()) {
    r.in = v;
  } else {
    r.in = empty_cpu(sizes, self.dtype());
    cpu::copy_(r.in, v, false);
  }
  return r;
}

// A copy of self in dtype (PyTorch converts before reducing when a dtype is given).
Tensor converted(const Tensor& self, std::optional<ScalarType> dtype) {
  if (!dtype || *dtype == self.dtype()) return self;
  Tensor c = empty_cpu(self.sizes(), *dtype);
  cpu::copy_(c, self, false);
  return c;
}

Tensor dim_last_view(const Tensor& t, int64_t w) {
  DimVector sz, st;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != w) {
      sz.push_back(t.size(d));
      st.push_back(t.stride(d));
    }
  if (t.dim() > 0) {
    sz.push_back(t.size(w));
    st.push_back(t.stride(w));
  }
  return make_view(t, sz, st, t.storage_offset());
}

namespace {

template <bool IsMax, class T>
T extreme_value_row(const T* p, int64_t n);

// The first extreme element of a row and its index; the first NaN wins.
template <bool IsMax, class T>
std::pair<T, int64_t> extreme_row(const T* p, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    // Two vectorised passes: the value, then the first element equal to it (or the first NaN);
    // the element is returned as stored, so of -0.0 and 0.0 the first one wins, as below.
    const T v = extreme_value_row<IsMax>(p, n);
    const bool nan = v != v;
    // Blocks of 64 are tested without an early exit (a vectorisable OR), then scanned.
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
      int hit = 0;
      for (int64_t k = i; k < i + 64; ++k) hit |= nan ? p[k] != p[k] : p[k] == v;
      if (hit) break;
    }
    while (nan ? p[i] == p[i] : p[i] != v) ++i;
    return {p[i], i};
  }
  using C = CmpOf<T>;
  C best = convert<C>(p[0]);
  int64_t bi = 0;
  if (is_nan(best)) return {p[0], 0};
  for (int64_t i = 1; i < n; ++i) {
    const C v = convert<C>(p[i]);
    if (is_nan(v)) return {p[i], i};
    if (IsMax ? v > best : v < best) {
      best = v;
      bi = i;
    }
  }
  return {p[bi], bi};
}

// The extreme of a float or double row, 64 bytes of lanes at a time (GCC vector extensions, so
// each ISA build gets its own vector width): a branch-free compare-and-select per element, and
// NaN recorded in a lane mask (a NaN never wins a comparison, so the selects alone would drop it).
template <bool IsMax, class T>
EMBER_ALWAYS_INLINE T extreme_lanes_body(const T* __restrict p, int64_t n) {
  using M = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  typedef T V __attribute__((vector_size(64)));
  typedef M VM __attribute__((vector_size(64)));
  constexpr int64_t L = 64 / sizeof(T);
  V acc = V{} + p[0];
  VM nan = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    V v;
    std::memcpy(&v, p + i, sizeof(V));
    acc = IsMax ? (v > acc ? v : acc) : (v < acc ? v : acc);
    nan |= v != v;
  }
  T r = acc[0];
  bool any = false;
  for (int64_t k = 0; k < L; ++k) {
    r = IsMax ? (acc[k] > r ? acc[k] : r) : (acc[k] < r ? acc[k] : r);
    any |= nan[k] != 0;
  }
  for (; i < n; ++i) {
    const T v = p[i];
    r = IsMax ? (v > r ? v : r) : (v < r ? v : r);
    any |= v != v;
  }
  return any ? std::numeric_limits<T>::quiet_NaN() : r;
}
template <bool IsMax, class T>
EMBER_NOINLINE T extreme_lanes_baseline(const T* p, int64_t n) {
  return extreme_lanes_body<IsMax>(p, n);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <bool IsMax, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 T extreme_lanes_avx2(const T* p, int64_t n) {
  return extreme_lanes_body<IsMax>(p, n);
}
template <bool IsMax, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 T extreme_lanes_avx512(const T* p, int64_t n) {
  return extreme_lanes_body<IsMax>(p, n);
}
#endif

// Values only: no early exit, a NaN poisons the running result.
template <bool IsMax, class T>
T extreme_value_row(const T* p, int64_t n) {
  using C = CmpOf<T>;
  if constexpr (std::is_floating_point_v<T>) {
#if defined(EMBER_CPU_MULTI_ISA)
    if (cpu_isa() == Isa::Avx512) return extreme_lanes_avx512<IsMax>(p, n);
    if (cpu_isa() == Isa::Avx2) return extreme_lanes_avx2<IsMax>(p, n);
#endif
    return extreme_lanes_baseline<IsMax>(p, n);
  } else if constexpr (std::is_same_v<C, bool>) {
    bool acc = p[0];
    for (int64_t i = 1; i < n; ++i) acc = IsMax ? (acc || p[i]) : (acc && p[i]);
    return acc;
  } else {
    C acc = convert<C>(p[0]);
    bool nan = is_nan(acc);
    for (int64_t i = 1; i < n; ++i) {
      const C v = convert<C>(p[i]);
      nan |= is_nan(v);
      acc = IsMax ? (v > acc ? v : acc) : (v < acc ? v : acc);
    }
    if constexpr (std::is_floating_point_v<C>) {
      if (nan) return convert<T>(std::numeric_limits<C>::quiet_NaN());
    }
    return convert<T>(acc);
  }
}

// extreme_value_row over the intra-op threads for one long row: a fixed number of parts, each
// reduced on its own, then the parts reduced (max and min are exact and a NaN part stays NaN, so
// the result equals the serial one).
template <bool IsMax, class T>
T extreme_value_row_parallel(const T* p, int64_t n) {
  if (n < 8 * kGrainSize || get_num_threads() == 1 || in_parallel_region()) return extreme_value_row<IsMax>(p, n);
  constexpr int64_t kParts = 16;
  T part[kParts];
  parallel_for(0, kParts, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) part[k] = extreme_value_row<IsMax>(p + n * k / kParts, n * (k + 1) / kParts - n * k / kParts);
  });
  return extreme_value_row<IsMax>(part, kParts);
}

// Rows [0, outer) of a row loop over the intra-op threads, at least kGrainSize elements a part.
template <class F>
void for_rows(int64_t outer, int64_t len, const F& f) {
  parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

// The extremes of the columns of a contiguous rows x inner block, one sequential sweep over the
// rows: out[c] = extreme over r of p[r * inner + c], NaN propagating. Elementwise selects over
// contiguous arrays, which the compiler vectorises.
template <bool IsMax, class T>
void extreme_columns(const T* p, int64_t rows, int64_t inner, T* out) {
  using C = CmpOf<T>;
  using M = std::conditional_t<sizeof(C) == 8, int64_t, int32_t>;
  const std::unique_ptr<C[]> acc(new C[static_cast<size_t>(inner)]);
  const std::unique_ptr<M[]> nan(new M[static_cast<size_t>(inner)]());
  C* __restrict a = acc.get();
  M* __restrict f = nan.get();
  for (int64_t c = 0; c < inner; ++c) a[c] = convert<C>(p[c]);
  for (int64_t r = 0; r < rows; ++r) {
    const T* __restrict row = p + r * inner;
    for (int64_t c = 0; c < inner; ++c) {
      const C v = convert<C>(row[c]);
      a[c] = IsMax ? (v > a[c] ? v : a[c]) : (v < a[c] ? v : a[c]);
      if constexpr (std::is_floating_point_v<C>) f[c] |= static_cast<M>(v != v);
    }
  }
  for (int64_t c = 0; c < inner; ++c) {
    if constexpr (std::is_floating_point_v<C>) {
      if (f[c]) {
        out[c] = convert<T>(std::numeric_limits<C>::quiet_NaN());
        continue;
      }
    }
    out[c] = convert<T>(a[c]);
  }
}

template <bool IsMax>
Tensor extreme_values(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op, const OutArg* o = nullptr) {
  check_defined(op, self, "self");
  const auto red = reduced_mask(self, dims, op);
  const int64_t nd = self.dim();
  if (const int64_t rows = dense_matrix_rows(self, red, true)) {
    // Reducing leading dimensions of a contiguous tensor: columns, without the row machinery's
    // transposing copy.
    DimVector shape;
    for (int64_t d = 0; d < nd; ++d) {
      if (!red[d]) shape.push_back(self.size(d));
      else if (keepdim) shape.push_back(1);
    }
    Tensor out = result_tensor(o, shape, self.dtype());
    visit_dtype(self.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      extreme_columns<IsMax>(static_cast<const T*>(self.data_ptr()), rows, self.numel() / rows,
                             static_cast<T*>(out.data_ptr()));
    });
    return out;
  }
  Rows r = prepare(self, dims, keepdim, op, true);
  Tensor out = result_tensor(o, r.out_shape, self.dtype());
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for_rows(r.outer, r.len, [&](int64_t i) { o[i] = extreme_value_row_parallel<IsMax>(p + i * r.len, r.len); });
  });
  return out;
}

template <bool IsMax>
std::tuple<Tensor, Tensor> extreme_with_index(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op,
                                              bool want_values, const OutArg* ov = nullptr,
                                              const OutArg* oi = nullptr) {
  Rows r = prepare(self, dims, keepdim, op, true);
  if (!want_values) native::check_arg_extreme_dtype(op, self.dtype());
  Tensor values = want_values ? result_tensor(ov, r.out_shape, self.dtype()) : Tensor();
  Tensor indices = result_tensor(oi, r.out_shape, kInt64);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    auto* idx = static_cast<int64_t*>(indices.data_ptr());
    T* o = want_values ? static_cast<T*>(values.data_ptr()) : nullptr;
    for_rows(r.outer, r.len, [&](int64_t i) {
      const auto [v, k] = extreme_row<IsMax>(p + i * r.len, r.len);
      idx[i] = k;
      if (o) o[i] = v;
    });
  });
  return {values, indices};
}

template <bool IsAny>
Tensor any_all(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op) {
  Rows r = prepare(self, dims, keepdim, op, false);
  Tensor out = empty_cpu(r.out_shape, native::any_all_dtype(self));
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    auto* o = static_cast<uint8_t*>(out.data_ptr());
    for_rows(r.outer, r.len, [&](int64_t i) {
      const T* row = p + i * r.len;
      bool acc = !IsAny;
      for (int64_t k = 0; k < r.len; ++k) {
        const bool nz = convert<bool>(row[k]);
        if (IsAny ? nz : !nz) {
          acc = IsAny;
          break;
        }
      }
      o[i] = acc ? 1 : 0;
    });
  });
  return out;
}

Tensor prod_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype,
                 const OutArg* o = nullptr) {
  check_defined("prod", self, "self");
  check_cpu("prod", self);
  const ScalarType out_dt = native::sum_like_dtype("prod", self, dtype);
  Rows r = prepare(converted(self, dtype), dims, keepdim, "prod", false);
  const ScalarType in_dt = r.in.dtype();
  const bool integral = is_integral_type(in_dt, true);
  const ScalarType acc_dt = integral ? kInt64 : kFloat64;
  Tensor acc = acc_dt == out_dt ? result_tensor(o, r.out_shape, acc_dt) : empty_cpu(r.out_shape, acc_dt);
  visit_dtype(in_dt, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    for (int64_t i = 0; i < r.outer; ++i) {
      const T* row = p + i * r.len;
      if constexpr (std::is_integral_v<T>) {
        uint64_t a = 1;  // wraps, as int64 does in PyTorch
        for (int64_t k = 0; k < r.len; ++k) a *= static_cast<uint64_t>(static_cast<int64_t>(row[k]));
        static_cast<int64_t*>(acc.data_ptr())[i] = static_cast<int64_t>(a);
      } else {
        double a = 1;
        for (int64_t k = 0; k < r.len; ++k) a *= convert<double>(row[k]);
        static_cast<double*>(acc.data_ptr())[i] = a;
      }
    }
  });
  if (acc_dt == out_dt) return acc;
  Tensor out = result_tensor(o, r.out_shape, out_dt);
  cast_fn(acc_dt, out_dt)(static_cast<const char*>(acc.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                          static_cast<int64_t>(out.itemsize()), out.numel());
  return out;
}

Tensor mean_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype,
                 const OutArg* o = nullptr) {
  check_defined("mean", self, "self");
  check_cpu("mean", self);
  const ScalarType out_dt = native::mean_dtype(self, dtype);
  const auto red = reduced_mask(self, dims, "mean");
  int64_t count = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (red[d]) count *= self.size(d);
  if (is_complex_type(out_dt)) {
    // The complex sum (each part summed in double), divided part by part.
    Tensor s = sum_impl(self, dims, keepdim, out_dt, false, o);
    visit_dtype_c(out_dt, "mean", [&](auto tag) {
      using C = typename decltype(tag)::type;
      if constexpr (is_complex_v<C>) {
        auto* p = static_cast<C*>(s.data_ptr());
        for (int64_t i = 0; i < s.numel(); ++i) p[i] /= static_cast<real_of_t<C>>(count);
      }
    });
    return s;
  }
  // The input is converted only for an explicit dtype; float inputs sum in double anyway.
  // The sum's float64 accumulator is the result (out itself) for a float64 mean.
  Tensor s = sum_impl(converted(self, dtype), dims, keepdim, std::nullopt, true, out_dt == kFloat64 ? o : nullptr);
  auto* p = static_cast<double*>(s.data_ptr());
  const double n = static_cast<double>(count);
  for (int64_t i = 0; i < s.numel(); ++i) p[i] /= n;  // 0 / 0 is NaN, as PyTorch's empty mean
  if (out_dt == kFloat64) return s;
  Tensor out = result_tensor(o, s.sizes(), out_dt);
  cast_fn(kFloat64, out_dt)(static_cast<const char*>(s.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                            static_cast<int64_t>(out.itemsize()), out.numel());
  return out;
}

// f(in, out, n) over every line of `self` along `dim`, computing in Acc (int64_t or double):
// returns a contiguous tensor of self's shape in out_dt.
template <class Acc, class F>
Tensor along_dim(const Tensor& self, int64_t dim, ScalarType out_dt, const char* op, F f, const OutArg* o = nullptr) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType acc_dt = std::is_same_v<Acc, double> ? kFloat64 : kInt64;
  Rows r = prepare(converted(self, acc_dt), one_dim(w), true, op, false);
  // r.in has the kept dimensions first and `dim` last; the lines are written through the same
  // permutation of the result, straight into it when that view is dense and of Acc, else through
  // a buffer of Acc that is then converted into it.
  Tensor out = result_tensor(o, self.sizes(), out_dt);
  Tensor ov = dim_last_view(out, w);
  const bool direct = out_dt == acc_dt && ov.is_contiguous();
  Tensor tmp = direct ? ov : empty_cpu(r.in.sizes(), acc_dt);
  const Acc* p = static_cast<const Acc*>(r.in.data_ptr());
  Acc* q = static_cast<Acc*>(tmp.data_ptr());
  parallel_for(0, r.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(r.len, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(p + i * r.len, q + i * r.len, r.len);
  });
  if (!direct) cpu::copy_(ov, tmp, false);
  return out;
}

template <class T>
double row_max(const T* x, int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const double v = convert<double>(x[i]);
    m = v > m ? v : m;  // a NaN makes every result NaN below
  }
  return m;
}

// float32 rows along a contiguous last dimension, in float with vector exp (as LibTorch), rows
// split over threads. False when the case or the CPU does not fit.
template <bool Log>
bool softmax_last_dim_f32(const Tensor& self, int64_t dim, ScalarType out_dt, const char* op, Tensor& out) {
  if (self.dtype() != kFloat32 || out_dt != kFloat32 || !self.is_cpu() || self.dim() == 0 || self.numel() == 0 ||
      maybe_wrap_dim(dim, self.dim(), op) != self.dim() - 1 || !self.is_contiguous() ||
      !has_vec_math())
    return false;
  out = empty_cpu(self.sizes(), kFloat32);
  const int64_t len = self.size(-1), rows = self.numel() / len;
  const float* x0 = static_cast<const float*>(self.data_ptr());
  float* y0 = static_cast<float*>(out.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const float* x = x0 + i * len;
      float* y = y0 + i * len;
      const float m = vec_max_f32(x, len);
      const float s = vec_exp_sum_f32(x, m, Log ? nullptr : y, len);
      if (Log) {
        // (x - m) first: exact for nearby values, where x - (m + log s) would round at x's scale.
        const float ls = std::log(s);
        for (int64_t k = 0; k < len; ++k) y[k] = (x[k] - m) - ls;
      } else {
        const float inv = 1.0f / s;
        for (int64_t k = 0; k < len; ++k) y[k] *= inv;
      }
    }
  });
  return true;
}

// float32 softmax along a dim that is not the last one, of a contiguous tensor: the L slices
// along dim are rows of `inner` contiguous elements, so the max, exp and sum run elementwise
// across rows in vector form (LibTorch's vectorised inner-dim kernel does the same). Work splits
// over (outer, column-chunk) pairs so that one outer block (softmax over dim 0) still threads.
template <bool Log>
bool softmax_inner_dim_f32(const Tensor& self, int64_t dim, ScalarType out_dt, const char* op, Tensor& out) {
  if (self.dtype() != kFloat32 || out_dt != kFloat32 || !self.is_cpu() || self.dim() == 0 || self.numel() == 0 ||
      !self.is_contiguous() || !has_vec_math())
    return false;
  const int64_t d = maybe_wrap_dim(dim, self.dim(), op);
  if (d == self.dim() - 1) return false;
  const int64_t L = self.size(d);
  int64_t inner = 1;
  for (int64_t k = d + 1; k < self.dim(); ++k) inner *= self.size(k);
  const int64_t outer = self.numel() / (L * inner);
  out = empty_cpu(self.sizes(), kFloat32);
  constexpr int64_t kChunk = 512;  // columns per task: m and s stay in L1
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const float* x0 = static_cast<const float*>(self.data_ptr());
  float* y0 = static_cast<float*>(out.data_ptr());
  parallel_for(0, outer * chunks, std::max<int64_t>(1, kGrainSize / (L * kChunk)), [&](int64_t b, int64_t e) {
    float m[kChunk], s[kChunk];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / chunks, j0 = (t % chunks) * kChunk, n = std::min(kChunk, inner - j0);
      const float* x = x0 + o * L * inner + j0;
      float* y = y0 + o * L * inner + j0;
      for (int64_t j = 0; j < n; ++j) m[j] = x[j];
      for (int64_t k = 1; k < L; ++k) {
        const float* xr = x + k * inner;
        for (int64_t j = 0; j < n; ++j) m[j] = (xr[j] > m[j] || xr[j] != xr[j]) ? xr[j] : m[j];  // NaN wins
      }
      for (int64_t j = 0; j < n; ++j) s[j] = 0.0f;
      for (int64_t k = 0; k < L; ++k) {
        const float* xr = x + k * inner;
        float* yr = y + k * inner;
        for (int64_t j = 0; j < n; ++j) yr[j] = xr[j] - m[j];
        vec_unary_f32(VecOp::Exp, yr, yr, n);
        for (int64_t j = 0; j < n; ++j) s[j] += yr[j];
      }
      if (Log) {
        for (int64_t j = 0; j < n; ++j) s[j] = std::log(s[j]);
        for (int64_t k = 0; k < L; ++k) {
          const float* xr = x + k * inner;
          float* yr = y + k * inner;
          // (x - m) first: exact for nearby values (as the last-dim path).
          for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - m[j]) - s[j];
        }
      } else {
        for (int64_t j = 0; j < n; ++j) s[j] = 1.0f / s[j];
        for (int64_t k = 0; k < L; ++k) {
          float* yr = y + k * inner;
          for (int64_t j = 0; j < n; ++j) yr[j] *= s[j];
        }
      }
    }
  });
  return true;
}

template <bool Log>
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const char* op) {
  check_defined(op, self, "self");
  // As PyTorch, the kernel exists for floating types only; a dtype converts the input first.
  const ScalarType out_dt = native::softmax_dtype(op, self, dtype);
  if (Tensor fast; softmax_last_dim_f32<Log>(self, dim, out_dt, op, fast)) return fast;
  if (Tensor fast; softmax_inner_dim_f32<Log>(self, dim, out_dt, op, fast)) return fast;
  return along_dim<double>(converted(self, dtype), dim, out_dt, op, [](const double* x, double* y, int64_t n) {
    const double m = row_max(x, n);
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
    if (Log) {
      const double ls = std::log(s);
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] - m - ls;
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - m) / s;
    }
  });
}

Tensor logsumexp_impl(const Tensor& self, IntArrayRef dims, bool keepdim, const OutArg* o = nullptr) {
  check_defined("logsumexp", self, "self");
  check_cpu("logsumexp", self);
  const ScalarType out_dt = native::logsumexp_dtype(self);
  Rows r = prepare(self, dims, keepdim, "logsumexp", false);
  return reduce_rows_double(
      r, out_dt, "logsumexp",
      [](const auto* x, int64_t n) {
        double m = row_max(x, n);
        if (std::isinf(m)) m = 0;  // all -inf gives log(0) = -inf; an inf gives inf
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += std::exp(convert<double>(x[i]) - m);
        return std::log(s) + m;
      },
      o);
}

// The variance with divisor max(0, n - correction) (PyTorch: a zero divisor gives inf, or NaN for
// 0 / 0), in double.
template <bool Std>
Tensor var_impl(const Tensor& self, IntArrayRef dims, double correction, bool keepdim, const char* op) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  native::check_var_dtype(op, self);
  Rows r = prepare(self, dims, keepdim, op, false);
  return reduce_rows_double(r, self.dtype(), op, [&](const auto* x, int64_t n) {
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += convert<double>(x[i]);
    mean /= static_cast<double>(n);  // n == 0: NaN, as PyTorch
    double m2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = convert<double>(x[i]) - mean;
      m2 += d * d;
    }
    const double nf = static_cast<double>(n);
    const double v = m2 / (nf > correction ? nf - correction : 0.0);
    return Std ? std::sqrt(v) : v;
  });
}

}  // namespace

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) { return mean_impl(self, {}, false, dtype); }
Tensor mean_dim(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_impl(self, dim, keepdim, dtype);
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) { return prod_impl(self, {}, false, dtype); }
Tensor prod_dim_int(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return prod_impl(self, one_dim(dim), keepdim, dtype);
}

Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme_values<true>(self, dim, keepdim, "amax");
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme_values<false>(self, dim, keepdim, "amin");
}
Tensor max(const Tensor& self) { return extreme_values<true>(self, {}, false, "max"); }
Tensor min(const Tensor& self) { return extreme_values<false>(self, {}, false, "min"); }

std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_with_index<true>(self, one_dim(dim), keepdim, "max", true);
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_with_index<false>(self, one_dim(dim), keepdim, "min", true);
}

// Without a dim, the index is into the flattened tensor and the result is 0-dim (keepdim is
// ignored, as in LibTorch 1.13).
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const int64_t d = dim.value_or(0);
  return std::get<1>(extreme_with_index<true>(self, dim ? one_dim(d) : IntArrayRef(), dim && keepdim, "argmax", false));
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const int64_t d = dim.value_or(0);
  return std::get<1>(extreme_with_index<false>(self, dim ? one_dim(d) : IntArrayRef(), dim && keepdim, "argmin", false));
}

Tensor any(const Tensor& self) { return any_all<true>(self, {}, false, "any"); }
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim) { return any_all<true>(self, one_dim(dim), keepdim, "any"); }
Tensor all(const Tensor& self) { return any_all<false>(self, {}, false, "all"); }
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim) { return any_all<false>(self, one_dim(dim), keepdim, "all"); }
// any.dims / all.dims: None or an empty list reduce every dim (as the other reductions here).
Tensor any_dims(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return any_all<true>(self, dim.value_or(IntArrayRef()), keepdim, "any");
}
Tensor all_dims(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return any_all<false>(self, dim.value_or(IntArrayRef()), keepdim, "all");
}
Tensor& any_dims_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  check_defined("any", self, "self");
  check_out("any", out, native::any_all_dtype(self));
  return write_out(out, any_all<true>(self, dim.value_or(IntArrayRef()), keepdim, "any"), "any");
}
Tensor& all_dims_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  check_defined("all", self, "self");
  check_out("all", out, native::any_all_dtype(self));
  return write_out(out, any_all<false>(self, dim.value_or(IntArrayRef()), keepdim, "all"), "all");
}


Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl<false>(self, dim, dtype, "softmax");
}
Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl<true>(self, dim, dtype, "log_softmax");
}
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) { return logsumexp_impl(self, dim, keepdim); }

Tensor var(const Tensor& self, bool unbiased) { return var_impl<false>(self, {}, unbiased ? 1 : 0, false, "var"); }
Tensor var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl<false>(self, dim.value_or(IntArrayRef()), unbiased ? 1 : 0, keepdim, "var");
}
Tensor std(const Tensor& self, bool unbiased) { return var_impl<true>(self, {}, unbiased ? 1 : 0, false, "std"); }
Tensor std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl<true>(self, dim.value_or(IntArrayRef()), unbiased ? 1 : 0, keepdim, "std");
}

namespace {

// Running sums (Prod: products) along dim: integers and bool in int64 with wrap-around, floating
// types in double.
template <bool Prod>
Tensor cumulative(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const char* op,
                  const OutArg* o = nullptr) {
  check_defined(op, self, "self");
  const ScalarType out_dt = native::sum_like_dtype(op, self, dtype);
  const Tensor in = converted(self, dtype);  // as PyTorch, a dtype converts the input first
  if (is_integral_type(in.dtype(), true)) {
    return along_dim<int64_t>(
        in, dim, out_dt, op,
        [](const int64_t* x, int64_t* y, int64_t n) {
          uint64_t a = Prod ? 1 : 0;  // wraps
          for (int64_t i = 0; i < n; ++i) {
            const auto v = static_cast<uint64_t>(x[i]);
            a = Prod ? a * v : a + v;
            y[i] = static_cast<int64_t>(a);
          }
        },
        o);
  }
  return along_dim<double>(
      in, dim, out_dt, op,
      [](const double* x, double* y, int64_t n) {
        double a = Prod ? 1 : 0;
        for (int64_t i = 0; i < n; ++i) y[i] = a = Prod ? a * x[i] : a + x[i];
      },
      o);
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return cumulative<false>(self, dim, dtype, "cumsum");
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return cumulative<true>(self, dim, dtype, "cumprod");
}

// ---- var/std with a correction, and the norms ------------------------------------------------

Tensor var_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                      bool keepdim) {
  return var_impl<false>(self, dim.value_or(IntArrayRef()), static_cast<double>(correction.value_or(1)), keepdim,
                         "var");
}
Tensor std_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                      bool keepdim) {
  return var_impl<true>(self, dim.value_or(IntArrayRef()), static_cast<double>(correction.value_or(1)), keepdim,
                        "std");
}
std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> correction, bool keepdim) {
  const IntArrayRef d = dim.value_or(IntArrayRef());
  Tensor v = var_impl<false>(self, d, static_cast<double>(correction.value_or(1)), keepdim, "var_mean");
  return {v, mean_impl(self, d, keepdim, std::nullopt)};
}
std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> correction, bool keepdim) {
  const IntArrayRef d = dim.value_or(IntArrayRef());
  Tensor v = var_impl<true>(self, d, static_cast<double>(correction.value_or(1)), keepdim, "std_mean");
  return {v, mean_impl(self, d, keepdim, std::nullopt)};
}

namespace {

// The p-norm of every row, in double: p = 0 counts nonzeros (NaN included), +-inf are the
// largest and smallest magnitude (NaN propagates), other p are (sum |x|^p)^(1/p).
Tensor norm_impl(const Tensor& self, double p, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype,
                 const char* op) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  const ScalarType out_dt = native::norm_dtype(op, self, dtype);
  Rows r = prepare(self, dims, keepdim, op, std::isinf(p));
  return reduce_rows_double(r, out_dt, op, [p](const auto* x, int64_t n) {
    auto mag = [&](int64_t i) { return std::fabs(convert<double>(x[i])); };
    double a = 0;
    if (p == 0) {
      for (int64_t i = 0; i < n; ++i) a += convert<double>(x[i]) != 0 ? 1 : 0;
    } else if (std::isinf(p)) {
      a = mag(0);
      bool nan = std::isnan(a);
      for (int64_t i = 1; i < n; ++i) {
        const double v = mag(i);
        nan |= std::isnan(v);
        a = p > 0 ? (v > a ? v : a) : (v < a ? v : a);
      }
      if (nan) a = std::numeric_limits<double>::quiet_NaN();
    } else if (p == 1) {
      for (int64_t i = 0; i < n; ++i) a += mag(i);
    } else if (p == 2) {
      for (int64_t i = 0; i < n; ++i) a += mag(i) * mag(i);
      a = std::sqrt(a);
    } else {
      for (int64_t i = 0; i < n; ++i) a += std::pow(mag(i), p);
      a = std::pow(a, 1.0 / p);
    }
    return a;
  });
}

using native::norm_order;

}  // namespace

Tensor norm_scalar(const Tensor& self, const Scalar& p) {
  return norm_impl(self, norm_order(p, "norm"), {}, false, std::nullopt, "norm");
}
Tensor norm_scalaropt_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  return norm_impl(self, p ? norm_order(*p, "norm") : 2.0, dim, keepdim, std::nullopt, "norm");
}
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return norm_impl(self, norm_order(ord, "linalg_vector_norm"), dim.value_or(IntArrayRef()), keepdim, dtype,
                   "linalg_vector_norm");
}

// ---- out= variants: each writes into out (Note [CPU out= results] in Reduce.h) --------------

Tensor result_tensor(const OutArg* o, IntArrayRef shape, ScalarType dtype) {
  if (o && o->out) {
    Tensor& out = *o->out;
    resize_output(out, shape, o->op);
    native::check_out_writable(o->op, out);
    if (out.dtype() == dtype && out.is_contiguous() && !(o->input && same_storage(out, *o->input))) return out;
  }
  return empty_cpu(shape, dtype);
}

void check_out(const char* op, const Tensor& out, ScalarType expected, const char* name) {
  check_defined(op, out, name);
  check_cpu(op, out);
  native::check_out_dtype(op, out, expected, name);
}

Tensor& write_out(Tensor& out, const Tensor& result, const char* op) {
  if (result.is_same(out)) return out;
  resize_output(out, result.sizes(), op);
  native::check_out_writable(op, out);
  cpu::copy_(out, result, false);
  return out;
}

namespace {

// The dtype rule is native::reduction_out_dtype.
template <class F>
Tensor& out_in_dtype(const char* op, const Tensor& self, Tensor& out, std::optional<ScalarType> dtype, F compute) {
  const ScalarType dt = native::reduction_out_dtype(op, out, dtype);
  check_out(op, out, dt);
  const OutArg o{&out, &self, op};
  return write_out(out, compute(dt, &o), op);
}

template <bool IsMax>
std::tuple<Tensor&, Tensor&> extreme_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                             Tensor& indices, const char* op, const char* values_name,
                                             const char* indices_name) {
  check_defined(op, self, "self");
  check_out(op, values, self.dtype(), values_name);
  check_out(op, indices, kInt64, indices_name);
  const OutArg ov{&values, &self, op}, oi{&indices, &self, op};
  const auto [v, i] = extreme_with_index<IsMax>(self, one_dim(dim), keepdim, op, true, &ov, &oi);
  write_out(values, v, op);
  write_out(indices, i, op);
  return {values, indices};
}

template <bool IsMax>
Tensor& extreme_values_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out, const char* op) {
  check_defined(op, self, "self");
  check_out(op, out, self.dtype());
  const OutArg o{&out, &self, op};
  return write_out(out, extreme_values<IsMax>(self, dim, keepdim, op, &o), op);
}

template <bool IsMax>
Tensor& arg_extreme_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out, const char* op) {
  check_out(op, out, kInt64);
  const int64_t d = dim.value_or(0);
  const OutArg o{&out, &self, op};
  return write_out(out,
                   std::get<1>(extreme_with_index<IsMax>(self, dim ? one_dim(d) : IntArrayRef(), dim && keepdim, op,
                                                         false, nullptr, &o)),
                   op);
}

}  // namespace

Tensor& sum_intlist_out(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                        Tensor& out) {
  return out_in_dtype("sum", self, out, dtype,
                      [&](ScalarType dt, const OutArg* o) { return sum_impl(self, dim, keepdim, dt, false, o); });
}
Tensor& mean_out(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return out_in_dtype("mean", self, out, dtype,
                      [&](ScalarType dt, const OutArg* o) { return mean_impl(self, dim, keepdim, dt, o); });
}
Tensor& prod_int_out(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return out_in_dtype("prod", self, out, dtype,
                      [&](ScalarType dt, const OutArg* o) { return prod_impl(self, one_dim(dim), keepdim, dt, o); });
}
Tensor& cumsum_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  return out_in_dtype("cumsum", self, out, dtype,
                      [&](ScalarType dt, const OutArg* o) { return cumulative<false>(self, dim, dt, "cumsum", o); });
}
Tensor& cumprod_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  return out_in_dtype("cumprod", self, out, dtype,
                      [&](ScalarType dt, const OutArg* o) { return cumulative<true>(self, dim, dt, "cumprod", o); });
}
Tensor& amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return extreme_values_out<true>(self, dim, keepdim, out, "amax");
}
Tensor& amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return extreme_values_out<false>(self, dim, keepdim, out, "amin");
}
std::tuple<Tensor&, Tensor&> max_dim_max(const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                                         Tensor& max_values) {
  return extreme_dim_out<true>(self, dim, keepdim, max, max_values, "max", "max", "max_values");
}
std::tuple<Tensor&, Tensor&> min_dim_min(const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                                         Tensor& min_indices) {
  return extreme_dim_out<false>(self, dim, keepdim, min, min_indices, "min", "min", "min_indices");
}
Tensor& argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  return arg_extreme_out<true>(self, dim, keepdim, out, "argmax");
}
Tensor& argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  return arg_extreme_out<false>(self, dim, keepdim, out, "argmin");
}
Tensor& logsumexp_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_logsumexp_out(out);
  check_cpu("logsumexp", out);
  const OutArg o{&out, &self, "logsumexp"};
  return write_out(out, logsumexp_impl(self, dim, keepdim, &o), "logsumexp");
}

}  // namespace ember::cpu
