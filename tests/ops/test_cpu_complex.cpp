// Complex tensors on the cpu plugin (Note [Complex tensors] in ember/native/Rules.h): creation,
// conversions, arithmetic with LibTorch's type promotion, the views real/imag/view_as_real/
// view_as_complex, abs/angle/conj, reductions, printing, and the errors of ops without complex
// support. References are std::complex computations (values from LibTorch 1.13 where noted).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <sstream>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;

std::vector<cd> read(const Tensor& t) {
  const Tensor c = t.to(kComplex128).contiguous();
  return std::vector<cd>(c.data_ptr<cd>(), c.data_ptr<cd>() + c.numel());
}

Tensor make_c(const std::vector<cd>& v, ScalarType dt = kComplex128) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kComplex128);
  std::copy(v.begin(), v.end(), t.data_ptr<cd>());
  return t.to(dt);
}

void expect_near(const std::vector<cd>& a, const std::vector<cd>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i].real(), b[i].real(), tol) << i;
    EXPECT_NEAR(a[i].imag(), b[i].imag(), tol) << i;
  }
}

const std::vector<cd> kA = {{1.5, 0.25}, {-2, 3}, {0, -1}, {0.5, -0.5}};
const std::vector<cd> kB = {{2, -1}, {0.25, 0.5}, {-3, 2}, {1, 1}};

TEST(CpuComplex, Creation) {
  for (ScalarType dt : {kComplex64, kComplex128}) {
    const Tensor z = zeros({2, 3}, dt);
    EXPECT_EQ(z.dtype(), dt);
    EXPECT_TRUE(z.is_complex());
    expect_near(read(z), std::vector<cd>(6, 0), 0);
    expect_near(read(ones({3}, dt)), std::vector<cd>(3, 1), 0);
    expect_near(read(full({2}, Scalar(cd(1.5, -2)), dt)), std::vector<cd>(2, cd(1.5, -2)), 0);
  }
  // A complex fill value gives the default complex dtype.
  EXPECT_EQ(full({2}, Scalar(cd(1, 1))).dtype(), kComplex64);
  EXPECT_FALSE(ones({2}).is_complex());
  EXPECT_FALSE(is_complex(ones({2})));
}

TEST(CpuComplex, RandomParts) {
  // randn: each part normal with variance 1/2 (so E|z|^2 = 1); rand: each part uniform in [0, 1).
  const Tensor n = randn({20000}, kComplex128);
  const Tensor re = real(n), im = imag(n);
  EXPECT_NEAR(re.var().item<double>(), 0.5, 0.03);
  EXPECT_NEAR(im.var().item<double>(), 0.5, 0.03);
  EXPECT_NEAR(re.mean().item<double>(), 0.0, 0.03);
  const Tensor u = rand({1000}, kComplex64);
  EXPECT_EQ(u.dtype(), kComplex64);
  EXPECT_GE(real(u).min().item<float>(), 0.0f);
  EXPECT_LT(imag(u).max().item<float>(), 1.0f);
  EXPECT_NEAR(imag(u).mean().item<float>(), 0.5f, 0.05f);
  EXPECT_ERROR(TypeError, randn({2}, kInt32), "[randn] expects a floating point dtype");
}

TEST(CpuComplex, ComplexAndPolar) {
  const Tensor re = tensor({1.0f, -2.0f, 0.0f}), im = tensor({0.5f, 3.0f, -1.0f});
  const Tensor z = complex(re, im);
  EXPECT_EQ(z.dtype(), kComplex64);
  expect_near(read(z), {{1, 0.5}, {-2, 3}, {0, -1}}, 0);
  // Broadcast, float64 -> complex128.
  const Tensor zb = complex(ones({2, 1}, kFloat64), tensor({1.0, 2.0}, kFloat64));
  EXPECT_EQ(zb.dtype(), kComplex128);
  EXPECT_EQ(zb.sizes(), IntArrayRef({2, 2}));
  const Tensor p = polar(tensor({2.0}, kFloat64), tensor({std::numbers::pi / 2}, kFloat64));
  expect_near(read(p), {{0, 2}}, 1e-15);
  EXPECT_ERROR(TypeError, complex(re, im.to(kFloat64)), "[complex] expected object of scalar type float32",
               "argument 'imag'");
  EXPECT_ERROR(TypeError, complex(arange(3), arange(3)), "[complex] expected both inputs to be float32 or float64");
  EXPECT_ERROR(TypeError, polar(re, im.to(kFloat64)), "[polar]");
}

