// The cpu plugin's pointwise operators against float64 references computed with std::
// functions: every op, every dtype, contiguous and non-contiguous inputs, broadcasting, in-place
// aliasing, out= dtype rules, and the error messages. The raw-memory helpers are the same as in
// test_cpu_ops.cpp (values() reads through sizes and strides, never through the operators).
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

// Reference of an elementwise op of one input, in float64.
std::vector<double> ref_unary(const Tensor& a, const std::function<double(double)>& f) {
  std::vector<double> out;
  for (double v : values(a)) out.push_back(f(v));
  return out;
}

// Broadcast, expand and read three tensors (the references of where and addcmul).
std::vector<double> ref_ternary(const Tensor& a, const Tensor& b, const Tensor& c,
                                const std::function<double(double, double, double)>& f) {
  const auto shape = broadcast(broadcast(a.sizes(), b.sizes()), c.sizes());
  const auto va = values(a.expand(shape)), vb = values(b.expand(shape)), vc = values(c.expand(shape));
  std::vector<double> out;
  for (size_t i = 0; i < va.size(); ++i) out.push_back(f(va[i], vb[i], vc[i]));
  return out;
}

bool is_float(ScalarType t) { return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64; }

double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh_ref(double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }

enum class Family { ToFloat, Keep, FloatOnly, ToBool };

struct UnaryCase {
  const char* name;
  Family family;
  std::function<double(double)> ref;
  std::function<Tensor(const Tensor&)> fn;
  std::function<Tensor&(Tensor&)> inplace;
  std::function<Tensor&(Tensor&, const Tensor&)> out;
};

std::vector<UnaryCase> unary_cases() {
  using F = Family;
#define EMBER_UNARY_CASE(op, fam, ref)                                                                         \
  UnaryCase {                                                                                                  \
#op, fam, ref, [](const Tensor& x) { return ember::op(x); }, [](Tensor& x) -> Tensor& { return x.op##_(); }, \
        [](Tensor& o, const Tensor& x) -> Tensor& { return ember::op##_out(o, x); } \
  }
  return {
      EMBER_UNARY_CASE(neg, F::Keep, [](double x) { return -x; }),
      EMBER_UNARY_CASE(abs, F::Keep, [](double x) { return std::fabs(x); }),
      EMBER_UNARY_CASE(sign, F::Keep, [](double x) { return double((0 < x) - (x < 0)); }),
      EMBER_UNARY_CASE(exp, F::ToFloat, [](double x) { return std::exp(x); }),
      EMBER_UNARY_CASE(log, F::ToFloat, [](double x) { return std::log(x); }),
      EMBER_UNARY_CASE(log1p, F::ToFloat, [](double x) { return std::log1p(x); }),
      EMBER_UNARY_CASE(sqrt, F::ToFloat, [](double x) { return std::sqrt(x); }),
      EMBER_UNARY_CASE(rsqrt, F::ToFloat, [](double x) { return 1 / std::sqrt(x); }),
      EMBER_UNARY_CASE(sin, F::ToFloat, [](double x) { return std::sin(x); }),
      EMBER_UNARY_CASE(cos, F::ToFloat, [](double x) { return std::cos(x); }),
      EMBER_UNARY_CASE(tanh, F::ToFloat, [](double x) { return std::tanh(x); }),
      EMBER_UNARY_CASE(sigmoid, F::ToFloat, [](double x) { return 1 / (1 + std::exp(-x)); }),
      EMBER_UNARY_CASE(erf, F::ToFloat, [](double x) { return std::erf(x); }),
      EMBER_UNARY_CASE(logical_not, F::ToBool, [](double x) { return x == 0 ? 1.0 : 0.0; }),
      // Function-only in-place variants (LibTorch has no method for these).
      UnaryCase{"silu", F::FloatOnly, [](double x) { return x / (1 + std::exp(-x)); },
                [](const Tensor& x) { return ember::silu(x); }, [](Tensor& x) -> Tensor& { return ember::silu_(x); },
                [](Tensor& o, const Tensor& x) -> Tensor& { return ember::silu_out(o, x); }},
      UnaryCase{"gelu", F::FloatOnly, gelu_ref, [](const Tensor& x) { return ember::gelu(x); },
                [](Tensor& x) -> Tensor& { return ember::gelu_(x); },
                [](Tensor& o, const Tensor& x) -> Tensor& { return ember::gelu_out(o, x); }},
      UnaryCase{"gelu", F::FloatOnly, gelu_tanh_ref, [](const Tensor& x) { return ember::gelu(x, "tanh"); },
                [](Tensor& x) -> Tensor& { return ember::gelu_(x, "tanh"); },
                [](Tensor& o, const Tensor& x) -> Tensor& { return ember::gelu_out(o, x, "tanh"); }},
      UnaryCase{"relu", F::Keep, [](double x) { return x < 0 ? 0.0 : x; },
                [](const Tensor& x) { return ember::relu(x); }, [](Tensor& x) -> Tensor& { return x.relu_(); },
                nullptr},
  };
#undef EMBER_UNARY_CASE
}

// Whether op accepts dtype t, and the dtype of its result.
bool accepts(const UnaryCase& c, ScalarType t) {
  if (c.family == Family::FloatOnly) return is_float(t);
  if (t == kBool) return c.family != Family::Keep || std::string(c.name) == "sign";
  return true;
}
ScalarType result_of(const UnaryCase& c, ScalarType t) {
  switch (c.family) {
    case Family::ToFloat:
      return is_float(t) ? t : kFloat32;
    case Family::ToBool:
      return kBool;
    default:
      return t;
  }
}

}  // namespace

