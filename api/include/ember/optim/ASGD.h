#pragma once
// Averaged SGD with lambd, alpha, t0, weight decay and maximize (PyTorch's torch.optim.ASGD).
// The average lives in the state as `ax`.
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API ASGDOptions : public OptimizerCloneableOptions<ASGDOptions> {
  ASGDOptions(double lr = 1e-2);  // NOLINT: implicit as the other options
  EMBER_OPTIM_ARG(double, lr) = 1e-2;
  EMBER_OPTIM_ARG(double, lambd) = 1e-4;
  EMBER_OPTIM_ARG(double, alpha) = 0.75;
  EMBER_OPTIM_ARG(double, t0) = 1e6;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API ASGDParamState : public OptimizerCloneableParamState<ASGDParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(double, eta) = 0;
  EMBER_OPTIM_ARG(double, mu) = 1;
  EMBER_OPTIM_ARG(Tensor, ax);

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API ASGD : public Optimizer {
 public:
  explicit ASGD(std::vector<OptimizerParamGroup> param_groups, ASGDOptions defaults = {});
  explicit ASGD(std::vector<Tensor> params, ASGDOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
