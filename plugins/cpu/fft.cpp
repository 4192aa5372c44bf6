// The FFT operators _fft_c2c, _fft_r2c and _fft_c2r: one-dimensional transforms of the engine
// (Note [CPU FFT engine] in FftEngine.h) along each dim in turn, the lines of a dim split over
// the intra-op threads. Results are contiguous; normalization 0 none, 1 1/sqrt(n), 2 1/n with n
// the product of the signal sizes (PyTorch's fft_norm_mode).
#include <cmath>
#include <vector>

#include "FftEngine.h"
#include "Loops.h"
#include "ember/generated/CPUFunctions.h"
#include "ember/native/FftRules.h"

namespace ember::cpu {
namespace {

// The lines of a contiguous tensor along dim d: `outer` blocks of n * inner elements, the line
// (o, i) starting at o * n * inner + i with stride inner.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  Lines(IntArrayRef sizes, int64_t d) : n(sizes[d]) {
    for (int64_t k = 0; k < d; ++k) outer *= sizes[k];
    for (size_t k = static_cast<size_t>(d) + 1; k < sizes.size(); ++k) inner *= sizes[k];
  }
  int64_t count() const { return outer * inner; }
  int64_t start(int64_t line, int64_t len) const { return (line / inner) * len * inner + line % inner; }
};

int64_t grain_for(int64_t n) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)); }

// In place along dim d of a contiguous complex tensor x.
template <class T>
void c2c_dim(Tensor& x, int64_t d, bool forward) {
  using C = std::complex<T>;
  const Lines l(x.sizes(), d);
  if (l.n <= 1 || x.numel() == 0) return;
  const auto plan = fft::get_plan<T>(l.n);
  C* data = static_cast<C*>(x.data_ptr());
  parallel_for(0, l.count(), grain_for(l.n), [&](int64_t b, int64_t e) {
    std::vector<C> buf(static_cast<size_t>(l.n)), scratch(static_cast<size_t>(plan->scratch_size()));
    for (int64_t line = b; line < e; ++line) {
      C* p = data + l.start(line, l.n);
      if (l.inner == 1) {
        plan->exec(p, p, scratch.data(), forward);
        continue;
      }
      for (int64_t j = 0; j < l.n; ++j) buf[j] = p[j * l.inner];
      plan->exec(buf.data(), buf.data(), scratch.data(), forward);
      for (int64_t j = 0; j < l.n; ++j) p[j * l.inner] = buf[j];
    }
  });
}

// out (contiguous complex, n/2 + 1 along d) = the onesided r2c of the contiguous real x along d.
template <class T>
void r2c_dim(const Tensor& x, Tensor& out, int64_t d) {
  using C = std::complex<T>;
  const Lines l(x.sizes(), d);
  const int64_t h1 = l.n / 2 + 1;
  const auto plan = fft::get_real_plan<T>(l.n);
  const T* src = static_cast<const T*>(x.data_ptr());
  C* dst = static_cast<C*>(out.data_ptr());
  parallel_for(0, l.count(), grain_for(l.n), [&](int64_t b, int64_t e) {
    std::vector<T> rbuf(static_cast<size_t>(l.n));
    std::vector<C> cbuf(static_cast<size_t>(h1)), scratch(static_cast<size_t>(plan->scratch_size()));
    for (int64_t line = b; line < e; ++line) {
      const T* p = src + l.start(line, l.n);
      C* q = dst + l.start(line, h1);
      if (l.inner == 1) {
        plan->r2c(p, q, scratch.data());
        continue;
      }
      for (int64_t j = 0; j < l.n; ++j) rbuf[j] = p[j * l.inner];
      plan->r2c(rbuf.data(), cbuf.data(), scratch.data());
      for (int64_t j = 0; j < h1; ++j) q[j * l.inner] = cbuf[j];
    }
  });
}

