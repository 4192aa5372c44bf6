// ember::nn::init (statistics on large tensors with fixed seeds, bounds, exact structures) and
// ember::nn::utils (gradient clipping against hand computations, parameter vectors).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ModuleTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using ember::nntest::error_of_type;
using ember::nntest::expect_close;
using ember::nntest::values;

namespace {

namespace init = nn::init;

struct Stats {
  double mean, std, min, max;
};
Stats stats(const Tensor& t) {
  const auto v = values(t);
  double sum = 0, sq = 0, lo = v[0], hi = v[0];
  for (double x : v) {
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const double mean = sum / static_cast<double>(v.size());
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / static_cast<double>(v.size() - 1)), lo, hi};
}

TEST(Init, CalculateGainAndFans) {
  EXPECT_EQ(init::calculate_gain(kLinear), 1.0);
  EXPECT_EQ(init::calculate_gain(kConv2D), 1.0);
  EXPECT_EQ(init::calculate_gain(kSigmoid), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kTanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(init::calculate_gain(kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLeakyReLU), std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(init::calculate_gain(kLeakyReLU, std::sqrt(5.0)), std::sqrt(1.0 / 3));
  EXPECT_DOUBLE_EQ(init::calculate_gain(kSELU), 0.75);
  EXPECT_EQ(init::_calculate_fan_in_and_fan_out(empty({6, 4})), std::make_tuple(int64_t{4}, int64_t{6}));
  EXPECT_EQ(init::_calculate_fan_in_and_fan_out(empty({8, 3, 5, 2})), std::make_tuple(int64_t{30}, int64_t{80}));
  EXPECT_EQ(error_of_type<ValueError>([] { init::_calculate_fan_in_and_fan_out(empty({5})); }),
            "[_calculate_fan_in_and_fan_out] Fan in and fan out can not be computed for tensor with fewer than 2 "
            "dimensions (got 1)");
}

TEST(Init, UniformNormalConstant) {
  manual_seed(0);
  Tensor t = empty({500, 400}).requires_grad_();
  const Tensor& r = init::uniform_(t, -2, 3);
  EXPECT_TRUE(r.is_same(t));
  EXPECT_TRUE(t.is_leaf());  // filled under no-grad
  Stats s = stats(t);
  EXPECT_NEAR(s.mean, 0.5, 0.01);
  EXPECT_NEAR(s.std, 5 / std::sqrt(12.0), 0.01);
  EXPECT_GE(s.min, -2);
  EXPECT_LT(s.max, 3);
  init::normal_(t, 1.5, 0.5);
  s = stats(t);
  EXPECT_NEAR(s.mean, 1.5, 0.005);
  EXPECT_NEAR(s.std, 0.5, 0.005);
  init::constant_(t, 0.25);
  EXPECT_EQ(stats(t).min, 0.25);
  EXPECT_EQ(stats(t).max, 0.25);
  init::ones_(t);
  EXPECT_EQ(stats(t).mean, 1);
  init::zeros_(t);
  EXPECT_EQ(stats(t).max, 0);
  // A generator makes the draw reproducible, whatever the global seed.
  Tensor a = empty({100}), b = empty({100});
  init::normal_(a, 0, 1, detail::createCPUGenerator(42));
  manual_seed(7);
  init::normal_(b, 0, 1, detail::createCPUGenerator(42));
  EXPECT_TRUE(equal(a, b));
  EXPECT_EQ(error_of_type<TypeError>([] { init::uniform_(zeros({3}, kInt64)); }),
            "[uniform_] tensor: expected a floating-point tensor, got int64");
  EXPECT_EQ(error_of_type<ValueError>([] { init::normal_(Tensor()); }),
            "[normal_] tensor: expected a defined tensor, got an undefined one");
}

TEST(Init, KaimingAndXavier) {
  manual_seed(1);
  Tensor w = empty({600, 500});
  // kaiming_uniform_(a=0, fan_in, leaky_relu): bound = sqrt(2) * sqrt(3 / 500).
  init::kaiming_uniform_(w);
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 500);
  Stats s = stats(w);
  EXPECT_GE(s.min, -bound);
  EXPECT_LE(s.max, bound);
  EXPECT_GT(s.max, bound * 0.999);
  EXPECT_NEAR(s.std, bound / std::sqrt(3.0), 2e-3);
  // fan_out with relu.
  init::kaiming_uniform_(w, 0, kFanOut, kReLU);
  EXPECT_LE(stats(w).max, std::sqrt(2.0) * std::sqrt(3.0 / 600));
  EXPECT_GT(stats(w).max, std::sqrt(2.0) * std::sqrt(3.0 / 600) * 0.999);
  init::kaiming_normal_(w, 0, kFanIn, kReLU);
  s = stats(w);
  EXPECT_NEAR(s.mean, 0, 2e-3);
  EXPECT_NEAR(s.std, std::sqrt(2.0 / 500), 1e-3);
  init::xavier_uniform_(w, 2.0);
  const double xb = 2.0 * std::sqrt(6.0 / 1100);
  EXPECT_LE(stats(w).max, xb);
  EXPECT_GT(stats(w).max, xb * 0.999);
  init::xavier_normal_(w);
  EXPECT_NEAR(stats(w).std, std::sqrt(2.0 / 1100), 1e-3);
  Tensor conv = empty({64, 32, 3, 3});
  init::kaiming_uniform_(conv, std::sqrt(5.0));  // Conv2d's default: bound 1 / sqrt(fan_in)
  EXPECT_LE(stats(conv).max, 1 / std::sqrt(288.0));
  EXPECT_GT(stats(conv).max, 0.998 / std::sqrt(288.0));
  Tensor none = empty({0, 3});
  EXPECT_TRUE(init::kaiming_uniform_(none).is_same(none));  // a zero-element tensor: a no-op
}

TEST(Init, TruncNormal) {
  manual_seed(2);
  Tensor t = empty({200000}, kFloat64);
  init::trunc_normal_(t);
  Stats s = stats(t);
  EXPECT_GE(s.min, -2);
  EXPECT_LE(s.max, 2);
  EXPECT_LT(s.min, -1.99);
  EXPECT_GT(s.max, 1.99);
  // N(0, 1) truncated to [-2, 2]: mean 0, variance 1 - 4 phi(2) / (2 Phi(2) - 1).
  const double phi2 = std::exp(-2.0) / std::sqrt(2 * M_PI), Phi2 = 0.5 * (1 + std::erf(2 / std::sqrt(2.0)));
  EXPECT_NEAR(s.mean, 0, 0.01);
  EXPECT_NEAR(s.std, std::sqrt(1 - 4 * phi2 / (2 * Phi2 - 1)), 0.005);
  // An interval off the center: [0.5, 3] with mean 1, std 2; the inverse transform keeps the
  // fraction below 1 (the mean) at (Phi(0) - Phi(-0.25)) / (Phi(1) - Phi(-0.25)).
  Tensor f = empty({400000});
  init::trunc_normal_(f, 1, 2, 0.5, 3);
  s = stats(f);
  EXPECT_GE(s.min, 0.5);
  EXPECT_LE(s.max, 3);
  const double below = values(f.lt(1.0).to(kFloat64).mean())[0];
  auto Phi = [](double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); };
  EXPECT_NEAR(below, (Phi(0) - Phi(-0.25)) / (Phi(1) - Phi(-0.25)), 0.005);
  // Exactly the inverse transform of the same uniform draw: erf((y - mean) / (std sqrt 2)) is
  // the uniform sample, to double precision.
  Tensor y = empty({1000}, kFloat64), u = empty({1000}, kFloat64);
  init::trunc_normal_(y, 0.5, 1.5, -1, 2, detail::createCPUGenerator(9));
  auto cdf = [](double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); };
  u.uniform_(2 * cdf(-1.0) - 1, 2 * cdf(1.0) - 1, detail::createCPUGenerator(9));
  expect_close(((y - 0.5) / (1.5 * std::sqrt(2.0))).erf(), u, 1e-14, "erf(erfinv(u))");
  EXPECT_EQ(error_of_type<ValueError>([&] { init::trunc_normal_(f, 0, 1, 2, 1); }),
            "[trunc_normal_] a, b: expected a < b, got a=2 and b=1");
}