// ---- unary --------------------------------------------------------------------------------

TEST(CpuPointwise, UnaryEveryOpDtypeAndLayout) {
  for (const auto& c : unary_cases()) {
    for (ScalarType dt : kDtypes) {
      if (!accepts(c, dt)) continue;
      for (Kind k : kKinds) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)) + " " + kind_name(k));
        Tensor x = make({3, 5}, dt, k, 1);
        Tensor y = c.fn(x);
        EXPECT_EQ(y.dtype(), result_of(c, dt));
        EXPECT_EQ(y.sizes(), x.sizes());
        expect_values(y, ref_unary(x, c.ref), c.name);
        // A 0-dim and an empty input.
        expect_values(c.fn(make({}, dt, k, 2)), ref_unary(make({}, dt, k, 2), c.ref), "0-dim");
        EXPECT_EQ(c.fn(ember::empty({0, 3}, dt)).sizes(), IntArrayRef({0, 3}));
      }
    }
  }
}

TEST(CpuPointwise, UnaryOutputOfTransposedInputIsTransposed) {
  Tensor x = make({3, 4}, kFloat32, Kind::Transposed, 1);
  EXPECT_EQ(ember::exp(x).strides(), x.strides());
  EXPECT_EQ(ember::neg(x).strides(), x.strides());
}

