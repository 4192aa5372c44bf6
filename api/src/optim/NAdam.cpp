// NAdam: PyTorch's single-tensor update (torch/optim/nadam.py, foreach=False).
#include "ember/optim/NAdam.h"

#include <cmath>

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

NAdamOptions::NAdamOptions(double lr) : lr_(lr) {}

void NAdamOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("betas", betas_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("momentum_decay", momentum_decay_);
  a.value("decoupled_weight_decay", decoupled_weight_decay_);
  a.value("maximize", maximize_);
}

void NAdamParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.value("mu_product", mu_product_);
  a.tensor("exp_avg", exp_avg_);
  a.tensor("exp_avg_sq", exp_avg_sq_);
}

NAdam::NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults)
    : Optimizer("NAdam", std::make_unique<NAdamOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

NAdam::NAdam(std::vector<Tensor> params, NAdamOptions defaults)
    : NAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void NAdam::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<NAdamOptions>("NAdam", "NAdamOptions", options);
  detail::check_lr("NAdam", o.lr());
  detail::check_eps("NAdam", o.eps());
  detail::check_betas("NAdam", o.betas());
  detail::check_weight_decay("NAdam", o.weight_decay());
  EMBER_CHECK(o.momentum_decay() >= 0, "[NAdam] Invalid momentum_decay value: {}", o.momentum_decay());
}

std::unique_ptr<OptimizerParamState> NAdam::make_state() const { return std::make_unique<NAdamParamState>(); }

Tensor NAdam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const NAdamOptions&>(group.options());
    const auto [beta1, beta2] = o.betas();
    const double lr = o.lr();
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<NAdamParamState>(p, [&] {
        auto s = std::make_unique<NAdamParamState>();
        s->exp_avg(zeros_like(p));
        s->exp_avg_sq(zeros_like(p));
        return s;
      });
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      st.step() += 1;
      const double step = static_cast<double>(st.step());
      const double bias_correction2 = 1 - std::pow(beta2, step);
      if (o.weight_decay() != 0) {
        if (o.decoupled_weight_decay())
          p.mul_(1 - lr * o.weight_decay());
        else
          grad = grad.add(p, o.weight_decay());
      }
      // The momentum cache mu_t and mu_{t+1}.
      const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, step * o.momentum_decay()));
      const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay()));
      st.mu_product() *= mu;
      st.exp_avg().lerp_(grad, 1 - beta1);
      st.exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      Tensor denom = st.exp_avg_sq().div(bias_correction2).sqrt_().add_(o.eps());
      const double mu_product_next = st.mu_product() * mu_next;
      p.add_(grad.div(denom), -lr * (1.0 - mu) / (1.0 - st.mu_product()));
      p.add_(st.exp_avg().div(denom), (-lr * mu_next) / (1.0 - mu_product_next));
    }
  }
  return loss;
}

}  // namespace ember::optim
