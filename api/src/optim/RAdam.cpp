// RAdam: PyTorch's single-tensor update (torch/optim/radam.py, foreach=False).
#include "ember/optim/RAdam.h"

#include <cmath>

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

RAdamOptions::RAdamOptions(double lr) : lr_(lr) {}

void RAdamOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("betas", betas_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("decoupled_weight_decay", decoupled_weight_decay_);
  a.value("maximize", maximize_);
}

void RAdamParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("exp_avg", exp_avg_);
  a.tensor("exp_avg_sq", exp_avg_sq_);
}

RAdam::RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults)
    : Optimizer("RAdam", std::make_unique<RAdamOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions defaults)
    : RAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void RAdam::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<RAdamOptions>("RAdam", "RAdamOptions", options);
  detail::check_lr("RAdam", o.lr());
  detail::check_eps("RAdam", o.eps());
  detail::check_betas("RAdam", o.betas());
  detail::check_weight_decay("RAdam", o.weight_decay());
}

std::unique_ptr<OptimizerParamState> RAdam::make_state() const { return std::make_unique<RAdamParamState>(); }

Tensor RAdam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RAdamOptions&>(group.options());
    const auto [beta1, beta2] = o.betas();
    const double lr = o.lr();
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<RAdamParamState>(p, [&] {
        auto s = std::make_unique<RAdamParamState>();
        s->exp_avg(zeros_like(p));
        s->exp_avg_sq(zeros_like(p));
        return s;
      });
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      st.step() += 1;
      const double step = static_cast<double>(st.step());
      if (o.weight_decay() != 0) {
        if (o.decoupled_weight_decay())
          p.mul_(1 - lr * o.weight_decay());
        else
          grad = grad.add(p, o.weight_decay());
      }
      st.exp_avg().lerp_(grad, 1 - beta1);
      st.exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      const double bias_correction1 = 1 - std::pow(beta1, step);
      const double bias_correction2 = 1 - std::pow(beta2, step);
      Tensor bias_corrected_exp_avg = st.exp_avg().div(bias_correction1);
      // The length of the approximated simple moving average, and its limit.
      const double rho_inf = 2 / (1 - beta2) - 1;
      const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
      if (rho_t > 5.0) {
        const double rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
        // bias_corrected_exp_avg * lr * adaptive_lr * rect, adaptive_lr = sqrt(bc2) / (sqrt(v) + eps).
        Tensor denom = st.exp_avg_sq().sqrt().add_(o.eps());
        p.add_(bias_corrected_exp_avg.mul_(lr * std::sqrt(bias_correction2) * rect).div_(denom), -1.0);
      } else {
        p.add_(bias_corrected_exp_avg.mul_(lr), -1.0);
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
