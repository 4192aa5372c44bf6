// The pointwise-unary family (acos ... digamma, the rounding functions, bitwise_not, isnan/isinf/
// isfinite, nan_to_num) against float64 references: std:: functions, Boost.Math for erfinv and
// digamma, and values printed by LibTorch 1.13 for the conventions (ties, poles, defaults).
#include <gtest/gtest.h>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
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

bool is_float(ScalarType t) { return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64; }

double erfinv_ref(double y) {
  if (std::fabs(y) > 1) return kNan;
  if (std::fabs(y) == 1) return std::copysign(kInf, y);
  return boost::math::erf_inv(y);
}

// LibTorch's conventions at the poles: +-inf at +-0 (sign of -x), NaN at negative integers.
double digamma_ref(double x) {
  if (x == 0) return std::copysign(kInf, -x);
  if (x < 0 && x == std::trunc(x)) return kNan;
  return boost::math::digamma(x);
}

enum class Family { ToFloat, Keep, FloatOnly, Integral, ToBool };

struct Case {
  const char* name;
  Family family;
  std::function<double(double)> ref;
  std::function<Tensor(const Tensor&)> fn;
  std::function<Tensor&(Tensor&)> inplace;  // null: no in-place form
  std::function<Tensor&(Tensor&, const Tensor&)> out;
};

std::vector<Case> cases() {
  using F = Family;
#define EMBER_CASE(op, fam, ref)                                                                               \
  Case {                                                                                                       \
#op, fam, ref, [](const Tensor& x) { return ember::op(x); }, [](Tensor& x) -> Tensor& { return x.op##_(); }, \
        [](Tensor& o, const Tensor& x) -> Tensor& { return ember::op##_out(o, x); } \
  }
  return {
      EMBER_CASE(acos, F::ToFloat, [](double x) { return std::acos(x); }),
      EMBER_CASE(acosh, F::ToFloat, [](double x) { return std::acosh(x); }),
      EMBER_CASE(asin, F::ToFloat, [](double x) { return std::asin(x); }),
      EMBER_CASE(asinh, F::ToFloat, [](double x) { return std::asinh(x); }),
      EMBER_CASE(atan, F::ToFloat, [](double x) { return std::atan(x); }),
      EMBER_CASE(atanh, F::ToFloat, [](double x) { return std::atanh(x); }),
      EMBER_CASE(tan, F::ToFloat, [](double x) { return std::tan(x); }),
      EMBER_CASE(sinh, F::ToFloat, [](double x) { return std::sinh(x); }),
      EMBER_CASE(cosh, F::ToFloat, [](double x) { return std::cosh(x); }),
      EMBER_CASE(expm1, F::ToFloat, [](double x) { return std::expm1(x); }),
      EMBER_CASE(log2, F::ToFloat, [](double x) { return std::log2(x); }),
      EMBER_CASE(log10, F::ToFloat, [](double x) { return std::log10(x); }),
      EMBER_CASE(reciprocal, F::ToFloat, [](double x) { return 1 / x; }),
      EMBER_CASE(erfinv, F::ToFloat, erfinv_ref),
      EMBER_CASE(lgamma, F::ToFloat, [](double x) { return std::lgamma(x); }),
      EMBER_CASE(digamma, F::ToFloat, digamma_ref),
      EMBER_CASE(ceil, F::Keep, [](double x) { return std::ceil(x); }),
      EMBER_CASE(floor, F::Keep, [](double x) { return std::floor(x); }),
      EMBER_CASE(trunc, F::Keep, [](double x) { return std::trunc(x); }),
      EMBER_CASE(round, F::Keep, [](double x) { return std::nearbyint(x); }),
      EMBER_CASE(frac, F::FloatOnly, [](double x) { return x - std::trunc(x); }),
      EMBER_CASE(bitwise_not, F::Integral, nullptr),
      Case{"isnan", F::ToBool, [](double x) { return double(std::isnan(x)); },
           [](const Tensor& x) { return ember::isnan(x); }, nullptr,
           [](Tensor& o, const Tensor& x) -> Tensor& { return ember::isnan_out(o, x); }},
      Case{"isinf", F::ToBool, [](double x) { return double(std::isinf(x)); },
           [](const Tensor& x) { return ember::isinf(x); }, nullptr,
           [](Tensor& o, const Tensor& x) -> Tensor& { return ember::isinf_out(o, x); }},
      Case{"isfinite", F::ToBool, [](double x) { return double(std::isfinite(x)); },
           [](const Tensor& x) { return ember::isfinite(x); }, nullptr, nullptr},
  };
#undef EMBER_CASE
}

bool accepts(const Case& c, ScalarType t) {
  switch (c.family) {
    case Family::FloatOnly:
      return is_float(t);
    case Family::Integral:
      return !is_float(t);
    case Family::Keep:
      return t != kBool;
    default:
      return true;
  }
}

ScalarType result_of(const Case& c, ScalarType t) {
  if (c.family == Family::ToFloat) return is_float(t) ? t : kFloat32;
  if (c.family == Family::ToBool) return kBool;
  return t;
}

// bitwise_not's reference depends on the dtype: ~x as stored (bool: !x).
std::function<double(double)> ref_for(const Case& c, ScalarType t) {
  if (c.family != Family::Integral) return c.ref;
  if (t == kBool) return [](double x) { return x == 0 ? 1.0 : 0.0; };
  if (t == kUInt8) return [](double x) { return double(static_cast<uint8_t>(~static_cast<uint8_t>(x))); };
  return [](double x) { return double(~static_cast<int64_t>(x)); };
}

std::vector<double> ref_of(const Tensor& x, const std::function<double(double)>& f) {
  std::vector<double> r;
  for (double v : values(x)) r.push_back(f(v));
  return r;
}

}  // namespace

