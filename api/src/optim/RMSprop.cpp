// RMSprop: PyTorch's single-tensor update (torch/optim/rmsprop.py, foreach=False).
#include "ember/optim/RMSprop.h"

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

void RMSpropOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("alpha", alpha_);
  a.value("eps", eps_);
  a.value("weight_decay", weight_decay_);
  a.value("momentum", momentum_);
  a.value("centered", centered_);
  a.value("maximize", maximize_);
}

void RMSpropParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("square_avg", square_avg_);
  a.tensor("momentum_buffer", momentum_buffer_, StateArchive::Shape::kLikeParam, /*optional=*/true);
  a.tensor("grad_avg", grad_avg_, StateArchive::Shape::kLikeParam, /*optional=*/true);
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer("RMSprop", std::make_unique<RMSpropOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void RMSprop::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<RMSpropOptions>("RMSprop", "RMSpropOptions", options);
  detail::check_lr("RMSprop", o.lr());
  detail::check_eps("RMSprop", o.eps());
  EMBER_CHECK(o.momentum() >= 0, "[RMSprop] Invalid momentum value: {}", o.momentum());
  detail::check_weight_decay("RMSprop", o.weight_decay());
  EMBER_CHECK(o.alpha() >= 0, "[RMSprop] Invalid alpha value: {}", o.alpha());
}

std::unique_ptr<OptimizerParamState> RMSprop::make_state() const { return std::make_unique<RMSpropParamState>(); }

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<RMSpropParamState>(p, [&] {
        auto s = std::make_unique<RMSpropParamState>();
        s->square_avg(zeros_like(p));
        return s;
      });
      // Buffers for options switched on after the first step start at zero, as on the first.
      if (o.momentum() > 0 && !st.momentum_buffer().defined()) st.momentum_buffer(zeros_like(p));
      if (o.centered() && !st.grad_avg().defined()) st.grad_avg(zeros_like(p));
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      st.step() += 1;
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      st.square_avg().mul_(o.alpha()).addcmul_(grad, grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        st.grad_avg().lerp_(grad, 1 - o.alpha());
        avg = st.square_avg().addcmul(st.grad_avg(), st.grad_avg(), -1).sqrt_();
      } else {
        avg = st.square_avg().sqrt();
      }
      avg.add_(o.eps());
      if (o.momentum() > 0) {
        st.momentum_buffer().mul_(o.momentum()).add_(grad.div(avg));  // addcdiv_(grad, avg)
        p.add_(st.momentum_buffer(), -o.lr());
      } else {
        p.add_(grad.div(avg), -o.lr());  // addcdiv_(grad, avg, value=-lr)
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
