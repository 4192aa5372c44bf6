// Every optimizer against the algorithm box of its PyTorch documentation page
// (pytorch.org/docs/stable/generated/torch.optim.<Name>.html), written below as plain double
// loops: 100 steps in float64 on the problem of OptimTestUtil.h, with two parameter groups whose
// options differ and the options that change the algorithm switched on; the whole trajectory must
// agree to a relative error of 1e-10. `maximize` is applied as PyTorch's code does (the gradient
// is negated first, before weight decay), which SGD's algorithm box writes at the final update.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "OptimTestUtil.h"

using namespace ember;
using namespace ember::optim;
using namespace ember::optim_test;

namespace {

constexpr int kSteps = 100;
constexpr double kTol = 1e-10;

// One tensor's reference update: (theta, gradient of f, step t starting at 1).
using RefStep = std::function<void(Vec&, Vec, int)>;

// Runs `opt` and the per-tensor references side by side, comparing after every step. `sign` -1
// makes the objective -f (for maximize).
void expect_trajectory(Optimizer& opt, const std::vector<Tensor>& params, std::vector<RefStep> refs, double sign = 1.0,
                       int steps = kSteps) {
  Params ref = initial_params();
  double worst = 0;
  for (int t = 1; t <= steps; ++t) {
    opt.zero_grad();
    Tensor loss = loss_of(params) * sign;
    loss.backward();
    opt.step();
    Params g = grad_ref(ref);
    for (size_t k = 0; k < ref.size(); ++k) {
      for (double& v : g[k]) v *= sign;
      refs[k](ref[k], g[k], t);
      const double err = max_rel_error(to_vec(params[k]), ref[k]);
      worst = std::max(worst, err);
      ASSERT_LE(err, kTol) << "tensor " << k << " after step " << t;
    }
  }
  // The run moved the parameters (a stuck optimizer would agree with a stuck reference).
  EXPECT_GT(max_rel_error(to_vec(params[0]), kX0), 1e-3);
  EXPECT_GT(max_rel_error(to_vec(params[2]), kZ0), 1e-3);
  ::testing::Test::RecordProperty("max_rel_error", std::to_string(worst));
  if (getenv("OPTIM_TRACE")) printf("worst %g\n", worst);
}

std::vector<OptimizerParamGroup> two_groups(const std::vector<Tensor>& p, const OptimizerOptions& a,
                                            const OptimizerOptions& b) {
  return {OptimizerParamGroup({p[0], p[1]}, a), OptimizerParamGroup({p[2]}, b)};
}

// ------------------------------------------------------------------------------------------
// References, one per algorithm box. Each keeps its state per tensor.

struct SgdRef {
  double lr, momentum = 0, dampening = 0, wd = 0;
  bool nesterov = false, maximize = false;
  Vec b{};
  void operator()(Vec& th, Vec g, int t) {
    if (maximize)
      for (double& v : g) v = -v;
    for (size_t i = 0; i < th.size(); ++i) {
      if (wd != 0) g[i] += wd * th[i];
      if (momentum != 0) {
        if (t > 1)
          b[i] = momentum * b[i] + (1 - dampening) * g[i];
        else
          b.push_back(g[i]);
        g[i] = nesterov ? g[i] + momentum * b[i] : b[i];
      }
      th[i] -= lr * g[i];
    }
  }
};

struct AdamRef {
  double lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = 0;
  bool amsgrad = false, maximize = false, decoupled = false;
  Vec m{}, v{}, vmax{};
  void operator()(Vec& th, Vec g, int t) {
    if (m.empty()) m = v = vmax = Vec(th.size(), 0.0);
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) {
        if (decoupled)
          th[i] -= lr * wd * th[i];
        else
          g[i] += wd * th[i];
      }
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
      const double mhat = m[i] / (1 - std::pow(beta1, t));
      double vhat;
      if (amsgrad) {
        vmax[i] = std::max(vmax[i], v[i]);
        vhat = vmax[i] / (1 - std::pow(beta2, t));
      } else {
        vhat = v[i] / (1 - std::pow(beta2, t));
      }
      th[i] -= lr * mhat / (std::sqrt(vhat) + eps);
    }
  }
};

