// Adamax: PyTorch's single-tensor update (torch/optim/adamax.py, foreach=False).
#include "ember/optim/Adamax.h"

#include <cmath>

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

AdamaxOptions::AdamaxOptions(double lr) : lr_(lr) {}

void AdamaxOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("betas", betas_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("maximize", maximize_);
}

void AdamaxParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("exp_avg", exp_avg_);
  a.tensor("exp_inf", exp_inf_);
}

Adamax::Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults)
    : Optimizer("Adamax", std::make_unique<AdamaxOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions defaults)
    : Adamax(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Adamax::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<AdamaxOptions>("Adamax", "AdamaxOptions", options);
  detail::check_lr("Adamax", o.lr());
  detail::check_eps("Adamax", o.eps());
  detail::check_betas("Adamax", o.betas());
  detail::check_weight_decay("Adamax", o.weight_decay());
}

std::unique_ptr<OptimizerParamState> Adamax::make_state() const { return std::make_unique<AdamaxParamState>(); }

Tensor Adamax::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamaxOptions&>(group.options());
    const auto [beta1, beta2] = o.betas();
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<AdamaxParamState>(p, [&] {
        auto s = std::make_unique<AdamaxParamState>();
        s->exp_avg(zeros_like(p));
        s->exp_inf(zeros_like(p));
        return s;
      });
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      st.step() += 1;
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      st.exp_avg().lerp_(grad, 1 - beta1);
      // exp_inf = max(exp_inf * beta2, |grad| + eps), NaN-propagating as PyTorch's.
      st.exp_inf().mul_(beta2);
      st.exp_inf().copy_(stack({st.exp_inf(), grad.abs().add_(o.eps())}).amax(0));
      const double clr = o.lr() / (1 - std::pow(beta1, static_cast<double>(st.step())));
      p.add_(st.exp_avg().div(st.exp_inf()), -clr);  // addcdiv_(exp_avg, exp_inf, value=-clr)
    }
  }
  return loss;
}

}  // namespace ember::optim
