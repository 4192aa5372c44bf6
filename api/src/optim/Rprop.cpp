// Rprop: PyTorch's single-tensor update (torch/optim/rprop.py, foreach=False).
#include "ember/optim/Rprop.h"

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

RpropOptions::RpropOptions(double lr) : lr_(lr) {}

void RpropOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("etas", etas_);
  a.value("step_sizes", step_sizes_);
  a.value("maximize", maximize_);
}

void RpropParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("prev", prev_);
  a.tensor("step_size", step_size_);
}

Rprop::Rprop(std::vector<OptimizerParamGroup> param_groups, RpropOptions defaults)
    : Optimizer("Rprop", std::make_unique<RpropOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

Rprop::Rprop(std::vector<Tensor> params, RpropOptions defaults)
    : Rprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Rprop::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<RpropOptions>("Rprop", "RpropOptions", options);
  detail::check_lr("Rprop", o.lr());
  const auto [etaminus, etaplus] = o.etas();
  EMBER_CHECK(0.0 < etaminus && etaminus < 1.0 && 1.0 < etaplus, "[Rprop] Invalid eta values: {}, {}", etaminus,
              etaplus);
  const auto [step_min, step_max] = o.step_sizes();
  EMBER_CHECK(0.0 <= step_min && step_min <= step_max, "[Rprop] Invalid step_sizes: {}, {} (expected 0 <= min <= max)",
              step_min, step_max);
}

std::unique_ptr<OptimizerParamState> Rprop::make_state() const { return std::make_unique<RpropParamState>(); }

Tensor Rprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RpropOptions&>(group.options());
    const auto [etaminus, etaplus] = o.etas();
    const auto [step_size_min, step_size_max] = o.step_sizes();
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<RpropParamState>(p, [&] {
        auto s = std::make_unique<RpropParamState>();
        s->prev(zeros_like(p));
        s->step_size(full_like(p.grad(), o.lr()));
        return s;
      });
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      st.step() += 1;
      // sign(grad * prev) mapped to etaplus (> 0), etaminus (< 0) and 1 (== 0).
      Tensor sign = grad.mul(st.prev()).sign();
      Tensor positive = sign.gt(0), negative = sign.lt(0), zero = sign.eq(0);
      sign.masked_fill_(positive, etaplus).masked_fill_(negative, etaminus).masked_fill_(zero, 1);
      st.step_size().mul_(sign).clamp_(step_size_min, step_size_max);
      // Where the gradient changed sign, skip this update and forget the gradient.
      grad = grad.clone().masked_fill_(sign.eq(etaminus), 0);
      p.addcmul_(grad.sign(), st.step_size(), -1);
      st.prev().copy_(grad);
    }
  }
  return loss;
}

}  // namespace ember::optim
