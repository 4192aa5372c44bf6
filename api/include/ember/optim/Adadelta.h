#pragma once
// Adadelta with weight decay and maximize (PyTorch's torch.optim.Adadelta).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API AdadeltaOptions : public OptimizerCloneableOptions<AdadeltaOptions> {
  AdadeltaOptions(double lr = 1.0);  // NOLINT: implicit as the other options
  EMBER_OPTIM_ARG(double, lr) = 1.0;
  EMBER_OPTIM_ARG(double, rho) = 0.9;
  EMBER_OPTIM_ARG(double, eps) = 1e-6;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API AdadeltaParamState : public OptimizerCloneableParamState<AdadeltaParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, square_avg);
  EMBER_OPTIM_ARG(Tensor, acc_delta);

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API Adadelta : public Optimizer {
 public:
  explicit Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults = {});
  explicit Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