TEST(CpuComplex, Conversions) {
  // real -> complex is exact; complex -> real keeps the real part (LibTorch 1.13, after a warning).
  const Tensor r = tensor({1.25, -3.5}, kFloat64);
  expect_near(read(r.to(kComplex64)), {{1.25, 0}, {-3.5, 0}}, 0);
  const Tensor z = make_c(kA);
  EXPECT_TRUE(equal(z.to(kFloat32), tensor({1.5f, -2.0f, 0.0f, 0.5f})));
  EXPECT_TRUE(equal(z.to(kInt64), tensor({1L, -2L, 0L, 0L})));
  EXPECT_TRUE(equal(z.to(kBool), tensor({true, true, true, true})));
  expect_near(read(z.to(kComplex64).to(kComplex128)), kA, 0);  // these values are exact in float
  // Strided copies both ways.
  Tensor dst = zeros({4, 2}, kComplex64);
  dst.select(1, 1).copy_(z);
  expect_near(read(dst.select(1, 1)), kA, 0);
  expect_near(read(dst.select(1, 0)), std::vector<cd>(4, 0), 0);
}

TEST(CpuComplex, ArithmeticAndPromotion) {
  for (ScalarType dt : {kComplex64, kComplex128}) {
    const double tol = dt == kComplex64 ? 1e-6 : 1e-15;
    const Tensor a = make_c(kA, dt), b = make_c(kB, dt);
    std::vector<cd> add, sub, mul, div;
    for (size_t i = 0; i < kA.size(); ++i) {
      add.push_back(kA[i] + kB[i]);
      sub.push_back(kA[i] - kB[i]);
      mul.push_back(kA[i] * kB[i]);
      div.push_back(kA[i] / kB[i]);
    }
    expect_near(read(a + b), add, tol);
    expect_near(read(a - b), sub, tol);
    expect_near(read(a * b), mul, tol);
    expect_near(read(a / b), div, tol);
    expect_near(read(a.neg()), {{-1.5, -0.25}, {2, -3}, {0, 1}, {-0.5, 0.5}}, 0);
    expect_near(
        read(a.clone().add_(b, Scalar(cd(0, 1)))),
        [&] {
          std::vector<cd> r;
          for (size_t i = 0; i < kA.size(); ++i) r.push_back(kA[i] + cd(0, 1) * kB[i]);
          return r;
        }(),
        tol);
    // A complex Scalar.
    expect_near(
        read(a * Scalar(cd(0, 2))),
        [&] {
          std::vector<cd> r;
          for (const cd& v : kA) r.push_back(v * cd(0, 2));
          return r;
        }(),
        tol);
  }
  // LibTorch's promotion: float + complex64 -> complex64, double + complex64 -> complex128, a
  // 0-dim double with a complex64 tensor -> complex64, int + complex64 -> complex64.
  const Tensor c64 = ones({2}, kComplex64);
  EXPECT_EQ((ones({2}, kFloat32) + c64).dtype(), kComplex64);
  EXPECT_EQ((ones({2}, kFloat64) + c64).dtype(), kComplex128);
  EXPECT_EQ((ones({}, kFloat64) + c64).dtype(), kComplex64);
  EXPECT_EQ((ones({2}, kInt64) * c64).dtype(), kComplex64);
  EXPECT_EQ((ones({2}, kFloat32) * Scalar(cd(1, 1))).dtype(), kComplex64);
  expect_near(read(tensor({2.0f, 3.0f}) * make_c({{1, 1}, {0, -1}}, kComplex64)), {{2, 2}, {0, -3}}, 0);
  // x / 0 is NaN in both parts (LibTorch 1.13's formula; std::complex would give inf).
  const auto q = read(make_c({{1, 2}}) / make_c({{0, 0}}));
  EXPECT_TRUE(std::isnan(q[0].real()) && std::isnan(q[0].imag()));
  // Writing a complex result into a real tensor is refused.
  Tensor r = ones({2});
  EXPECT_ERROR(TypeError, r.add_(c64), "[add_] result type complex64 can't be cast to the desired output type float32");
}

TEST(CpuComplex, UnaryMath) {
  const Tensor a = make_c(kA);
  auto ref = [&](cd (*f)(const cd&)) {
    std::vector<cd> r;
    for (const cd& v : kA) r.push_back(f(v));
    return r;
  };
  expect_near(read(exp(a)), ref([](const cd& v) { return std::exp(v); }), 1e-14);
  expect_near(read(log(a)), ref([](const cd& v) { return std::log(v); }), 1e-14);
  expect_near(read(sqrt(a)), ref([](const cd& v) { return std::sqrt(v); }), 1e-14);
  expect_near(read(sin(a)), ref([](const cd& v) { return std::sin(v); }), 1e-14);
  expect_near(read(cos(a)), ref([](const cd& v) { return std::cos(v); }), 1e-14);
  expect_near(read(tanh(a)), ref([](const cd& v) { return std::tanh(v); }), 1e-14);
  EXPECT_EQ(exp(a.to(kComplex64)).dtype(), kComplex64);
  // pow by 2 is exact (LibTorch: (1.5+0.25i)^2 = 2.1875+0.75i); a general exponent via exp/log.
  expect_near(read(pow(a.to(kComplex64), 2)), ref([](const cd& v) { return v * v; }), 0);
  expect_near(read(pow(a, 0.5)), ref([](const cd& v) { return std::sqrt(v); }), 1e-15);
  expect_near(read(pow(a, Scalar(cd(1.5, 0.5)))), ref([](const cd& v) { return std::pow(v, cd(1.5, 0.5)); }), 1e-13);
  expect_near(
      read(pow(a, make_c(kB))),
      [&] {
        std::vector<cd> r;
        for (size_t i = 0; i < kA.size(); ++i) r.push_back(std::pow(kA[i], kB[i]));
        return r;
      }(),
      1e-13);
}

