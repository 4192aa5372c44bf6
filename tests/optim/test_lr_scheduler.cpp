// LR schedulers: the lr sequences against closed forms and the values PyTorch documents or tests
// (lr_scheduler.py's docstrings, test/optim/test_lrscheduler.py), composition (SequentialLR,
// ChainedScheduler, two schedulers on one optimizer), OneCycleLR's momentum, ReduceLROnPlateau,
// resuming, state_dict round trips and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "OptimTestUtil.h"

using namespace ember;
using namespace ember::optim;
using namespace ember::optim_test;

namespace {

constexpr double kPi = std::numbers::pi;

std::unique_ptr<SGD> sgd(double lr, double momentum = 0) {
  return std::make_unique<SGD>(make_params(), SGDOptions(lr).momentum(momentum));
}

double lr_of(const Optimizer& opt, size_t group = 0) { return opt.param_groups().at(group).options().get_lr(); }

// lr at epochs 0..n-1 (epoch 0: after construction).
template <class Scheduler>
std::vector<double> lrs(Optimizer& opt, Scheduler& s, int n) {
  std::vector<double> out;
  for (int e = 0; e < n; ++e) {
    if (e > 0) s.step();
    EXPECT_EQ(s.get_last_lr().at(0), lr_of(opt)) << "epoch " << e;
    out.push_back(lr_of(opt));
  }
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rel = 1e-13) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::max(1.0, std::abs(want[i]))) << "epoch " << i;
}

TEST(LRScheduler, StepLR) {
  auto opt = sgd(0.05);
  StepLR s(*opt, 3, 0.5);
  EXPECT_EQ(s.last_epoch(), 0);
  std::vector<double> want;
  for (int e = 0; e < 10; ++e) want.push_back(0.05 * std::pow(0.5, e / 3));
  expect_close(lrs(*opt, s, 10), want);
  EXPECT_EQ(s.last_epoch(), 9);
  EXPECT_EQ(s.base_lrs(), (std::vector<double>{0.05}));
}

TEST(LRScheduler, StepLRDocstringValues) {
  // lr_scheduler.py: lr = 0.05 if epoch < 30, 0.005 if 30 <= epoch < 60, 0.0005 if 60 <= epoch < 90.
  auto opt = sgd(0.05);
  StepLR s(*opt, 30, 0.1);
  auto v = lrs(*opt, s, 91);
  EXPECT_DOUBLE_EQ(v[29], 0.05);
  EXPECT_NEAR(v[30], 0.005, 1e-17);
  EXPECT_NEAR(v[59], 0.005, 1e-17);
  EXPECT_NEAR(v[60], 0.0005, 1e-18);
  EXPECT_NEAR(v[90], 0.00005, 1e-19);
}

TEST(LRScheduler, MultiStepLR) {
  auto opt = sgd(1.0);
  MultiStepLR s(*opt, {5, 2, 5, 8}, 0.5);  // 5 listed twice: gamma^2 there
  std::vector<double> want;
  for (int e = 0; e < 11; ++e) {
    const int passed = (e >= 2) + 2 * (e >= 5) + (e >= 8);
    want.push_back(std::pow(0.5, passed));
  }
  expect_close(lrs(*opt, s, 11), want);
}

TEST(LRScheduler, ConstantLRAndLinearLR) {
  auto opt = sgd(0.05);
  ConstantLR c(*opt, 0.5, 4);
  std::vector<double> want;
  for (int e = 0; e < 8; ++e) want.push_back(e < 4 ? 0.025 : 0.05);
  expect_close(lrs(*opt, c, 8), want);

  auto opt2 = sgd(0.05);
  LinearLR l(*opt2, 0.25, 0.75, 5);
  want.clear();
  for (int e = 0; e < 9; ++e) want.push_back(0.05 * (0.25 + 0.5 * std::min(e, 5) / 5.0));
  expect_close(lrs(*opt2, l, 9), want);
}