// out (contiguous real, n along d) = the c2r of the contiguous complex x along d, whose first
// min(size, n/2 + 1) terms are used (the others taken as zero).
template <class T>
void c2r_dim(const Tensor& x, Tensor& out, int64_t d, int64_t n) {
  using C = std::complex<T>;
  const Lines in_l(x.sizes(), d);
  const int64_t len = in_l.n, h1 = n / 2 + 1, used = std::min(len, h1);
  const auto plan = fft::get_real_plan<T>(n);
  const C* src = static_cast<const C*>(x.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  parallel_for(0, in_l.count(), grain_for(n), [&](int64_t b, int64_t e) {
    std::vector<C> cbuf(static_cast<size_t>(h1), C(0)), scratch(static_cast<size_t>(plan->scratch_size()));
    std::vector<T> rbuf(static_cast<size_t>(n));
    for (int64_t line = b; line < e; ++line) {
      const C* p = src + in_l.start(line, len);
      T* q = dst + in_l.start(line, n);
      for (int64_t j = 0; j < used; ++j) cbuf[j] = p[j * in_l.inner];
      if (in_l.inner == 1) {
        plan->c2r(cbuf.data(), q, scratch.data());
        continue;
      }
      plan->c2r(cbuf.data(), rbuf.data(), scratch.data());
      for (int64_t j = 0; j < n; ++j) q[j * in_l.inner] = rbuf[j];
    }
  });
}

// A contiguous copy of self in dtype dt (self itself when it already is one and may be kept).
Tensor contiguous_as(const Tensor& self, ScalarType dt, bool fresh) {
  if (!fresh && self.dtype() == dt && self.is_contiguous()) return self;
  Tensor r = empty_cpu(self.sizes(), dt);
  cpu::copy_(r, self, false);
  return r;
}

// Multiplies every value of the contiguous floating or complex x by the normalization's factor.
void normalize(Tensor& x, int64_t normalization, double signal_numel) {
  if (normalization == 0 || x.numel() == 0) return;
  const double f = normalization == 1 ? 1.0 / std::sqrt(signal_numel) : 1.0 / signal_numel;
  const bool cplx = is_complex_type(x.dtype());
  const int64_t count = x.numel() * (cplx ? 2 : 1);
  const ScalarType rt = native::complex_to_real(x.dtype());
  auto run = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    const T s = static_cast<T>(f);
    parallel_for(0, count, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] *= s;
    });
  };
  if (rt == kFloat32)
    run(static_cast<float*>(x.data_ptr()));
  else
    run(static_cast<double*>(x.data_ptr()));
}

double signal_numel(IntArrayRef sizes, IntArrayRef dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(sizes[d]);
  return n;
}

template <class F>
void with_real(ScalarType complex_dt, F&& f) {
  if (complex_dt == kComplex64)
    f(float{});
  else
    f(double{});
}

}  // namespace

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  const auto g = native::fft_c2c_geometry(self, dim, normalization);
  check_cpu("_fft_c2c", self);
  Tensor x = contiguous_as(self, g.out_dtype, true);
  with_real(g.out_dtype, [&](auto t) {
    using T = decltype(t);
    for (int64_t d : g.dims) c2c_dim<T>(x, d, forward);
  });
  normalize(x, normalization, signal_numel(self.sizes(), g.dims));
  return x;
}

Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  const auto g = native::fft_r2c_geometry(self, dim, normalization, onesided);
  check_cpu("_fft_r2c", self);
  if (!onesided) {
    // The full spectrum: the complex transform of the real input.
    Tensor x = contiguous_as(self, g.out_dtype, true);
    with_real(g.out_dtype, [&](auto t) {
      using T = decltype(t);
      for (int64_t d : g.dims) c2c_dim<T>(x, d, true);
    });
    normalize(x, normalization, signal_numel(self.sizes(), g.dims));
    return x;
  }
  Tensor out = empty_cpu(g.out_sizes, g.out_dtype);
  if (out.numel() == 0) return out;
  if (self.numel() == 0) return cpu::zero_(out);
  const Tensor x = contiguous_as(self, self.dtype(), false);
  with_real(g.out_dtype, [&](auto t) {
    using T = decltype(t);
    r2c_dim<T>(x, out, g.dims.back());
    for (size_t k = 0; k + 1 < g.dims.size(); ++k) c2c_dim<T>(out, g.dims[k], true);
  });
  normalize(out, normalization, signal_numel(self.sizes(), g.dims));
  return out;
}

Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  const auto g = native::fft_c2r_geometry(self, dim, normalization, last_dim_size);
  check_cpu("_fft_c2r", self);
  Tensor out = empty_cpu(g.out_sizes, g.out_dtype);
  if (out.numel() == 0) return out;
  if (self.numel() == 0) return cpu::zero_(out);
  const int64_t last = g.dims.back();
  Tensor x = contiguous_as(self, self.dtype(), g.dims.size() > 1);
  with_real(self.dtype(), [&](auto t) {
    using T = decltype(t);
    for (size_t k = 0; k + 1 < g.dims.size(); ++k) c2c_dim<T>(x, g.dims[k], false);
    c2r_dim<T>(x, out, last, last_dim_size);
  });
  normalize(out, normalization, signal_numel(g.out_sizes, g.dims));
  return out;
}

}  // namespace ember::cpu