TEST(CpuComplex, AbsAngleConj) {
  for (ScalarType dt : {kComplex64, kComplex128}) {
    const ScalarType rdt = dt == kComplex64 ? kFloat32 : kFloat64;
    const Tensor a = make_c(kA, dt);
    const Tensor ab = abs(a), an = angle(a);
    EXPECT_EQ(ab.dtype(), rdt);
    EXPECT_EQ(an.dtype(), rdt);
    for (size_t i = 0; i < kA.size(); ++i) {
      EXPECT_NEAR(ab.to(kFloat64)[static_cast<int64_t>(i)].item<double>(), std::abs(kA[i]), 1e-6);
      EXPECT_NEAR(an.to(kFloat64)[static_cast<int64_t>(i)].item<double>(), std::arg(kA[i]), 1e-6);
    }
    const Tensor c = conj(a);
    EXPECT_EQ(c.dtype(), dt);
    expect_near(read(c), {{1.5, -0.25}, {-2, -3}, {0, 1}, {0.5, 0.5}}, 0);
    EXPECT_FALSE(c.is_same(a));  // materialised: no lazy conjugate view
    expect_near(read(conj_physical(a)), read(c), 0);
    Tensor d = a.clone();
    conj_physical_(d);
    expect_near(read(d), read(c), 0);
    EXPECT_TRUE(resolve_conj(c).is_same(c));
  }
  // Real inputs: conj is self, angle is pi for negatives (LibTorch: [3.1416, 0, 0] for [-1, 0, 2]).
  const Tensor r = tensor({-1L, 0L, 2L});
  EXPECT_TRUE(conj(r).is_same(r));
  EXPECT_TRUE(allclose(angle(r), tensor({static_cast<float>(std::numbers::pi), 0.0f, 0.0f})));
  EXPECT_EQ(angle(r).dtype(), kFloat32);
  EXPECT_TRUE(equal(conj_physical(r), r));
  EXPECT_TRUE(std::isnan(angle(tensor({NAN})).item<float>()));
  // abs of a complex input into a real out=; in place it is refused (LibTorch's message).
  Tensor out = empty({4}, kFloat32);
  abs_out(out, make_c(kA, kComplex64));
  EXPECT_NEAR(out[1].item<float>(), std::sqrt(13.0f), 1e-6);
  Tensor zc = make_c(kA, kComplex64);
  EXPECT_ERROR(TypeError, abs_(zc), "[abs_] In-place abs is not supported for complex tensors.");
}

