// Adadelta: PyTorch's single-tensor update (torch/optim/adadelta.py, foreach=False).
#include "ember/optim/Adadelta.h"

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

AdadeltaOptions::AdadeltaOptions(double lr) : lr_(lr) {}

void AdadeltaOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("rho", rho_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("maximize", maximize_);
}

void AdadeltaParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("square_avg", square_avg_);
  a.tensor("acc_delta", acc_delta_);
}

Adadelta::Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults)
    : Optimizer("Adadelta", std::make_unique<AdadeltaOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults)
    : Adadelta(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Adadelta::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<AdadeltaOptions>("Adadelta", "AdadeltaOptions", options);
  detail::check_lr("Adadelta", o.lr());
  EMBER_CHECK(0 <= o.rho() && o.rho() <= 1, "[Adadelta] Invalid rho value: {}", o.rho());
  detail::check_eps("Adadelta", o.eps());
  detail::check_weight_decay("Adadelta", o.weight_decay());
}

std::unique_ptr<OptimizerParamState> Adadelta::make_state() const { return std::make_unique<AdadeltaParamState>(); }

Tensor Adadelta::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdadeltaOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<AdadeltaParamState>(p, [&] {
        auto s = std::make_unique<AdadeltaParamState>();
        s->square_avg(zeros_like(p));
        s->acc_delta(zeros_like(p));
        return s;
      });
      st.step() += 1;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      st.square_avg().mul_(o.rho()).addcmul_(grad, grad, 1 - o.rho());
      Tensor std = st.square_avg().add(o.eps()).sqrt_();
      Tensor delta = st.acc_delta().add(o.eps()).sqrt_();
      delta.div_(std).mul_(grad);
      st.acc_delta().mul_(o.rho()).addcmul_(delta, delta, 1 - o.rho());
      p.add_(delta, -o.lr());
    }
  }
  return loss;
}

}  // namespace ember::optim
