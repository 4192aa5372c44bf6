// Adam and AdamW: PyTorch's single-tensor update (torch/optim/adam.py, foreach=False; AdamW is
// Adam with decoupled weight decay).
#include "ember/optim/Adam.h"

#include <cmath>

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

namespace {

struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
};

void adam_update(const Tensor& p, AdamParamState& st, const AdamHyper& h) {
  Tensor grad = h.maximize ? p.grad().neg() : p.grad();
  st.step() += 1;
  if (h.weight_decay != 0) {
    if (h.decoupled)
      p.mul_(1 - h.lr * h.weight_decay);
    else
      grad = grad.add(p, h.weight_decay);
  }
  st.exp_avg().lerp_(grad, 1 - h.beta1);
  st.exp_avg_sq().mul_(h.beta2).addcmul_(grad, grad, 1 - h.beta2);
  const double step = static_cast<double>(st.step());
  const double bias_correction1 = 1 - std::pow(h.beta1, step);
  const double bias_correction2 = 1 - std::pow(h.beta2, step);
  const double step_size = h.lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  Tensor denom;
  if (h.amsgrad) {
    // torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq), NaN-propagating.
    st.max_exp_avg_sq().copy_(stack({st.max_exp_avg_sq(), st.exp_avg_sq()}).amax(0));
    denom = st.max_exp_avg_sq().sqrt().div_(bias_correction2_sqrt).add_(h.eps);
  } else {
    denom = st.exp_avg_sq().sqrt().div_(bias_correction2_sqrt).add_(h.eps);
  }
  p.add_(st.exp_avg().div(denom), -step_size);  // addcdiv_(exp_avg, denom, value=-step_size)
}

std::unique_ptr<AdamParamState> adam_init(const Tensor& p, bool amsgrad) {
  auto st = std::make_unique<AdamParamState>();
  st->exp_avg(zeros_like(p));
  st->exp_avg_sq(zeros_like(p));
  if (amsgrad) st->max_exp_avg_sq(zeros_like(p));
  return st;
}

// The hyper-parameters of a group of Adam (decoupled = false) or AdamW (true): the options types
// have the same fields.
template <class Options>
AdamHyper adam_hyper(const OptimizerOptions& options, bool decoupled) {
  const auto& o = static_cast<const Options&>(options);
  return AdamHyper{
      o.lr(),   std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad(), o.maximize(),
      decoupled};
}

template <class Options>
void check_adam_options(const char* name, const char* options_name, const OptimizerOptions& options) {
  const auto& o = detail::options_as<Options>(name, options_name, options);
  detail::check_lr(name, o.lr());
  detail::check_eps(name, o.eps());
  detail::check_betas(name, o.betas());
  detail::check_weight_decay(name, o.weight_decay());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Adam

AdamOptions::AdamOptions(double lr) : lr_(lr) {}

void AdamOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("betas", betas_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("amsgrad", amsgrad_);
  a.value("maximize", maximize_);
}

void AdamParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("exp_avg", exp_avg_);
  a.tensor("exp_avg_sq", exp_avg_sq_);
  a.tensor("max_exp_avg_sq", max_exp_avg_sq_, StateArchive::Shape::kLikeParam, /*optional=*/true);
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer("Adam", std::make_unique<AdamOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Adam::check_options(const OptimizerOptions& options) const {
  check_adam_options<AdamOptions>("Adam", "AdamOptions", options);
}

std::unique_ptr<OptimizerParamState> Adam::make_state() const { return std::make_unique<AdamParamState>(); }

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const AdamHyper h = adam_hyper<AdamOptions>(group.options(), /*decoupled=*/false);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<AdamParamState>(p, [&] { return adam_init(p, h.amsgrad); });
      if (h.amsgrad && !st.max_exp_avg_sq().defined()) st.max_exp_avg_sq(zeros_like(p));
      adam_update(p, st, h);
    }
  }
  return loss;
}

// ---------------------------------------------------------------------------------------------
// AdamW

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

void AdamWOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("betas", betas_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("amsgrad", amsgrad_);
  a.value("maximize", maximize_);
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer("AdamW", std::make_unique<AdamWOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void AdamW::check_options(const OptimizerOptions& options) const {
  check_adam_options<AdamWOptions>("AdamW", "AdamWOptions", options);
}

std::unique_ptr<OptimizerParamState> AdamW::make_state() const { return std::make_unique<AdamParamState>(); }

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const AdamHyper h = adam_hyper<AdamWOptions>(group.options(), /*decoupled=*/true);
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<AdamParamState>(p, [&] { return adam_init(p, h.amsgrad); });
      if (h.amsgrad && !st.max_exp_avg_sq().defined()) st.max_exp_avg_sq(zeros_like(p));
      adam_update(p, st, h);
    }
  }
  return loss;
}

}  // namespace ember::optim