TEST(CpuUnaryMath, EveryOpDtypeAndLayout) {
  for (const Case& c : cases()) {
    for (ScalarType dt : kDtypes) {
      if (!accepts(c, dt)) continue;
      const auto ref = ref_for(c, dt);
      for (Kind k : kKinds) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)) + " " + kind_name(k));
        const Tensor x = make({3, 5}, dt, k, 1);
        const Tensor y = c.fn(x);
        EXPECT_EQ(y.dtype(), result_of(c, dt));
        EXPECT_EQ(y.sizes(), x.sizes());
        expect_values(y, ref_of(x, ref), c.name);
        expect_values(c.fn(make({}, dt, k, 2)), ref_of(make({}, dt, k, 2), ref), "0-dim");
        EXPECT_EQ(c.fn(ember::empty({0, 3}, dt)).sizes(), IntArrayRef({0, 3}));
      }
    }
  }
}

// Long contiguous float32 inputs take the SLEEF loops, split over the threads: every element
// (the vector body and the padded tail) against the float64 reference.
TEST(CpuUnaryMath, LongFloat32InputsTakeTheVectorLoops) {
  const int64_t n = 70001;  // not a multiple of 8 or 16
  const Tensor x = ember::linspace(-4, 4, n, kFloat32);
  for (const Case& c : cases()) {
    if (c.family == Family::Integral) continue;
    SCOPED_TRACE(c.name);
    const auto got = values(c.fn(x));
    const auto xs = values(x);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      const double want = static_cast<float>(c.ref(xs[i]));
      const bool ok = std::isnan(want)   ? std::isnan(got[i])
                      : std::isinf(want) ? got[i] == want
                                         : std::fabs(got[i] - want) <= 4e-6 * std::max(1.0, std::fabs(want));
      if (!ok) {
        ++bad;
        ADD_FAILURE() << c.name << "(" << xs[i] << ") = " << got[i] << ", want " << want;
      }
    }
  }
}

TEST(CpuUnaryMath, InPlaceAndOut) {
  for (const Case& c : cases()) {
    for (ScalarType dt : {kFloat32, kFloat64, kInt32}) {
      if (!accepts(c, dt)) continue;
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)));
      const auto ref = ref_for(c, dt);
      if (c.inplace && result_of(c, dt) == dt) {
        Tensor x = make({3, 4}, dt, Kind::Transposed, 3);
        const auto want = ref_of(x, ref);
        const auto strides = std::vector<int64_t>(x.strides().begin(), x.strides().end());
        Tensor& r = c.inplace(x);
        EXPECT_EQ(r.unsafeGetTensorImpl(), x.unsafeGetTensorImpl());
        EXPECT_EQ(x.strides(), IntArrayRef(strides));
        expect_values(x, want, std::string(c.name) + "_");
      }
      if (c.out) {
        const Tensor src = make({3, 4}, dt, Kind::Sliced, 3);
        Tensor o = ember::empty({0}, result_of(c, dt));
        Tensor& ro = c.out(o, src);
        EXPECT_EQ(ro.unsafeGetTensorImpl(), o.unsafeGetTensorImpl());
        EXPECT_EQ(o.sizes(), IntArrayRef({3, 4}));
        expect_values(o, ref_of(src, ref), std::string(c.name) + "_out");
      }
    }
  }
}

