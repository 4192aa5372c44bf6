// Normalization on the CPU: native_batch_norm, native_layer_norm and their backwards; batch_norm
// and layer_norm are composites in libember (api/src/native/nn.cpp).
//
// Our own kernels (float32, float64; Note [CPU CNN kernel dtypes] in NN.h) rather than oneDNN's:
// oneDNN has no float64 and no layer-norm backward without its own mean/variance layout, and
// both norms are two streaming passes over contiguous rows that the compiler vectorizes.
// Statistics accumulate in double (float32 inputs too), so the mean and variance of long rows
// keep full float32 accuracy; the variance is the mean of squared deviations (two passes).
#include <cmath>
#include <tuple>

#include "CPUKernels.h"
#include "NN.h"
#include "ember/generated/Functions.h"
#include "ember/native/NNCoreRules.h"

namespace ember::cpu {
namespace {

// Mean and biased variance of n values with stride 1.
template <class T>
void moments(const T* x, int64_t n, double& mean, double& var) {
  mean = nn::lane_sum(n, [x](int64_t k) { return static_cast<double>(x[k]); }) / static_cast<double>(n);
  const double m = mean;
  var = nn::lane_sum(n, [x, m](int64_t k) {
          const double d = static_cast<double>(x[k]) - m;
          return d * d;
        }) /
        static_cast<double>(n);
}

// f(b, e) over [0, n) items of `work` elements each, split over the intra-op threads.
template <class F>
void for_items(int64_t n, int64_t work, const F& f) {
  parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)), f);
}

template <class T>
T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// ---- batch norm: input viewed as [N, C, L] (L = product of the dimensions after C) ----------

using native::nn::BnShape;  // checks: ember/native/NNRules.h (shared with the meta plugin)

template <class T>
void bn_forward(const BnShape& s, const T* x, const T* w, const T* b, const double* mean, const double* invstd, T* y) {
  for_items(s.C, s.N * s.L, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const double a = invstd[c] * (w ? static_cast<double>(w[c]) : 1.0);
      const T scale = static_cast<T>(a);
      const T shift = static_cast<T>((b ? static_cast<double>(b[c]) : 0.0) - mean[c] * a);
      for (int64_t n = 0; n < s.N; ++n) {
        const T* xr = x + (n * s.C + c) * s.L;
        T* yr = y + (n * s.C + c) * s.L;
        for (int64_t i = 0; i < s.L; ++i) yr[i] = xr[i] * scale + shift;
      }
    }
  });
}

template <class T>
void bn_stats(const BnShape& s, const T* x, double* mean, double* var) {
  const double M = static_cast<double>(s.N * s.L);
  for_items(s.C, s.N * s.L, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double sum = 0;
      for (int64_t n = 0; n < s.N; ++n) {
        const T* xr = x + (n * s.C + c) * s.L;
        for (int64_t i = 0; i < s.L; ++i) sum += xr[i];
      }
      const double m = sum / M;
      double q = 0;
      for (int64_t n = 0; n < s.N; ++n) {
        const T* xr = x + (n * s.C + c) * s.L;
        for (int64_t i = 0; i < s.L; ++i) {
          const double d = xr[i] - m;
          q += d * d;
        }
      }
      mean[c] = m;
      var[c] = q / M;
    }
  });
}

// running = (1 - momentum) * running + momentum * v in the caller's tensor, channel by channel
// through its own stride: as LibTorch, an expanded (stride 0) statistic takes the channels'
// updates in order on its one element.
void update_running(Tensor& running, const std::vector<double>& v, double momentum) {
  const ScalarType dt = running.dtype();
  const CastFn load = cast_fn(dt, kFloat64), store = cast_fn(kFloat64, dt);
  char* p = static_cast<char*>(running.data_ptr());
  const int64_t step = running.stride(0) * static_cast<int64_t>(running.itemsize());
  for (size_t i = 0; i < v.size(); ++i) {
    char* e = p + static_cast<int64_t>(i) * step;
    double r = 0;
    load(e, 0, reinterpret_cast<char*>(&r), 0, 1);
    r = (1 - momentum) * r + momentum * v[i];
    store(reinterpret_cast<const char*>(&r), 0, e, 0, 1);
  }
  // No version bump, as LibTorch 1.13 (whose schema does not mark the running statistics
  // written): see Note [Version counters].
}