TEST(CpuComplex, Views) {
  Tensor z = make_c(kA, kComplex64).reshape({2, 2});
  const Tensor v = view_as_real(z);
  EXPECT_EQ(v.dtype(), kFloat32);
  EXPECT_EQ(v.sizes(), IntArrayRef({2, 2, 2}));
  EXPECT_EQ(v.strides(), IntArrayRef({4, 2, 1}));
  EXPECT_TRUE(v._is_view());
  EXPECT_EQ(v.data_ptr(), z.data_ptr());
  EXPECT_EQ(v[0][1][1].item<float>(), 3.0f);
  // real and imag are views: LibTorch's strides [2] and storage offsets 0 and 1.
  const Tensor re = real(z.flatten()), im = imag(z.flatten());
  EXPECT_EQ(re.strides(), IntArrayRef({2}));
  EXPECT_EQ(re.storage_offset(), 0);
  EXPECT_EQ(im.storage_offset(), 1);
  EXPECT_TRUE(equal(re, tensor({1.5f, -2.0f, 0.0f, 0.5f})));
  EXPECT_TRUE(equal(im, tensor({0.25f, 3.0f, -1.0f, -0.5f})));
  // Writes through a view reach the complex tensor.
  imag(z).fill_(7);
  expect_near(read(z.flatten()), {{1.5, 7}, {-2, 7}, {0, 7}, {0.5, 7}}, 0);
  // view_as_complex of a sliced complex tensor's real view round-trips its geometry.
  const Tensor col = z.select(1, 1);
  const Tensor back = view_as_complex(view_as_real(col));
  EXPECT_EQ(back.sizes(), col.sizes());
  EXPECT_EQ(back.strides(), col.strides());
  EXPECT_EQ(back.storage_offset(), col.storage_offset());
  EXPECT_EQ(back.dtype(), kComplex64);
  const Tensor r = arange(6.0, kFloat64).reshape({3, 2});
  const Tensor c = view_as_complex(r);
  EXPECT_EQ(c.dtype(), kComplex128);
  expect_near(read(c), {{0, 1}, {2, 3}, {4, 5}}, 0);
  // real of a real tensor is itself.
  EXPECT_TRUE(real(r).is_same(r));
  // The errors (LibTorch's texts).
  EXPECT_ERROR(TypeError, imag(r), "[imag] is not implemented for tensors with non-complex dtypes.");
  EXPECT_ERROR(TypeError, view_as_real(r), "[view_as_real] is only supported for complex tensors");
  EXPECT_ERROR(ValueError, view_as_complex(ones({3})), "[view_as_complex] Tensor must have a last dimension of size 2");
  EXPECT_ERROR(ValueError, view_as_complex(ones({2, 3})), "last dimension of size 2");
  EXPECT_ERROR(ValueError, view_as_complex(ones({3, 2}).t().contiguous().t()),
               "[view_as_complex] Tensor must have a last dimension with stride 1");
  EXPECT_ERROR(ValueError, view_as_complex(ones({5}).slice(0, 1, 3)), "storage_offset divisible by 2");
  EXPECT_ERROR(TypeError, view_as_complex(ones({3, 2}, kInt32)), "float32 and float64");
}

TEST(CpuComplex, ComparisonsAndReductions) {
  const Tensor a = make_c(kA), b = make_c({{1.5, 0.25}, {-2, 2}, {0, -1}, {1, -0.5}});
  EXPECT_TRUE(equal(eq(a, b), tensor({true, false, true, false})));
  EXPECT_TRUE(equal(ne(a, b), tensor({false, true, false, true})));
  EXPECT_TRUE(equal(eq(a, Scalar(cd(0, -1))), tensor({false, false, true, false})));
  EXPECT_ERROR(NotImplementedError, lt(a, b), "[lt] not implemented for dtype complex128");
  // sum and mean (LibTorch: (1.5+0.25i) + (-2+3i) + (0-1i) = -0.5+2.25i).
  expect_near(read(make_c({{1.5, 0.25}, {-2, 3}, {0, -1}}, kComplex64).sum()), {{-0.5, 2.25}}, 1e-6);
  const Tensor m = make_c({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}}, kComplex64).reshape({2, 3});
  expect_near(read(m.sum()), {{36, 42}}, 0);
  expect_near(read(m.sum(1)), {{9, 12}, {27, 30}}, 0);
  expect_near(read(m.sum(0, true)), {{8, 10}, {12, 14}, {16, 18}}, 0);
  EXPECT_EQ(m.sum(0, true).sizes(), IntArrayRef({1, 3}));
  EXPECT_EQ(m.sum().dtype(), kComplex64);
  expect_near(read(m.mean()), {{6, 7}}, 1e-6);
  expect_near(read(m.mean(0)), {{4, 5}, {6, 7}, {8, 9}}, 1e-6);
  expect_near(read(m.t().sum(1)), {{8, 10}, {12, 14}, {16, 18}}, 0);  // strided input
  expect_near(read(ones({3}).sum(std::optional<ScalarType>(kComplex128))), {{3, 0}}, 0);
  EXPECT_ERROR(NotImplementedError, m.prod(), "[prod] not implemented for dtype complex64");
}

TEST(CpuComplex, UnsupportedOpsSayWhich) {
  const Tensor z = ones({2}, kComplex64);
  EXPECT_ERROR(NotImplementedError, sigmoid(z), "[sigmoid] not implemented for dtype complex64");
  EXPECT_ERROR(NotImplementedError, sign(z), "[sign] not implemented for dtype complex64");
  EXPECT_ERROR(NotImplementedError, relu(z), "[relu] not implemented for dtype complex64");
  EXPECT_ERROR(NotImplementedError, z.max(), "complex64");
}

TEST(CpuComplex, PrintsAsLibTorch) {
  // LibTorch 1.13 prints the real parts of a complex tensor (it converts to double for printing).
  std::ostringstream s;
  s << make_c({{1.5, 0.25}, {-2, 3}, {0, -1}}, kComplex64);
  EXPECT_EQ(s.str(), " 1.5000\n-2.0000\n 0.0000\n[ CPUComplexFloatType{3} ]");
  std::ostringstream s0;
  s0 << make_c({{1.5, 0.25}}, kComplex64).reshape({});
  EXPECT_EQ(s0.str(), "1.5\n[ CPUComplexFloatType{} ]");
}

}  // namespace
