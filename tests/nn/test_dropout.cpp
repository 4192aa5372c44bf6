// dropout and its feature and alpha forms: PyTorch's semantics (scaling, p = 0 and 1, eval
// mode, in place), the mask's statistics, its seed, its gradient, and the argument checks.
#include "NNTestUtil.h"

namespace ember::nntest {
namespace {

TEST(NNDropout, KeepsAFractionOneMinusPScaledUp) {
  manual_seed(0);
  const Tensor x = ones({200, 500}, kFloat64);
  const Tensor y = dropout(x, 0.3, true);
  const Tensor kept = y.ne(0);
  const double frac = kept.to(kFloat64).mean().item<double>();
  EXPECT_NEAR(frac, 0.7, 0.01);  // 100000 draws: 5 standard deviations
  // Kept elements are x / (1 - p) exactly.
  EXPECT_TRUE(allclose(y.masked_select(kept), full({kept.sum().item<int64_t>()}, 1 / 0.7, kFloat64), 0, 0));
}

TEST(NNDropout, SeedFixesTheMask) {
  const Tensor x = randn({64, 32});
  manual_seed(5);
  const Tensor a = dropout(x, 0.5, true);
  manual_seed(5);
  const Tensor b = dropout(x, 0.5, true);
  EXPECT_TRUE(equal(a, b));
  EXPECT_FALSE(equal(a, dropout(x, 0.5, true)));
}

TEST(NNDropout, IdentityWhenNotTrainingOrPZero) {
  const Tensor x = randn({4, 5});
  EXPECT_TRUE(dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(dropout(x, 0.0, true).is_same(x));
  EXPECT_TRUE(alpha_dropout(x, 0.5, false).is_same(x));
  const Tensor v = x.view({2, 2, 5});
  EXPECT_TRUE(feature_dropout(v, 0.5, false).is_same(v));
}

TEST(NNDropout, POneGivesZeros) {
  const Tensor x = randn({3, 4, 2});
  for (const Tensor& y : {dropout(x, 1.0, true), feature_dropout(x, 1.0, true), alpha_dropout(x, 1.0, true),
                          feature_alpha_dropout(x, 1.0, true)}) {
    EXPECT_EQ(y.sizes(), x.sizes());
    EXPECT_EQ(y.abs().sum().item<float>(), 0.0f);
  }
}

TEST(NNDropout, FeatureDropoutDropsWholeChannels) {
  manual_seed(1);
  const Tensor x = ones({8, 16, 5, 5}, kFloat64);
  const Tensor y = feature_dropout(x, 0.5, true);
  // Every (n, c) plane is all zeros or all 2.
  const Tensor mx = y.amax({2, 3}), mn = y.amin({2, 3});
  EXPECT_TRUE(equal(mx, mn));
  const Tensor zero_planes = mx.eq(0), two_planes = mx.eq(2.0);
  EXPECT_EQ(zero_planes.logical_or(two_planes).all().item<bool>(), true);
  EXPECT_GT(zero_planes.sum().item<int64_t>(), 30);  // of 128 planes, about 64 dropped
  EXPECT_LT(zero_planes.sum().item<int64_t>(), 98);
}

TEST(NNDropout, AlphaDropoutKeepsMeanAndVariance) {
  // For standard normal inputs (SELU's fixed point) the output keeps mean 0 and variance 1.
  manual_seed(2);
  const Tensor x = randn({400000}, kFloat64);
  const Tensor y = alpha_dropout(x, 0.2, true);
  EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(y.var().item<double>(), 1.0, 0.01);
  // Dropped elements all take one value: a * (-alpha) + b with PyTorch's a and b.
  const double alpha = 1.7580993408473766, p = 0.2;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  const double dropped = -alpha * a + alpha * a * p;
  const Tensor is_dropped = (y - dropped).abs().lt(1e-12);
  EXPECT_NEAR(is_dropped.to(kFloat64).mean().item<double>(), p, 0.005);
  const Tensor kept = is_dropped.logical_not();
  EXPECT_TRUE(allclose(y.masked_select(kept), x.masked_select(kept) * a + alpha * a * p, 1e-12, 1e-12));
}

TEST(NNDropout, FeatureAlphaDropoutIsPerChannel) {
  manual_seed(3);
  const Tensor x = zeros({4, 32, 3}, kFloat64);
  const Tensor y = feature_alpha_dropout(x, 0.5, true);
  EXPECT_TRUE(equal(y.amax({2}), y.amin({2})));
}

TEST(NNDropout, InPlaceVariantsWriteSelf) {
  manual_seed(4);
  Tensor x = ones({50, 40});
  const Tensor before = x.clone();
  manual_seed(4);
  const Tensor want = dropout(before, 0.4, true);
  manual_seed(4);
  Tensor& r = dropout_(x, 0.4, true);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_TRUE(equal(x, want));
  Tensor z = ones({2, 3, 4});
  feature_alpha_dropout_(z, 1.0, true);
  EXPECT_EQ(z.abs().sum().item<float>(), 0.0f);
  Tensor e = ones({3});
  alpha_dropout_(e, 0.5, false);
  EXPECT_TRUE(equal(e, ones({3})));
}

TEST(NNDropout, GradientIsTheMask) {
  manual_seed(6);
  Tensor x = randn({10, 20}, kFloat64).requires_grad_();
  const Tensor y = dropout(x, 0.25, true);
  y.sum().backward();
  // dy/dx is the scaled mask: 1 / 0.75 where kept, 0 where dropped.
  const Tensor want = y.ne(0).to(kFloat64) / 0.75;
  EXPECT_TRUE(allclose(x.grad(), want, 0, 1e-15));
  // gradcheck with a fixed mask (the seed is reset before each evaluation).
  auto f = [](const Tensor& t) {
    manual_seed(7);
    return feature_alpha_dropout(t, 0.3, true);
  };
  EXPECT_TRUE(autograd::gradcheck(f, {randn({3, 4, 2}, kFloat64).requires_grad_()}));
}

TEST(NNDropout, Errors) {
  const Tensor x = ones({3, 4});
  EXPECT_EQ(error_of([&] { dropout(x, 1.5, true); }),
            "[dropout] argument 'p': dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_EQ(error_of([&] { alpha_dropout(x, -0.5, true); }),
            "[alpha_dropout] argument 'p': dropout probability has to be between 0 and 1, but got -0.5");
  EXPECT_EQ(error_of([&] { dropout(x, std::nan(""), false); }),
            "[dropout] argument 'p': dropout probability has to be between 0 and 1, but got nan");
  EXPECT_EQ(error_of([&] { feature_dropout(ones({3}), 0.5, true); }),
            "[feature_dropout] feature dropout needs an input of at least 2 dimensions (N, C, ...), got shape [3]");
  EXPECT_EQ(error_of([&] { feature_alpha_dropout(ones({3}), 0.5, true); }),
            "[feature_alpha_dropout] feature dropout needs an input of at least 2 dimensions (N, C, ...), got shape "
            "[3]");
  Tensor y = ones({3});
  EXPECT_EQ(error_of([&] { feature_dropout_(y, 2.0, true); }),
            "[feature_dropout_] argument 'p': dropout probability has to be between 0 and 1, but got 2");
}

}  // namespace
}  // namespace ember::nntest