std::vector<double> as_doubles(const Tensor& t) {
  const Tensor d = nn::compute_input(t, kFloat64);
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

// ---- layer norm: input viewed as [M, N] ------------------------------------------------------

using native::nn::LnShape;

// An optional weight or bias (checked by the caller) as a contiguous ct tensor, or an undefined one.
Tensor ln_param(const std::optional<Tensor>& t, ScalarType ct) {
  return t && t->defined() ? nn::compute_input(*t, ct) : Tensor();
}

template <class T>
void ln_forward(const LnShape& s, const T* x, const T* w, const T* b, double eps, T* y, T* mean, T* rstd) {
  for_items(s.M, s.N, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      double m, v;
      moments(x + r * s.N, s.N, m, v);
      const double rs = 1.0 / std::sqrt(v + eps);
      mean[r] = static_cast<T>(m);
      rstd[r] = static_cast<T>(rs);
      const T* xr = x + r * s.N;
      T* yr = y + r * s.N;
      const T tm = static_cast<T>(m), trs = static_cast<T>(rs);
      if (w && b) {
        for (int64_t i = 0; i < s.N; ++i) yr[i] = (xr[i] - tm) * trs * w[i] + b[i];
      } else {
        for (int64_t i = 0; i < s.N; ++i) yr[i] = (xr[i] - tm) * trs * (w ? w[i] : T(1)) + (b ? b[i] : T(0));
      }
    }
  });
}

template <class T>
void ln_backward(const LnShape& s, const T* dy, const T* x, const T* mean, const T* rstd, const T* w, T* dx, T* dw,
                 T* db) {
  auto wt = [&](int64_t i) { return w ? static_cast<double>(w[i]) : 1.0; };
  if (dx) {
    // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w, row by row.
    for_items(s.M, s.N, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x + r * s.N;
        const T* dyr = dy + r * s.N;
        const double m = mean[r], rs = rstd[r];
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < s.N; ++i) {
          const double gi = static_cast<double>(dyr[i]) * wt(i);
          sg += gi;
          sgx += gi * (xr[i] - m) * rs;
        }
        const double inv_n = 1.0 / static_cast<double>(s.N);
        sg *= inv_n, sgx *= inv_n;
        T* dxr = dx + r * s.N;
        for (int64_t i = 0; i < s.N; ++i)
          dxr[i] = static_cast<T>(rs * (static_cast<double>(dyr[i]) * wt(i) - sg - (xr[i] - m) * rs * sgx));
      }
    });
  }
  if (!dw && !db) return;
  // dw = sum over rows of dy * xhat, db = sum of dy: column by column.
  for_items(s.N, s.M, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      double gw = 0, gb = 0;
      for (int64_t r = 0; r < s.M; ++r) {
        const double d = dy[r * s.N + i];
        gw += d * (x[r * s.N + i] - static_cast<double>(mean[r])) * static_cast<double>(rstd[r]);
        gb += d;
      }
      if (dw) dw[i] = static_cast<T>(gw);
      if (db) db[i] = static_cast<T>(gb);
    }
  });
}

}  // namespace

