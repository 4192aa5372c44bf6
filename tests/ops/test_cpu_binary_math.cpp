// The pointwise-binary family against float64 references and the values LibTorch 1.13 prints:
// Python's modulo and floor division (signs, zeros, infinities), integer division by zero, NaN
// propagation of maximum/minimum and of clamp's bounds, the dtype rules, and the activations.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

double py_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && (b < 0) != (m < 0)) m += b;
  return m;
}

struct BinaryCase {
  const char* name;
  std::function<double(double, double)> ref;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  bool ints;  // integer inputs keep their dtype (else: none, or the default float dtype for atan2)
};

std::vector<BinaryCase> cases() {
  return {
      {"atan2", [](double a, double b) { return std::atan2(a, b); },
       [](const Tensor& a, const Tensor& b) { return ember::atan2(a, b); }, false},
      {"maximum", [](double a, double b) { return std::max(a, b); },
       [](const Tensor& a, const Tensor& b) { return ember::maximum(a, b); }, true},
      {"minimum", [](double a, double b) { return std::min(a, b); },
       [](const Tensor& a, const Tensor& b) { return ember::minimum(a, b); }, true},
      {"fmod", [](double a, double b) { return std::fmod(a, b); },
       [](const Tensor& a, const Tensor& b) { return ember::fmod(a, b); }, true},
      {"remainder", py_mod, [](const Tensor& a, const Tensor& b) { return ember::remainder(a, b); }, true},
      {"div_trunc", [](double a, double b) { return std::trunc(a / b); },
       [](const Tensor& a, const Tensor& b) { return ember::div(a, b, "trunc"); }, true},
      {"div_floor", [](double a, double b) { return std::floor(a / b); },
       [](const Tensor& a, const Tensor& b) { return ember::div(a, b, "floor"); }, true},
      {"floor_divide", [](double a, double b) { return std::floor(a / b); },
       [](const Tensor& a, const Tensor& b) { return ember::floor_divide(a, b); }, true},
  };
}

}  // namespace

// Every op over the real dtypes and layouts (nonzero divisors), with broadcasting.
TEST(CpuBinaryMath, EveryOpDtypeAndLayout) {
  for (const BinaryCase& c : cases()) {
    for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64}) {
      for (Kind k : kKinds) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)) + " " + kind_name(k));
        const Tensor a = make({3, 5}, dt, k, 1), b = make({5}, dt, Kind::Contiguous, 2, /*nonzero=*/true);
        const Tensor y = c.fn(a, b);
        const bool integral = dt != kFloat16 && dt != kBFloat16 && dt != kFloat32 && dt != kFloat64;
        EXPECT_EQ(y.dtype(), integral && !c.ints ? kFloat32 : dt);
        expect_values(y, ref_binary(a, b, c.ref), c.name);
      }
    }
  }
}

