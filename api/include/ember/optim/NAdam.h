#pragma once
// NAdam (Adam with Nesterov momentum and a momentum schedule) with momentum_decay, L2 or
// decoupled weight decay and maximize (PyTorch's torch.optim.NAdam).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API NAdamOptions : public OptimizerCloneableOptions<NAdamOptions> {
  NAdamOptions(double lr = 2e-3);  // NOLINT: implicit as the other options
  EMBER_OPTIM_ARG(double, lr) = 2e-3;
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(double, momentum_decay) = 4e-3;
  EMBER_OPTIM_ARG(bool, decoupled_weight_decay) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  MomentumKind momentum_kind() const override { return MomentumKind::kBeta1; }
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API NAdamParamState : public OptimizerCloneableParamState<NAdamParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(double, mu_product) = 1.0;
  EMBER_OPTIM_ARG(Tensor, exp_avg);
  EMBER_OPTIM_ARG(Tensor, exp_avg_sq);

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API NAdam : public Optimizer {
 public:
  explicit NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults = {});
  explicit NAdam(std::vector<Tensor> params, NAdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