TEST(Init, OrthogonalEyeDirac) {
  manual_seed(3);
  for (const auto& shape : {std::vector<int64_t>{6, 4}, std::vector<int64_t>{4, 6}, std::vector<int64_t>{5, 2, 3}}) {
    Tensor q = empty(shape, kFloat64);
    init::orthogonal_(q, 2.0);
    const Tensor m = q.reshape({shape[0], -1});
    // Columns orthonormal for a tall matrix, rows for a wide one (times gain^2 = 4).
    const Tensor gram = m.size(0) >= m.size(1) ? matmul(m.t(), m) : matmul(m, m.t());
    expect_close(gram, eye(gram.size(0), kFloat64) * 4, 1e-12, "orthogonal_");
  }
  // The Q of the QR decomposition of the normal sample whose R has a positive diagonal (the one
  // PyTorch's orthogonal_ picks): Q^T A is upper triangular with a positive diagonal.
  Tensor q = empty({7, 5}, kFloat64);
  init::orthogonal_(q, 1.0, detail::createCPUGenerator(11));
  const Tensor sample = empty({7, 5}, kFloat64).normal_(0, 1, detail::createCPUGenerator(11));
  const Tensor r = matmul(q.t(), sample);
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_GT(r[i][i].item<double>(), 0) << "R[" << i << "][" << i << "]";
    for (int64_t j = 0; j < i; ++j) EXPECT_NEAR(r[i][j].item<double>(), 0, 1e-12) << "R[" << i << "][" << j << "]";
  }
  Tensor big = empty({256, 256});
  init::orthogonal_(big);
  expect_close(matmul(big.t(), big), eye(256), 1e-5, "orthogonal_ 256");
  EXPECT_EQ(error_of_type<ValueError>([] { init::orthogonal_(empty({4})); }),
            "[orthogonal_] Only tensors with 2 or more dimensions are supported (got 1)");

  Tensor e = empty({2, 3});
  init::eye_(e);
  EXPECT_EQ(values(e), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(error_of_type<ValueError>([] {
              init::eye_(empty({2, 2, 2}));
            }),
            "[eye_] Only tensors with 2 dimensions are supported (got 3)");

  // A Dirac weight makes the convolution an identity on the first channels.
  Tensor w = empty({3, 3, 3, 3});
  init::dirac_(w);
  const Tensor x = randn({1, 3, 5, 5});
  expect_close(conv2d(x, w, {}, 1, 1), x, 1e-6, "dirac_");
  Tensor wg = empty({4, 2, 1, 3});
  init::dirac_(wg, 2);
  EXPECT_EQ(values(wg.sum()), (std::vector<double>{4}));
  EXPECT_EQ(values(wg.select(0, 3).select(0, 1)), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(error_of_type<ValueError>([] {
              init::dirac_(empty({3, 3}));
            }),
            "[dirac_] Only tensors with 3, 4, or 5 dimensions are supported (got 2)");

  Tensor sp = empty({10, 4});
  init::sparse_(sp, 0.3);
  for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(values(sp.select(1, c).eq(0.0).sum())[0], 3) << "column " << c;
}

// ---- utils -----------------------------------------------------------------------------------

TEST(Utils, ClipGradNorm) {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({2, 2}).requires_grad_(), none = zeros({3}).requires_grad_();
  a.mutable_grad() = tensor({3.0f, 4.0f});
  b.mutable_grad() = tensor({{1.0f, 2.0f}, {2.0f, 4.0f}});
  // |grad a| = 5, |grad b| = 5: total 2-norm sqrt(50).
  const double total = nn::utils::clip_grad_norm_({a, b, none}, 1.0);
  EXPECT_NEAR(total, std::sqrt(50.0), 1e-5);
  const double coef = 1.0 / (std::sqrt(50.0) + 1e-6);
  expect_close(a.grad(), tensor({3.0f, 4.0f}) * coef, 1e-6, "clipped a");
  expect_close(b.grad(), tensor({{1.0f, 2.0f}, {2.0f, 4.0f}}) * coef, 1e-6, "clipped b");
  EXPECT_FALSE(none.grad().defined());
  // Below max_norm: unchanged (the coefficient is clamped to 1).
  a.mutable_grad() = tensor({3.0f, 4.0f});
  EXPECT_NEAR(nn::utils::clip_grad_norm_(a, 10.0), 5.0, 1e-6);
  EXPECT_EQ(values(a.grad()), (std::vector<double>{3, 4}));
  // Infinity norm: the largest magnitude; 1-norm: the sum of the per-gradient 1-norms.
  b.mutable_grad() = tensor({{1.0f, -9.0f}, {2.0f, 4.0f}});
  EXPECT_NEAR(nn::utils::clip_grad_norm_({a, b}, 100, std::numeric_limits<double>::infinity()), 9.0, 1e-6);
  EXPECT_NEAR(nn::utils::clip_grad_norm_({a, b}, 100, 1.0), 7 + 16, 1e-5);
  EXPECT_EQ(nn::utils::clip_grad_norm_({none}, 1.0), 0.0);
  b.mutable_grad() = tensor({{1.0f, std::numeric_limits<float>::infinity()}, {2.0f, 4.0f}});
  EXPECT_EQ(error_of_type<ValueError>([&] {
              nn::utils::clip_grad_norm_({a, b}, 1.0, 2.0, true);
            }),
            "[clip_grad_norm_] The total norm of order 2 for gradients from `parameters` is non-finite, so it cannot "
            "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=false`");
  EXPECT_TRUE(std::isinf(nn::utils::clip_grad_norm_({a, b}, 1.0)));
}

TEST(Utils, ClipGradNormOnAModel) {
  manual_seed(4);
  nn::Sequential model(nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 1));
  model->forward(randn({8, 3})).pow(2).sum().backward();
  double sq = 0;
  for (const auto& p : model->parameters())
    for (double g : values(p.grad())) sq += g * g;
  const double total = nn::utils::clip_grad_norm_(model->parameters(), 0.5);
  EXPECT_NEAR(total, std::sqrt(sq), 1e-4 * std::sqrt(sq));
  double after = 0;
  for (const auto& p : model->parameters())
    for (double g : values(p.grad())) after += g * g;
  EXPECT_NEAR(std::sqrt(after), std::min(0.5, std::sqrt(sq)), 1e-5);
}