TEST(CpuPointwise, UnaryInPlaceAndOut) {
  for (const auto& c : unary_cases()) {
    for (ScalarType dt : {kFloat16, kBFloat16, kFloat32, kFloat64}) {
      for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced}) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)) + " " + kind_name(k));
        Tensor x = make({3, 4}, dt, k, 3);
        const auto ref = ref_unary(x, c.ref);
        const auto strides = std::vector<int64_t>(x.strides().begin(), x.strides().end());
        const uint64_t v0 = x._version();
        Tensor& r = c.inplace(x);
        EXPECT_EQ(&r, &x);
        EXPECT_EQ(r.unsafeGetTensorImpl(), x.unsafeGetTensorImpl());
        EXPECT_GT(x._version(), v0);
        EXPECT_EQ(x.strides(), IntArrayRef(strides));
        expect_values(x, ref, std::string(c.name) + "_");
        if (!c.out) continue;
        // out= of float64, resized from the wrong shape. The dtype-keeping and floating-only
        // families take only the result's dtype (LibTorch's unary_op), the others cast into it.
        Tensor src = make({3, 4}, dt, k, 3);
        const bool same_dtype = c.family == Family::Keep || c.family == Family::FloatOnly;
        if (same_dtype && dt != kFloat64) {
          Tensor wrong = ember::empty({0}, kFloat64);
          const std::string dt_name(dtype_name(dt));  // alive for the whole check
          EXPECT_ERROR(TypeError, c.out(wrong, src), "Found dtype float64 but expected", dt_name.c_str());
          EXPECT_EQ(wrong.sizes(), IntArrayRef({0}));  // left as it was
        }
        const ScalarType odt = same_dtype ? dt : kFloat64;
        Tensor o = ember::empty({0}, odt);
        Tensor& ro = c.out(o, src);
        EXPECT_EQ(ro.unsafeGetTensorImpl(), o.unsafeGetTensorImpl());
        EXPECT_EQ(o.sizes(), IntArrayRef({3, 4}));
        EXPECT_EQ(o.dtype(), odt);
        const std::vector<double>& want = ref;
        // The result is computed in dt's compute type, then widened: compare at dt's precision.
        const auto got = values(o);
        for (size_t i = 0; i < got.size(); ++i) {
          const double w = as_dtype(want[i], dt);
          if (std::isnan(w))
            EXPECT_TRUE(std::isnan(got[i]));
          else if (std::isinf(w))
            EXPECT_EQ(got[i], w);
          else
            EXPECT_NEAR(got[i], w, tolerance(dt) * std::max(1.0, std::fabs(w)) * 2);
        }
      }
    }
  }
  // Integer inputs: float ops write float results into a float out=, and reject integer outputs.
  Tensor i = ember::arange(1, 5);
  Tensor o = ember::empty({4}, kFloat32);
  ember::sqrt_out(o, i);
  expect_values(o, {1, std::sqrt(2.0), std::sqrt(3.0), 2}, "sqrt_out of int64");
  Tensor oi = ember::empty({4}, kInt64);
  EXPECT_ERROR(TypeError, ember::exp_out(oi, i), "[exp]", "float32", "can't be cast", "int64");
  EXPECT_ERROR(TypeError, i.sqrt_(), "[sqrt_]", "float32", "int64");
  EXPECT_ERROR(TypeError, ember::gelu_out(oi, ember::ones({4})), "[gelu]", "int64");
  // neg/abs keep integers; logical_not writes 0/1 in the out= tensor's dtype.
  ember::neg_out(oi, i);
  expect_values(oi, {-1, -2, -3, -4}, "neg_out int64");
  Tensor of = ember::empty({4}, kFloat32);
  ember::logical_not_out(of, ember::tensor({0, 1, 0, 2}));
  expect_values(of, {1, 0, 1, 0}, "logical_not_out float32");
  Tensor ln = ember::tensor({0.0, 2.5});
  ln.logical_not_();
  EXPECT_EQ(ln.dtype(), kFloat32);
  expect_values(ln, {1, 0}, "logical_not_ keeps dtype");
}

TEST(CpuPointwise, UnarySpecialValuesAndWrap) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Tensor x = ember::tensor({-inf, -1.0, -0.0, 0.0, 1.0, inf, nan}).to(kFloat32);
  expect_values(ember::exp(x), ref_unary(x, [](double v) { return std::exp(v); }), "exp specials");
  expect_values(ember::log(x), ref_unary(x, [](double v) { return std::log(v); }), "log specials");
  expect_values(ember::sqrt(x), ref_unary(x, [](double v) { return std::sqrt(v); }), "sqrt specials");
  expect_values(ember::rsqrt(x), ref_unary(x, [](double v) { return 1 / std::sqrt(v); }), "rsqrt specials");
  expect_values(ember::sigmoid(x), ref_unary(x, [](double v) { return 1 / (1 + std::exp(-v)); }), "sigmoid");
  EXPECT_TRUE(std::isnan(values(ember::relu(x))[6]));
  // Integer negation and abs wrap, as two's complement.
  Tensor m = ember::full({2}, -128, kInt8);
  expect_values(ember::neg(m), {-128, -128}, "neg int8 min");
  expect_values(ember::abs(m), {-128, -128}, "abs int8 min");
  expect_values(ember::neg(ember::full({1}, 3, kUInt8)), {253}, "neg uint8");
  // Large contiguous float32 (the vectorized fast path) against double.
  Tensor big = ember::arange(-20, 20, 0.04);
  for (const auto& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    expect_values(c.fn(big), ref_unary(big, c.ref), "large");
  }
}

