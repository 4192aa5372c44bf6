// Reductions of issue 3: mean, prod, amax/amin, max/min (with indices), argmax/argmin, any/all,
// logsumexp, var/std; and the ops along one dimension: softmax, log_softmax, cumsum.
//
// Note [CPU row reductions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Every reduction here runs on rows: the input is viewed with its kept dimensions first and its
// reduced dimensions last (a permutation of strides, no copy), copied to a contiguous buffer
// only when that view is not already contiguous, and then each output element i is the
// reduction of the contiguous row [i * len, (i + 1) * len). The output is contiguous with the
// kept dimensions in order, so row i is output element i, with or without keepdim. Values are
// compared in their own type (float16 and bfloat16 through float), so amax/amin/max/min are
// exact for every dtype; products accumulate in int64 (integers and bool, wrapping) or double.
// NaN propagates as in PyTorch: max/min/amax/amin return NaN and max.dim/argmax give the index
// of the first NaN. mean is sum (Note [CPU sum accumulation]) in double divided by the count.
// softmax, log_softmax, logsumexp, var, std and floating cumsum compute in double (the input is
// converted once; float32 softmax along a contiguous last dimension computes in float with
// vector exp, as LibTorch's), integer cumsum in int64 with wrap-around; softmax and logsumexp subtract the
// row's maximum first, so they are stable for large inputs.
#include "Loops.h"
#include "Ops.h"
#include "Reduce.h"
#include "VecMath.h"
#include "ember/native/Rules.h"

namespace ember::cpu {
namespace {

using native::reduced_mask;

struct Rows {
  Tensor in;  // contiguous: `outer` rows of `len` elements
  int64_t outer = 1;
  int64_t len = 1;
  DimVector out_shape;
};

// `nonempty`: no identity, a zero-size reduced dimension is an error (native::check_nonempty_reduction).
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

template <class T>
using CmpOf = std::conditional_t<is_reduced_float_v<T>, float, T>;

template <class T>
EMBER_ALWAYS_INLINE bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// The first extreme element of a row and its index; the first NaN wins.
template <bool IsMax, class T>
std::pair<T, int64_t> extreme_row(const T* p, int64_t n) {
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

// Values only: no early exit, a NaN poisons the running result.
template <bool IsMax, class T>
T extreme_value_row(const T* p, int64_t n) {
  using C = CmpOf<T>;
  if constexpr (std::is_same_v<C, bool>) {
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

template <bool IsMax>
Tensor extreme_values(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op) {
  Rows r = prepare(self, dims, keepdim, op, true);
  Tensor out = empty_cpu(r.out_shape, self.dtype());
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < r.outer; ++i) o[i] = extreme_value_row<IsMax>(p + i * r.len, r.len);
  });
  return out;
}

template <bool IsMax>
std::tuple<Tensor, Tensor> extreme_with_index(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op,
                                              bool want_values) {
  Rows r = prepare(self, dims, keepdim, op, true);
  if (!want_values) native::check_arg_extreme_dtype(op, self.dtype());
  Tensor values = want_values ? empty_cpu(r.out_shape, self.dtype()) : Tensor();
  Tensor indices = empty_cpu(r.out_shape, kInt64);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    auto* idx = static_cast<int64_t*>(indices.data_ptr());
    T* o = want_values ? static_cast<T*>(values.data_ptr()) : nullptr;
    for (int64_t i = 0; i < r.outer; ++i) {
      const auto [v, k] = extreme_row<IsMax>(p + i * r.len, r.len);
      idx[i] = k;
      if (o) o[i] = v;
    }
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
    for (int64_t i = 0; i < r.outer; ++i) {
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
    }
  });
  return out;
}

// A copy of self in dtype (PyTorch converts before reducing when a dtype is given).
Tensor converted(const Tensor& self, std::optional<ScalarType> dtype) {
  if (!dtype || *dtype == self.dtype()) return self;
  Tensor c = empty_cpu(self.sizes(), *dtype);
  cpu::copy_(c, self, false);
  return c;
}

