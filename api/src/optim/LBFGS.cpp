// L-BFGS: a port of PyTorch's torch/optim/lbfgs.py (itself from minFunc and torch7's lswolfe.lua).
// Scalars (dot products, losses, step lengths) are doubles; vectors stay tensors on the
// parameters' device.
#include "ember/optim/LBFGS.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

namespace {

double dot_value(const Tensor& a, const Tensor& b) { return a.mul(b).sum().item<double>(); }
double abs_max(const Tensor& a) { return a.abs().max().item<double>(); }

// The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to the bounds
// (default: the interval between x1 and x2); the bounds' midpoint when the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [xmin_bound, xmax_bound] = bounds ? *bounds : (x1 <= x2 ? std::pair(x1, x2) : std::pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2.0;
}

struct LineSearchResult {
  double f;
  Tensor g;
  double t;
  int64_t func_evals;
};

// A step length satisfying the strong Wolfe conditions along d from x (f, g, gtd: the loss, the
// gradient and the directional derivative there).
template <class ObjFunc>
LineSearchResult strong_wolfe(ObjFunc&& obj_func, const std::vector<Tensor>& x, double t, const Tensor& d, double f,
                              const Tensor& g_in, double gtd, double c1 = 1e-4, double c2 = 0.9,
                              double tolerance_change = 1e-9, int64_t max_ls = 25) {
  const double d_norm = abs_max(d);
  const Tensor g = g_in.clone();
  auto [f_new, g_new] = obj_func(x, t, d);
  int64_t ls_func_evals = 1;
  double gtd_new = dot_value(g_new, d);

  // Bracket an interval containing a point satisfying the Wolfe criteria.
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::array<double, 2> bracket{}, bracket_f{}, bracket_gtd{};
  std::array<Tensor, 2> bracket_g;
  bool single = false;  // the bracket holds one point
  while (ls_iter < max_ls) {
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t, t};
      bracket_f = {f_new, f_new};
      bracket_g = {g_new, g_new};
      single = true;
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Interpolate.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair(min_step, max_step));
    // Next step.
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = dot_value(g_new, d);
    ls_iter += 1;
  }
  // Reached the maximum number of iterations?
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom: refine the bracket until a point satisfies the criteria.
  bool insuf_progress = false;
  int low_pos = 0, high_pos = 1;
  if (!(bracket_f[0] <= bracket_f[single ? 0 : 1])) std::swap(low_pos, high_pos);
  while (!done && ls_iter < max_ls) {
    // The bracket is too small.
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // A t too close to the bracket's ends (or a second time close) moves to 0.1 of its length
    // from the nearest end.
    const double bmax = std::max(bracket[0], bracket[1]), bmin = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (bmax - bmin);
    if (std::min(bmax - t, t - bmin) < eps) {
      if (insuf_progress || t >= bmax || t <= bmin) {
        t = std::abs(t - bmax) < std::abs(t - bmin) ? bmax - eps : bmin + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = dot_value(g_new, d);
    ls_iter += 1;

    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low_pos]) {
      // Armijo condition not satisfied or not lower than the lowest point.
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      low_pos = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high_pos = 1 - low_pos;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;  // Wolfe conditions satisfied
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        // The old high becomes the new low.
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      // The new point becomes the new low.
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}

}  // namespace

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

void LBFGSOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("max_iter", max_iter_);
  a.value("max_eval", max_eval_);
  a.value("tolerance_grad", tolerance_grad_);
  a.value("tolerance_change", tolerance_change_);
  a.value("history_size", history_size_);
  a.value("line_search_fn", line_search_fn_);
}

