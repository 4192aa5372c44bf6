// Adagrad: PyTorch's single-tensor update (torch/optim/adagrad.py, foreach=False).
#include "ember/optim/Adagrad.h"

#include "ember/api/Autograd.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

void AdagradOptions::serialize(StateArchive& a) {
  OptimizerOptions::serialize(a);
  a.value("lr", lr_);
  a.value("lr_decay", lr_decay_);
  a.value("weight_decay", weight_decay_);
  a.value("initial_accumulator_value", initial_accumulator_value_);
  a.value("eps", eps_);
  a.value("maximize", maximize_);
}

void AdagradParamState::serialize(StateArchive& a) {
  a.value("step", step_);
  a.tensor("sum", sum_);
}

namespace {
std::unique_ptr<AdagradParamState> adagrad_init(const Tensor& p, const AdagradOptions& o) {
  auto st = std::make_unique<AdagradParamState>();
  st->sum(full_like(p, o.initial_accumulator_value()));
  return st;
}
}  // namespace

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer("Adagrad", std::make_unique<AdagradOptions>(defaults)) {
  check_options(defaults);
  add_param_groups(param_groups);
  // As PyTorch and LibTorch: the constructor's initial_accumulator_value, for every group.
  NoGradGuard no_grad;
  for (auto& group : param_groups_)
    for (const Tensor& p : group.params()) state_of<AdagradParamState>(p, [&] { return adagrad_init(p, defaults); });
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Adagrad::check_options(const OptimizerOptions& options) const {
  const auto& o = detail::options_as<AdagradOptions>("Adagrad", "AdagradOptions", options);
  detail::check_lr("Adagrad", o.lr());
  EMBER_CHECK(o.lr_decay() >= 0, "[Adagrad] Invalid lr_decay value: {}", o.lr_decay());
  detail::check_weight_decay("Adagrad", o.weight_decay());
  EMBER_CHECK(o.initial_accumulator_value() >= 0, "[Adagrad] Invalid initial_accumulator_value value: {}",
              o.initial_accumulator_value());
  detail::check_eps("Adagrad", o.eps());
}

std::unique_ptr<OptimizerParamState> Adagrad::make_state() const { return std::make_unique<AdagradParamState>(); }

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  check_dense_grads();
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& st = state_of<AdagradParamState>(p, [&] { return adagrad_init(p, o); });
      st.step() += 1;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const double clr = o.lr() / (1 + static_cast<double>(st.step() - 1) * o.lr_decay());
      st.sum().addcmul_(grad, grad, 1);
      Tensor std = st.sum().sqrt().add_(o.eps());
      p.add_(grad.div(std), -clr);  // addcdiv_(grad, std, value=-clr)
    }
  }
  return loss;
}

}  // namespace ember::optim
