#pragma once
// RMSprop with centered, momentum, weight decay and maximize (PyTorch's torch.optim.RMSprop;
// LibTorch's spellings).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit as LibTorch's
  EMBER_OPTIM_ARG(double, lr) = 1e-2;
  EMBER_OPTIM_ARG(double, alpha) = 0.99;
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(double, momentum) = 0;
  EMBER_OPTIM_ARG(bool, centered) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  MomentumKind momentum_kind() const override { return MomentumKind::kMomentum; }
  double get_momentum() const override { return momentum_; }
  void set_momentum(double momentum) override { momentum_ = momentum; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, square_avg);
  EMBER_OPTIM_ARG(Tensor, momentum_buffer);  // momentum > 0 only
  EMBER_OPTIM_ARG(Tensor, grad_avg);         // centered only

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API RMSprop : public Optimizer {
 public:
  explicit RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
