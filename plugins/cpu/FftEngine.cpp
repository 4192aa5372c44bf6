// The FFT engine (Note [CPU FFT engine] in FftEngine.h).
#include "FftEngine.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <numbers>
#include <unordered_map>

#include "Loops.h"

namespace ember::cpu::fft {
namespace {

// Complex arithmetic written out: std::complex's operator* handles inf/NaN cases through a
// library call (__mulsc3) that stops vectorisation.
template <class T>
struct Cx {
  T re, im;
};
template <class T>
EMBER_ALWAYS_INLINE Cx<T> operator+(Cx<T> a, Cx<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
EMBER_ALWAYS_INLINE Cx<T> operator-(Cx<T> a, Cx<T> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class T>
EMBER_ALWAYS_INLINE Cx<T> scale(Cx<T> a, T s) {
  return {a.re * s, a.im * s};
}
// a * b, or a * conj(b) when !Fwd (the backward transform's twiddles are the conjugates).
template <bool Fwd, class T>
EMBER_ALWAYS_INLINE Cx<T> twiddle(Cx<T> a, Cx<T> b) {
  if constexpr (Fwd)
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  else
    return {a.re * b.re + a.im * b.im, a.im * b.re - a.re * b.im};
}
// i * sigma * a, sigma = -1 forward, +1 backward (the sign of the exponent).
template <bool Fwd, class T>
EMBER_ALWAYS_INLINE Cx<T> rot(Cx<T> a) {
  if constexpr (Fwd)
    return {a.im, -a.re};
  else
    return {-a.im, a.re};
}

// One Stockham pass of radix R (R == 0: generic odd radix r, roots exp(-2 pi i k / r)) for
// one (p, q): reads x[q + s (p + k m)], writes y[q + s (r p + t)].
template <class T, int R, bool Fwd>
EMBER_ALWAYS_INLINE void butterfly(const Cx<T>* __restrict x, Cx<T>* __restrict y, const Cx<T>* __restrict tw,
                                   const Cx<T>* __restrict roots, int64_t r, int64_t m, int64_t s, int64_t p,
                                   int64_t q) {
  const Cx<T>* in = x + q + s * p;
  Cx<T>* out = y + q + s * r * p;
  const Cx<T>* w = tw + p * (r - 1);
  const int64_t sm = s * m;
  if constexpr (R == 2) {
    const Cx<T> a0 = in[0], a1 = in[sm];
    out[0] = a0 + a1;
    out[s] = twiddle<Fwd>(a0 - a1, w[0]);
  } else if constexpr (R == 4) {
    const Cx<T> a0 = in[0], a1 = in[sm], a2 = in[2 * sm], a3 = in[3 * sm];
    const Cx<T> t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = rot<Fwd>(a1 - a3);
    out[0] = t0 + t2;
    out[s] = twiddle<Fwd>(t1 + t3, w[0]);
    out[2 * s] = twiddle<Fwd>(t0 - t2, w[1]);
    out[3 * s] = twiddle<Fwd>(t1 - t3, w[2]);
  } else if constexpr (R == 3) {
    constexpr T c = T(-0.5), sn = T(0.866025403784438646763723170752936183);
    const Cx<T> a0 = in[0], a1 = in[sm], a2 = in[2 * sm];
    const Cx<T> t1 = a1 + a2, t2 = a0 + scale(t1, c), t3 = scale(rot<Fwd>(a1 - a2), sn);
    out[0] = a0 + t1;
    out[s] = twiddle<Fwd>(t2 + t3, w[0]);
    out[2 * s] = twiddle<Fwd>(t2 - t3, w[1]);
  } else if constexpr (R == 5) {
    constexpr T c1 = T(0.309016994374947424102293417182819059), c2 = T(-0.809016994374947424102293417182819059);
    constexpr T s1 = T(0.951056516295153572116439333379382143), s2 = T(0.587785252292473129168705954639072769);
    const Cx<T> a0 = in[0], a1 = in[sm], a2 = in[2 * sm], a3 = in[3 * sm], a4 = in[4 * sm];
    const Cx<T> p14 = a1 + a4, m14 = rot<Fwd>(a1 - a4), p23 = a2 + a3, m23 = rot<Fwd>(a2 - a3);
    const Cx<T> e1 = a0 + scale(p14, c1) + scale(p23, c2), o1 = scale(m14, s1) + scale(m23, s2);
    const Cx<T> e2 = a0 + scale(p14, c2) + scale(p23, c1), o2 = scale(m14, s2) - scale(m23, s1);
    out[0] = a0 + p14 + p23;
    out[s] = twiddle<Fwd>(e1 + o1, w[0]);
    out[2 * s] = twiddle<Fwd>(e2 + o2, w[1]);
    out[3 * s] = twiddle<Fwd>(e2 - o2, w[2]);
    out[4 * s] = twiddle<Fwd>(e1 - o1, w[3]);
  } else {
    // Generic odd r: pairs (k, r - k) share a cosine and a sine.
    Cx<T> sum[kMaxGenericRadix / 2 + 1], dif[kMaxGenericRadix / 2 + 1];
    const Cx<T> a0 = in[0];
    const int64_t h = (r - 1) / 2;
    Cx<T> b0 = a0;
    for (int64_t k = 1; k <= h; ++k) {
      const Cx<T> ak = in[k * sm], bk = in[(r - k) * sm];
      sum[k] = ak + bk;
      dif[k] = rot<Fwd>(ak - bk);
      b0 = b0 + sum[k];
    }
    out[0] = b0;
    for (int64_t t = 1; t <= h; ++t) {
      Cx<T> e = a0, o{T(0), T(0)};
      for (int64_t k = 1; k <= h; ++k) {
        const Cx<T> wk = roots[(t * k) % r];  // cos - i sin of 2 pi tk / r
        e = e + scale(sum[k], wk.re);
        o = o + scale(dif[k], -wk.im);
      }
      out[t * s] = twiddle<Fwd>(e + o, w[t - 1]);
      out[(r - t) * s] = twiddle<Fwd>(e - o, w[r - t - 1]);
    }
  }
}

template <class T, int R, bool Fwd>
EMBER_ALWAYS_INLINE void pass_body(const Cx<T>* x, Cx<T>* y, const Cx<T>* tw, const Cx<T>* roots, int64_t r, int64_t m,
                                   int64_t s) {
  if (s >= 4) {
    for (int64_t p = 0; p < m; ++p)
      for (int64_t q = 0; q < s; ++q) butterfly<T, R, Fwd>(x, y, tw, roots, r, m, s, p, q);
  } else {
    for (int64_t q = 0; q < s; ++q)
      for (int64_t p = 0; p < m; ++p) butterfly<T, R, Fwd>(x, y, tw, roots, r, m, s, p, q);
  }
}

template <class T, int R, bool Fwd>
EMBER_NOINLINE void pass_baseline(const Cx<T>* x, Cx<T>* y, const Cx<T>* tw, const Cx<T>* roots, int64_t r, int64_t m,
                                  int64_t s) {
  pass_body<T, R, Fwd>(x, y, tw, roots, r, m, s);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <class T, int R, bool Fwd>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void pass_avx2(const Cx<T>* x, Cx<T>* y, const Cx<T>* tw, const Cx<T>* roots,
                                                    int64_t r, int64_t m, int64_t s) {
  pass_body<T, R, Fwd>(x, y, tw, roots, r, m, s);
}
template <class T, int R, bool Fwd>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void pass_avx512(const Cx<T>* x, Cx<T>* y, const Cx<T>* tw, const Cx<T>* roots,
                                                        int64_t r, int64_t m, int64_t s) {
  pass_body<T, R, Fwd>(x, y, tw, roots, r, m, s);
}
#endif

template <class T, int R, bool Fwd>
void run_pass(const Cx<T>* x, Cx<T>* y, const Cx<T>* tw, const Cx<T>* roots, int64_t r, int64_t m, int64_t s) {
#if defined(EMBER_CPU_MULTI_ISA)
  if (cpu_isa() == Isa::Avx512) return pass_avx512<T, R, Fwd>(x, y, tw, roots, r, m, s);
  if (cpu_isa() == Isa::Avx2) return pass_avx2<T, R, Fwd>(x, y, tw, roots, r, m, s);
#endif
  pass_baseline<T, R, Fwd>(x, y, tw, roots, r, m, s);
}

template <class T, bool Fwd>
void dispatch_pass(const Cx<T>* x, Cx<T>* y, const Cx<T>* tw, const Cx<T>* roots, int64_t r, int64_t m, int64_t s) {
  switch (r) {
    case 2:
      return run_pass<T, 2, Fwd>(x, y, tw, roots, r, m, s);
    case 3:
      return run_pass<T, 3, Fwd>(x, y, tw, roots, r, m, s);
    case 4:
      return run_pass<T, 4, Fwd>(x, y, tw, roots, r, m, s);
    case 5:
      return run_pass<T, 5, Fwd>(x, y, tw, roots, r, m, s);
    default:
      return run_pass<T, 0, Fwd>(x, y, tw, roots, r, m, s);
  }
}

// exp(-2 pi i k / n) computed in double from k mod n (accurate for every k).
template <class T>
std::complex<T> unit_root(int64_t k, int64_t n) {
  k %= n;
  if (k < 0) k += n;
  const double a = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
  return {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
}

template <class T>
Cx<T>* cx(std::complex<T>* p) {
  return reinterpret_cast<Cx<T>*>(p);
}
template <class T>
const Cx<T>* cx(const std::complex<T>* p) {
  return reinterpret_cast<const Cx<T>*>(p);
}

// n's radices (4s first, then 2, 3, 5, then larger odd primes), or empty when a prime factor
// exceeds kMaxGenericRadix (then Bluestein).
std::vector<int64_t> factorize(int64_t n) {
  std::vector<int64_t> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  if (n % 2 == 0) f.push_back(2), n /= 2;
  for (int64_t p = 3; p * p <= n; p += 2)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  for (int64_t r : f)
    if (r > kMaxGenericRadix) return {};
  return f;
}

}  // namespace

int64_t good_size(int64_t n) {
  if (n <= 1) return 1;
  int64_t best = 2;
  while (best < n) best *= 2;
  for (int64_t f5 = 1; f5 < best; f5 *= 5)
    for (int64_t f35 = f5; f35 < best; f35 *= 3) {
      int64_t x = f35;
      while (x < n) x *= 2;
      if (x < best) best = x;
    }
  return best;
}

template <class T>
Plan<T>::Plan(int64_t n) : n_(n) {
  EMBER_INTERNAL_ASSERT(n >= 1, "FFT plan of length {}", n);
  if (n == 1) return;
  factors_ = factorize(n);
  if (factors_.empty()) {
    auto b = std::make_unique<Bluestein>();
    b->m = good_size(2 * n - 1);
    b->plan = get_plan<T>(b->m);
    b->chirp.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      // exp(-i pi k^2 / n) = exp(-2 pi i (k^2 mod 2n) / 2n).
      const auto k2 = static_cast<int64_t>((static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k)) %
                                           static_cast<unsigned __int128>(2 * n));
      b->chirp[k] = unit_root<T>(k2, 2 * n);
    }
    // The kernel conj(chirp) wrapped around length m, transformed, divided by m (so the inverse
    // transform of the product needs no scaling).
    std::vector<C> kern(static_cast<size_t>(b->m), C(0)), scratch(static_cast<size_t>(b->plan->scratch_size()));
    kern[0] = std::conj(b->chirp[0]);
    for (int64_t k = 1; k < n; ++k) kern[k] = kern[b->m - k] = std::conj(b->chirp[k]);
    b->plan->exec(kern.data(), kern.data(), scratch.data(), true);
    const T inv = T(1) / static_cast<T>(b->m);
    for (auto& v : kern) v *= inv;
    b->kernel = std::move(kern);
    blue_ = std::move(b);
    return;
  }
  int64_t len = n, s = 1;
  for (int64_t r : factors_) {
    Stage st{r, len / r, s, {}};
    st.tw.resize(static_cast<size_t>(st.m * (r - 1)));
    for (int64_t p = 0; p < st.m; ++p)
      for (int64_t t = 1; t < r; ++t) st.tw[p * (r - 1) + t - 1] = unit_root<T>(p * t, len);
    root_off_.push_back(static_cast<int64_t>(roots_.size()));
    if (r > 5)
      for (int64_t k = 0; k < r; ++k) roots_.push_back(unit_root<T>(k, r));
    stages_.push_back(std::move(st));
    len /= r;
    s *= r;
  }
}

template <class T>
int64_t Plan<T>::scratch_size() const {
  return blue_ ? blue_->m + blue_->plan->scratch_size() : n_;
}

template <class T>
void Plan<T>::run_stages(const C* in, C* out, C* scratch, bool forward) const {
  const auto k = static_cast<int64_t>(stages_.size());
  const C* src = in;
  if (in == out && k % 2 == 1) {
    std::memcpy(static_cast<void*>(scratch), in, static_cast<size_t>(n_) * sizeof(C));
    src = scratch;
  }
  for (int64_t j = 0; j < k; ++j) {
    const Stage& st = stages_[j];
    C* dst = (k - 1 - j) % 2 == 0 ? out : scratch;
    const Cx<T>* roots = cx(roots_.data()) + root_off_[j];
    if (forward)
      dispatch_pass<T, true>(cx(src), cx(dst), cx(st.tw.data()), roots, st.radix, st.m, st.s);
    else
      dispatch_pass<T, false>(cx(src), cx(dst), cx(st.tw.data()), roots, st.radix, st.m, st.s);
    src = dst;
  }
}

template <class T>
void Plan<T>::run_bluestein(const C* in, C* out, C* scratch, bool forward) const {
  const Bluestein& b = *blue_;
  C* a = scratch;
  C* rest = scratch + b.m;
  // The backward transform is conj(forward(conj(x))).
  for (int64_t j = 0; j < n_; ++j) a[j] = (forward ? in[j] : std::conj(in[j])) * b.chirp[j];
  std::fill(a + n_, a + b.m, C(0));
  b.plan->exec(a, a, rest, true);
  for (int64_t j = 0; j < b.m; ++j) {
    const Cx<T> v = twiddle<true>(cx(a)[j], cx(b.kernel.data())[j]);
    cx(a)[j] = v;
  }
  b.plan->exec(a, a, rest, false);
  for (int64_t k = 0; k < n_; ++k) {
    const C v = a[k] * b.chirp[k];
    out[k] = forward ? v : std::conj(v);
  }
}

template <class T>
void Plan<T>::exec(const C* in, C* out, C* scratch, bool forward) const {
  if (n_ == 1) {
    out[0] = in[0];
  } else if (blue_) {
    run_bluestein(in, out, scratch, forward);
  } else {
    run_stages(in, out, scratch, forward);
  }
}

namespace {
// Plans live as long as the plugin; a bounded cache (cleared when full) keeps odd workloads
// from growing it without limit.
template <class P>
std::shared_ptr<const P> cached(int64_t n) {
  static std::mutex mu;
  static std::unordered_map<int64_t, std::shared_ptr<const P>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(n);
    if (it != cache.end()) return it->second;
  }
  auto plan = std::make_shared<const P>(n);  // built outside the lock (a Bluestein plan needs another)
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 256) cache.clear();
  return cache.emplace(n, std::move(plan)).first->second;
}
}  // namespace

template <class T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n) {
  return cached<Plan<T>>(n);
}