void LBFGSParamState::serialize(StateArchive& a) {
  a.value("func_evals", func_evals_);
  a.value("n_iter", n_iter_);
  // The rest exists once an iteration has run.
  if (a.saving() ? !d_.defined() : !a.contains("d")) return;
  a.value("t", t_);
  a.value("prev_loss", prev_loss_);
  a.value("H_diag", H_diag_);
  a.tensor("d", d_, StateArchive::Shape::kAny);
  a.tensor("prev_flat_grad", prev_flat_grad_, StateArchive::Shape::kAny);
  std::vector<double> ro(ro_.begin(), ro_.end());
  a.value("ro", ro);
  for (auto [name, list] : {std::pair("old_dirs", &old_dirs_), std::pair("old_stps", &old_stps_)}) {
    Tensor stacked;
    if (a.saving())
      stacked =
          list->empty() ? zeros({0, d_.numel()}, d_.options()) : stack(std::vector<Tensor>(list->begin(), list->end()));
    a.tensor(name, stacked, StateArchive::Shape::kAny);
    if (a.saving()) continue;
    if (stacked.dim() != 2 || stacked.size(0) != static_cast<int64_t>(ro.size()) || stacked.size(1) != d_.numel())
      a.fail(fmt::format("'{}{}' expected shape [{}, {}] (history length, parameters), got {}", a.prefix(), name,
                         ro.size(), d_.numel(), stacked.sizes()));
    list->clear();
    for (int64_t i = 0; i < stacked.size(0); ++i) list->push_back(stacked[i].clone());
  }
  if (!a.saving()) {
    ro_.assign(ro.begin(), ro.end());
    if (d_.dim() != 1 || prev_flat_grad_.sizes() != d_.sizes())
      a.fail(fmt::format("'{}d' and '{}prev_flat_grad' expected the same 1-dim shape, got {} and {}", a.prefix(),
                         a.prefix(), d_.sizes(), prev_flat_grad_.sizes()));
  }
}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer("LBFGS", std::make_unique<LBFGSOptions>(defaults)) {
  check_options(defaults);
  EMBER_CHECK(param_groups.size() == 1, "[LBFGS] LBFGS doesn't support per-parameter options (parameter groups)");
  add_param_groups(param_groups);
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void LBFGS::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<LBFGSOptions>("LBFGS", "LBFGSOptions", options);
  detail::check_lr("LBFGS", o.lr());
  EMBER_CHECK(o.max_iter() > 0, "[LBFGS] Invalid max_iter value: {}", o.max_iter());
  EMBER_CHECK(!o.max_eval() || *o.max_eval() > 0, "[LBFGS] Invalid max_eval value: {}", o.max_eval().value_or(0));
  EMBER_CHECK(o.history_size() > 0, "[LBFGS] Invalid history_size value: {}", o.history_size());
  EMBER_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe",
              "[LBFGS] only 'strong_wolfe' is supported as line_search_fn, got '{}'", o.line_search_fn().value_or(""));
}

std::unique_ptr<OptimizerParamState> LBFGS::make_state() const { return std::make_unique<LBFGSParamState>(); }

void LBFGS::check_loaded_state(const std::vector<OptimizerParamGroup>& groups, const StateMap& state) const {
  int64_t n = 0;
  for (const auto& p : groups.at(0).params()) n += p.numel();
  for (const auto& [key, s] : state) {
    EMBER_CHECK(key == param_key(groups[0].params().at(0)),
                "[LBFGS] load_state_dict: LBFGS keeps its state on the first parameter, got state for another");
    const auto& st = static_cast<const LBFGSParamState&>(*s);
    EMBER_CHECK(!st.d().defined() || st.d().numel() == n,
                "[LBFGS] load_state_dict: the saved direction has {} elements, the parameters have {}", st.d().numel(),
                n);
  }
}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const auto& p : param_groups_[0].params()) n += p.numel();
  return n;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const auto& p : param_groups_[0].params())
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros({p.numel()}, p.options()));
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const auto& p : param_groups_[0].params()) {
    const int64_t n = p.numel();
    p.add_(update.narrow(0, offset, n).view(p.sizes()), step_size);
    offset += n;
  }
  EMBER_INTERNAL_ASSERT(offset == numel());
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x,
                                                      double t, const Tensor& d) {
  add_grad(t, d);
  const double loss = run_closure(closure).item<double>();
  Tensor flat_grad = gather_flat_grad();
  const auto& params = param_groups_[0].params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x[i]);
  return {loss, flat_grad};
}

