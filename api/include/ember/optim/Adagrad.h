#pragma once
// Adagrad with lr_decay, initial_accumulator_value, weight decay and maximize (PyTorch's
// torch.optim.Adagrad; LibTorch's spellings).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit as LibTorch's
  EMBER_OPTIM_ARG(double, lr) = 1e-2;
  EMBER_OPTIM_ARG(double, lr_decay) = 0;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(double, initial_accumulator_value) = 0;
  EMBER_OPTIM_ARG(double, eps) = 1e-10;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  EMBER_OPTIM_ARG(Tensor, sum);
  EMBER_OPTIM_ARG(int64_t, step) = 0;

 public:
  void serialize(StateArchive& archive) override;
};

// As PyTorch's, the state exists from construction, its sum filled with the constructor's (the
// defaults') initial_accumulator_value for every group; a group added later starts from its own.
class EMBER_API Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