TEST(CpuPointwise, UnaryErrors) {
  Tensor b = ember::ones({2}, kBool), i = ember::ones({2}, kInt64);
  EXPECT_ERROR(TypeError, ember::neg(b), "[neg]", "bool", "logical_not()");
  EXPECT_ERROR(TypeError, b.neg_(), "[neg_]", "bool");
  EXPECT_ERROR(TypeError, ember::abs(b), "[abs]", "bool");
  EXPECT_ERROR(TypeError, ember::relu(b), "[relu]", "bool");
  EXPECT_ERROR(TypeError, ember::gelu(i), "[gelu]", "'self'", "floating", "int64");
  EXPECT_ERROR(TypeError, ember::silu(i), "[silu]", "'self'", "floating");
  EXPECT_ERROR(ValueError, ember::gelu(ember::ones({2}), "fast"), "[gelu]", "'approximate'", "'none' or 'tanh'",
               "fast");
  EXPECT_ERROR(ValueError, ember::where(Tensor(), i, i), "[where]", "defined", "'condition'");
  EXPECT_ERROR(ValueError, ember::addcmul(i, Tensor(), i), "[addcmul]", "defined", "'tensor1'");
  EXPECT_ERROR(NotImplementedError, ember::sigmoid(ember::empty({2}, kComplex64)), "[sigmoid]", "complex64");
  Tensor ex = ember::zeros({1, 3}).expand({2, 3});
  EXPECT_ERROR(ValueError, ex.exp_(), "[exp_]", "more than one element");
}

// ---- pow, clamp ---------------------------------------------------------------------------

double powi_ref(double a, double b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? (static_cast<int64_t>(b) % 2 == 0 ? 1 : -1) : 0;
  return std::pow(a, b);
}

TEST(CpuPointwise, PowEveryDtypeLayoutAndBroadcast) {
  for (ScalarType dt : kDtypes) {
    if (dt == kBool) continue;
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4}, dt, k, 1);
      Tensor e = make({4}, dt, Kind::Sliced, 2);
      auto f = is_float(dt) ? std::function<double(double, double)>([](double x, double y) { return std::pow(x, y); })
                            : std::function<double(double, double)>(powi_ref);
      Tensor r = ember::pow(a, e);
      EXPECT_EQ(r.dtype(), dt);
      expect_values(r, ref_binary(a, e, f), "pow tensor");
      expect_values(a.pow(2), ref_unary(a, [](double x) { return x * x; }), "pow 2");
      Tensor h = ember::pow(a, 0.5);
      EXPECT_EQ(h.dtype(), is_float(dt) ? dt : kFloat32);
      expect_values(h, ref_unary(a, [](double x) { return std::sqrt(x); }), "pow 0.5");
    }
  }
  // Promotion, in place, out=.
  Tensor i = ember::arange(1, 4);
  expect_values(ember::pow(i, ember::full({3}, 2.0)), {1, 4, 9}, "int64 ** float32");
  Tensor f = ember::full({3}, 2.0);
  Tensor& r = f.pow_(i);
  EXPECT_EQ(r.unsafeGetTensorImpl(), f.unsafeGetTensorImpl());
  expect_values(f, {2, 4, 8}, "pow_ tensor");
  f.pow_(0.5);
  expect_values(f, {std::sqrt(2.0), 2, std::sqrt(8.0)}, "pow_ scalar");
  Tensor o = ember::empty({3}, kFloat64);
  // pow(Tensor, Scalar) is a unary op on self in LibTorch: out= of the result's dtype only.
  EXPECT_ERROR(TypeError, ember::pow_out(o, i, 3), "[pow] Found dtype float64 but expected int64");
  Tensor ol = ember::empty({3}, kInt64);
  ember::pow_out(ol, i, 3);
  expect_values(ol, {1, 8, 27}, "pow_out scalar");
  ember::pow_out(o, i, i);
  expect_values(o, {1, 4, 27}, "pow_out tensor");
  EXPECT_ERROR(ValueError, ember::pow(i, -1), "[pow]", "negative integer powers");
  EXPECT_ERROR(TypeError, i.pow_(0.5), "[pow_]", "float32", "int64");
  Tensor oi = ember::empty({3}, kInt32);
  EXPECT_ERROR(TypeError, ember::pow_out(oi, f, 2), "[pow]", "float32", "int32");
  Tensor bt = ember::ones({2}, kBool);
  EXPECT_ERROR(NotImplementedError, ember::pow(bt, bt), "[pow]", "bool");
  EXPECT_ERROR(ValueError, ember::pow(ember::ones({2, 3}), ember::ones({4})), "[pow]", "[2, 3]", "[4]");
}

