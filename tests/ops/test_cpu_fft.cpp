// The FFT: the engine (every radix path, the generic odd radices and Bluestein) through
// _fft_c2c/_fft_r2c/_fft_c2r against a naive DFT computed in float64 (long double sums), and the
// ember::fft functions (LibTorch's spellings, defaults, norms, padding, errors).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "ember/ember.h"
#include "ember/fft.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

using cd = std::complex<double>;

// The DFT of x, sign -1 forward, +1 backward, unnormalised, in float64: the roots come from a
// table indexed by (jk mod n) (no large-argument error) and the sums are Kahan-free but short
// enough (n <= 4097) to stay well inside the float32 bounds and near 1e-15 relative for float64.
std::vector<cd> naive_dft(const std::vector<cd>& x, bool forward) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<cd> roots(static_cast<size_t>(n)), r(x.size());
  for (int64_t k = 0; k < n; ++k) {
    const double a = (forward ? -2.0 : 2.0) * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    roots[k] = cd(std::cos(a), std::sin(a));
  }
  for (int64_t k = 0; k < n; ++k) {
    cd acc = 0;
    for (int64_t j = 0, jk = 0; j < n; ++j, jk = (jk + k) % n) acc += x[j] * roots[jk];
    r[k] = acc;
  }
  return r;
}

std::vector<cd> random_signal(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cd> x(static_cast<size_t>(n));
  for (auto& v : x) v = cd(u(g), u(g));
  return x;
}

// A 1-d complex tensor of dtype dt holding x (rounded to dt's precision).
Tensor complex_tensor(const std::vector<cd>& x, ScalarType dt) {
  Tensor t = empty({static_cast<int64_t>(x.size())}, kComplex128);
  std::copy(x.begin(), x.end(), t.data_ptr<cd>());
  return t.to(dt);
}

std::vector<cd> read_complex(const Tensor& t) {
  const Tensor c = t.to(kComplex128).contiguous();
  const cd* p = c.data_ptr<cd>();
  return std::vector<cd>(p, p + c.numel());
}