// Values printed by LibTorch 1.13.
TEST(CpuUnaryMath, ConventionsAsLibTorch) {
  // round: half to even; round(x, decimals) scales by 10^|decimals| (in the tensor's dtype).
  expect_values(ember::round(ember::tensor({-2.5, -0.5, 0.5, 1.5, 2.5, 3.7})), {-2, -0.0, 0, 2, 2, 4}, "round");
  EXPECT_TRUE(std::signbit(values(ember::round(ember::tensor({-0.5})))[0]));
  expect_values(ember::round(ember::tensor({0.5, 1.5, 2.5, -2.5, -3.5}, kFloat64)), {0, 2, 2, -2, -4}, "round float64");
  expect_values(ember::round(ember::tensor({0.5, 1.5, 2.5, -0.5, 2.675}), 2), {0.5, 1.5, 2.5, -0.5, 2.68},
                "round, 2 decimals");
  expect_values(ember::round(ember::tensor({1234.5678, -1250.0, 1350.0}), -2), {1200, -1200, 1400},
                "round, -2 decimals");
  expect_values(ember::round(ember::tensor({125.0, 175.0, 1e30}), -1), {120, 180, 1e30}, "round, -1 decimals");
  expect_values(ember::round(ember::tensor({3.4e38f}), 2), {kInf}, "round overflows to inf as LibTorch");
  // Poles and domain edges.
  expect_values(ember::digamma(ember::tensor({0.0, -1.0, -0.0, -2.5, 1e-8, 1.0, 10.0, -1.5})),
                {-kInf, kNan, kInf, 1.10315664065, -100000000.577, -0.577215664902, 2.25175258907, 0.703156640645},
                "digamma");
  expect_values(ember::digamma(ember::tensor({-3, 0, 2})), {kNan, -kInf, 0.422784335098}, "digamma of int64");
  expect_values(ember::lgamma(ember::tensor({-3, 0, 2})), {kInf, kInf, 0}, "lgamma of int64");
  expect_values(ember::lgamma(ember::tensor({-0.5, -1.5, 1e30})), {1.26551212348, 0.860047015376, 6.80775527898e+31},
                "lgamma");
  // 0.999 in float32 is 0.99900001287 (LibTorch prints 2.3268 for it).
  expect_values(ember::erfinv(ember::tensor({-1.0, 1.0, 1.5, 0.0, 0.999})),
                {-kInf, kInf, kNan, 0, erfinv_ref(static_cast<float>(0.999))},
                "erfinv");
  expect_values(ember::reciprocal(ember::tensor({true, false})), {1, kInf}, "reciprocal of bool");
  expect_values(ember::acos(ember::tensor({true, false})), {0, M_PI / 2}, "acos of bool");
  expect_values(ember::frac(ember::tensor({-2.5, kInf, kNan})), {-0.5, kNan, kNan}, "frac");
  // Integers: the rounding functions are the identity, bitwise_not is ~x, isfinite is true.
  const Tensor i = ember::tensor({-3, 0, 2});
  for (const Tensor& r : {ember::floor(i), ember::ceil(i), ember::trunc(i), ember::round(i)}) {
    EXPECT_EQ(r.dtype(), kInt64);
    expect_values(r, {-3, 0, 2}, "rounding an int64 tensor");
  }
  expect_values(ember::bitwise_not(i), {2, -1, -3}, "bitwise_not int64");
  expect_values(ember::bitwise_not(ember::tensor({true, false})), {0, 1}, "bitwise_not bool");
  expect_values(ember::isfinite(i), {1, 1, 1}, "isfinite int64");
  expect_values(ember::isnan(i), {0, 0, 0}, "isnan int64");
  // isnan/isinf write 0/1 into an out= of any dtype.
  Tensor ol = ember::empty({0}, kInt64);
  ember::isinf_out(ol, ember::tensor({kNan, kInf, -kInf, 1.0}));
  expect_values(ol, {0, 1, 1, 0}, "isinf_out int64");
}

