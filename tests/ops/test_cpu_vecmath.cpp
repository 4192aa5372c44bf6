// The float32 vector math of Note [CPU vector math] (SLEEF, per ISA): every op over a grid and
// the special values (signed zeros, infinities, NaN, overflow and denormal boundaries), through
// the vector body and the padded tail, against float64 std:: references within a few ULP.
#include <cmath>
#include <functional>
#include <limits>

#include "OpTestUtil.h"

namespace ember::optest {
namespace {

std::vector<double> grid() {
  // Huge values first, so that a vector (not the scalar tail) meets them.
  std::vector<double> v = {1e30, -1e30, 3e19};
  for (int i = 0; i < 997; ++i) v.push_back(-25.0 + 50.0 * i / 996.0);
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0,   -0.0,   inf,  -inf,  std::nan(""), 88.7, 88.8, -87.3,   -103.0, -104.0,
                   1e-30, -1e-30, 1e-7, 3.0e4, -1.5e4,       1e6,  0.5,  -0.9999, 1e30,   -1e30})
    v.push_back(x);
  return v;  // 1020 values: 63 vectors of 16 and a tail of 12
}

// Within `ulps` units in the last place of float at want's magnitude (NaN and infinities exact).
// `abs` adds an absolute allowance per element (formulas that cancel, underflow to zero).
void expect_close_ulps(const Tensor& got, const std::vector<double>& want, double ulps, const std::string& what,
                       const std::vector<double>& abs = {}) {
  ASSERT_EQ(got.dtype(), kFloat32) << what;
  std::vector<double> g = values(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    const auto w = static_cast<float>(want[i]);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i << ": got " << g[i];
    } else if (std::isinf(w)) {
      EXPECT_EQ(g[i], static_cast<double>(w)) << what << " at " << i;
    } else {
      const double ulp = std::max(static_cast<double>(std::nextafter(std::fabs(w), INFINITY) - std::fabs(w)),
                                  static_cast<double>(std::numeric_limits<float>::denorm_min()));
      EXPECT_LE(std::fabs(g[i] - want[i]), ulps * ulp + (abs.empty() ? 0.0 : abs[i]))
          << what << " at " << i << ": got " << g[i] << " want " << w;
    }
  }
}

struct Case {
  const char* name;
  std::function<Tensor(const Tensor&)> op;
  std::function<double(double)> ref;
  double ulps;
  // Absolute allowance at x: gelu's 1 + erf(x / sqrt 2) cancels for x << 0 (as in LibTorch's
  // formula), and sigmoid/silu underflow where exp(-x) overflows.
  double (*abs)(double x) = [](double) { return 0.0; };
};

TEST(CpuVecMath, MatchesFloat64Within4Ulps) {
  const std::vector<double> in = grid();
  Tensor x = from_values({static_cast<int64_t>(in.size())}, kFloat32, in);
  const double s2 = std::sqrt(0.5), k = std::sqrt(2.0 / M_PI);
  const std::vector<Case> cases = {
      {"exp", [](const Tensor& t) { return t.exp(); }, [](double v) { return std::exp(v); }, 2},
      {"log", [](const Tensor& t) { return t.log(); }, [](double v) { return std::log(v); }, 2},
      {"log1p", [](const Tensor& t) { return t.log1p(); }, [](double v) { return std::log1p(v); }, 2},
      {"sin", [](const Tensor& t) { return t.sin(); }, [](double v) { return std::sin(v); }, 2},
      {"cos", [](const Tensor& t) { return t.cos(); }, [](double v) { return std::cos(v); }, 2},
      {"tanh", [](const Tensor& t) { return t.tanh(); }, [](double v) { return std::tanh(v); }, 2},
      {"erf", [](const Tensor& t) { return t.erf(); }, [](double v) { return std::erf(v); }, 2},
      {"sigmoid", [](const Tensor& t) { return t.sigmoid(); }, [](double v) { return 1 / (1 + std::exp(-v)); }, 4,
       [](double) { return 1e-37; }},
      {"silu", [](const Tensor& t) { return ember::silu(t); }, [](double v) { return v / (1 + std::exp(-v)); }, 4,
       [](double) { return 1e-37; }},
      {"gelu", [](const Tensor& t) { return ember::gelu(t); },
       [&](double v) { return 0.5 * v * (1 + std::erf(v * s2)); }, 8, [](double x) { return 1.2e-7 * std::fabs(x); }},
      {"gelu tanh", [](const Tensor& t) { return ember::gelu(t, "tanh"); },
       [&](double v) { return 0.5 * v * (1 + std::tanh(k * (v + 0.044715 * v * v * v))); }, 8,
       [](double x) { return 1.2e-7 * std::fabs(x); }},
  };
  for (const Case& c : cases) {
    // gelu's and silu's references overflow to inf * 0 at the extremes; skip those values.
    std::vector<double> want;
    for (double v : in) want.push_back(c.ref(static_cast<float>(v)));  // of the float input
    Tensor got = c.op(x);
    std::vector<double> g = values(got);
    std::vector<double> gw, ww, aw;
    for (size_t i = 0; i < in.size(); ++i) {
      if (std::isnan(want[i]) && !std::isnan(in[i]) && std::string(c.name).starts_with("gel")) continue;
      gw.push_back(g[i]);
      ww.push_back(want[i]);
      aw.push_back(c.abs(static_cast<float>(in[i])));
    }
    expect_close_ulps(from_values({static_cast<int64_t>(gw.size())}, kFloat32, gw), ww, c.ulps, c.name, aw);
    // In place and out= take the same loop.
    if (std::string(c.name) == "exp") {
      Tensor y = x.clone();
      y.exp_();
      std::vector<double> a = values(y), b = values(got);
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_TRUE(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) << "exp_ at " << i;
    }
  }
}