// Values printed by LibTorch 1.13.
TEST(CpuBinaryMath, ModuloAndFloorDivisionAsPython) {
  const Tensor i = ember::tensor({-7, 0, 7}), j = ember::tensor({2, -3, -2});
  expect_values(ember::fmod(i, j), {-1, 0, 1}, "fmod int64");
  expect_values(ember::remainder(i, j), {1, 0, -1}, "remainder int64");
  expect_values(ember::div(i, j, "floor"), {-4, 0, -4}, "div floor int64");
  expect_values(ember::div(i, j, "trunc"), {-3, 0, -3}, "div trunc int64");
  EXPECT_EQ(ember::div(i, j, "floor").dtype(), kInt64);
  expect_values(ember::remainder(5, j), {1, -1, -1}, "remainder Scalar_Tensor");
  expect_values(ember::remainder(ember::tensor({-7, 0, 7, 5}), -2.5), {-2, 0, -0.5, 0}, "remainder by -2.5");
  expect_values(ember::fmod(ember::tensor({-7, 0, 7, 5}), 2.5), {-2, 0, 2, 0}, "fmod by 2.5");
  // Floats: signed zeros and infinities as LibTorch's div_floor_floating.
  const Tensor f = ember::tensor({-0.0, 0.0, 5.0, -5.0, kInf, -kInf, 1.0, -1.0, 1.0});
  const Tensor g = ember::tensor({3.0, -3.0, kInf, kInf, 2.0, 2.0, 0.0, kInf, -kInf});
  const auto got = values(ember::div(f, g, "floor"));
  const std::vector<double> want = {-0.0, -0.0, 0, -1, kNan, kNan, kInf, -1, -1};
  for (size_t k = 0; k < want.size(); ++k) {
    if (std::isnan(want[k])) {
      EXPECT_TRUE(std::isnan(got[k])) << k;
    } else {
      EXPECT_EQ(got[k], want[k]) << k;
      EXPECT_EQ(std::signbit(got[k]), std::signbit(want[k])) << k;
    }
  }
  expect_values(ember::div(ember::tensor({-7.5, 0.0, 7.0}), ember::tensor({2.0, -3.0, -0.0}), "trunc"),
                {-3, -0.0, -kInf}, "div trunc float");
  // The most negative integer by -1 wraps (no trap).
  const Tensor m = ember::tensor({std::numeric_limits<int64_t>::lowest()}, kInt64);
  expect_values(ember::fmod(m, -1), {0}, "fmod INT64_MIN, -1");
  const Tensor m32 = ember::full({1}, std::numeric_limits<int32_t>::lowest(), kInt32);
  expect_values(ember::div(m32, -1, "trunc"), {static_cast<double>(std::numeric_limits<int32_t>::lowest())},
                "div INT32_MIN, -1");
}

TEST(CpuBinaryMath, IntegerDivisionByZeroRaisesAndWritesNothing) {
  Tensor i = ember::tensor({-7, 0, 7});
  const Tensor z = ember::tensor({1, 0, 2});
  EXPECT_ERROR(ValueError, ember::fmod(i, z), "[fmod]", "ZeroDivisionError");
  EXPECT_ERROR(ValueError, ember::remainder(i, 0), "[remainder]", "ZeroDivisionError");
  EXPECT_ERROR(ValueError, ember::div(i, z, "floor"), "[div]", "ZeroDivisionError");
  EXPECT_ERROR(ValueError, ember::floor_divide(i, z), "ZeroDivisionError");
  EXPECT_ERROR(ValueError, i.div_(0, "trunc"), "[div_]", "ZeroDivisionError");
  EXPECT_ERROR(ValueError, ember::remainder(5, ember::tensor({true, false})), "ZeroDivisionError");
  expect_values(i, {-7, 0, 7}, "self unchanged");
  // Floats divide by zero as IEEE.
  expect_values(ember::fmod(ember::tensor({1.0}), 0), {kNan}, "fmod float by 0");
  // An empty broadcast result reads no divisor.
  EXPECT_EQ(ember::fmod(ember::empty({0, 3}, kInt64), z).sizes(), IntArrayRef({0, 3}));
}

TEST(CpuBinaryMath, MaximumMinimumAndClampPropagateNaN) {
  const Tensor f = ember::tensor({-7.5, 0.0, 7.0, kNan}), g = ember::tensor({2.0, -3.0, kNan, 1.0});
  expect_values(ember::maximum(f, g), {2, 0, kNan, kNan}, "maximum");
  expect_values(ember::minimum(f, g), {-7.5, -3, kNan, kNan}, "minimum");
  expect_values(ember::maximum(ember::tensor({-7, 0}), ember::tensor({0.5, -1.0})), {0.5, 0}, "maximum int64, float");
  EXPECT_EQ(ember::maximum(ember::tensor({true}), ember::tensor({false})).dtype(), kBool);
  // clamp with tensor bounds: NaN bounds give NaN, min above max gives max.
  expect_values(ember::clamp(f, ember::tensor({0.0, 1.0, 0.0, 0.0}), ember::tensor({-1.0, 2.0, 0.25, 1.0})),
                {-1, 1, 0.25, kNan}, "clamp.Tensor");
  expect_values(ember::clamp(f, ember::full({}, kNan), std::nullopt), {kNan, kNan, kNan, kNan}, "NaN min");
  expect_values(ember::clamp_max(f, kNan), {kNan, kNan, kNan, kNan}, "clamp_max NaN");
  const Tensor i = ember::tensor({-7, 0, 7, 5});
  EXPECT_EQ(ember::clamp(i, ember::tensor({0.5}), std::nullopt).dtype(), kFloat32);
  expect_values(ember::clamp_min(i, 0.5), {0.5, 0.5, 7, 5}, "clamp_min promotes");
  expect_values(ember::clamp_max(i, 2), {-7, 0, 2, 2}, "clamp_max int64");
  EXPECT_ERROR(ValueError, ember::clamp(f, Tensor(), Tensor()), "[clamp]",
               "at least one of 'min' or 'max' must not be None");
  EXPECT_ERROR(NotImplementedError, ember::clamp_min(ember::tensor({true}), true), "[clamp_min]", "bool");
}

