// ASGD: PyTorch's single-tensor update (torch/optim/asgd.py, foreach=False).
#include "ember/optim/ASGD.h"

#include <algorithm>
#include <cmath>

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

ASGDOptions::ASGDOptions(double lr) : lr_(lr) {}

void ASGDOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("lambd", lambd_);
  a.value("alpha", alpha_);
  a.value("t0", t0_);
  a.value("weight_decay", weight_decay_);
  a.value("maximize", maximize_);
}

void ASGDParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.value("eta", eta_);
  a.value("mu", mu_);
  a.tensor("ax", ax_);
}

ASGD::ASGD(std::vector<OptimizerParamGroup> param_groups, ASGDOptions defaults)
    : Optimizer("ASGD", std::make_unique<ASGDOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

ASGD::ASGD(std::vector<Tensor> params, ASGDOptions defaults)
    : ASGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void ASGD::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<ASGDOptions>("ASGD", "ASGDOptions", options);
  detail::check_lr("ASGD", o.lr());
  detail::check_weight_decay("ASGD", o.weight_decay());
}

std::unique_ptr<OptimizerParamState> ASGD::make_state() const { return std::make_unique<ASGDParamState>(); }

Tensor ASGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const ASGDOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<ASGDParamState>(p, [&] {
        auto s = std::make_unique<ASGDParamState>();
        s->eta(o.lr());
        s->mu(1.0);
        s->ax(zeros_like(p));
        return s;
      });
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      st.step() += 1;
      const double step = static_cast<double>(st.step());
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      // Decay, then the SGD step with the current eta.
      p.mul_(1 - o.lambd() * st.eta());
      p.add_(grad, -st.eta());
      // Averaging.
      if (st.mu() != 1)
        st.ax().add_(p.sub(st.ax()).mul_(st.mu()));
      else
        st.ax().copy_(p);
      st.eta(o.lr() / std::pow(1 + o.lambd() * o.lr() * step, o.alpha()));
      st.mu(1 / std::max(1.0, step - o.t0()));
    }
  }
  return loss;
}

}  // namespace ember::optim
