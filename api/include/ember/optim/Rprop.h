#pragma once
// Rprop (resilient backpropagation) with etas, step_sizes and maximize (PyTorch's
// torch.optim.Rprop).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API RpropOptions : public OptimizerCloneableOptions<RpropOptions> {
  RpropOptions(double lr = 1e-2);  // NOLINT: implicit as the other options
  EMBER_OPTIM_ARG(double, lr) = 1e-2;
  // (etaminus, etaplus): the factors a step size shrinks and grows by.
  EMBER_OPTIM_ARG(betas_t, etas) = std::make_tuple(0.5, 1.2);
  // (min, max) step size.
  EMBER_OPTIM_ARG(betas_t, step_sizes) = std::make_tuple(1e-6, 50.0);
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API RpropParamState : public OptimizerCloneableParamState<RpropParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, prev);
  EMBER_OPTIM_ARG(Tensor, step_size);

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API Rprop : public Optimizer {
 public:
  explicit Rprop(std::vector<OptimizerParamGroup> param_groups, RpropOptions defaults = {});
  explicit Rprop(std::vector<Tensor> params, RpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