TEST(LRScheduler, ExponentialAndPolynomial) {
  auto opt = sgd(0.5);
  ExponentialLR e(*opt, 0.9);
  std::vector<double> want;
  for (int k = 0; k < 12; ++k) want.push_back(0.5 * std::pow(0.9, k));
  expect_close(lrs(*opt, e, 12), want);

  // lr_scheduler.py's docstring: PolynomialLR(total_iters=50, power=0.9) on 0.05.
  auto opt2 = sgd(0.05);
  PolynomialLR p(*opt2, 50, 0.9);
  auto v = lrs(*opt2, p, 60);
  for (int k = 0; k < 60; ++k) EXPECT_NEAR(v[k], 0.05 * std::pow(1.0 - std::min(k, 50) / 50.0, 0.9), 1e-15) << k;
  EXPECT_NEAR(v[0], 0.0500, 1e-4);
  EXPECT_NEAR(v[1], 0.0490, 1e-4);
  EXPECT_NEAR(v[2], 0.0481, 1e-4);
  EXPECT_EQ(v[50], 0.0);
  EXPECT_EQ(v[59], 0.0);
}

TEST(LRScheduler, CosineAnnealingLRFollowsTheClosedFormThroughPeriods) {
  auto opt = sgd(0.1);
  CosineAnnealingLR s(*opt, 10, 0.001);
  std::vector<double> want;
  for (int e = 0; e < 35; ++e) want.push_back(0.001 + (0.1 - 0.001) * (1 + std::cos(kPi * e / 10)) / 2);
  expect_close(lrs(*opt, s, 35), want, 1e-12);
}

TEST(LRScheduler, CosineAnnealingWarmRestarts) {
  auto opt = sgd(0.1);
  CosineAnnealingWarmRestarts s(*opt, 3, 2, 0.01);
  // Periods of 3, 6, 12 epochs.
  std::vector<double> want;
  int start = 0, period = 3;
  for (int e = 0; e < 22; ++e) {
    if (e - start >= period) start += period, period *= 2;
    want.push_back(0.01 + (0.1 - 0.01) * (1 + std::cos(kPi * (e - start) / period)) / 2);
  }
  expect_close(lrs(*opt, s, 22), want);
  // A fractional epoch: 4.5 lies 1.5 into the 6-epoch period starting at 3.
  s.step(4.5);
  EXPECT_NEAR(lr_of(*opt), 0.01 + 0.09 * (1 + std::cos(kPi * 1.5 / 6)) / 2, 1e-15);
  EXPECT_EQ(s.last_epoch(), 4);
  s.step();  // epoch 5: T_cur 2.5
  EXPECT_NEAR(lr_of(*opt), 0.01 + 0.09 * (1 + std::cos(kPi * 2.5 / 6)) / 2, 1e-15);
  s.step(1);
  EXPECT_NEAR(lr_of(*opt), 0.01 + 0.09 * (1 + std::cos(kPi / 3)) / 2, 1e-15);
  EXPECT_EQ(error_of([&] { s.step(-1.0); }), "[CosineAnnealingWarmRestarts] Expected non-negative epoch, but got -1");
}

TEST(LRScheduler, LambdaLRAndMultiplicativeLRPerGroup) {
  auto p = make_params();
  SGD opt({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]}, SGDOptions(0.4))}, SGDOptions(0.1));
  LambdaLR s(opt, std::vector<LambdaLR::LrLambda>{[](int64_t e) { return static_cast<double>(e / 3); },
                                                  [](int64_t e) { return std::pow(0.95, e); }});
  for (int e = 0; e < 8; ++e) {
    if (e > 0) s.step();
    EXPECT_NEAR(lr_of(opt, 0), 0.1 * (e / 3), 1e-16);
    EXPECT_NEAR(lr_of(opt, 1), 0.4 * std::pow(0.95, e), 1e-15);
  }
  EXPECT_EQ(error_of([&] { LambdaLR(opt, std::vector<LambdaLR::LrLambda>{[](int64_t) { return 1.0; }}); }),
            "[LambdaLR] Expected 2 lr_lambdas, but got 1");

  auto opt2 = sgd(1.0);
  MultiplicativeLR m(*opt2, [](int64_t e) { return 1.0 - 0.1 * static_cast<double>(e); });
  std::vector<double> want{1.0};
  for (int e = 1; e < 6; ++e) want.push_back(want.back() * (1.0 - 0.1 * e));
  expect_close(lrs(*opt2, m, 6), want);
}