struct RmspropRef {
  double lr, alpha = 0.99, eps = 1e-8, wd = 0, momentum = 0;
  bool centered = false, maximize = false;
  Vec v{}, gave{}, b{};
  void operator()(Vec& th, Vec g, int) {
    if (v.empty()) v = gave = b = Vec(th.size(), 0.0);
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) g[i] += wd * th[i];
      v[i] = alpha * v[i] + (1 - alpha) * g[i] * g[i];
      double vt = v[i];
      if (centered) {
        gave[i] = alpha * gave[i] + (1 - alpha) * g[i];
        vt -= gave[i] * gave[i];
      }
      if (momentum > 0) {
        b[i] = momentum * b[i] + g[i] / (std::sqrt(vt) + eps);
        th[i] -= lr * b[i];
      } else {
        th[i] -= lr * g[i] / (std::sqrt(vt) + eps);
      }
    }
  }
};

struct AdagradRef {
  double lr, lr_decay = 0, wd = 0, init = 0, eps = 1e-10;
  bool maximize = false;
  Vec sum{};
  void operator()(Vec& th, Vec g, int t) {
    if (sum.empty()) sum = Vec(th.size(), init);
    const double clr = lr / (1 + (t - 1) * lr_decay);
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) g[i] += wd * th[i];
      sum[i] += g[i] * g[i];
      th[i] -= clr * g[i] / (std::sqrt(sum[i]) + eps);
    }
  }
};

struct AdadeltaRef {
  double lr = 1.0, rho = 0.9, eps = 1e-6, wd = 0;
  bool maximize = false;
  Vec v{}, u{};
  void operator()(Vec& th, Vec g, int) {
    if (v.empty()) v = u = Vec(th.size(), 0.0);
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) g[i] += wd * th[i];
      v[i] = v[i] * rho + g[i] * g[i] * (1 - rho);
      const double dx = std::sqrt(u[i] + eps) / std::sqrt(v[i] + eps) * g[i];
      u[i] = u[i] * rho + dx * dx * (1 - rho);
      th[i] -= lr * dx;
    }
  }
};

struct AdamaxRef {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = 0;
  bool maximize = false;
  Vec m{}, u{};
  void operator()(Vec& th, Vec g, int t) {
    if (m.empty()) m = u = Vec(th.size(), 0.0);
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) g[i] += wd * th[i];
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      u[i] = std::max(beta2 * u[i], std::abs(g[i]) + eps);
      th[i] -= lr * m[i] / ((1 - std::pow(beta1, t)) * u[i]);
    }
  }
};

struct NadamRef {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = 0, psi = 4e-3;
  bool decoupled = false, maximize = false;
  Vec m{}, v{};
  double mu_prod = 1;  // prod_{i<=t} mu_i
  void operator()(Vec& th, Vec g, int t) {
    if (m.empty()) m = v = Vec(th.size(), 0.0);
    const double mu_t = beta1 * (1 - 0.5 * std::pow(0.96, t * psi));
    const double mu_next = beta1 * (1 - 0.5 * std::pow(0.96, (t + 1) * psi));
    mu_prod *= mu_t;
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) {
        if (decoupled)
          th[i] -= lr * wd * th[i];
        else
          g[i] += wd * th[i];
      }
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
      const double mhat = mu_next * m[i] / (1 - mu_prod * mu_next) + (1 - mu_t) * g[i] / (1 - mu_prod);
      const double vhat = v[i] / (1 - std::pow(beta2, t));
      th[i] -= lr * mhat / (std::sqrt(vhat) + eps);
    }
  }
};

struct RadamRef {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = 0;
  bool decoupled = false, maximize = false;
  Vec m{}, v{};
  int rectified_steps = 0;  // how often the rho_t > 5 branch ran
  void operator()(Vec& th, Vec g, int t) {
    if (m.empty()) m = v = Vec(th.size(), 0.0);
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * t * std::pow(beta2, t) / (1 - std::pow(beta2, t));
    if (rho_t > 5) ++rectified_steps;
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) {
        if (decoupled)
          th[i] -= lr * wd * th[i];
        else
          g[i] += wd * th[i];
      }
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
      const double mhat = m[i] / (1 - std::pow(beta1, t));
      if (rho_t > 5) {
        const double l = std::sqrt(1 - std::pow(beta2, t)) / (std::sqrt(v[i]) + eps);
        const double r = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
        th[i] -= lr * mhat * r * l;
      } else {
        th[i] -= lr * mhat;
      }
    }
  }
};