// ---- CPU kernels ---------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  const char* op = "native_batch_norm";
  const BnShape s = native::nn::check_batch_norm(op, kCPU, input, weight, bias, running_mean, running_var, training);
  const ScalarType ct = nn::compute_float(input, op, "input");
  const Tensor w = nn::optional_vector(weight, s.C, ct, op, "weight");
  const Tensor b = nn::optional_vector(bias, s.C, ct, op, "bias");
  const bool has_rm = running_mean && running_mean->defined(), has_rv = running_var && running_var->defined();
  const Tensor x = nn::compute_input(input, ct);
  Tensor y = empty_cpu(input.sizes(), ct);
  std::vector<double> mean(static_cast<size_t>(s.C)), var(static_cast<size_t>(s.C)), invstd(static_cast<size_t>(s.C));
  const int64_t M = s.N * s.L;
  if (training) {
    if (M > 0) {
      if (ct == kFloat32)
        bn_stats(s, x.data_ptr<float>(), mean.data(), var.data());
      else
        bn_stats(s, x.data_ptr<double>(), mean.data(), var.data());
    } else {
      std::fill(var.begin(), var.end(), std::nan(""));
      std::fill(mean.begin(), mean.end(), std::nan(""));
    }
    if (has_rm) {
      Tensor rm = *running_mean;
      update_running(rm, mean, momentum);
    }
    if (has_rv) {
      std::vector<double> unbiased(var);
      for (double& v : unbiased) v = v * static_cast<double>(M) / static_cast<double>(M - 1);
      Tensor rv = *running_var;
      update_running(rv, unbiased, momentum);
    }
  } else {
    mean = as_doubles(*running_mean);
    var = as_doubles(*running_var);
  }
  for (int64_t c = 0; c < s.C; ++c) invstd[c] = 1.0 / std::sqrt(var[c] + eps);
  if (y.numel() > 0) {
    if (ct == kFloat32)
      bn_forward(s, x.data_ptr<float>(), ptr_or_null<float>(w), ptr_or_null<float>(b), mean.data(), invstd.data(),
                 y.data_ptr<float>());
    else
      bn_forward(s, x.data_ptr<double>(), ptr_or_null<double>(w), ptr_or_null<double>(b), mean.data(), invstd.data(),
                 y.data_ptr<double>());
  }
  const ScalarType dt = input.dtype();
  if (!training) return {nn::to_dtype_of(y, dt), empty_cpu({0}, dt), empty_cpu({0}, dt)};
  Tensor sm = empty_cpu({s.C}, kFloat64), si = empty_cpu({s.C}, kFloat64);
  std::copy(mean.begin(), mean.end(), sm.data_ptr<double>());
  std::copy(invstd.begin(), invstd.end(), si.data_ptr<double>());
  return {nn::to_dtype_of(y, dt), nn::to_dtype_of(sm, dt), nn::to_dtype_of(si, dt)};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& running_mean,
                                                              const std::optional<Tensor>& running_var,
                                                              const std::optional<Tensor>& save_mean,
                                                              const std::optional<Tensor>& save_invstd, bool train,
                                                              double eps, std::array<bool, 3> output_mask) {
  const char* op = "native_batch_norm_backward";
  const BnShape s = native::nn::check_batch_norm_backward(op, kCPU, grad_out, input, weight, running_mean, running_var,
                                                          save_mean, save_invstd, train);
  const Tensor w = nn::optional_vector(weight, s.C, kFloat64, op, "weight");
  std::vector<double> mean, invstd;
  if (train) {
    mean = as_doubles(nn::optional_vector(save_mean, s.C, kFloat64, op, "save_mean"));
    invstd = as_doubles(nn::optional_vector(save_invstd, s.C, kFloat64, op, "save_invstd"));
  } else {
    mean = as_doubles(nn::optional_vector(running_mean, s.C, kFloat64, op, "running_mean"));
    invstd = as_doubles(nn::optional_vector(running_var, s.C, kFloat64, op, "running_var"));
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  }
  // float64 throughout: the per-channel sums need it and the backward is not the hot path.
  const Tensor x = nn::compute_input(input, kFloat64), dy = nn::compute_input(grad_out, kFloat64);
  const double* xp = x.data_ptr<double>();
  const double* dyp = dy.data_ptr<double>();
  const double* wp = ptr_or_null<double>(w);
  Tensor gi = output_mask[0] ? empty_cpu(input.sizes(), kFloat64) : Tensor();
  Tensor gw = output_mask[1] ? empty_cpu({s.C}, kFloat64) : Tensor();
  Tensor gb = output_mask[2] ? empty_cpu({s.C}, kFloat64) : Tensor();
  const double M = static_cast<double>(s.N * s.L);
  double* gwp = ptr_or_null<double>(gw);
  double* gbp = ptr_or_null<double>(gb);
  double* gip = ptr_or_null<double>(gi);
  for_items(s.C, s.N * s.L, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double sdy = 0, sdyx = 0;
      for (int64_t n = 0; n < s.N; ++n)
        for (int64_t i = 0; i < s.L; ++i) {
          const int64_t k = (n * s.C + c) * s.L + i;
          sdy += dyp[k];
          sdyx += dyp[k] * (xp[k] - mean[c]);
        }
      const double wc = wp ? wp[c] : 1.0, is = invstd[c];
      if (gwp) gwp[c] = sdyx * is;
      if (gbp) gbp[c] = sdy;
      if (!gip) continue;
      for (int64_t n = 0; n < s.N; ++n)
        for (int64_t i = 0; i < s.L; ++i) {
          const int64_t k = (n * s.C + c) * s.L + i;
          gip[k] = train ? (dyp[k] - sdy / M - (xp[k] - mean[c]) * is * is * sdyx / M) * is * wc : dyp[k] * is * wc;
        }
    }
  });
  const ScalarType dt = input.dtype();
  return {nn::to_dtype_of(gi, dt), nn::to_dtype_of(gw, weight && weight->defined() ? weight->dtype() : dt),
          nn::to_dtype_of(gb, weight && weight->defined() ? weight->dtype() : dt)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const char* op = "native_layer_norm";
  const LnShape s = native::nn::check_layer_norm(op, kCPU, input, normalized_shape, weight, bias);
  const ScalarType ct = nn::compute_float(input, op, "input");
  const Tensor w = ln_param(weight, ct), b = ln_param(bias, ct);
  const Tensor x = nn::compute_input(input, ct);
  Tensor y = empty_cpu(input.sizes(), ct);
  const auto ss = native::nn::ln_stat_shape(input, static_cast<int64_t>(normalized_shape.size()));
  Tensor mean = empty_cpu(ss, ct), rstd = empty_cpu(ss, ct);
  if (s.N > 0) {
    if (ct == kFloat32)
      ln_forward(s, x.data_ptr<float>(), ptr_or_null<float>(w), ptr_or_null<float>(b), eps, y.data_ptr<float>(),
                 mean.data_ptr<float>(), rstd.data_ptr<float>());
    else
      ln_forward(s, x.data_ptr<double>(), ptr_or_null<double>(w), ptr_or_null<double>(b), eps, y.data_ptr<double>(),
                 mean.data_ptr<double>(), rstd.data_ptr<double>());
  } else if (mean.numel() > 0) {  // empty rows: NaN statistics, as a mean over nothing
    cpu::fill_(mean, Scalar(std::nan("")));
    cpu::fill_(rstd, Scalar(std::nan("")));
  }
  const ScalarType dt = input.dtype();
  return {nn::to_dtype_of(y, dt), nn::to_dtype_of(mean, dt), nn::to_dtype_of(rstd, dt)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              std::array<bool, 3> output_mask) {
  const char* op = "native_layer_norm_backward";
  const LnShape s =
      native::nn::check_layer_norm_backward(op, kCPU, grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const ScalarType ct = nn::compute_float(input, op, "input");
  const Tensor w = ln_param(weight, ct);
  const Tensor x = nn::compute_input(input, ct), dy = nn::compute_input(grad_out, ct);
  const Tensor m = nn::compute_input(mean, ct), r = nn::compute_input(rstd, ct);
  Tensor gi = output_mask[0] ? empty_cpu(input.sizes(), ct) : Tensor();
  Tensor gw = output_mask[1] ? empty_cpu(normalized_shape, ct) : Tensor();
  Tensor gb = output_mask[2] ? empty_cpu(normalized_shape, ct) : Tensor();
  if (ct == kFloat32)
    ln_backward(s, dy.data_ptr<float>(), x.data_ptr<float>(), m.data_ptr<float>(), r.data_ptr<float>(),
                ptr_or_null<float>(w), ptr_or_null<float>(gi), ptr_or_null<float>(gw), ptr_or_null<float>(gb));
  else
    ln_backward(s, dy.data_ptr<double>(), x.data_ptr<double>(), m.data_ptr<double>(), r.data_ptr<double>(),
                ptr_or_null<double>(w), ptr_or_null<double>(gi), ptr_or_null<double>(gw), ptr_or_null<double>(gb));
  const ScalarType dt = input.dtype();
  return {nn::to_dtype_of(gi, dt), nn::to_dtype_of(gw, dt), nn::to_dtype_of(gb, dt)};
}

// ---- _native_batch_norm_legit: native_batch_norm's kernel (PyTorch 2.x's forms) --------------

// Running statistics given: updated in place when training, used when not.
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(const Tensor& input, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias, Tensor& running_mean,
                                                            Tensor& running_var, bool training, double momentum,
                                                            double eps) {
  return cpu::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
// No running statistics: batch statistics (training=False raises, there being none to use).
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_stats(const Tensor& input,
                                                                     const std::optional<Tensor>& weight,
                                                                     const std::optional<Tensor>& bias, bool training,
                                                                     double momentum, double eps) {
  return cpu::native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps) {
  return cpu::native_batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

// ---- group norm: input viewed as [N, G, D * HxW] (D = C / G channels a group) ----------------

namespace {

struct GnShape {
  int64_t N, C, HxW, G;
};

template <class T>
void gn_forward(const GnShape& s, const T* xp, const T* wp, const T* bp, double eps, T* yp, T* mp, T* rp) {
  const int64_t D = s.C / s.G, len = D * s.HxW;
  for_items(s.N * s.G, len, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      double m = std::nan(""), v = std::nan("");
      if (len > 0) moments(xp + r * len, len, m, v);
      const double rs = 1.0 / std::sqrt(v + eps);
      mp[r] = static_cast<T>(m);
      rp[r] = static_cast<T>(rs);
      const int64_t g = r % s.G;
      for (int64_t d = 0; d < D; ++d) {
        const int64_t c = g * D + d;
        const double a = rs * (wp ? static_cast<double>(wp[c]) : 1.0);
        const T ta = static_cast<T>(a), tsh = static_cast<T>((bp ? static_cast<double>(bp[c]) : 0.0) - m * a);
        const T* xr = xp + r * len + d * s.HxW;
        T* yr = yp + r * len + d * s.HxW;
        for (int64_t i = 0; i < s.HxW; ++i) yr[i] = xr[i] * ta + tsh;
      }
    }
  });
}

template <class T>
void gn_backward(const GnShape& s, const T* dyp, const T* xp, const T* mp, const T* rp, const T* wp, T* gip, T* gwp,
                 T* gbp) {
  const int64_t N = s.N, C = s.C, HxW = s.HxW, G = s.G, D = C / G;
  std::vector<double> ds(static_cast<size_t>(N * C)), db(static_cast<size_t>(N * C));
  for_items(N * C, HxW, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const T* dy = dyp + i * HxW;
      const T* xr = xp + i * HxW;
      ds[static_cast<size_t>(i)] =
          nn::lane_sum(HxW, [dy, xr](int64_t k) { return static_cast<double>(dy[k]) * static_cast<double>(xr[k]); });
      db[static_cast<size_t>(i)] = nn::lane_sum(HxW, [dy](int64_t k) { return static_cast<double>(dy[k]); });
    }
  });
  auto wt = [&](int64_t c) { return wp ? static_cast<double>(wp[c]) : 1.0; };
  if (gip) {
    const double sc = 1.0 / static_cast<double>(D * HxW);
    for_items(N * G, D * HxW, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / G, g = r % G;
        double s1 = 0, s2 = 0;  // sums over the group of ds w and db w
        for (int64_t d = 0; d < D; ++d) {
          const int64_t c = g * D + d;
          s1 += ds[static_cast<size_t>(n * C + c)] * wt(c);
          s2 += db[static_cast<size_t>(n * C + c)] * wt(c);
        }
        const double m = static_cast<double>(mp[r]), rs = static_cast<double>(rp[r]);
        const double b1 = (s2 * m - s1) * rs * rs * rs * sc;
        const T tb1 = static_cast<T>(b1), tb2 = static_cast<T>(-b1 * m - s2 * rs * sc);
        for (int64_t d = 0; d < D; ++d) {
          const int64_t c = g * D + d;
          const T a = static_cast<T>(rs * wt(c));
          const int64_t base = (n * C + c) * HxW;
          for (int64_t k = 0; k < HxW; ++k) gip[base + k] = a * dyp[base + k] + tb1 * xp[base + k] + tb2;
        }
      }
    });
  }
  for (int64_t c = 0; c < C; ++c) {
    double a = 0, b = 0;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t r = n * G + c / D;
      a += (ds[static_cast<size_t>(n * C + c)] - db[static_cast<size_t>(n * C + c)] * static_cast<double>(mp[r])) *
           static_cast<double>(rp[r]);
      b += db[static_cast<size_t>(n * C + c)];
    }
    if (gwp) gwp[c] = static_cast<T>(a);
    if (gbp) gbp[c] = static_cast<T>(b);
  }
}

}  // namespace