// PyTorch's test_onecycle_lr_* expectations (max_lr 25, 10 steps, momentum between 1 and 22).
TEST(LRScheduler, OneCycleLRLinearDrivesMomentum) {
  auto opt = sgd(0.1, 0.9);
  OneCycleLR s(
      *opt,
      OneCycleLROptions(25).final_div_factor(2).base_momentum({1}).max_momentum({22}).total_steps(10).anneal_strategy(
          "linear"));
  const std::vector<double> lr_target = {1, 13, 25, 21.5, 18, 14.5, 11, 7.5, 4, 0.5};
  const std::vector<double> momentum_target = {22, 11.5, 1, 4, 7, 10, 13, 16, 19, 22};
  for (int e = 0; e < 10; ++e) {
    if (e > 0) s.step();
    EXPECT_NEAR(lr_of(*opt), lr_target[e], 1e-13) << e;
    EXPECT_NEAR(opt->param_groups()[0].options().get_momentum(), momentum_target[e], 1e-13) << e;
  }
  s.step();  // epoch 10 still computes (past the end of the last phase), as PyTorch
  EXPECT_EQ(error_of([&] { s.step(); }),
            "[OneCycleLR] Tried to step 11 times. The specified number of total steps is 10");
}

TEST(LRScheduler, OneCycleLRCosineDrivesAdamBeta1) {
  auto p = make_params();
  Adam opt(p, AdamOptions(0.1).betas({0.5, 0.77}));
  OneCycleLR s(opt, OneCycleLROptions(25).final_div_factor(2).base_momentum({1}).max_momentum({22}).total_steps(10));
  auto cos_anneal = [](double start, double end, double pct) {
    return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
  };
  std::vector<double> lr_target = {1, 13, 25}, momentum_target = {22, 11.5, 1};
  for (int k = 1; k <= 7; ++k) {
    lr_target.push_back(cos_anneal(25, 0.5, k / 7.0));
    momentum_target.push_back(cos_anneal(1, 22, k / 7.0));
  }
  for (int e = 0; e < 10; ++e) {
    if (e > 0) s.step();
    const auto& o = static_cast<const AdamOptions&>(opt.param_groups()[0].options());
    EXPECT_NEAR(o.lr(), lr_target[e], 1e-13) << e;
    EXPECT_NEAR(std::get<0>(o.betas()), momentum_target[e], 1e-13) << e;
    EXPECT_EQ(std::get<1>(o.betas()), 0.77);
  }
}

TEST(LRScheduler, OneCycleLRThreePhase) {
  auto opt = sgd(0.1, 0.9);
  OneCycleLR s(*opt, OneCycleLROptions(25)
                         .div_factor(25)
                         .base_momentum({1})
                         .max_momentum({22})
                         .total_steps(10)
                         .anneal_strategy("linear")
                         .pct_start(0.4)
                         .final_div_factor(4)
                         .three_phase(true));
  const std::vector<double> lr_target = {1, 9, 17, 25, 17, 9, 1, 0.75, 0.5, 0.25};
  const std::vector<double> momentum_target = {22, 15, 8, 1, 8, 15, 22, 22, 22, 22};
  for (int e = 0; e < 10; ++e) {
    if (e > 0) s.step();
    EXPECT_NEAR(lr_of(*opt), lr_target[e], 1e-13) << e;
    EXPECT_NEAR(opt->param_groups()[0].options().get_momentum(), momentum_target[e], 1e-13) << e;
  }
}

