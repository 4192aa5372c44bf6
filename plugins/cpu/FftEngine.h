#pragma once
// Internal to the CPU plugin: the FFT engine behind _fft_c2c/_fft_r2c/_fft_c2r (fft.cpp).
//
// Note [CPU FFT engine]
// ~~~~~~~~~~~~~~~~~~~~~
// One-dimensional transforms of any length n over interleaved std::complex<T> (T float or
// double), written for this project (no third-party FFT):
//  - n factored into radix-4, 2, 3, 5 passes and generic odd-radix passes (primes up to
//    kMaxGenericRadix), each a self-sorting Stockham pass: stage with sub-length L = r m and
//    stride s (L s = n) reads x[q + s (p + k m)], does the r-point DFT over k, multiplies output
//    t by w_L^{p t} and writes y[q + s (r p + t)]; output is in natural order after the last
//    pass, with no bit-reversal. The innermost loop runs over q (contiguous), so each pass is
//    compiled per ISA (baseline / AVX2 / AVX-512 target attributes, picked by cpu_isa()) and
//    vectorised by the compiler; the first passes, where s is small, run the p loop innermost.
//  - a length with a larger prime factor uses Bluestein's chirp-z algorithm: a convolution of
//    length M >= 2n - 1 (M a product of 2, 3, 5) done with two mixed-radix FFTs of length M.
//  - real transforms of even n use the half-length trick: the n reals as n/2 complex numbers,
//    one complex FFT of n/2 and a post-pass (r2c) or pre-pass (c2r); odd n go through the
//    complex transform.
// Plans (factors, twiddles, Bluestein chirps) are built once per (n, T) and cached; execution
// is const and thread-safe, callers supply scratch buffers, and batching/threading over the
// other dimensions is the caller's (fft.cpp, one parallel_for over the lines).
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace ember::cpu::fft {

constexpr int64_t kMaxGenericRadix = 31;

template <class T>
class Plan {
 public:
  using C = std::complex<T>;
  explicit Plan(int64_t n);
  int64_t size() const { return n_; }
  // Scratch elements exec needs.
  int64_t scratch_size() const;
  // out = DFT(in) (forward: exp(-2 pi i jk/n); backward: exp(+2 pi i jk/n), unnormalised), each
  // of n contiguous elements; in may equal out. `scratch` holds scratch_size() elements.
  void exec(const C* in, C* out, C* scratch, bool forward) const;
  bool uses_bluestein() const { return blue_ != nullptr; }
  const std::vector<int64_t>& factors() const { return factors_; }

 private:
  struct Stage {
    int64_t radix, m, s;  // sub-length radix * m, stride s
    std::vector<C> tw;    // w_L^{p t} for p < m, 1 <= t < radix: tw[p (radix - 1) + t - 1]
  };
  struct Bluestein {
    int64_t m;                         // convolution length
    std::shared_ptr<const Plan> plan;  // of length m
    std::vector<C> chirp;              // exp(-i pi k^2 / n), k < n
    std::vector<C> kernel;             // FFT_m of the conjugate chirp, wrapped, divided by m
  };
  void run_stages(const C* in, C* out, C* scratch, bool forward) const;
  void run_bluestein(const C* in, C* out, C* scratch, bool forward) const;

  int64_t n_;
  std::vector<int64_t> factors_;
  std::vector<Stage> stages_;
  std::vector<C> roots_;  // exp(-2 pi i k / r) for the generic radices: per stage, offset in stage order
  std::vector<int64_t> root_off_;
  std::unique_ptr<Bluestein> blue_;
};

// The cached plan of length n (built on first use; thread-safe).
template <class T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n);

// Real transforms of length n.
template <class T>
class RealPlan {
 public:
  using C = std::complex<T>;
  explicit RealPlan(int64_t n);
  int64_t size() const { return n_; }
  int64_t scratch_size() const;
  // out[0 .. n/2] = the first n/2 + 1 outputs of the forward DFT of the n reals in.
  void r2c(const T* in, C* out, C* scratch) const;
  // out = the n reals of the backward DFT of the Hermitian sequence whose first n/2 + 1 terms
  // are in (the imaginary parts of in[0] and, for even n, in[n/2] are ignored).
  void c2r(const C* in, T* out, C* scratch) const;

 private:
  int64_t n_;
  std::shared_ptr<const Plan<T>> half_;  // length n/2 for even n, else null
  std::shared_ptr<const Plan<T>> full_;  // length n for odd n
  std::vector<C> tw_;                    // exp(-2 pi i k / n), k <= n/4 + 1 ... n/2
};

template <class T>
std::shared_ptr<const RealPlan<T>> get_real_plan(int64_t n);

// The smallest product of 2, 3 and 5 that is >= n.
int64_t good_size(int64_t n);

}  // namespace ember::cpu::fft
