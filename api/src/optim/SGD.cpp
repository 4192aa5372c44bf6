// SGD: PyTorch's single-tensor update (torch/optim/sgd.py, foreach=False).
#include "ember/optim/SGD.h"

#include "ember/api/Autograd.h"

namespace ember::optim {

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

void SGDOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("momentum", momentum_);
  a.value("dampening", dampening_);
  a.value("weight_decay", weight_decay_);
  a.value("nesterov", nesterov_);
  a.value("maximize", maximize_);
}

void SGDParamState::serialize(StateArchive& a) {
  a.tensor("momentum_buffer", momentum_buffer_, StateArchive::Shape::kLikeParam, /*optional=*/true);
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer("SGD", std::make_unique<SGDOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void SGD::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<SGDOptions>("SGD", "SGDOptions", options);
  detail::check_lr("SGD", o.lr());
  EMBER_CHECK(o.momentum() >= 0, "[SGD] Invalid momentum value: {}", o.momentum());
  detail::check_weight_decay("SGD", o.weight_decay());
  EMBER_CHECK(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
              "[SGD] Nesterov momentum requires a momentum and zero dampening");
}

std::unique_ptr<OptimizerParamState> SGD::make_state() const { return std::make_unique<SGDParamState>(); }

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        auto& st = state_of<SGDParamState>(p, [] { return std::make_unique<SGDParamState>(); });
        Tensor& buf = st.momentum_buffer();
        if (!buf.defined())
          buf = grad.detach().clone();
        else
          buf.mul_(o.momentum()).add_(grad, 1 - o.dampening());
        grad = o.nesterov() ? grad.add(buf, o.momentum()) : buf;
      }
      p.add_(grad, -o.lr());
    }
  }
  return loss;
}

}  // namespace ember::optim