// Computes in float32 (float32, bfloat16) or float64 with statistics accumulated in double;
// mean and rstd (N, G) in input's dtype.
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps) {
  const char* op = "native_group_norm";
  native::nn::check_group_norm(op, kCPU, input, weight, bias, N, C, HxW, group);
  const ScalarType dt = input.dtype(), ct = nn::compute_float(input, op, "input");
  const Tensor x = nn::compute_input(input, ct), w = ln_param(weight, ct), b = ln_param(bias, ct);
  Tensor y = empty_cpu(input.sizes(), ct), mean = empty_cpu({N, group}, ct), rstd = empty_cpu({N, group}, ct);
  const GnShape s{N, C, HxW, group};
  nn::visit_float(ct, [&](auto t) {
    using T = decltype(t);
    gn_forward(s, x.data_ptr<T>(), ptr_or_null<T>(w), ptr_or_null<T>(b), eps, y.data_ptr<T>(), mean.data_ptr<T>(),
               rstd.data_ptr<T>());
  });
  return {nn::to_dtype_of(y, dt), nn::to_dtype_of(mean, dt), nn::to_dtype_of(rstd, dt)};
}

// PyTorch's GroupNormBackward: per (n, c) the sums ds = sum(dy x) and db = sum(dy) over HxW, then
// dx = w rstd dy + b1 x + b2 per group, dgamma = sum_n (ds - db mean) rstd, dbeta = sum_n db.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const std::optional<Tensor>& weight, int64_t N, int64_t C,
                                                              int64_t HxW, int64_t group,
                                                              std::array<bool, 3> output_mask) {
  const char* op = "native_group_norm_backward";
  native::nn::check_group_norm_backward(op, kCPU, grad_out, input, mean, rstd, weight, N, C, HxW, group);
  const ScalarType dt = input.dtype(), ct = nn::compute_float(input, op, "input");
  const Tensor x = nn::compute_input(input, ct), dy = nn::compute_input(grad_out, ct);
  const Tensor mt = nn::compute_input(mean, ct), rt = nn::compute_input(rstd, ct), w = ln_param(weight, ct);
  Tensor gi = output_mask[0] ? empty_cpu(input.sizes(), ct) : Tensor();
  Tensor gw = output_mask[1] ? empty_cpu({C}, ct) : Tensor();
  Tensor gb = output_mask[2] ? empty_cpu({C}, ct) : Tensor();
  const GnShape s{N, C, HxW, group};
  nn::visit_float(ct, [&](auto t) {
    using T = decltype(t);
    gn_backward(s, dy.data_ptr<T>(), x.data_ptr<T>(), mt.data_ptr<T>(), rt.data_ptr<T>(), ptr_or_null<T>(w),
                ptr_or_null<T>(gi), ptr_or_null<T>(gw), ptr_or_null<T>(gb));
  });
  return {nn::to_dtype_of(gi, dt), nn::to_dtype_of(gw, dt), nn::to_dtype_of(gb, dt)};
}

}  // namespace ember::cpu