Tensor prod_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("prod", self, "self");
  check_cpu("prod", self);
  const ScalarType out_dt = native::sum_like_dtype("prod", self, dtype);
  Rows r = prepare(converted(self, dtype), dims, keepdim, "prod", false);
  const ScalarType in_dt = r.in.dtype();
  const bool integral = is_integral_type(in_dt, true);
  const ScalarType acc_dt = integral ? kInt64 : kFloat64;
  Tensor acc = empty_cpu(r.out_shape, acc_dt);
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
  Tensor out = empty_cpu(r.out_shape, out_dt);
  cast_fn(acc_dt, out_dt)(static_cast<const char*>(acc.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                          static_cast<int64_t>(out.itemsize()), out.numel());
  return out;
}

Tensor mean_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("mean", self, "self");
  check_cpu("mean", self);
  const ScalarType out_dt = native::mean_dtype(self, dtype);
  const auto red = reduced_mask(self, dims, "mean");
  int64_t count = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (red[d]) count *= self.size(d);
  Tensor in = converted(self, dtype);
  Tensor s = cpu::sum_dim(in, dims, keepdim, kFloat64);
  auto* p = static_cast<double*>(s.data_ptr());
  const double n = static_cast<double>(count);
  for (int64_t i = 0; i < s.numel(); ++i) p[i] /= n;  // 0 / 0 is NaN, as PyTorch's empty mean
  if (out_dt == kFloat64) return s;
  Tensor out = empty_cpu(s.sizes(), out_dt);
  cast_fn(kFloat64, out_dt)(static_cast<const char*>(s.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                            static_cast<int64_t>(out.itemsize()), out.numel());
  return out;
}

IntArrayRef one_dim(const int64_t& d) { return IntArrayRef(&d, 1); }

// f(in, out, n) over every line of `self` along `dim`, computing in Acc (int64_t or double):
// returns a contiguous tensor of self's shape in out_dt.
template <class Acc, class F>
Tensor along_dim(const Tensor& self, int64_t dim, ScalarType out_dt, const char* op, F f) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType acc_dt = std::is_same_v<Acc, double> ? kFloat64 : kInt64;
  Rows r = prepare(converted(self, acc_dt), one_dim(w), true, op, false);
  // r.in has the kept dimensions first and `dim` last; write through the same permutation.
  Tensor tmp = empty_cpu(r.in.sizes(), acc_dt);
  const Acc* p = static_cast<const Acc*>(r.in.data_ptr());
  Acc* q = static_cast<Acc*>(tmp.data_ptr());
  parallel_for(0, r.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(r.len, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(p + i * r.len, q + i * r.len, r.len);
  });
  Tensor out = empty_cpu(self.sizes(), out_dt);
  DimVector st;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != w) st.push_back(out.stride(d));
  if (self.dim() > 0) st.push_back(out.stride(w));
  Tensor ov = make_view(out, r.in.sizes(), st, 0);
  cpu::copy_(ov, tmp, false);
  return out;
}

double row_max(const double* x, int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;  // a NaN makes every result NaN below
  return m;
}