// Python's remainder and floor division in float32 (the SLEEF vector forms where the CPU has
// them) against the scalar formula in float, bit for bit: signs of zero, a zero divisor, exact
// integer quotients, infinities and NaN, in the vector body and the tail.
TEST(CpuVecMath, RemainderAndFloorDivisionMatchTheScalarFormula) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  std::vector<double> a, b;
  const float as[] = {7.0f, -7.0f, 0.0f, -0.0f, 5.5f, -5.5f, 1e30f, 3.0f, inf, nan, 1.0f, -1e-30f, 6.0f};
  const float bs[] = {2.0f, -2.0f, 0.0f, -0.0f, 2.5f, -0.75f, 3.0f, inf, 1e-30f, nan, -3.0f, 6.0f};
  for (float x : as)
    for (float y : bs) {
      a.push_back(x);
      b.push_back(y);
    }
  const int64_t n = static_cast<int64_t>(a.size());
  const Tensor ta = from_values({n}, kFloat32, a), tb = from_values({n}, kFloat32, b);
  const std::vector<double> rem = values(ta.remainder(tb)), fdiv = values(ta.div(tb, "floor"));
  for (int64_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(a[i]), y = static_cast<float>(b[i]);
    float m = std::fmod(x, y);
    const bool adj = m != 0.0f && ((y < 0.0f) != (m < 0.0f));
    const float want_rem = adj ? m + y : m;
    float want_div;
    if (y == 0.0f) {
      want_div = x / y;
    } else {
      float div = (x - m) / y;
      if (adj) div -= 1.0f;
      if (div == 0.0f) {
        want_div = std::copysign(0.0f, x / y);
      } else {
        float fl = std::floor(div);
        if (div - fl > 0.5f) fl += 1.0f;
        want_div = fl;
      }
    }
    auto same = [](double g, float w) {
      return (std::isnan(g) && std::isnan(w)) || (g == w && std::signbit(g) == std::signbit(w));
    };
    EXPECT_TRUE(same(rem[static_cast<size_t>(i)], want_rem))
        << "remainder(" << x << ", " << y << "): got " << rem[static_cast<size_t>(i)] << " want " << want_rem;
    EXPECT_TRUE(same(fdiv[static_cast<size_t>(i)], want_div))
        << "div floor(" << x << ", " << y << "): got " << fdiv[static_cast<size_t>(i)] << " want " << want_div;
  }
}

TEST(CpuVecMath, SoftmaxRowsAgainstFloat64) {
  // Rows longer and shorter than a vector, with -inf entries and a NaN row.
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t len : {1, 7, 16, 37, 1000}) {
    std::vector<double> v;
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t i = 0; i < len; ++i) v.push_back(r == 1 && i % 5 == 0 ? -inf : std::sin(0.37 * i + r) * 30);
    v[static_cast<size_t>(2 * len)] = std::nan("");
    Tensor x = from_values({3, len}, kFloat32, v);
    for (bool log : {false, true}) {
      Tensor y = log ? ember::log_softmax(x, 1) : ember::softmax(x, -1);
      std::vector<double> want(v.size());
      for (int64_t r = 0; r < 3; ++r) {
        const double* row = v.data() + r * len;
        double m = -inf;
        bool nan = false;
        for (int64_t i = 0; i < len; ++i) m = std::max(m, row[i]), nan = nan || std::isnan(row[i]);
        double s = 0;
        for (int64_t i = 0; i < len; ++i) s += std::exp(row[i] - m);
        for (int64_t i = 0; i < len; ++i)
          want[r * len + i] = nan ? std::nan("") : log ? row[i] - m - std::log(s) : std::exp(row[i] - m) / s;
      }
      std::vector<double> g = values(y);
      for (size_t i = 0; i < g.size(); ++i) {
        if (std::isnan(want[i])) {
          EXPECT_TRUE(std::isnan(g[i])) << len << " " << log << " at " << i;
        } else if (std::isinf(want[i])) {
          EXPECT_EQ(g[i], want[i]) << len << " " << log << " at " << i;
        } else {
          EXPECT_NEAR(g[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << len << " " << log << " at " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ember::optest