TEST(CpuPointwise, ClampEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes) {
    if (dt == kBool) continue;
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4}, dt, k, 1);
      expect_values(ember::clamp(a, 1, 3), ref_unary(a, [](double x) { return std::min(std::max(x, 1.0), 3.0); }),
                    "clamp");
      expect_values(ember::clamp(a, std::nullopt, 2), ref_unary(a, [](double x) { return std::min(x, 2.0); }),
                    "clamp max");
      expect_values(a.clamp(1), ref_unary(a, [](double x) { return std::max(x, 1.0); }), "clamp min");
      Tensor c = ember::empty({3, 4}, dt);
      c.copy_(a);
      Tensor& r = ember::clamp_(c, 0, 2);
      EXPECT_EQ(r.unsafeGetTensorImpl(), c.unsafeGetTensorImpl());
      expect_values(c, ref_unary(a, [](double x) { return std::min(std::max(x, 0.0), 2.0); }), "clamp_");
    }
  }
  // A floating bound promotes an integer tensor; NaN stays NaN; min > max gives max.
  Tensor i = ember::arange(0, 4);
  Tensor f = ember::clamp(i, 0.5, 2.5);
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {0.5, 1, 2, 2.5}, "int64 clamped by floats");
  expect_values(ember::clamp(ember::tensor({std::nan(""), 5.0}), 0, 1), {std::nan(""), 1}, "NaN");
  expect_values(ember::clamp(ember::tensor({0.0, 5.0}), 3, 1), {1, 1}, "min > max");
  Tensor o = ember::empty({4}, kFloat64);
  ember::clamp_out(o, i, 1, 2);
  expect_values(o, {1, 1, 2, 2}, "clamp_out");
  EXPECT_ERROR(ValueError, ember::clamp(i, std::optional<Scalar>(), std::optional<Scalar>()), "[clamp]", "'min'",
               "'max'", "None");
  EXPECT_ERROR(TypeError, i.clamp_(0.5), "[clamp_]", "float32", "int64");
  Tensor oi = ember::empty({4}, kInt32);
  EXPECT_ERROR(TypeError, ember::clamp_out(oi, ember::ones({4}), 0, 1), "[clamp]", "float32", "int32");
  EXPECT_ERROR(NotImplementedError, ember::clamp(ember::ones({2}, kBool), false, true), "[clamp]", "bool");
}

// ---- where, masked_fill -------------------------------------------------------------------

TEST(CpuPointwise, WhereEveryDtypeLayoutPromotionAndBroadcast) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor cond = make({3, 1}, kBool, Kind::Contiguous, 1);
      Tensor cond2 = make({3, 4}, kBool, k, 2);
      Tensor a = make({3, 4}, dt, k, 3);
      Tensor b = make({4}, dt, Kind::Sliced, 4);
      auto f = [](double c, double x, double y) { return c != 0 ? x : y; };
      Tensor r = ember::where(cond, a, b);
      EXPECT_EQ(r.dtype(), dt);
      expect_values(r, ref_ternary(cond, a, b, f), "where broadcast cond");
      expect_values(ember::where(cond2, a, b), ref_ternary(cond2, a, b, f), "where");
      expect_values(a.where(cond2, b), ref_ternary(cond2, a, b, f), "where method");
      for (ScalarType dt2 : kDtypes) {
        Tensor b2 = make({4}, dt2, Kind::Contiguous, 5);
        Tensor r2 = ember::where(cond2, a, b2);
        EXPECT_EQ(r2.dtype(), torch_promote(dt, dt2));
        expect_values(r2, ref_ternary(cond2, a, b2, f), "where promoted");
      }
    }
  }
  Tensor o = ember::empty({0}, kFloat64);
  ember::where_out(o, ember::tensor({true, false}), ember::ones({2}), ember::zeros({2}));
  expect_values(o, {1, 0}, "where_out");
  EXPECT_ERROR(TypeError, ember::where(ember::ones({2}), ember::ones({2}), ember::ones({2})), "[where]", "'condition'",
               "bool", "float32");
  Tensor oi = ember::empty({2}, kInt64);
  EXPECT_ERROR(TypeError, ember::where_out(oi, ember::ones({2}, kBool), ember::ones({2}), ember::ones({2})), "[where]",
               "float32", "int64");
  EXPECT_ERROR(ValueError, ember::where(ember::ones({3}, kBool), ember::ones({2}), ember::ones({2})), "[where]", "[3]",
               "[2]");
}

