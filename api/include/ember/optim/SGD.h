#pragma once
// Stochastic gradient descent with momentum, dampening, Nesterov momentum, L2 weight decay and
// maximize (PyTorch's torch.optim.SGD; LibTorch's spellings).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr);  // NOLINT: implicit, so `SGD opt(params, 0.01)` works as in LibTorch
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(double, momentum) = 0;
  EMBER_OPTIM_ARG(double, dampening) = 0;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, nesterov) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  MomentumKind momentum_kind() const override { return MomentumKind::kMomentum; }
  double get_momentum() const override { return momentum_; }
  void set_momentum(double momentum) override { momentum_ = momentum; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  EMBER_OPTIM_ARG(Tensor, momentum_buffer);

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API SGD : public Optimizer {
 public:
  explicit SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