template <class T>
RealPlan<T>::RealPlan(int64_t n) : n_(n) {
  EMBER_INTERNAL_ASSERT(n >= 1, "real FFT plan of length {}", n);
  if (n % 2 == 0) {
    half_ = get_plan<T>(n / 2);
    tw_.resize(static_cast<size_t>(n / 2 + 1));
    for (int64_t k = 0; k <= n / 2; ++k) tw_[k] = unit_root<T>(k, n);
  } else {
    full_ = get_plan<T>(n);
  }
}

template <class T>
int64_t RealPlan<T>::scratch_size() const {
  return half_ ? n_ / 2 + half_->scratch_size() : 2 * n_ + full_->scratch_size();
}

template <class T>
void RealPlan<T>::r2c(const T* in, C* out, C* scratch) const {
  if (full_) {
    C* buf = scratch;
    for (int64_t j = 0; j < n_; ++j) buf[j] = C(in[j], T(0));
    full_->exec(buf, buf + n_, buf + 2 * n_, true);
    std::memcpy(static_cast<void*>(out), buf + n_, static_cast<size_t>(n_ / 2 + 1) * sizeof(C));
    return;
  }
  const int64_t h = n_ / 2;
  half_->exec(reinterpret_cast<const C*>(in), out, scratch, true);
  Cx<T>* z = cx(out);
  const Cx<T>* w = cx(tw_.data());
  const Cx<T> z0 = z[0];
  // X_k = (Z_k + conj Z_{h-k}) / 2 - i w^k (Z_k - conj Z_{h-k}) / 2, for k and h - k together.
  for (int64_t k = 1; k <= h / 2; ++k) {
    const int64_t j = h - k;
    const Cx<T> zk = z[k], zj = z[j];
    const Cx<T> ck{zj.re, -zj.im}, cj{zk.re, -zk.im};
    const Cx<T> xk = scale((zk + ck) + twiddle<true>(rot<true>(zk - ck), w[k]), T(0.5));
    const Cx<T> xj = scale((zj + cj) + twiddle<true>(rot<true>(zj - cj), w[j]), T(0.5));
    z[k] = xk;
    z[j] = xj;
  }
  z[0] = {z0.re + z0.im, T(0)};
  z[h] = {z0.re - z0.im, T(0)};
}