TEST(CpuPointwise, MaskedFillEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4}, dt, k, 1);
      Tensor mask = make({4}, kBool, Kind::Sliced, 2);
      auto ref = ref_binary(a, mask, [](double x, double m) { return m != 0 ? 1.0 : x; });
      Tensor r = ember::masked_fill(a, mask, 1);
      EXPECT_EQ(r.dtype(), dt);
      expect_values(r, ref, "masked_fill");
      if (k == Kind::Expanded) a = a.contiguous();  // in place needs distinct elements
      Tensor& ri = a.masked_fill_(mask, true);
      EXPECT_EQ(ri.unsafeGetTensorImpl(), a.unsafeGetTensorImpl());
      expect_values(a, ref, "masked_fill_");
    }
  }
  // The functional form broadcasts self against the mask; a float value on a float16 tensor.
  Tensor r = ember::masked_fill(ember::arange(0, 3), ember::tensor({{true, false, false}, {false, false, true}}), -1);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  expect_values(r, {-1, 1, 2, 0, 1, -1}, "masked_fill broadcast self");
  Tensor h = ember::zeros({2}, kFloat16);
  h.masked_fill_(ember::tensor({true, false}), 2.5);
  expect_values(h, {2.5, 0}, "float16");
  EXPECT_ERROR(TypeError, ember::masked_fill(ember::ones({2}), ember::ones({2}), 0), "[masked_fill]", "'mask'", "bool",
               "float32");
  EXPECT_ERROR(ValueError, ember::ones({2}, kUInt8).masked_fill_(ember::ones({2}, kBool), 300), "[masked_fill_]", "300",
               "overflow");
  EXPECT_ERROR(ValueError, ember::ones({2}).masked_fill_(ember::ones({3, 2}, kBool), 0), "[masked_fill_]", "[2]",
               "[3, 2]");
}

// ---- threshold_backward (relu's backward) ---------------------------------------------------

TEST(CpuPointwise, ThresholdBackwardPassesGradWhereSelfIsAboveThreshold) {
  const Tensor g = ember::tensor({1.0, 2.0, 3.0, 4.0, 5.0}), x = ember::tensor({-1.0, 0.0, 0.5, 1.0, 2.0});
  EXPECT_TRUE(ember::equal(ember::threshold_backward(g, x, 0), ember::tensor({0.0, 0.0, 3.0, 4.0, 5.0})));
  EXPECT_TRUE(ember::equal(ember::threshold_backward(g, x, 1), ember::tensor({0.0, 0.0, 0.0, 0.0, 5.0})));
  // A long, strided operand takes the vector loop and its tail: against where().
  const Tensor big = ember::randn({67, 129}), gb = ember::randn({129, 67}).t();
  EXPECT_TRUE(ember::equal(ember::threshold_backward(gb, big, 0.1),
                           ember::where(big > 0.1, gb, ember::zeros({}, ember::kFloat32))));
  Tensor out = ember::empty({5}, ember::kFloat64);
  ember::threshold_backward_out(out, g.to(ember::kFloat64), x, 0);
  EXPECT_TRUE(ember::equal(out, ember::tensor({0.0, 0.0, 3.0, 4.0, 5.0}, ember::kFloat64)));
  EXPECT_ERROR(TypeError, ember::threshold_backward(g > 0, x > 0, 0), "[threshold_backward]", "bool");
}

// ---- lerp, addcmul ------------------------------------------------------------------------

