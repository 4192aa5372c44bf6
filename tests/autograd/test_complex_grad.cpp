// Gradients through complex intermediates: the FFT operators' formulas (PyTorch's
// fft_r2c_backward, fft_c2r_backward, and _fft_c2c's inverse transform), view_as_real/
// view_as_complex, conj_physical and angle, each by finite differences (gradcheck) on real
// float64 inputs with real outputs (view_as_real of a complex result).
#include <gtest/gtest.h>

#include <vector>

#include "AutogradTestUtil.h"
#include "ember/ember.h"
#include "ember/fft.h"

using namespace ember;
using autograd::variable_list;

namespace {

Tensor rnd(std::vector<int64_t> shape, uint64_t seed) {
  Tensor t = randn(shape, ember::detail::createCPUGenerator(seed), kFloat64);
  t.requires_grad_(true);
  return t;
}

TEST(ComplexGrad, FftOperators) {
  for (int64_t norm : {0, 1, 2}) {
    // c2c forward and backward, over one and two dims.
    EXPECT_TRUE(autograd::gradcheck(
        [norm](const Tensor& x) { return view_as_real(_fft_c2c(view_as_complex(x), {0}, norm, true)); },
        {rnd({6, 2}, 1)}));
    EXPECT_TRUE(autograd::gradcheck(
        [norm](const Tensor& x) {
          return view_as_real(_fft_c2c(view_as_complex(x), {0, 1}, norm, false));
        },
        {rnd({3, 5, 2}, 2)}));
    // r2c onesided (even and odd lengths) and full.
    for (int64_t n : {6, 7}) {
      EXPECT_TRUE(autograd::gradcheck([norm](const Tensor& x) { return view_as_real(_fft_r2c(x, {1}, norm, true)); },
                                      {rnd({2, n}, 3)}))
          << n;
      EXPECT_TRUE(autograd::gradcheck(
          [norm](const Tensor& x) {
            return view_as_real(_fft_r2c(x, {0, 1}, norm, true));
          },
          {rnd({3, n}, 4)}))
          << n;
    }
    EXPECT_TRUE(autograd::gradcheck([norm](const Tensor& x) { return view_as_real(_fft_r2c(x, {0}, norm, false)); },
                                    {rnd({5}, 5)}));
    // c2r to even and odd lengths (the onesided input's DC and Nyquist imaginary parts are
    // ignored, so their gradient is zero, which the finite differences see too).
    for (int64_t n : {6, 7}) {
      EXPECT_TRUE(autograd::gradcheck([norm, n](const Tensor& x) { return _fft_c2r(view_as_complex(x), {0}, norm, n); },
                                      {rnd({n / 2 + 1, 2}, 6)}))
          << n;
    }
  }
}

TEST(ComplexGrad, PublicFftFunctionsAndViews) {
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return view_as_real(fft::fft(x)); }, {rnd({8}, 7)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return fft::irfft(fft::rfft(x) * 2.0, 9); }, {rnd({9}, 8)}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const Tensor& x) {
        return view_as_real(fft::rfft2(x, {4, 6}));
      },
      {rnd({3, 5}, 9)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return fft::fftshift(x.sin()); }, {rnd({5}, 10)}));
  // A real loss of a complex intermediate.
  EXPECT_TRUE(
      autograd::gradcheck([](const Tensor& x) { return view_as_real(fft::fft(x)).pow(2).sum(); }, {rnd({2, 5}, 11)}));
  // The views and conj.
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return view_as_real(view_as_complex(x).conj_physical()); },
                                  {rnd({4, 2}, 12)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return real(view_as_complex(x)) * imag(view_as_complex(x)); },
                                  {rnd({4, 2}, 13)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return angle(view_as_complex(x)); }, {rnd({4, 2}, 14)}));
  // complex() and polar() are composites of differentiable operators.
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& v) { return view_as_real(polar(v[0], v[1])); },
                                  {rnd({3}, 15), rnd({3}, 16)}));
}

TEST(ComplexGrad, Arithmetic) {
  // PyTorch's convention: a complex operand enters its partner's gradient conjugated.
  auto c = [](const Tensor& x) { return view_as_complex(x); };
  const Tensor a = rnd({3, 2}, 21), b = rnd({3, 2}, 22);
  EXPECT_TRUE(autograd::gradcheck([&](const variable_list& v) { return view_as_real(c(v[0]) * c(v[1])); }, {a, b}));
  EXPECT_TRUE(autograd::gradcheck([&](const variable_list& v) { return view_as_real(c(v[0]) / c(v[1])); }, {a, b}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const Tensor& x) { return view_as_real(c(x) * Scalar(std::complex<double>(0.5, -2))); }, {a}));
  for (auto f : {+[](const Tensor& z) { return z.exp(); }, +[](const Tensor& z) { return z.log(); },
                 +[](const Tensor& z) { return z.sqrt(); }, +[](const Tensor& z) { return z.sin(); },
                 +[](const Tensor& z) { return z.cos(); }, +[](const Tensor& z) { return z.tanh(); },
                 +[](const Tensor& z) { return z.neg(); }})
    EXPECT_TRUE(autograd::gradcheck([&](const Tensor& x) { return view_as_real(f(c(x))); }, {a}));
  EXPECT_TRUE(autograd::gradcheck([&](const Tensor& x) { return c(x).abs(); }, {a}));
  // A real tensor times a complex one: the real input's gradient is the real part.
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& v) { return view_as_real(v[0] * c(v[1])); }, {rnd({3}, 23), b}));
  EXPECT_TRUE(autograd::gradcheck([&](const Tensor& x) { return view_as_real(c(x).sum()); }, {a}));
}

}  // namespace