template <class T>
void RealPlan<T>::c2r(const C* in, T* out, C* scratch) const {
  if (full_) {
    C* buf = scratch;
    buf[0] = C(in[0].real(), T(0));
    for (int64_t k = 1; k <= (n_ - 1) / 2; ++k) {
      buf[k] = in[k];
      buf[n_ - k] = std::conj(in[k]);
    }
    full_->exec(buf, buf + n_, buf + 2 * n_, false);
    for (int64_t j = 0; j < n_; ++j) out[j] = buf[n_ + j].real();
    return;
  }
  const int64_t h = n_ / 2;
  Cx<T>* zb = cx(scratch);
  const Cx<T>* x = cx(in);
  const Cx<T>* w = cx(tw_.data());
  // Z_k = E_k + i O_k, E_k = X_k + conj X_{h-k}, O_k = (X_k - conj X_{h-k}) conj(w^k): the
  // half-length backward transform of Z is then x_even + i x_odd times n.
  for (int64_t k = 0; k < h; ++k) {
    Cx<T> xk = x[k], xj = x[h - k];
    if (k == 0) xk.im = T(0), xj.im = T(0);  // the imaginary parts of X_0 and X_h are ignored
    const Cx<T> cj{xj.re, -xj.im};
    const Cx<T> e = xk + cj, o = twiddle<false>(xk - cj, w[k]);
    zb[k] = e + Cx<T>{-o.im, o.re};
  }
  half_->exec(scratch, reinterpret_cast<C*>(out), scratch + h, false);
}

template <class T>
std::shared_ptr<const RealPlan<T>> get_real_plan(int64_t n) {
  return cached<RealPlan<T>>(n);
}

template class Plan<float>;
template class Plan<double>;
template class RealPlan<float>;
template class RealPlan<double>;
template std::shared_ptr<const Plan<float>> get_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> get_plan<double>(int64_t);
template std::shared_ptr<const RealPlan<float>> get_real_plan<float>(int64_t);
template std::shared_ptr<const RealPlan<double>> get_real_plan<double>(int64_t);

}  // namespace ember::cpu::fft