// ||a - b|| / ||b|| (l2).
double rel_error(const std::vector<cd>& a, const std::vector<cd>& b) {
  EXPECT_EQ(a.size(), b.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    num += std::norm(a[i] - b[i]);
    den += std::norm(b[i]);
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

// The bound for an n-point transform: the precision's base times log2(n) (the error growth of
// a stable FFT), with Bluestein's three transforms of about 2n points inside the same bound.
double bound(ScalarType dt, int64_t n) {
  const double base = dt == kComplex128 || dt == kFloat64 ? 2e-15 : 5e-7;
  return base * std::max(1.0, std::log2(static_cast<double>(n)));
}

void check_c2c(int64_t n, ScalarType dt) {
  const auto x = random_signal(n, static_cast<uint64_t>(n) * 7 + 1);
  const Tensor t = complex_tensor(x, dt);
  const auto xr = read_complex(t);  // the input as rounded to dt
  for (bool forward : {true, false}) {
    const Tensor y = _fft_c2c(t, {0}, 0, forward);
    ASSERT_EQ(y.dtype(), dt);
    ASSERT_EQ(y.sizes(), IntArrayRef({n}));
    EXPECT_LE(rel_error(read_complex(y), naive_dft(xr, forward)), bound(dt, n))
        << "n = " << n << ", " << dt << (forward ? " forward" : " backward");
  }
}

std::vector<int64_t> test_sizes() {
  std::vector<int64_t> s;
  for (int64_t n = 1; n <= 64; ++n) s.push_back(n);
  // Primes (generic radices, then Bluestein), powers of two, 3^a 5^b, 7 * 11 * 13, a prime
  // times a power of two, a large prime factor with small ones.
  for (int64_t n : {67, 97, 101, 128, 243, 256, 375, 512, 625, 675, 1000, 1001, 1009, 1024, 2048, 2 * 1009, 4096, 4097})
    s.push_back(n);
  return s;
}

TEST(CpuFft, C2cMatchesNaiveDftFloat64) {
  for (int64_t n : test_sizes()) check_c2c(n, kComplex128);
}

TEST(CpuFft, C2cMatchesNaiveDftFloat32) {
  for (int64_t n : test_sizes()) check_c2c(n, kComplex64);
}

void check_real(int64_t n, ScalarType dt) {
  std::vector<cd> x = random_signal(n, static_cast<uint64_t>(n) + 11);
  for (auto& v : x) v = cd(v.real(), 0);
  const Tensor t = real(complex_tensor(x, dt == kFloat64 ? kComplex128 : kComplex64)).contiguous();
  ASSERT_EQ(t.dtype(), dt);
  const auto xr = read_complex(t);
  const auto ref = naive_dft(xr, true);
  const Tensor y = _fft_r2c(t, {0}, 0, true);
  ASSERT_EQ(y.sizes(), IntArrayRef({n / 2 + 1}));
  ASSERT_EQ(y.dtype(), dt == kFloat64 ? kComplex128 : kComplex64);
  EXPECT_LE(rel_error(read_complex(y), std::vector<cd>(ref.begin(), ref.begin() + n / 2 + 1)), bound(dt, n))
      << "r2c n = " << n;
  const Tensor full = _fft_r2c(t, {0}, 0, false);
  EXPECT_LE(rel_error(read_complex(full), ref), bound(dt, n)) << "r2c full n = " << n;
  // c2r of the onesided spectrum gives n x back (unnormalised).
  const Tensor back = _fft_c2r(y, {0}, 0, n);
  ASSERT_EQ(back.sizes(), IntArrayRef({n}));
  ASSERT_EQ(back.dtype(), dt);
  std::vector<cd> scaled;
  for (const cd& v : xr) scaled.push_back(v * static_cast<double>(n));
  EXPECT_LE(rel_error(read_complex(back), scaled), 2 * bound(dt, n)) << "c2r n = " << n;
}

TEST(CpuFft, RealTransformsMatchNaiveDft) {
  for (int64_t n : test_sizes()) {
    check_real(n, kFloat64);
    check_real(n, kFloat32);
  }
}

TEST(CpuFft, C2rIgnoresImaginaryPartsOfDcAndNyquist) {
  // LibTorch's c2r (pocketfft) reads only the real part of X_0 and, for even n, of X_{n/2}.
  for (int64_t n : {8, 9}) {
    const Tensor spec = complex(arange(n / 2 + 1, kFloat64), full({n / 2 + 1}, 0.5, kFloat64));
    Tensor fixed = spec.clone();
    imag(fixed).select(0, 0).fill_(0);
    if (n % 2 == 0) imag(fixed).select(0, n / 2).fill_(0);
    EXPECT_TRUE(allclose(_fft_c2r(spec, {0}, 2, n), _fft_c2r(fixed, {0}, 2, n)));
    // The reference: the Hermitian extension of the fixed spectrum, inverse-transformed.
    std::vector<cd> h(static_cast<size_t>(n));
    const auto f = read_complex(fixed);
    for (int64_t k = 0; k <= n / 2; ++k) h[k] = f[k];
    for (int64_t k = 1; k < (n + 1) / 2; ++k) h[n - k] = std::conj(f[k]);
    const auto ref = naive_dft(h, false);
    const auto got = read_complex(_fft_c2r(spec, {0}, 0, n));
    for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(got[j].real(), ref[j].real(), 1e-12) << n << " " << j;
  }
}

TEST(CpuFft, ManyDimsBatchesAndLayouts) {
  // A [4, 6, 10] signal transformed over dims {0, 2} equals the 1-d transforms one dim at a time,
  // from a transposed (non-contiguous) input too.
  const Tensor x = complex(randn({4, 6, 10}, kFloat64), randn({4, 6, 10}, kFloat64));
  const Tensor y = _fft_c2c(x, {0, 2}, 0, true);
  const Tensor step = _fft_c2c(_fft_c2c(x, {2}, 0, true), {0}, 0, true);
  EXPECT_TRUE(allclose(y, step, 1e-12, 1e-12));
  // Every line along dim 2 against the naive DFT.
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 6; ++j) {
      const auto line = read_complex(_fft_c2c(x, {2}, 0, true).select(0, i).select(0, j));
      EXPECT_LE(rel_error(line, naive_dft(read_complex(x.select(0, i).select(0, j)), true)), 1e-13);
    }
  const Tensor xt = x.transpose(0, 2);  // [10, 6, 4], strided
  EXPECT_TRUE(allclose(_fft_c2c(xt, {0, 2}, 0, true), y.transpose(0, 2), 1e-12, 1e-12));
  EXPECT_TRUE(_fft_c2c(xt, {0}, 0, true).is_contiguous());
  // r2c over two dims: the onesided last dim, then the full transform of the other.
  const Tensor r = randn({5, 8}, kFloat64);
  const Tensor r2 = _fft_r2c(r, {0, 1}, 0, true);
  EXPECT_EQ(r2.sizes(), IntArrayRef({5, 5}));
  EXPECT_TRUE(allclose(r2, _fft_c2c(r.to(kComplex128), {0, 1}, 0, true).slice(1, 0, 5), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(_fft_c2r(r2, {0, 1}, 2, 8), r, 1e-12, 1e-12));
  // r2c and c2r along a leading dim (lines gathered in blocks of adjacent ones, the last block
  // partial), against the last-dim transforms of the transpose.
  const Tensor q = randn({9, 37}, kFloat64);
  const Tensor qs = _fft_r2c(q, {0}, 0, true);
  EXPECT_EQ(qs.sizes(), IntArrayRef({5, 37}));
  EXPECT_TRUE(allclose(qs, _fft_r2c(q.t().contiguous(), {1}, 0, true).t(), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(_fft_c2r(qs, {0}, 2, 9), q, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(_fft_c2r(qs, {0}, 2, 8), _fft_c2r(qs.t().contiguous(), {1}, 2, 8).t(), 1e-12, 1e-12));
}

TEST(CpuFft, Normalization) {
  const Tensor x = complex(randn({12}, kFloat64), randn({12}, kFloat64));
  const Tensor none = _fft_c2c(x, {0}, 0, true);
  EXPECT_TRUE(allclose(_fft_c2c(x, {0}, 1, true), none / std::sqrt(12.0), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(_fft_c2c(x, {0}, 2, true), none / 12.0, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(_fft_c2c(none, {0}, 2, false), x, 1e-12, 1e-12));
}

TEST(CpuFft, OperatorErrors) {
  const Tensor r = randn({4});
  const Tensor c = r.to(kComplex64);
  EXPECT_ERROR(TypeError, _fft_c2c(r, {0}, 0, true), "[_fft_c2c] expects a complex input tensor, got float32");
  EXPECT_ERROR(TypeError, _fft_r2c(c, {0}, 0, true), "[_fft_r2c] expects a float32 or float64 input tensor");
  EXPECT_ERROR(TypeError, _fft_c2r(r, {0}, 0, 4), "[_fft_c2r] expects a complex input tensor");
  EXPECT_ERROR(ValueError, _fft_c2c(c, {0}, 3, true), "[_fft_c2c] normalization must be 0");
  EXPECT_ERROR(ValueError, _fft_c2r(c, {0}, 0, 0), "[_fft_c2r] Invalid number of data points (0) specified");
  EXPECT_ERROR(IndexError, _fft_c2c(c, {1}, 0, true), "[_fft_c2c] dimension out of range");
  EXPECT_ERROR(ValueError, _fft_r2c(r, {}, 0, true), "[_fft_r2c] expects at least one dim");
}

// ---- ember::fft ----------------------------------------------------------------------------------

TEST(CpuFft, FftFunctionsRoundTrip) {
  const Tensor x = randn({3, 16}, kFloat64);
  const Tensor X = fft::fft(x);
  EXPECT_EQ(X.dtype(), kComplex128);
  EXPECT_EQ(X.sizes(), IntArrayRef({3, 16}));
  EXPECT_TRUE(allclose(real(fft::ifft(X)), x, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(imag(fft::ifft(X)), zeros({3, 16}, kFloat64), 0, 1e-12));
  const Tensor R = fft::rfft(x);
  EXPECT_EQ(R.sizes(), IntArrayRef({3, 9}));
  EXPECT_TRUE(allclose(R, X.slice(1, 0, 9), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::irfft(R), x, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::irfft(R, 16, -1, "ortho"), fft::irfft(R) * 4.0, 1e-12, 1e-12));
  // Integer inputs compute in the default dtype.
  EXPECT_EQ(fft::fft(arange(8)).dtype(), kComplex64);
  EXPECT_EQ(fft::rfft(arange(8)).dtype(), kComplex64);
  // ifft of a real input, fft along dim 0.
  EXPECT_TRUE(allclose(fft::ifft(x), fft::ifft(x.to(kComplex128)), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::fft(x, std::nullopt, 0), fft::fft(x.t()).t(), 1e-12, 1e-12));
}

TEST(CpuFft, FftKnownValues) {
  // LibTorch 1.13: torch::fft::fft(torch::arange(5.0)) = [10, -2.5+3.4410i, -2.5+0.8123i, ...].
  const auto v = read_complex(fft::fft(arange(5.0, kFloat64)));
  ASSERT_EQ(v.size(), 5u);
  EXPECT_NEAR(v[0].real(), 10, 1e-12);
  EXPECT_NEAR(v[0].imag(), 0, 1e-12);
  EXPECT_NEAR(v[1].real(), -2.5, 1e-12);
  EXPECT_NEAR(v[1].imag(), 3.440954801177933, 1e-12);
  EXPECT_NEAR(v[2].imag(), 0.812299240582266, 1e-12);
  EXPECT_NEAR(v[4].imag(), -3.440954801177933, 1e-12);
}

TEST(CpuFft, LengthsNormsAndDims) {
  const Tensor x = randn({10}, kFloat64);
  // n pads with zeros or trims.
  EXPECT_TRUE(allclose(fft::fft(x, 16), fft::fft(cat({x, zeros({6}, kFloat64)})), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::fft(x, 4), fft::fft(x.slice(0, 0, 4)), 1e-12, 1e-12));
  EXPECT_EQ(fft::irfft(fft::rfft(x), 7).sizes(), IntArrayRef({7}));
  // norm: "backward" (default), "forward", "ortho".
  const Tensor X = fft::fft(x);
  EXPECT_TRUE(allclose(fft::fft(x, std::nullopt, -1, "backward"), X));
  EXPECT_TRUE(allclose(fft::fft(x, std::nullopt, -1, "forward"), X / 10.0, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::fft(x, std::nullopt, -1, "ortho"), X / std::sqrt(10.0), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(real(fft::ifft(X * 0.1, std::nullopt, -1, "forward")), x, 1e-12, 1e-12));
  EXPECT_ERROR(ValueError, fft::fft(x, std::nullopt, -1, "sideways"), "[fft] Invalid normalization mode: \"sideways\"");
  EXPECT_ERROR(ValueError, fft::fft(x, 0), "[fft] Invalid number of data points (0) specified");
  EXPECT_ERROR(TypeError, fft::rfft(X), "[rfft] expects a real input tensor, but got complex128");
  EXPECT_ERROR(IndexError, fft::fft(x, std::nullopt, 1), "[fft] dimension out of range");
}

TEST(CpuFft, ManyDimFunctions) {
  const Tensor x = randn({2, 6, 8}, kFloat64);
  const Tensor xc = x.to(kComplex128);
  EXPECT_TRUE(allclose(fft::fft2(x), _fft_c2c(xc, {1, 2}, 0, true), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::fftn(x), _fft_c2c(xc, {0, 1, 2}, 0, true), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::fftn(x, {4, 4}), fft::fft2(x.slice(1, 0, 4).slice(2, 0, 4)), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::fftn(x, std::nullopt, {0, 2}), _fft_c2c(xc, {0, 2}, 0, true), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(real(fft::ifft2(fft::fft2(x))), x, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(real(fft::ifftn(fft::fftn(x))), x, 1e-12, 1e-12));
  const Tensor R = fft::rfft2(x);
  EXPECT_EQ(R.sizes(), IntArrayRef({2, 6, 5}));
  EXPECT_TRUE(allclose(R, fft::fft2(x).slice(2, 0, 5), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::irfft2(R), x, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::irfftn(fft::rfftn(x)), x, 1e-12, 1e-12));
  EXPECT_EQ(fft::irfftn(fft::rfftn(x), {6, 7}).sizes(), IntArrayRef({2, 6, 7}));
  EXPECT_ERROR(ValueError, fft::fftn(x, {4, 4}, {0}),
               "[fftn] When given, dim and shape arguments must have the same length");
  EXPECT_ERROR(ValueError, fft::fftn(x, {1, 2, 3, 4}), "[fftn] Got shape with 4 values but input tensor only has 3");
}

TEST(CpuFft, HermitianFunctions) {
  // hfft of the onesided half of a Hermitian signal is its (real) forward transform; ihfft inverts.
  const Tensor x = randn({9}, kFloat64);
  const Tensor half = fft::ihfft(x);
  EXPECT_EQ(half.sizes(), IntArrayRef({5}));
  EXPECT_TRUE(allclose(half, fft::ifft(x).slice(0, 0, 5), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(fft::hfft(half, 9), x, 1e-12, 1e-12));
  // Without n: 2 (m - 1) points.
  EXPECT_EQ(fft::hfft(half).sizes(), IntArrayRef({8}));
}

TEST(CpuFft, FrequenciesAndShifts) {
  EXPECT_TRUE(equal(fft::fftfreq(5), tensor({0.0f, 0.2f, 0.4f, -0.4f, -0.2f})));
  EXPECT_TRUE(allclose(fft::fftfreq(4, 0.5, kFloat64), tensor({0.0, 0.5, -1.0, -0.5}, kFloat64)));
  EXPECT_TRUE(allclose(fft::rfftfreq(5, kFloat32), tensor({0.0f, 0.2f, 0.4f})));
  EXPECT_TRUE(allclose(fft::rfftfreq(4, 2.0, kFloat64), tensor({0.0, 0.125, 0.25}, kFloat64)));
  EXPECT_EQ(fft::fftfreq(3).dtype(), kFloat32);
  const Tensor a = arange(5);
  EXPECT_TRUE(equal(fft::fftshift(a), tensor({3L, 4L, 0L, 1L, 2L})));
  EXPECT_TRUE(equal(fft::ifftshift(fft::fftshift(a)), a));
  EXPECT_TRUE(equal(fft::ifftshift(a), tensor({2L, 3L, 4L, 0L, 1L})));
  const Tensor m = arange(6).reshape({2, 3});
  EXPECT_TRUE(equal(fft::fftshift(m), tensor({5L, 3L, 4L, 2L, 0L, 1L}).reshape({2, 3})));
  EXPECT_TRUE(equal(fft::fftshift(m, {1}), tensor({2L, 0L, 1L, 5L, 3L, 4L}).reshape({2, 3})));
}

TEST(CpuFft, LargeBatchedThreaded) {
  // Enough lines to split over the intra-op threads; each line checked against one at a time.
  const Tensor x = randn({64, 256}, kFloat32);
  const Tensor y = fft::rfft(x);
  for (int64_t i : {0, 17, 63}) EXPECT_TRUE(allclose(y.select(0, i), fft::rfft(x.select(0, i).clone()), 1e-5, 1e-5));
  const Tensor y2 = fft::fft2(x);
  EXPECT_TRUE(allclose(fft::ifft2(y2), x.to(kComplex64), 1e-4, 1e-5));
}

}  // namespace
