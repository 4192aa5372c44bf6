// LBFGS against a plain-double port of PyTorch's torch/optim/lbfgs.py (its documentation page has
// no algorithm box; the source, after minFunc, is the specification), with and without the
// strong-Wolfe line search, and its errors. The reference takes f and its gradient from Ember
// (see LbfgsRef::eval); the closed-form gradient agrees with it (checked below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <tuple>

#include "OptimTestUtil.h"

using namespace ember;
using namespace ember::optim;
using namespace ember::optim_test;

namespace {

// The problem of OptimTestUtil.h, or its convex variant: y coupled linearly to x
// (5 sum (y - x/2)^2) instead of through x^2.
Tensor objective(const std::vector<Tensor>& t, bool convex) {
  if (!convex) return loss_of(t);
  Tensor a = 1.0 - t[0], b = t[1] - 0.5 * t[0], c = t[2] - from_vec(kC, {4}), z2 = t[2] * t[2];
  return (a * a).sum() + 5.0 * (b * b).sum() + (from_vec(kW, {4}) * c * c).sum() + 0.1 * (z2 * z2).sum();
}

Vec flatten(const Params& p) {
  Vec v;
  for (const auto& t : p) v.insert(v.end(), t.begin(), t.end());
  return v;
}

Params unflatten(const Vec& v) {
  return {Vec(v.begin(), v.begin() + 6), Vec(v.begin() + 6, v.begin() + 12), Vec(v.begin() + 12, v.end())};
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

double abs_max(const Vec& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

double cubic(double x1, double f1, double g1, double x2, double f2, double g2, bool bounded = false, double lo = 0,
             double hi = 0) {
  const double xmin = bounded ? lo : std::min(x1, x2), xmax = bounded ? hi : std::max(x1, x2);
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2sq = d1 * d1 - g1 * g2;
  if (d2sq < 0) return (xmin + xmax) / 2;
  const double d2 = std::sqrt(d2sq);
  const double pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                              : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(pos, xmin), xmax);
}

struct LbfgsRef {
  double lr;
  int max_iter, max_eval;
  size_t history;
  bool wolfe;
  bool convex = false;
  double tol_grad = 1e-7, tol_change = 1e-9;
  Vec x = flatten(initial_params());
  int64_t func_evals = 0, n_iter = 0;
  Vec d{}, prev_g{};
  double t = 0, H = 1, prev_loss = 0;
  std::deque<Vec> dirs{}, stps{};
  std::deque<double> ro{};

  // f and its gradient through Ember's autograd, so that both sides see the same values and the
  // comparison isolates the optimizer: L-BFGS's curvature pairs divide by differences of
  // gradients, which magnify a last-bit difference in them.
  std::pair<double, Vec> eval(const Vec& at) const {
    const Params v = unflatten(at);
    std::vector<Tensor> t = {from_vec(v[0], {2, 3}).requires_grad_(), from_vec(v[1], {2, 3}).requires_grad_(),
                             from_vec(v[2], {4}).requires_grad_()};
    Tensor l = objective(t, convex);
    l.backward();
    return {l.item<double>(), flatten({to_vec(t[0].grad()), to_vec(t[1].grad()), to_vec(t[2].grad())})};
  }

  // f and g at x + s * dir (x itself stays).
  std::pair<double, Vec> eval_along(double s, const Vec& dir) const {
    Vec y = x;
    for (size_t i = 0; i < y.size(); ++i) y[i] += s * dir[i];
    return eval(y);
  }

  std::tuple<double, Vec, double, int> line_search(double t0, double f, const Vec& g, double gtd) const {
    const double c1 = 1e-4, c2 = 0.9, tolerance_change = 1e-9;
    const int max_ls = 25;
    double tt = t0;
    const double d_norm = abs_max(d);
    auto [f_new, g_new] = eval_along(tt, d);
    int evals = 1;
    double gtd_new = dot(g_new, d);
    double t_prev = 0, f_prev = f, gtd_prev = gtd;
    Vec g_prev = g;
    bool done = false, single = false;
    int ls_iter = 0;
    double br[2] = {0, 0}, bf[2] = {0, 0}, bgtd[2] = {0, 0};
    Vec bg[2];
    while (ls_iter < max_ls) {
      if (f_new > f + c1 * tt * gtd || (ls_iter > 1 && f_new >= f_prev)) {
        br[0] = t_prev, br[1] = tt, bf[0] = f_prev, bf[1] = f_new, bg[0] = g_prev, bg[1] = g_new;
        bgtd[0] = gtd_prev, bgtd[1] = gtd_new;
        break;
      }
      if (std::abs(gtd_new) <= -c2 * gtd) {
        br[0] = br[1] = tt, bf[0] = bf[1] = f_new, bg[0] = bg[1] = g_new;
        done = single = true;
        break;
      }
      if (gtd_new >= 0) {
        br[0] = t_prev, br[1] = tt, bf[0] = f_prev, bf[1] = f_new, bg[0] = g_prev, bg[1] = g_new;
        bgtd[0] = gtd_prev, bgtd[1] = gtd_new;
        break;
      }
      const double lo = tt + 0.01 * (tt - t_prev), hi = tt * 10, tmp = tt;
      tt = cubic(t_prev, f_prev, gtd_prev, tt, f_new, gtd_new, true, lo, hi);
      t_prev = tmp, f_prev = f_new, g_prev = g_new, gtd_prev = gtd_new;
      std::tie(f_new, g_new) = eval_along(tt, d);
      ++evals;
      gtd_new = dot(g_new, d);
      ++ls_iter;
    }
    if (ls_iter == max_ls) br[0] = 0, br[1] = tt, bf[0] = f, bf[1] = f_new, bg[0] = g, bg[1] = g_new;
    bool insuf = false;
    int low = bf[0] <= bf[single ? 0 : 1] ? 0 : 1, high = 1 - low;
    while (!done && ls_iter < max_ls) {
      if (std::abs(br[1] - br[0]) * d_norm < tolerance_change) break;
      tt = cubic(br[0], bf[0], bgtd[0], br[1], bf[1], bgtd[1]);
      const double bmax = std::max(br[0], br[1]), bmin = std::min(br[0], br[1]), eps = 0.1 * (bmax - bmin);
      if (std::min(bmax - tt, tt - bmin) < eps) {
        if (insuf || tt >= bmax || tt <= bmin) {
          tt = std::abs(tt - bmax) < std::abs(tt - bmin) ? bmax - eps : bmin + eps;
          insuf = false;
        } else {
          insuf = true;
        }
      } else {
        insuf = false;
      }
      std::tie(f_new, g_new) = eval_along(tt, d);
      ++evals;
      gtd_new = dot(g_new, d);
      ++ls_iter;
      if (f_new > f + c1 * tt * gtd || f_new >= bf[low]) {
        br[high] = tt, bf[high] = f_new, bg[high] = g_new, bgtd[high] = gtd_new;
        low = bf[0] <= bf[1] ? 0 : 1;
        high = 1 - low;
      } else {
        if (std::abs(gtd_new) <= -c2 * gtd) {
          done = true;
        } else if (gtd_new * (br[high] - br[low]) >= 0) {
          br[high] = br[low], bf[high] = bf[low], bg[high] = bg[low], bgtd[high] = bgtd[low];
        }
        br[low] = tt, bf[low] = f_new, bg[low] = g_new, bgtd[low] = gtd_new;
      }
    }
    return {bf[low], bg[low], br[low], evals};
  }

  void step() {
    auto [loss, g] = eval(x);
    int evals = 1;
    ++func_evals;
    bool opt_cond = abs_max(g) <= tol_grad;
    if (opt_cond) return;
    for (int it = 1; it <= max_iter; ++it) {
      ++n_iter;
      if (n_iter == 1) {
        d = g;
        for (double& v : d) v = -v;
        dirs.clear(), stps.clear(), ro.clear();
        H = 1;
      } else {
        Vec y(g.size()), s(g.size());
        for (size_t i = 0; i < g.size(); ++i) y[i] = g[i] - prev_g[i], s[i] = d[i] * t;
        const double ys = dot(y, s);
        if (ys > 1e-10) {
          if (dirs.size() == history) dirs.pop_front(), stps.pop_front(), ro.pop_front();
          dirs.push_back(y), stps.push_back(s), ro.push_back(1 / ys);
          H = ys / dot(y, y);
        }
        std::vector<double> al(dirs.size());
        Vec q = g;
        for (double& v : q) v = -v;
        for (size_t k = dirs.size(); k-- > 0;) {
          al[k] = dot(stps[k], q) * ro[k];
          for (size_t i = 0; i < q.size(); ++i) q[i] -= al[k] * dirs[k][i];
        }
        d = q;
        for (double& v : d) v *= H;
        for (size_t k = 0; k < dirs.size(); ++k) {
          const double be = dot(dirs[k], d) * ro[k];
          for (size_t i = 0; i < d.size(); ++i) d[i] += (al[k] - be) * stps[k][i];
        }
      }
      prev_g = g;
      prev_loss = loss;
      if (n_iter == 1) {
        double l1 = 0;
        for (double v : g) l1 += std::abs(v);
        t = std::min(1.0, 1.0 / l1) * lr;
      } else {
        t = lr;
      }
      const double gtd = dot(g, d);
      if (gtd > -tol_change) break;
      int ls_evals = 0;
      if (wolfe) {
        std::tie(loss, g, t, ls_evals) = line_search(t, loss, g, gtd);
        for (size_t i = 0; i < x.size(); ++i) x[i] += t * d[i];
        opt_cond = abs_max(g) <= tol_grad;
      } else {
        for (size_t i = 0; i < x.size(); ++i) x[i] += t * d[i];
        if (it != max_iter) {
          std::tie(loss, g) = eval(x);
          opt_cond = abs_max(g) <= tol_grad;
          ls_evals = 1;
        }
      }
      evals += ls_evals;
      func_evals += ls_evals;
      if (it == max_iter || evals >= max_eval || opt_cond) break;
      Vec td = d;
      for (double& v : td) v *= t;
      if (abs_max(td) <= tol_change || std::abs(loss - prev_loss) < tol_change) break;
    }
  }
};

void expect_lbfgs_matches(LBFGSOptions options, LbfgsRef ref, int steps) {
  auto p = make_params();
  LBFGS opt(p, options);
  auto closure = [&] {
    opt.zero_grad();
    Tensor l = objective(p, ref.convex);
    l.backward();
    return l;
  };
  double first_loss = 0;
  for (int s = 1; s <= steps; ++s) {
    const double expected_loss = ref.eval(ref.x).first;
    Tensor loss = opt.step(closure);
    if (s == 1) first_loss = loss.item<double>();
    EXPECT_NEAR(loss.item<double>(), expected_loss, 1e-12 * std::abs(expected_loss)) << "step " << s;
    ref.step();
    Vec got;
    for (const auto& t : p) {
      Vec v = to_vec(t);
      got.insert(got.end(), v.begin(), v.end());
    }
    ASSERT_LE(max_rel_error(got, ref.x), 1e-10) << "after step " << s;
    const auto& st = static_cast<const LBFGSParamState&>(*opt.state().at(param_key(p[0])));
    EXPECT_EQ(st.func_evals(), ref.func_evals) << "after step " << s;
    EXPECT_EQ(st.n_iter(), ref.n_iter) << "after step " << s;
  }
  EXPECT_LT(ref.eval(ref.x).first, 0.5 * first_loss);  // it made progress
}

TEST(LBFGS, TheGradientMatchesTheClosedForm) {
  LbfgsRef r{1, 1, 1, 1, false};
  const Vec x = flatten(initial_params());
  auto [f, g] = r.eval(x);
  EXPECT_NEAR(f, loss_ref(initial_params()), 1e-13 * f);
  EXPECT_LE(max_rel_error(g, flatten(grad_ref(initial_params()))), 1e-14);
}

// 100 steps of one iteration each, and 100 of up to 4, on the convex variant: L-BFGS reaches the
// optimum (its gradient below tolerance_grad) and then returns early.
TEST(LBFGS, ConvexProblemHundredSteps) {
  expect_lbfgs_matches(LBFGSOptions(0.5).max_iter(1).history_size(5), LbfgsRef{0.5, 1, 1, 5, false, true}, 100);
  expect_lbfgs_matches(LBFGSOptions(1).max_iter(4).history_size(3).line_search_fn("strong_wolfe"),
                       LbfgsRef{1, 4, 5, 3, true, true}, 100);
  expect_lbfgs_matches(LBFGSOptions(0.5).max_iter(4).history_size(3), LbfgsRef{0.5, 4, 5, 3, false, true}, 100);
}

// In the curved valley two correct implementations drift apart near the optimum: L-BFGS divides
// by differences of nearly equal gradients, which magnify last-bit differences (in dot products'
// summation order) beyond 1e-10 once the loss is within ~1e-3 of its minimum, 0.0726. The
// comparison stops while the loss is still above 0.08.
TEST(LBFGS, CurvedValleyMatchesTheReference) {
  expect_lbfgs_matches(LBFGSOptions(0.2).max_iter(1).history_size(5), LbfgsRef{0.2, 1, 1, 5, false}, 40);
  // A short history, so the oldest pairs are dropped.
  expect_lbfgs_matches(LBFGSOptions(0.5).max_iter(5).history_size(3), LbfgsRef{0.5, 5, 6, 3, false}, 6);
  expect_lbfgs_matches(LBFGSOptions(1).max_iter(5).history_size(3).line_search_fn("strong_wolfe"),
                       LbfgsRef{1, 5, 6, 3, true}, 6);
  expect_lbfgs_matches(LBFGSOptions(1).max_iter(20).max_eval(40).line_search_fn("strong_wolfe"),
                       LbfgsRef{1, 20, 40, 100, true}, 1);
}

TEST(LBFGS, Errors) {
  auto p = make_params();
  EXPECT_EQ(error_of([&] {
              LBFGS(std::vector<OptimizerParamGroup>{{{p[0]}}, {{p[1]}}});
            }),
            "[LBFGS] LBFGS doesn't support per-parameter options (parameter groups)");
  LBFGS opt(p, LBFGSOptions(1));
  EXPECT_EQ(error_of([&] { opt.add_param_group({{make_params()[0]}}); }),
            "[LBFGS] LBFGS doesn't support per-parameter options (parameter groups)");
  EXPECT_EQ(error_of([&] { opt.step(); }),
            "[LBFGS] step: expected a closure that reevaluates the model and returns the loss, got none");
  EXPECT_EQ(error_of([&] { LBFGS(p, LBFGSOptions(1).line_search_fn("backtracking")); }),
            "[LBFGS] only 'strong_wolfe' is supported as line_search_fn, got 'backtracking'");
  EXPECT_EQ(error_of([&] { LBFGS(p, LBFGSOptions(-1)); }), "[LBFGS] Invalid learning rate: -1");
  EXPECT_EQ(error_of([&] { LBFGS(p, LBFGSOptions(1).history_size(0)); }), "[LBFGS] Invalid history_size value: 0");
}

TEST(LBFGS, StateDictChecksTheHistoryAgainstTheParameters) {
  auto p = make_params();
  LBFGS opt(p, LBFGSOptions(1).max_iter(3));
  auto closure = [&] {
    opt.zero_grad();
    Tensor l = loss_of(p);
    l.backward();
    return l;
  };
  opt.step(closure);
  TensorDict sd = opt.state_dict();
  const int64_t k = sd["state.0.ro"].numel();  // curvature pairs kept (y's > 1e-10)
  EXPECT_GE(k, 1);
  EXPECT_EQ(sd["state.0.old_dirs"].sizes(), IntArrayRef({k, 16}));
  EXPECT_EQ(sd["state.0.old_stps"].sizes(), IntArrayRef({k, 16}));
  EXPECT_EQ(sd["state.0.d"].sizes(), IntArrayRef({16}));
  EXPECT_EQ(sd["state.0.func_evals"].item<int64_t>(), 3);
  EXPECT_EQ(sd["state.0.n_iter"].item<int64_t>(), 2);  // max_eval = 3 * 5 / 4 stops the third iteration
  // A state saved for other parameters (16 elements, these have 15) is refused; nothing changes.
  auto q = make_params();
  std::vector<Tensor> smaller = {q[0], q[1], q[2].narrow(0, 0, 3).detach().clone().requires_grad_()};
  LBFGS other(smaller, LBFGSOptions(0.5));
  EXPECT_EQ(error_of([&] { other.load_state_dict(sd); }),
            "[LBFGS] load_state_dict: the saved direction has 16 elements, the parameters have 15");
  EXPECT_TRUE(other.state().empty());
  EXPECT_EQ(other.param_groups()[0].options().get_lr(), 0.5);
  // The history's pieces must agree.
  TensorDict bad;
  for (const auto& item : sd) bad.insert(item.key(), item.value());
  bad["state.0.ro"] = zeros({k + 1}, kFloat64);
  EXPECT_EQ(error_of([&] { opt.load_state_dict(bad); }),
            "[LBFGS] load_state_dict: 'state.0.old_dirs' expected shape [" + std::to_string(k + 1) +
                ", 16] (history length, parameters), got [" + std::to_string(k) + ", 16]");
}

TEST(LBFGS, StopsAtAnOptimum) {
  // At the minimum of a quadratic the first gradient is below tolerance_grad: one evaluation.
  Tensor w = zeros({3}, kFloat64).requires_grad_();
  LBFGS opt({w}, LBFGSOptions(1));
  int calls = 0;
  Tensor loss = opt.step([&] {
    ++calls;
    opt.zero_grad();
    Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loss.item<double>(), 0.0);
  const auto& st = static_cast<const LBFGSParamState&>(*opt.state().at(param_key(w)));
  EXPECT_EQ(st.func_evals(), 1);
  EXPECT_EQ(st.n_iter(), 0);
  EXPECT_FALSE(st.d().defined());
}

}  // namespace