TEST(CpuBinaryMath, BitwiseAndPowScalarBase) {
  const Tensor i = ember::tensor({-7, 0, 7, 5}), j = ember::tensor({2, -3, -2, 0});
  expect_values(ember::bitwise_and(i, j), {0, 0, 6, 0}, "and");
  expect_values(ember::bitwise_or(i, 1), {-7, 1, 7, 5}, "or Scalar");
  expect_values(ember::bitwise_or(3, i), {-5, 3, 7, 7}, "or Scalar_Tensor");
  const Tensor b = ember::tensor({true, false, true, false});
  EXPECT_EQ(ember::bitwise_xor(b, true).dtype(), kBool);
  EXPECT_EQ(ember::bitwise_xor(b, 1).dtype(), kInt64);
  EXPECT_EQ(ember::bitwise_and(i.to(kInt32), j.to(kUInt8)).dtype(), kInt32);
  EXPECT_ERROR(NotImplementedError, ember::bitwise_and(i.to(kFloat32), i), "[bitwise_and]", "float32");
  EXPECT_ERROR(NotImplementedError, ember::bitwise_and(i, 1.5), "[bitwise_and]", "float32");
  expect_values(ember::pow(2, ember::tensor({-7, 0, 7})), {0, 1, 128}, "2^int64");
  expect_values(ember::pow(-2, ember::tensor({-7, 0, 7, 5})), {0, 1, -128, -32}, "(-2)^int64");
  expect_values(ember::pow(2, b), {2, 1, 2, 1}, "2^bool");
  EXPECT_EQ(ember::pow(2, b).dtype(), kInt64);
  EXPECT_EQ(ember::pow(2.5, i).dtype(), kFloat32);
  EXPECT_ERROR(NotImplementedError, ember::pow(true, b), "[pow]", "bool");
}

TEST(CpuBinaryMath, Activations) {
  const Tensor f = ember::tensor({-7.5, 0.0, 0.5, kNan});
  expect_values(ember::hardtanh(f, 0.25, 0.75), {0.25, 0.25, 0.5, kNan}, "hardtanh");
  expect_values(ember::hardtanh(f, 2, -1), {-1, -1, -1, kNan}, "hardtanh min above max");
  expect_values(ember::hardtanh(ember::tensor({-7, 0, 7, 5}), -2, 3), {-2, 0, 3, 3}, "hardtanh int64");
  expect_values(ember::leaky_relu(f, 0.2), {-1.5, 0, 0.5, kNan}, "leaky_relu");
  // LibTorch 1.13 printed elu -1.9530, softplus 1.5295e-07 0.34657 0.65663, hardswish 0.2917,
  // hardsigmoid 0.5833, mish -0.0041 0.3752 for these inputs; the float64 formulas below agree.
  auto ref = [&](const std::function<double(double)>& fn) {
    std::vector<double> r;
    for (double x : values(f)) r.push_back(fn(x));
    return r;
  };
  expect_values(ember::elu(f, 1.0, 2.0, 0.5), ref([](double x) { return x > 0 ? 2 * x : 2 * std::expm1(0.5 * x); }),
                "elu");
  expect_values(ember::softplus(f, 2, 1),
                ref([](double x) { return 2 * x > 1 ? x : std::log1p(std::exp(2 * x)) / 2; }), "softplus");
  expect_values(ember::hardswish(f), ref([](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }),
                "hardswish");
  expect_values(ember::hardsigmoid(f), ref([](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }),
                "hardsigmoid");
  expect_values(ember::mish(f), ref([](double x) { return x * std::tanh(std::log1p(std::exp(x))); }), "mish");
  EXPECT_NEAR(values(ember::elu(f, 1.0, 2.0, 0.5))[0], -1.9530, 1e-4);
  EXPECT_NEAR(values(ember::mish(f))[2], 0.3752, 1e-4);
  EXPECT_ERROR(TypeError, ember::leaky_relu(ember::tensor({1})), "[leaky_relu]", "int64");
  EXPECT_ERROR(TypeError, ember::hardtanh(ember::tensor({true})), "[hardtanh]", "Bool inputs not supported");
  EXPECT_ERROR(ValueError, ember::hardtanh(ember::tensor({1}, kUInt8), -2, 3), "[hardtanh]", "unsigned");
  // In place, on a transposed tensor.
  Tensor t = ember::tensor({-2.0, -1.0, 1.0, 2.0}).reshape({2, 2}).t();
  ember::leaky_relu_(t, 0.5);
  expect_values(t, {-1.0, 1.0, -0.5, 2.0}, "leaky_relu_ transposed");
}