TEST(CpuPointwise, LerpFloatingDtypesAndBroadcast) {
  for (ScalarType dt : {kFloat16, kBFloat16, kFloat32, kFloat64}) {
    for (Kind k : kKinds) {
      for (double w : {0.0, 0.3, 0.7, 1.0}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k) + " " + std::to_string(w));
        Tensor a = make({3, 4}, dt, k, 1);
        Tensor e = make({4}, dt, Kind::Sliced, 2);
        auto ref = ref_binary(a, e, [w](double x, double y) { return x + w * (y - x); });
        expect_values(ember::lerp(a, e, w), ref, "lerp");
        Tensor o = ember::empty({3, 4}, dt);
        ember::lerp_out(o, a, e, w);
        expect_values(o, ref, "lerp_out");
        if (k == Kind::Expanded) a = a.contiguous();
        Tensor& r = a.lerp_(e, w);
        EXPECT_EQ(r.unsafeGetTensorImpl(), a.unsafeGetTensorImpl());
        expect_values(a, ref, "lerp_");
      }
    }
  }
  EXPECT_ERROR(TypeError, ember::lerp(ember::ones({2}), ember::ones({2}, kFloat64), 0.5), "[lerp]", "'end'", "float32",
               "float64");
  EXPECT_ERROR(TypeError, ember::lerp(ember::ones({2}, kInt64), ember::ones({2}, kInt64), 0.5), "[lerp]", "floating",
               "int64");
  EXPECT_ERROR(ValueError, ember::ones({2}).lerp_(ember::ones({3, 2}), 0.5), "[lerp_]", "[2]", "[3, 2]");
}

TEST(CpuPointwise, AddcmulEveryDtypeLayoutAndBroadcast) {
  for (ScalarType dt : kDtypes) {
    if (dt == kBool) continue;
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4}, dt, k, 1);
      Tensor t1 = make({4}, dt, Kind::Sliced, 2);
      Tensor t2 = make({3, 1}, dt, Kind::Contiguous, 3);
      auto ref = ref_ternary(a, t1, t2, [](double x, double y, double z) { return x + 2 * y * z; });
      Tensor r = ember::addcmul(a, t1, t2, 2);
      EXPECT_EQ(r.dtype(), dt);
      expect_values(r, ref, "addcmul");
      expect_values(a.addcmul(t1, t2), ref_ternary(a, t1, t2, [](double x, double y, double z) { return x + y * z; }),
                    "addcmul value=1");
      if (k == Kind::Expanded) a = a.contiguous();
      Tensor& ri = a.addcmul_(t1, t2, 2);
      EXPECT_EQ(ri.unsafeGetTensorImpl(), a.unsafeGetTensorImpl());
      expect_values(a, ref, "addcmul_");
    }
  }
  Tensor i = ember::arange(0, 3, kInt32);
  Tensor r = ember::addcmul(i, ember::full({3}, 0.5), i);
  EXPECT_EQ(r.dtype(), kFloat32);
  expect_values(r, {0, 1.5, 3}, "promoted");
  Tensor o = ember::empty({3}, kFloat64);
  ember::addcmul_out(o, i, i, i, 3);
  expect_values(o, {0, 4, 14}, "addcmul_out");
  EXPECT_ERROR(TypeError, i.addcmul_(ember::ones({3}), i), "[addcmul_]", "float32", "int32");
  EXPECT_ERROR(NotImplementedError,
               ember::addcmul(ember::ones({2}, kBool), ember::ones({2}, kBool), ember::ones({2}, kBool)), "[addcmul]",
               "bool");
  EXPECT_ERROR(ValueError, ember::addcmul(ember::ones({2}), ember::ones({3}), ember::ones({2})), "[addcmul]", "[2]",
               "[3]");
}