struct RpropRef {
  double lr = 1e-2, eta_minus = 0.5, eta_plus = 1.2, step_min = 1e-6, step_max = 50;
  bool maximize = false;
  Vec eta{}, g_prev{};
  void operator()(Vec& th, Vec g, int) {
    if (eta.empty()) {
      eta = Vec(th.size(), lr);
      g_prev = Vec(th.size(), 0.0);
    }
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      const double s = g[i] * g_prev[i];
      if (s > 0) {
        eta[i] = std::min(eta[i] * eta_plus, step_max);
      } else if (s < 0) {
        eta[i] = std::max(eta[i] * eta_minus, step_min);
        g[i] = 0;
      }
      th[i] -= eta[i] * (g[i] > 0 ? 1.0 : g[i] < 0 ? -1.0 : 0.0);
      g_prev[i] = g[i];
    }
  }
};

struct AsgdRef {
  double lr = 1e-2, lambd = 1e-4, alpha = 0.75, t0 = 1e6, wd = 0;
  bool maximize = false;
  double eta = -1, mu = 1;
  Vec ax{};
  void operator()(Vec& th, Vec g, int t) {
    if (ax.empty()) {
      ax = Vec(th.size(), 0.0);
      eta = lr;
    }
    for (size_t i = 0; i < th.size(); ++i) {
      if (maximize) g[i] = -g[i];
      if (wd != 0) g[i] += wd * th[i];
      th[i] *= 1 - lambd * eta;
      th[i] -= eta * g[i];
      ax[i] = mu != 1 ? ax[i] + (th[i] - ax[i]) * mu : th[i];
    }
    eta = lr / std::pow(1 + lambd * lr * t, alpha);
    mu = 1 / std::max(1.0, t - t0);
  }
};

template <class Ref>
std::vector<RefStep> refs(Ref a, Ref b) {
  return {a, a, b};  // x and y share group 0's options (each keeps its own state); z is group 1
}

template <class Ref>
std::vector<RefStep> refs(Ref a) {
  return {a, a, a};
}

// ------------------------------------------------------------------------------------------

TEST(OptimizerTrajectory, SGDMomentumDampeningNesterovWeightDecay) {
  auto p = make_params();
  SGD opt(two_groups(p, SGDOptions(0.01).momentum(0.9).dampening(0.1).weight_decay(0.01),
                     SGDOptions(0.02).momentum(0.8).nesterov(true).weight_decay(0.001)),
          SGDOptions(0.1));
  expect_trajectory(opt, p, refs(SgdRef{0.01, 0.9, 0.1, 0.01}, SgdRef{0.02, 0.8, 0, 0.001, /*nesterov=*/true}));
}

TEST(OptimizerTrajectory, SGDPlainAndMaximize) {
  auto p = make_params();
  SGD plain(p, SGDOptions(0.005));
  expect_trajectory(plain, p, refs(SgdRef{0.005}));
  auto q = make_params();
  SGD up(q, SGDOptions(0.01).momentum(0.5).weight_decay(0.02).maximize(true));
  SgdRef r{0.01, 0.5, 0, 0.02};
  r.maximize = true;
  expect_trajectory(up, q, refs(r), /*sign=*/-1.0);
}

TEST(OptimizerTrajectory, AdamAmsgradWeightDecay) {
  auto p = make_params();
  Adam opt(two_groups(p, AdamOptions(0.01).betas({0.8, 0.99}).weight_decay(0.01).amsgrad(true),
                      AdamOptions(0.02).eps(1e-6)));
  AdamRef a{0.01, 0.8, 0.99, 1e-8, 0.01, /*amsgrad=*/true};
  AdamRef b{0.02, 0.9, 0.999, 1e-6};
  expect_trajectory(opt, p, refs(a, b));
}

TEST(OptimizerTrajectory, AdamMaximize) {
  auto p = make_params();
  Adam opt(p, AdamOptions(0.01).weight_decay(0.05).maximize(true));
  AdamRef a{0.01, 0.9, 0.999, 1e-8, 0.05};
  a.maximize = true;
  expect_trajectory(opt, p, refs(a), -1.0);
}