TEST(Utils, ClipGradValue) {
  Tensor a = zeros({4}).requires_grad_();
  a.mutable_grad() = tensor({-3.0f, -0.5f, 0.25f, 2.0f});
  nn::utils::clip_grad_value_(a, 1.0);
  EXPECT_EQ(values(a.grad()), (std::vector<double>{-1, -0.5, 0.25, 1}));
}

TEST(Utils, ParametersToVectorAndBack) {
  nn::Linear fc(3, 2);
  const Tensor v = nn::utils::parameters_to_vector(fc->parameters());
  EXPECT_EQ(v.sizes(), IntArrayRef({8}));
  std::vector<double> want = values(fc->weight);
  for (double b : values(fc->bias)) want.push_back(b);
  EXPECT_EQ(values(v), want);
  const Tensor w = fc->weight;
  const Tensor next = arange(0, 8).to(kFloat32);
  nn::utils::vector_to_parameters(next, fc->parameters());
  EXPECT_TRUE(fc->weight.is_same(w));
  EXPECT_TRUE(fc->weight.requires_grad());
  EXPECT_EQ(values(fc->weight), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values(fc->bias), (std::vector<double>{6, 7}));
  EXPECT_EQ(error_of_type<ValueError>([&] { nn::utils::vector_to_parameters(zeros({7}), fc->parameters()); }),
            "[vector_to_parameters] vec: expected 8 elements (the parameters' total), got 7");
  EXPECT_EQ(error_of_type<ValueError>([&] {
              nn::utils::vector_to_parameters(zeros({2, 4}), fc->parameters());
            }),
            "[vector_to_parameters] vec: expected a 1-D tensor, got a 2-D one");
}

}  // namespace