// The out= kernels write into `out` itself: a non-contiguous out of the right shape keeps its
// storage and strides; an empty one is resized in place (same TensorImpl).
TEST(CpuPointwise, OutWritesIntoOutItself) {
  const Tensor a = ember::arange(1, 13, kFloat32).view({3, 4}), b = ember::full({4}, 2.0);
  const Tensor cond = ember::tensor({true, false, true, false});
  struct Case {
    const char* name;
    std::function<Tensor&(Tensor&)> out;
    Tensor want;
  };
  const std::vector<Case> cases = {
      {"pow tensor", [&](Tensor& o) -> Tensor& { return ember::pow_out(o, a, b); }, ember::pow(a, b)},
      {"pow scalar", [&](Tensor& o) -> Tensor& { return ember::pow_out(o, a, 2); }, ember::pow(a, 2)},
      {"clamp", [&](Tensor& o) -> Tensor& { return ember::clamp_out(o, a, 3, 9); }, ember::clamp(a, 3, 9)},
      {"where", [&](Tensor& o) -> Tensor& { return ember::where_out(o, cond, a, b); }, ember::where(cond, a, b)},
      {"lerp", [&](Tensor& o) -> Tensor& { return ember::lerp_out(o, a, a * 2, 0.25); }, ember::lerp(a, a * 2, 0.25)},
      {"addcmul", [&](Tensor& o) -> Tensor& { return ember::addcmul_out(o, a, b, a, 3); }, ember::addcmul(a, b, a, 3)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor o = ember::zeros({4, 3}).t();
    const void* data = o.data_ptr();
    const auto* impl = o.unsafeGetTensorImpl();
    Tensor& r = c.out(o);
    EXPECT_EQ(&r, &o);
    EXPECT_EQ(o.unsafeGetTensorImpl(), impl);
    EXPECT_EQ(o.data_ptr(), data);
    EXPECT_EQ(o.strides(), IntArrayRef({1, 3}));
    expect_values(o, values(c.want), "non-contiguous out");
    Tensor e = ember::empty({0});
    const auto* eimpl = e.unsafeGetTensorImpl();
    c.out(e);
    EXPECT_EQ(e.unsafeGetTensorImpl(), eimpl);
    EXPECT_EQ(e.sizes(), IntArrayRef({3, 4}));
    EXPECT_TRUE(e.is_contiguous());
    expect_values(e, values(c.want), "resized out");
  }
}

// ---- logical ------------------------------------------------------------------------------

TEST(CpuPointwise, LogicalEveryDtypePairAndLayout) {
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&, const Tensor&)> fn;
    std::function<double(double, double)> ref;
  };
  const Case cases[] = {
      {"and", [](const Tensor& a, const Tensor& b) { return ember::logical_and(a, b); },
       [](double x, double y) { return double(x != 0 && y != 0); }},
      {"or", [](const Tensor& a, const Tensor& b) { return a.logical_or(b); },
       [](double x, double y) { return double(x != 0 || y != 0); }},
      {"xor", [](const Tensor& a, const Tensor& b) { return ember::logical_xor(a, b); },
       [](double x, double y) { return double((x != 0) != (y != 0)); }},
  };
  for (const auto& c : cases) {
    for (ScalarType da : kDtypes) {
      for (ScalarType db : kDtypes) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(da)) + " " + std::string(dtype_name(db)));
        Tensor a = make({3, 4}, da, Kind::Transposed, 1);
        Tensor b = make({4}, db, Kind::Sliced, 2);
        Tensor r = c.fn(a, b);
        EXPECT_EQ(r.dtype(), kBool);
        expect_values(r, ref_binary(a, b, c.ref), "logical");
      }
    }
  }
  Tensor f = ember::tensor({0.0, 1.5, 0.0, 2.0});
  Tensor& r = f.logical_and_(ember::tensor({true, true, false, false}));
  EXPECT_EQ(r.unsafeGetTensorImpl(), f.unsafeGetTensorImpl());
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {0, 1, 0, 0}, "logical_and_ keeps dtype");
  Tensor o = ember::empty({4}, kInt32);
  ember::logical_xor_out(o, ember::tensor({0, 1, 0, 1}), ember::tensor({0, 0, 1, 1}));
  expect_values(o, {0, 1, 1, 0}, "logical_xor_out int32");
  ember::logical_or_out(o, ember::tensor({0, 1, 0, 1}), ember::tensor({0, 0, 1, 1}));
  expect_values(o, {0, 1, 1, 1}, "logical_or_out int32");
  EXPECT_ERROR(ValueError, ember::logical_and(ember::ones({2}), ember::ones({3})), "[logical_and]", "[2]", "[3]");
  EXPECT_ERROR(ValueError, ember::ones({2}).logical_or_(ember::ones({3, 2})), "[logical_or_]", "[2]", "[3, 2]");
}