Tensor LBFGS::step(LossClosure closure) {
  EMBER_CHECK(closure != nullptr,
              "[LBFGS] step: expected a closure that reevaluates the model and returns the loss, got none");
  NoGradGuard no_grad;
  const auto& o = static_cast<const LBFGSOptions&>(param_groups_[0].options());
  const double lr = o.lr();
  const int64_t max_iter = o.max_iter();
  const int64_t max_eval = o.max_eval().value_or(max_iter * 5 / 4);
  const double tolerance_grad = o.tolerance_grad(), tolerance_change = o.tolerance_change();
  const size_t history_size = static_cast<size_t>(o.history_size());
  const auto& params = param_groups_[0].params();

  auto& state = state_of<LBFGSParamState>(params[0], [] { return std::make_unique<LBFGSParamState>(); });

  // The initial f(x) and df/dx.
  Tensor orig_loss = run_closure(closure);
  EMBER_CHECK(orig_loss.defined() && orig_loss.numel() == 1,
              "[LBFGS] step: the closure must return the loss as a one-element tensor");
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  state.func_evals() += 1;
  check_dense_grads();

  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = abs_max(flat_grad) <= tolerance_grad;
  if (opt_cond) return orig_loss;  // already optimal

  Tensor d = state.d(), prev_flat_grad = state.prev_flat_grad();
  double t = state.t(), H_diag = state.H_diag(), prev_loss = state.prev_loss();
  auto& old_dirs = state.old_dirs();
  auto& old_stps = state.old_stps();
  auto& ro = state.ro();

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    n_iter += 1;
    state.n_iter() += 1;

    // The descent direction.
    if (state.n_iter() == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      H_diag = 1;
    } else {
      // Update the memory.
      Tensor y = flat_grad.sub(prev_flat_grad);
      Tensor s = d.mul(t);
      const double ys = dot_value(y, s);
      if (ys > 1e-10) {
        if (old_dirs.size() == history_size) {  // drop the oldest pair
          old_dirs.pop_front();
          old_stps.pop_front();
          ro.pop_front();
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(1.0 / ys);
        H_diag = ys / dot_value(y, y);  // the scale of the initial Hessian approximation
      }
      // The two-loop recursion: d = -H * g.
      const size_t num_old = old_dirs.size();
      std::vector<double> al(num_old);
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = dot_value(old_stps[k], q) * ro[k];
        q.add_(old_dirs[k], -al[k]);
      }
      d = q.mul(H_diag);
      for (size_t k = 0; k < num_old; ++k) {
        const double be_i = dot_value(old_dirs[k], d) * ro[k];
        d.add_(old_stps[k], al[k] - be_i);
      }
    }
    if (!prev_flat_grad.defined())
      prev_flat_grad = flat_grad.clone();
    else
      prev_flat_grad.copy_(flat_grad);
    prev_loss = loss;

    // The step length: lr, or on the very first iteration min(1, 1/|g|_1) * lr.
    t = state.n_iter() == 1 ? std::min(1.0, 1.0 / flat_grad.abs().sum().item<double>()) * lr : lr;
    const double gtd = dot_value(flat_grad, d);  // the directional derivative
    if (gtd > -tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      std::vector<Tensor> x_init;
      for (const auto& p : params) x_init.push_back(p.clone());
      auto obj_func = [&](const std::vector<Tensor>& x, double step_t, const Tensor& dir) {
        return directional_evaluate(closure, x, step_t, dir);
      };
      LineSearchResult r = strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd);
      loss = r.f;
      flat_grad = r.g;
      t = r.t;
      ls_func_evals = r.func_evals;
      add_grad(t, d);
      opt_cond = abs_max(flat_grad) <= tolerance_grad;
    } else {
      // A fixed step; re-evaluate unless this is the last iteration.
      add_grad(t, d);
      if (n_iter != max_iter) {
        loss = run_closure(closure).item<double>();
        flat_grad = gather_flat_grad();
        opt_cond = abs_max(flat_grad) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals() += ls_func_evals;

    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (abs_max(d.mul(t)) <= tolerance_change) break;  // lack of progress
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }

  state.d(d);
  state.t(t);
  state.H_diag(H_diag);
  state.prev_flat_grad(prev_flat_grad);
  state.prev_loss(prev_loss);
  return orig_loss;
}

}  // namespace ember::optim