// The gradients LibTorch 1.13 gives where finite differences say little: ties of maximum and
// minimum split the gradient, the rounding modes give zeros, clamp's bounds at ties.
TEST(CpuBinaryMath, Gradients) {
  Tensor a = ember::tensor({1.0, 2.0, 3.0}, kFloat64).requires_grad_();
  Tensor b = ember::tensor({1.0, 3.0, 2.0}, kFloat64).requires_grad_();
  auto g = autograd::grad({ember::maximum(a, b).sum()}, {a, b});
  expect_values(g[0], {0.5, 0, 1}, "maximum d/dself");
  expect_values(g[1], {0.5, 1, 0}, "maximum d/dother");
  g = autograd::grad({ember::minimum(a, b).sum()}, {a, b});
  expect_values(g[0], {0.5, 1, 0}, "minimum d/dself");
  g = autograd::grad({ember::div(a, b, "floor").sum()}, {a, b});
  expect_values(g[0], {0, 0, 0}, "div floor");
  expect_values(g[1], {0, 0, 0}, "div floor other");
  g = autograd::grad({ember::remainder(a, b).sum()}, {a, b});
  expect_values(g[0], {1, 1, 1}, "remainder d/dself");
  expect_values(g[1], {-1, -0.0, -1}, "remainder d/dother = -floor(a / b)");
}

// Long contiguous float32 operands take the SLEEF loops (atan2, fmod), split over the threads, and
// a Scalar operand the broadcast form: every element against the float64 reference.
TEST(CpuBinaryMath, LongFloat32InputsTakeTheVectorLoops) {
  const int64_t n = 70001;
  const Tensor x = ember::linspace(-40, 40, n, kFloat32);
  const Tensor y = ember::linspace(3, -5, n, kFloat32);
  const auto xs = values(x), ys = values(y);
  struct Op {
    const char* name;
    std::function<Tensor()> fn;
    std::function<double(double, double)> ref;
    bool scalar;
  };
  for (const Op& op : std::vector<Op>{
           {"atan2", [&] { return ember::atan2(x, y); }, [](double a, double b) { return std::atan2(a, b); }, false},
           {"fmod", [&] { return ember::fmod(x, y); }, [](double a, double b) { return std::fmod(a, b); }, false},
           {"fmod scalar", [&] { return ember::fmod(x, 1.75); }, [](double a, double) { return std::fmod(a, 1.75); },
            true},
           {"maximum", [&] { return ember::maximum(x, y); }, [](double a, double b) { return std::max(a, b); }, false},
       }) {
    SCOPED_TRACE(op.name);
    const auto got = values(op.fn());
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      const double want = static_cast<float>(op.ref(xs[i], ys[i]));
      if (std::fabs(got[i] - want) > 4e-6 * std::max(1.0, std::fabs(want))) {
        ++bad;
        ADD_FAILURE() << op.name << "(" << xs[i] << ", " << ys[i] << ") = " << got[i] << ", want " << want;
      }
    }
  }
}