TEST(LRScheduler, OneCycleLRErrors) {
  auto opt = sgd(0.1);
  EXPECT_EQ(error_of([&] { OneCycleLR(*opt, OneCycleLROptions(1)); }),
            "[OneCycleLR] You must define either total_steps OR (epochs AND steps_per_epoch)");
  EXPECT_EQ(error_of([&] { OneCycleLR(*opt, OneCycleLROptions(1).total_steps(0)); }),
            "[OneCycleLR] Expected positive integer total_steps, but got 0");
  EXPECT_EQ(error_of([&] { OneCycleLR(*opt, OneCycleLROptions(1).total_steps(5).pct_start(1.5)); }),
            "[OneCycleLR] Expected float between 0 and 1 pct_start, but got 1.5");
  EXPECT_EQ(error_of([&] { OneCycleLR(*opt, OneCycleLROptions(1).total_steps(5).anneal_strategy("exp")); }),
            "[OneCycleLR] anneal_strategy must be one of 'cos' or 'linear', instead got exp");
  EXPECT_EQ(error_of([&] {
              OneCycleLR(*opt, OneCycleLROptions({1.0, 2.0}).total_steps(5));
            }),
            "[OneCycleLR] max_lr must have the same length as optimizer.param_groups. max_lr has 2 values, "
            "param_groups has 1.");
  auto p = make_params();
  Adagrad adagrad(p);
  EXPECT_EQ(error_of([&] { OneCycleLR(adagrad, OneCycleLROptions(1).total_steps(5)); }),
            "[OneCycleLR] optimizer must support momentum or beta1 with `cycle_momentum` option enabled (Adagrad has "
            "neither)");
  EXPECT_FALSE(adagrad.param_groups()[0].options().initial_lr().has_value());  // untouched
  OneCycleLR fine(adagrad, OneCycleLROptions(1).epochs(2).steps_per_epoch(3).cycle_momentum(false));
  EXPECT_EQ(fine.total_steps(), 6);
  EXPECT_NEAR(lr_of(adagrad), 1.0 / 25, 1e-16);
}

TEST(LRScheduler, SequentialLRDocstring) {
  // lr_scheduler.py: ConstantLR(factor=0.1, total_iters=20) then ExponentialLR(gamma=0.9) at 20,
  // on lr 0.05: 0.005 for epochs 0..19, then 0.05, 0.045, 0.0405.
  auto opt = sgd(0.05);
  auto c = std::make_shared<ConstantLR>(*opt, 0.1, 20);
  auto e = std::make_shared<ExponentialLR>(*opt, 0.9);
  SequentialLR s(*opt, {c, e}, {20});
  auto v = lrs(*opt, s, 25);
  for (int k = 0; k < 20; ++k) EXPECT_NEAR(v[k], 0.005, 1e-17) << k;
  EXPECT_NEAR(v[20], 0.05, 1e-17);
  EXPECT_NEAR(v[21], 0.045, 1e-17);
  EXPECT_NEAR(v[22], 0.0405, 1e-17);
  EXPECT_NEAR(v[24], 0.05 * std::pow(0.9, 4), 1e-16);
  EXPECT_EQ(s.last_epoch(), 24);
}

TEST(LRScheduler, SequentialLRWarmupThenCosine) {
  auto opt = sgd(1.0);
  auto warm = std::make_shared<LinearLR>(*opt, 0.1, 1.0, 4);
  auto cosine = std::make_shared<CosineAnnealingLR>(*opt, 6, 0.0);
  SequentialLR s(*opt, {warm, cosine}, {4});
  std::vector<double> want;
  for (int e = 0; e < 4; ++e) want.push_back(0.1 + 0.9 * e / 4.0);
  for (int e = 4; e < 11; ++e) want.push_back((1 + std::cos(kPi * (e - 4) / 6)) / 2);
  expect_close(lrs(*opt, s, 11), want, 1e-12);
}

TEST(LRScheduler, ChainedSchedulerDocstring) {
  // lr_scheduler.py's example (its values are those of an initial lr of 0.5): 0.05, 0.045,
  // 0.0405, ..., 0.00675 at epoch 19, then 0.06078 and 0.05470.
  auto opt = sgd(0.5);
  auto c = std::make_shared<ConstantLR>(*opt, 0.1, 20);
  auto e = std::make_shared<ExponentialLR>(*opt, 0.9);
  ChainedScheduler s({c, e});
  auto v = lrs(*opt, s, 22);
  for (int k = 0; k < 20; ++k) EXPECT_NEAR(v[k], 0.05 * std::pow(0.9, k), 1e-15) << k;
  EXPECT_NEAR(v[19], 0.00675, 1e-5);
  EXPECT_NEAR(v[20], 0.06078, 1e-5);
  EXPECT_NEAR(v[21], 0.05470, 1e-5);
}