TEST(CpuUnaryMath, NanToNum) {
  const Tensor f = ember::tensor({kNan, kInf, -kInf, 1.0});
  const double fmax = std::numeric_limits<float>::max();
  expect_values(ember::nan_to_num(f), {0, fmax, -fmax, 1}, "float32 defaults");
  expect_values(ember::nan_to_num(f.to(kFloat64), 1.0, 2.0, 3.0), {1, 2, 3, 1}, "float64, given values");
  expect_values(ember::nan_to_num(f.to(kFloat16)), {0, 65504, -65504, 1}, "float16 defaults");
  expect_values(ember::nan_to_num(f.to(kBFloat16)), {0, 3.3895313892515355e38, -3.3895313892515355e38, 1},
                "bfloat16 defaults");
  // A replacement beyond the dtype's range becomes an infinity (LibTorch's cast).
  expect_values(ember::nan_to_num(f.to(kFloat16), 1e10, 1e10, -1e10), {kInf, kInf, -kInf, 1}, "float16, 1e10");
  expect_values(ember::nan_to_num(f, 1e300), {kInf, fmax, -fmax, 1}, "float32, 1e300");
  // Integers and bool are copied.
  expect_values(ember::nan_to_num(ember::tensor({-3, 0, 2}), 1e300), {-3, 0, 2}, "int64");
  EXPECT_EQ(ember::nan_to_num(ember::tensor({true, false})).dtype(), kBool);
  // In place, on a transposed tensor.
  Tensor t = ember::tensor({kNan, kInf, -kInf, 2.0}).reshape({2, 2}).t();
  t.nan_to_num_(5.0);
  expect_values(t, {5, -fmax, fmax, 2}, "nan_to_num_ transposed");
  Tensor od = ember::empty({0}, kFloat64);
  EXPECT_ERROR(TypeError, ember::nan_to_num_out(od, f), "[nan_to_num]",
               "dtype of out: float64 should be same as input: float32");
}

TEST(CpuUnaryMath, Errors) {
  const Tensor i = ember::tensor({-3, 0, 2});
  const Tensor f = ember::tensor({0.5});
  const Tensor b = ember::tensor({true});
  Tensor ic = i.clone();
  EXPECT_ERROR(TypeError, ic.acos_(), "[acos_]", "result type float32 can't be cast to the desired output type int64");
  EXPECT_ERROR(TypeError, ic.reciprocal_(), "[reciprocal_]", "can't be cast");
  EXPECT_EQ(values(ic), values(i));  // nothing written
  Tensor oi = ember::empty({0}, kInt64);
  EXPECT_ERROR(TypeError, ember::acos_out(oi, f), "[acos]", "can't be cast");
  EXPECT_ERROR(TypeError, ember::frac(i), "[frac]", "expected a floating point tensor", "int64");
  EXPECT_ERROR(TypeError, ember::round(i, 1), "[round]", "expected a floating point tensor", "int64");
  EXPECT_ERROR(TypeError, ember::bitwise_not(f), "[bitwise_not]", "integral or bool", "float32");
  EXPECT_ERROR(TypeError, ember::floor(b), "[floor]", "boolean inputs are not supported");
  EXPECT_ERROR(TypeError, ember::round(b), "[round]", "boolean inputs are not supported");
}

// The derivatives LibTorch 1.13 gives (values printed there), where finite differences say little:
// the rounding functions' zero gradient and digamma's polygamma(1).
TEST(CpuUnaryMath, Gradients) {
  Tensor x = ember::tensor({0.3, 2.7, -1.25}, kFloat64).requires_grad_();
  Tensor g = autograd::grad({ember::floor(x).sum() + ember::round(x, 1).sum()}, {x})[0];
  expect_values(g, {0, 0, 0}, "floor + round.decimals");
  g = autograd::grad({ember::digamma(x).sum()}, {x})[0];
  auto near = [](const Tensor& t, std::vector<double> want) {
    const auto got = values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9 * std::fabs(want[i])) << i;
  };
  near(g, {12.2453645449, 0.447212069032, 19.1818796475});  // polygamma(1, x)
  g = autograd::grad({ember::lgamma(x).sum()}, {x})[0];
  near(g, {-3.5025242222, 0.796783168991, 3.71413912021});  // digamma(x)
}
