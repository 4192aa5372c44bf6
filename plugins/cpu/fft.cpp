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

// The lines of a contiguous tensor along dim d: `outer` blocks of len * inner elements, the line
// (o, i) starting at o * len * inner + i with stride inner. Lines with inner > 1 are worked on in
// blocks of kBlock adjacent ones (consecutive i): gathered row by row (kBlock contiguous elements
// at a time) into contiguous buffers and scattered back the same way, since reading one line at
// a time strides by inner elements and, for a power-of-two inner, thrashes the cache sets.
constexpr int64_t kBlock = 16;
struct Lines {
  int64_t outer = 1, inner = 1, blocks_per_outer = 1;
  Lines(IntArrayRef sizes, int64_t d) {
    for (int64_t k = 0; k < d; ++k) outer *= sizes[k];
    for (size_t k = static_cast<size_t>(d) + 1; k < sizes.size(); ++k) inner *= sizes[k];
    blocks_per_outer = (inner + kBlock - 1) / kBlock;
  }
  int64_t blocks() const { return outer * blocks_per_outer; }
  // Block w: its first element's offset in a tensor of `len` along d, and its number of lines.
  int64_t offset(int64_t w, int64_t len) const {
    return (w / blocks_per_outer) * len * inner + (w % blocks_per_outer) * kBlock;
  }
  int64_t width(int64_t w) const { return std::min(kBlock, inner - (w % blocks_per_outer) * kBlock); }
};

int64_t grain_for(int64_t work) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(work, 1)); }

// buf[k * n + j] = p[j * inner + k], k < bw, j < n; and back.
template <class V>
void gather(const V* p, int64_t inner, int64_t n, int64_t bw, V* buf) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < bw; ++k) buf[k * n + j] = p[j * inner + k];
}
template <class V>
void scatter(const V* buf, int64_t inner, int64_t n, int64_t bw, V* p) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < bw; ++k) p[j * inner + k] = buf[k * n + j];
}

// In place along dim d of a contiguous complex tensor x.
template <class T>
void c2c_dim(Tensor& x, int64_t d, bool forward) {
  using C = std::complex<T>;
  const int64_t n = x.size(d);
  const Lines l(x.sizes(), d);
  if (n <= 1 || x.numel() == 0) return;
  const auto plan = fft::get_plan<T>(n);
  C* data = static_cast<C*>(x.data_ptr());
  parallel_for(0, l.blocks(), grain_for(n * std::min(kBlock, l.inner)), [&](int64_t b, int64_t e) {
    std::vector<C> buf(static_cast<size_t>(l.inner > 1 ? n * kBlock : 0));
    std::vector<C> scratch(static_cast<size_t>(plan->scratch_size()));
    for (int64_t w = b; w < e; ++w) {
      C* p = data + l.offset(w, n);
      if (l.inner == 1) {
        plan->exec(p, p, scratch.data(), forward);
        continue;
      }
      const int64_t bw = l.width(w);
      gather(p, l.inner, n, bw, buf.data());
      for (int64_t k = 0; k < bw; ++k) plan->exec(buf.data() + k * n, buf.data() + k * n, scratch.data(), forward);
      scatter(buf.data(), l.inner, n, bw, p);
    }
  });
}

// out (contiguous complex, n/2 + 1 along d) = the onesided r2c of the contiguous real x along d.
template <class T>
void r2c_dim(const Tensor& x, Tensor& out, int64_t d) {
  using C = std::complex<T>;
  const int64_t n = x.size(d), h1 = n / 2 + 1;
  const Lines l(x.sizes(), d);
  const auto plan = fft::get_real_plan<T>(n);
  const T* src = static_cast<const T*>(x.data_ptr());
  C* dst = static_cast<C*>(out.data_ptr());
  parallel_for(0, l.blocks(), grain_for(n * std::min(kBlock, l.inner)), [&](int64_t b, int64_t e) {
    const size_t bufs = static_cast<size_t>(l.inner > 1 ? kBlock : 0);
    std::vector<T> rbuf(bufs * static_cast<size_t>(n));
    std::vector<C> cbuf(bufs * static_cast<size_t>(h1)), scratch(static_cast<size_t>(plan->scratch_size()));
    for (int64_t w = b; w < e; ++w) {
      const T* p = src + l.offset(w, n);
      C* q = dst + l.offset(w, h1);
      if (l.inner == 1) {
        plan->r2c(p, q, scratch.data());
        continue;
      }
      const int64_t bw = l.width(w);
      gather(p, l.inner, n, bw, rbuf.data());
      for (int64_t k = 0; k < bw; ++k) plan->r2c(rbuf.data() + k * n, cbuf.data() + k * h1, scratch.data());
      scatter(cbuf.data(), l.inner, h1, bw, q);
    }
  });
}

// out (contiguous real, n along d) = the c2r of the contiguous complex x along d, whose first
// min(size, n/2 + 1) terms are used (the others taken as zero).
template <class T>
void c2r_dim(const Tensor& x, Tensor& out, int64_t d, int64_t n) {
  using C = std::complex<T>;
  const int64_t len = x.size(d), h1 = n / 2 + 1, used = std::min(len, h1);
  const Lines l(x.sizes(), d);
  const auto plan = fft::get_real_plan<T>(n);
  const C* src = static_cast<const C*>(x.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  parallel_for(0, l.blocks(), grain_for(n * std::min(kBlock, l.inner)), [&](int64_t b, int64_t e) {
    // Terms past `used` stay zero: only the first `used` of each line are ever written.
    std::vector<C> cbuf(static_cast<size_t>(kBlock * h1), C(0)), scratch(static_cast<size_t>(plan->scratch_size()));
    std::vector<T> rbuf(static_cast<size_t>(l.inner > 1 ? kBlock * n : 0));
    for (int64_t w = b; w < e; ++w) {
      const C* p = src + l.offset(w, len);
      T* q = dst + l.offset(w, n);
      const int64_t bw = l.width(w);
      for (int64_t j = 0; j < used; ++j)
        for (int64_t k = 0; k < bw; ++k) cbuf[k * h1 + j] = p[j * l.inner + k];
      if (l.inner == 1) {
        plan->c2r(cbuf.data(), q, scratch.data());
        continue;
      }
      for (int64_t k = 0; k < bw; ++k) plan->c2r(cbuf.data() + k * h1, rbuf.data() + k * n, scratch.data());
      scatter(rbuf.data(), l.inner, n, bw, q);
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