TEST(LRScheduler, TwoSchedulersShareTheInitialLr) {
  auto opt = sgd(1.0);
  StepLR a(*opt, 2, 0.5);
  ExponentialLR b(*opt, 0.9);  // its base is the initial lr 1.0, which StepLR recorded
  EXPECT_EQ(b.base_lrs(), (std::vector<double>{1.0}));
  EXPECT_EQ(opt->param_groups()[0].options().initial_lr(), 1.0);
  a.step();
  b.step();
  a.step();
  b.step();
  EXPECT_NEAR(lr_of(*opt), 0.5 * 0.81, 1e-16);
}

TEST(LRScheduler, ResumingNeedsInitialLr) {
  auto opt = sgd(0.1);
  EXPECT_EQ(error_of([&] { StepLR(*opt, 2, 0.5, /*last_epoch=*/4); }),
            "[StepLR] param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer");
  opt->param_groups()[0].options().set_initial_lr(1.0);
  opt->param_groups()[0].options().set_lr(0.25);
  // As PyTorch, the initial step moves to epoch 4, a decay epoch.
  StepLR s(*opt, 2, 0.5, /*last_epoch=*/3);
  EXPECT_EQ(s.last_epoch(), 4);
  EXPECT_EQ(lr_of(*opt), 0.125);
  s.step();
  EXPECT_EQ(lr_of(*opt), 0.125);
  s.step();
  EXPECT_EQ(lr_of(*opt), 0.0625);
}

TEST(LRScheduler, ConstructionErrors) {
  auto opt = sgd(0.1);
  EXPECT_EQ(error_of([&] { ConstantLR(*opt, 2.0); }),
            "[ConstantLR] Constant multiplicative factor expected to be between 0 and 1.");
  EXPECT_EQ(error_of([&] { LinearLR(*opt, 0.0); }),
            "[LinearLR] Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  EXPECT_EQ(error_of([&] { LinearLR(*opt, 0.5, 1.5); }),
            "[LinearLR] Ending multiplicative factor expected to be between 0 and 1.");
  EXPECT_EQ(error_of([&] { StepLR(*opt, 0); }), "[StepLR] step_size: expected a positive integer, got 0");
  EXPECT_EQ(error_of([&] { CosineAnnealingWarmRestarts(*opt, 0); }),
            "[CosineAnnealingWarmRestarts] Expected positive integer T_0, but got 0");
  EXPECT_EQ(error_of([&] { CosineAnnealingWarmRestarts(*opt, 2, 0); }),
            "[CosineAnnealingWarmRestarts] Expected integer T_mult >= 1, but got 0");
  EXPECT_FALSE(opt->param_groups()[0].options().initial_lr().has_value());  // nothing recorded
  auto a = std::make_shared<StepLR>(*opt, 2);
  auto other = sgd(0.1);
  auto b = std::make_shared<StepLR>(*other, 2);
  EXPECT_EQ(error_of([&] {
              SequentialLR(*opt, {a, a}, {});
            }),
            "[SequentialLR] Sequential Schedulers expects number of schedulers provided to be one more than the number "
            "of milestone points, but got number of schedulers 2 and the number of milestones to be equal to 0");
  EXPECT_EQ(error_of([&] { SequentialLR(*opt, {}, {}); }),
            "[SequentialLR] SequentialLR expects at least one scheduler, but got no scheduler.");
  EXPECT_EQ(error_of([&] {
              SequentialLR(*opt, {a, b}, {3});
            }),
            "[SequentialLR] SequentialLR expects all schedulers to belong to the same optimizer, but got scheduler "
            "StepLR at index 1 with a different optimizer");
  EXPECT_EQ(error_of([&] { ChainedScheduler({}); }),
            "[ChainedScheduler] ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.");
}