// float32 rows along a contiguous last dimension, in float with vector exp (as LibTorch), rows
// split over threads. False when the case or the CPU does not fit.
template <bool Log>
bool softmax_last_dim_f32(const Tensor& self, int64_t dim, ScalarType out_dt, Tensor& out) {
  if (self.dtype() != kFloat32 || out_dt != kFloat32 || !self.is_cpu() || self.dim() == 0 || self.numel() == 0 ||
      maybe_wrap_dim(dim, self.dim(), "softmax") != self.dim() - 1 || !self.is_contiguous() ||
      cpu_isa() == Isa::Baseline)
    return false;
  out = empty_cpu(self.sizes(), kFloat32);
  const int64_t len = self.size(-1), rows = self.numel() / len;
  const float* x0 = static_cast<const float*>(self.data_ptr());
  float* y0 = static_cast<float*>(out.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const float* x = x0 + i * len;
      float* y = y0 + i * len;
      float m = 0, s = 0;
      vec_max_f32(x, len, &m);
      vec_exp_sum_f32(x, m, Log ? nullptr : y, len, &s);
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

template <bool Log>
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const char* op) {
  check_defined(op, self, "self");
  // As PyTorch, the kernel exists for floating types only; a dtype converts the input first.
  const ScalarType out_dt = native::softmax_dtype(op, self, dtype);
  if (Tensor fast; softmax_last_dim_f32<Log>(self, dim, out_dt, fast)) return fast;
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

// Writes one double per row of `r` (a float64 tensor) into a fresh tensor of dtype out_dt.
template <class F>
Tensor reduce_rows_double(const Rows& r, ScalarType out_dt, F f) {
  Tensor acc = empty_cpu(r.out_shape, kFloat64);
  const auto* p = static_cast<const double*>(r.in.data_ptr());
  auto* q = static_cast<double*>(acc.data_ptr());
  for (int64_t i = 0; i < r.outer; ++i) q[i] = f(p + i * r.len, r.len);
  if (out_dt == kFloat64) return acc;
  Tensor out = empty_cpu(r.out_shape, out_dt);
  cast_fn(kFloat64, out_dt)(static_cast<const char*>(acc.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                            static_cast<int64_t>(out.itemsize()), out.numel());
  return out;
}

Tensor logsumexp_impl(const Tensor& self, IntArrayRef dims, bool keepdim) {
  check_defined("logsumexp", self, "self");
  check_cpu("logsumexp", self);
  const ScalarType out_dt = native::logsumexp_dtype(self);
  Rows r = prepare(converted(self, kFloat64), dims, keepdim, "logsumexp", false);
  return reduce_rows_double(r, out_dt, [](const double* x, int64_t n) {
    double m = row_max(x, n);
    if (std::isinf(m)) m = 0;  // all -inf gives log(0) = -inf; an inf gives inf
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
    return std::log(s) + m;
  });
}

template <bool Std>
Tensor var_impl(const Tensor& self, IntArrayRef dims, bool unbiased, bool keepdim, const char* op) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  native::check_var_dtype(op, self);
  Rows r = prepare(converted(self, kFloat64), dims, keepdim, op, false);
  const double correction = unbiased ? 1 : 0;
  return reduce_rows_double(r, self.dtype(), [&](const double* x, int64_t n) {
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += x[i];
    mean /= static_cast<double>(n);  // n == 0: NaN, as PyTorch
    double m2 = 0;
    for (int64_t i = 0; i < n; ++i) m2 += (x[i] - mean) * (x[i] - mean);
    const double nf = static_cast<double>(n);
    const double v = m2 / (nf > correction ? nf - correction : 0.0);  // one element, unbiased: NaN
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


Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl<false>(self, dim, dtype, "softmax");
}
Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl<true>(self, dim, dtype, "log_softmax");
}
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) { return logsumexp_impl(self, dim, keepdim); }

Tensor var(const Tensor& self, bool unbiased) { return var_impl<false>(self, {}, unbiased, false, "var"); }
Tensor var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl<false>(self, dim.value_or(IntArrayRef()), unbiased, keepdim, "var");
}
Tensor std(const Tensor& self, bool unbiased) { return var_impl<true>(self, {}, unbiased, false, "std"); }
Tensor std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl<true>(self, dim.value_or(IntArrayRef()), unbiased, keepdim, "std");
}

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  check_defined("cumsum", self, "self");
  const ScalarType out_dt = native::sum_like_dtype("cumsum", self, dtype);
  const Tensor in = converted(self, dtype);  // as PyTorch, a dtype converts the input first
  if (is_integral_type(in.dtype(), true)) {
    return along_dim<int64_t>(in, dim, out_dt, "cumsum", [](const int64_t* x, int64_t* y, int64_t n) {
      uint64_t a = 0;  // wraps
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int64_t>(a += static_cast<uint64_t>(x[i]));
    });
  }
  return along_dim<double>(in, dim, out_dt, "cumsum", [](const double* x, double* y, int64_t n) {
    double a = 0;
    for (int64_t i = 0; i < n; ++i) y[i] = a += x[i];
  });
}

}  // namespace ember::cpu