TEST(OptimizerTrajectory, AdamWDecoupledWeightDecayAmsgrad) {
  auto p = make_params();
  AdamW opt(two_groups(p, AdamWOptions(0.01).weight_decay(0.1).amsgrad(true),
                       AdamWOptions(0.03).betas({0.95, 0.9}).maximize(false)));
  AdamRef a{0.01, 0.9, 0.999, 1e-8, 0.1, /*amsgrad=*/true, false, /*decoupled=*/true};
  AdamRef b{0.03, 0.95, 0.9, 1e-8, 0.01, false, false, /*decoupled=*/true};  // AdamW's default decay 1e-2
  expect_trajectory(opt, p, refs(a, b));
  auto q = make_params();
  AdamW up(q, AdamWOptions(0.01).maximize(true));
  AdamRef c{0.01, 0.9, 0.999, 1e-8, 0.01, false, /*maximize=*/true, /*decoupled=*/true};
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, RMSpropCenteredMomentum) {
  auto p = make_params();
  RMSprop opt(two_groups(p, RMSpropOptions(0.005).centered(true).momentum(0.5).weight_decay(0.01),
                         RMSpropOptions(0.005).alpha(0.9)));
  RmspropRef a{0.005, 0.99, 1e-8, 0.01, 0.5, /*centered=*/true};
  RmspropRef b{0.005, 0.9};
  expect_trajectory(opt, p, refs(a, b));
  auto q = make_params();
  RMSprop up(q, RMSpropOptions(0.002).centered(true).maximize(true));
  RmspropRef c{0.002, 0.99, 1e-8, 0, 0, true, /*maximize=*/true};
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, AdagradLrDecayInitialAccumulator) {
  auto p = make_params();
  // The sums start at the constructor's initial_accumulator_value in every group (PyTorch's
  // behaviour); group 1's own value (0) is not used.
  Adagrad opt(two_groups(p, AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.5).weight_decay(0.01),
                         AdagradOptions(0.05).eps(1e-6)),
              AdagradOptions().initial_accumulator_value(0.5));
  AdagradRef a{0.1, 0.01, 0.01, 0.5};
  AdagradRef b{0.05, 0, 0, 0.5, 1e-6};
  expect_trajectory(opt, p, refs(a, b));
  // A group added later starts from its own value.
  Tensor w = from_vec({1.0, -2.0}, {2}).requires_grad_();
  opt.add_param_group(OptimizerParamGroup({w}, AdagradOptions(0.1).initial_accumulator_value(3.0)));
  opt.zero_grad();
  (w * w).sum().backward();
  opt.step();
  // sum = 3 + g^2 with g = 2w; w -= 0.1 * g / (sqrt(sum) + 1e-10).
  const Vec got = to_vec(w);
  EXPECT_NEAR(got[0], 1.0 - 0.1 * 2.0 / (std::sqrt(3.0 + 4.0) + 1e-10), 1e-15);
  EXPECT_NEAR(got[1], -2.0 + 0.1 * 4.0 / (std::sqrt(3.0 + 16.0) + 1e-10), 1e-15);
  auto q = make_params();
  Adagrad up(q, AdagradOptions(0.05).maximize(true));
  AdagradRef c{0.05};
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, AdadeltaRhoWeightDecay) {
  auto p = make_params();
  Adadelta opt(two_groups(p, AdadeltaOptions(1.0).rho(0.95).weight_decay(0.01), AdadeltaOptions(2.0).eps(1e-4)));
  AdadeltaRef a{1.0, 0.95, 1e-6, 0.01};
  AdadeltaRef b{2.0, 0.9, 1e-4};
  expect_trajectory(opt, p, refs(a, b));
  auto q = make_params();
  Adadelta up(q, AdadeltaOptions(1.0).maximize(true));
  AdadeltaRef c;
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, AdamaxWeightDecay) {
  auto p = make_params();
  Adamax opt(two_groups(p, AdamaxOptions(0.02).betas({0.8, 0.99}).weight_decay(0.01), AdamaxOptions(0.01).eps(1e-3)));
  AdamaxRef a{0.02, 0.8, 0.99, 1e-8, 0.01};
  AdamaxRef b{0.01, 0.9, 0.999, 1e-3};
  expect_trajectory(opt, p, refs(a, b));
  auto q = make_params();
  Adamax up(q, AdamaxOptions(0.01).maximize(true));
  AdamaxRef c{0.01};
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, NAdamMomentumDecayAndDecoupledWeightDecay) {
  auto p = make_params();
  NAdam opt(two_groups(p, NAdamOptions(0.01).momentum_decay(0.01).weight_decay(0.01),
                       NAdamOptions(0.02).weight_decay(0.1).decoupled_weight_decay(true)));
  NadamRef a{0.01, 0.9, 0.999, 1e-8, 0.01, 0.01};
  NadamRef b{0.02, 0.9, 0.999, 1e-8, 0.1, 4e-3, /*decoupled=*/true};
  expect_trajectory(opt, p, refs(a, b));
  auto q = make_params();
  NAdam up(q, NAdamOptions(0.01).maximize(true));
  NadamRef c{0.01};
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, RAdamRectificationAndDecoupledWeightDecay) {
  auto p = make_params();
  RAdam opt(two_groups(p, RAdamOptions(0.01).weight_decay(0.01),
                       RAdamOptions(0.02).betas({0.9, 0.9}).weight_decay(0.1).decoupled_weight_decay(true)));
  RadamRef a{0.01, 0.9, 0.999, 1e-8, 0.01};
  RadamRef b{0.02, 0.9, 0.9, 1e-8, 0.1, /*decoupled=*/true};
  expect_trajectory(opt, p, refs(a, b));
  // rho_t > 5 from step 6 on (for beta2 = 0.999 and 0.9): both branches ran.
  RadamRef probe = a;
  Vec th = kX0;
  for (int t = 1; t <= kSteps; ++t) probe(th, Vec(6, 0.1), t);
  EXPECT_EQ(probe.rectified_steps, kSteps - 5);
  auto q = make_params();
  RAdam up(q, RAdamOptions(0.01).maximize(true));
  RadamRef c{0.01};
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, RpropEtasStepSizes) {
  auto p = make_params();
  Rprop opt(two_groups(p, RpropOptions(0.01).etas({0.4, 1.3}).step_sizes({1e-4, 0.05}), RpropOptions(0.02)));
  RpropRef a{0.01, 0.4, 1.3, 1e-4, 0.05};
  RpropRef b{0.02};
  expect_trajectory(opt, p, refs(a, b));
  auto q = make_params();
  Rprop up(q, RpropOptions(0.01).maximize(true));
  RpropRef c;
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

TEST(OptimizerTrajectory, ASGDAveragingAfterT0) {
  auto p = make_params();
  // t0 = 20: mu leaves 1 after step 21, so the average starts to lag the iterate.
  ASGD opt(
      two_groups(p, ASGDOptions(0.01).lambd(0.01).alpha(0.6).t0(20).weight_decay(0.01), ASGDOptions(0.02).lambd(1e-3)));
  // Shared so the references' averages can be read afterwards.
  auto ra = std::make_shared<AsgdRef>(AsgdRef{0.01, 0.01, 0.6, 20, 0.01});
  auto rb = std::make_shared<AsgdRef>(*ra);
  auto rc = std::make_shared<AsgdRef>(AsgdRef{0.02, 1e-3});
  auto call = [](std::shared_ptr<AsgdRef> r) -> RefStep { return [r](Vec& th, Vec g, int t) { (*r)(th, g, t); }; };
  expect_trajectory(opt, p, {call(ra), call(rb), call(rc)});
  // The averages (the state's ax), and mu below 1 after t0.
  const std::shared_ptr<AsgdRef> rs[] = {ra, rb, rc};
  for (size_t k = 0; k < 3; ++k) {
    const auto& st = static_cast<const ASGDParamState&>(*opt.state().at(param_key(p[k])));
    EXPECT_EQ(st.step(), kSteps);
    EXPECT_LE(max_rel_error(to_vec(st.ax()), rs[k]->ax), kTol) << "tensor " << k;
    EXPECT_NEAR(st.eta(), rs[k]->eta, 1e-15);
    EXPECT_NEAR(st.mu(), rs[k]->mu, 1e-15);
  }
  EXPECT_LT(ra->mu, 1.0);
  EXPECT_GT(max_rel_error(ra->ax, to_vec(p[0])), 1e-6);  // the average lags the iterate
  auto q = make_params();
  ASGD up(q, ASGDOptions(0.01).maximize(true));
  AsgdRef c;
  c.maximize = true;
  expect_trajectory(up, q, refs(c), -1.0);
}

}  // namespace