TEST(ReduceLROnPlateau, MinRelWithPatienceAndCooldown) {
  auto opt = sgd(1.0);
  ReduceLROnPlateau s(*opt, ReduceLROnPlateau::min, 0.5, /*patience=*/2, /*threshold=*/0.1, ReduceLROnPlateau::rel,
                      /*cooldown=*/1);
  const double metrics[] = {10, 9.5, 9.2, 9.1, 9.0, 5.0, 4.9, 4.8, 4.7, 4.6, 4.5, 4.4};
  const double want[] = {1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25};
  for (int e = 0; e < 12; ++e) {
    s.step(metrics[e]);
    EXPECT_EQ(lr_of(*opt), want[e]) << "epoch " << e + 1;
    EXPECT_EQ(s.get_last_lr().at(0), want[e]);
  }
  EXPECT_EQ(s.best(), 4.4);
  EXPECT_EQ(s.last_epoch(), 12);
}

TEST(ReduceLROnPlateau, CooldownIgnoresBadEpochs) {
  auto opt = sgd(1.0);
  ReduceLROnPlateau s(*opt, ReduceLROnPlateau::min, 0.5, /*patience=*/1, 1e-4, ReduceLROnPlateau::rel,
                      /*cooldown=*/2);
  const double want[] = {1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25};
  for (int e = 0; e < 8; ++e) {
    s.step(5.0);  // never improves
    EXPECT_EQ(lr_of(*opt), want[e]) << "epoch " << e + 1;
    EXPECT_EQ(s.in_cooldown(), e == 2 || e == 3 || e == 6 || e == 7) << "epoch " << e + 1;
  }
}

TEST(ReduceLROnPlateau, MaxAbsMinLrAndEps) {
  auto p = make_params();
  SGD opt({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]}, SGDOptions(0.3))}, SGDOptions(1.0));
  ReduceLROnPlateau s(opt, ReduceLROnPlateau::max, 0.1, /*patience=*/0, /*threshold=*/0.5, ReduceLROnPlateau::abs, 0,
                      /*min_lr=*/{0.05, 0.2});
  s.step(1.0);  // best 1
  s.step(1.4);  // not > 1.5: reduce, group 1 floors at its min_lr
  EXPECT_NEAR(lr_of(opt, 0), 0.1, 1e-17);
  EXPECT_EQ(lr_of(opt, 1), 0.2);
  s.step(2.0);  // better
  EXPECT_NEAR(lr_of(opt, 0), 0.1, 1e-17);
  s.step(0.0);
  EXPECT_EQ(lr_of(opt, 0), 0.05);
  EXPECT_EQ(lr_of(opt, 1), 0.2);  // already at its floor
  // A reduction smaller than eps is skipped: 0.3 -> 0.27 is, 1 -> 0.9 is not.
  auto q = make_params();
  SGD opt2({OptimizerParamGroup({q[0], q[1]}), OptimizerParamGroup({q[2]}, SGDOptions(0.3))}, SGDOptions(1.0));
  ReduceLROnPlateau e(opt2, ReduceLROnPlateau::max, 0.9, 0, 1e-4, ReduceLROnPlateau::rel, 0, {}, /*eps=*/0.05);
  e.step(1.0);
  e.step(0.0);
  EXPECT_NEAR(lr_of(opt2, 0), 0.9, 1e-16);
  EXPECT_EQ(lr_of(opt2, 1), 0.3);
  EXPECT_EQ(error_of([&] { ReduceLROnPlateau(opt, ReduceLROnPlateau::min, 1.0); }),
            "[ReduceLROnPlateau] Factor should be < 1.0.");
  EXPECT_EQ(error_of([&] {
              ReduceLROnPlateau(opt, ReduceLROnPlateau::min, 0.1, 10, 1e-4, ReduceLROnPlateau::rel, 0, {0.1, 0.2, 0.3});
            }),
            "[ReduceLROnPlateau] expected 2 min_lrs, got 3");
}

// ------------------------------------------------------------------------------------------
// state_dict

TEST(LRSchedulerStateDict, RoundTripResumesTheSequence) {
  // OneCycleLR on SGD: lr and momentum continue exactly after optimizer + scheduler reload.
  auto make = [] { return std::make_unique<SGD>(make_params(), SGDOptions(0.1).momentum(0.9)); };
  auto options = OneCycleLROptions(0.8).total_steps(12).three_phase(true);
  auto a = make();
  OneCycleLR sa(*a, options);
  std::vector<double> straight;
  for (int i = 0; i < 11; ++i) sa.step(), straight.push_back(lr_of(*a));

  auto b = make();
  auto sb = std::make_unique<OneCycleLR>(*b, options);
  for (int i = 0; i < 5; ++i) sb->step();
  const TensorDict opt_state = b->state_dict(), sched_state = sb->state_dict();
  EXPECT_EQ(sched_state["last_epoch"].item<int64_t>(), 5);
  EXPECT_EQ(sched_state["_anneal_func_type"].numel(), 3);  // "cos"
  auto c = make();
  OneCycleLR sc(*c, OneCycleLROptions(5.0).total_steps(100).anneal_strategy("linear"));  // replaced by the load
  c->load_state_dict(opt_state);
  sc.load_state_dict(sched_state);
  EXPECT_EQ(sc.total_steps(), 12);
  for (int i = 5; i < 11; ++i) {
    sc.step();
    EXPECT_EQ(lr_of(*c), straight[i]) << i;
    EXPECT_EQ(c->param_groups()[0].options().get_momentum(), a->param_groups()[0].options().get_momentum());
  }
}

TEST(LRSchedulerStateDict, SequentialLRNestsItsSchedulers) {
  auto run = [](int steps, const TensorDict* load, TensorDict* save) {
    auto opt = sgd(1.0);
    auto w = std::make_shared<LinearLR>(*opt, 0.1, 1.0, 3);
    auto r = std::make_shared<CosineAnnealingWarmRestarts>(*opt, 2, 2);
    SequentialLR s(*opt, {w, r}, {3});
    if (load) {
      s.load_state_dict(*load);
      opt->param_groups()[0].options().set_lr(s.get_last_lr()[0]);
    }
    for (int i = 0; i < steps; ++i) s.step();
    if (save) *save = s.state_dict();
    return lr_of(*opt);
  };
  TensorDict mid;
  const double straight = run(9, nullptr, nullptr);
  run(4, nullptr, &mid);
  EXPECT_TRUE(mid.contains("_schedulers.0.last_epoch"));
  EXPECT_TRUE(mid.contains("_schedulers.1.T_cur"));
  EXPECT_EQ(mid["_milestones"].item<int64_t>(), 3);
  EXPECT_EQ(run(5, &mid, nullptr), straight);
}

TEST(LRSchedulerStateDict, BadDictsChangeNothing) {
  auto opt = sgd(0.1);
  StepLR s(*opt, 3, 0.5);
  s.step();
  const TensorDict good = s.state_dict();
  EXPECT_EQ(good.keys(),
            (std::vector<std::string>{"base_lrs", "last_epoch", "_step_count", "_last_lr", "step_size", "gamma"}));
  TensorDict bad;
  for (const auto& item : good) bad.insert(item.key(), item.value().clone());
  bad["step_size"] = full({}, 7, kInt64);
  bad["base_lrs"] = zeros({2}, kFloat64);
  EXPECT_EQ(error_of([&] { s.load_state_dict(bad); }),
            "[StepLR] load_state_dict: the state has 2 base lrs and 1 last lrs, the optimizer has 1 parameter groups");
  EXPECT_EQ(s.state_dict()["step_size"].item<int64_t>(), 3);  // restored
  bad = TensorDict();
  for (const auto& item : good) bad.insert(item.key(), item.value().clone());
  bad.insert("T_max", full({}, 7, kInt64));
  EXPECT_EQ(error_of([&] { s.load_state_dict(bad); }), "[StepLR] load_state_dict: unexpected key 'T_max'");
  bad.erase("T_max");
  bad.erase("gamma");
  EXPECT_EQ(error_of([&] { s.load_state_dict(bad); }), "[StepLR] load_state_dict: missing key 'gamma'");

  ReduceLROnPlateau r(*opt);
  r.step(1.0);
  TensorDict rs = r.state_dict();
  EXPECT_EQ(rs["best"].item<double>(), 1.0);
  rs["mode"] = from_vec({109, 101, 100}, {3}).to(kUInt8);  // "med"
  EXPECT_EQ(error_of([&] { r.load_state_dict(rs); }), "[ReduceLROnPlateau] load_state_dict: mode med is unknown!");
  EXPECT_EQ(r.last_epoch(), 1);
}

}  // namespace
