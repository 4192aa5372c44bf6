#pragma once
// Adamax (Adam with the infinity norm) with weight decay and maximize (PyTorch's
// torch.optim.Adamax).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API AdamaxOptions : public OptimizerCloneableOptions<AdamaxOptions> {
  AdamaxOptions(double lr = 2e-3);  // NOLINT: implicit as the other options
  EMBER_OPTIM_ARG(double, lr) = 2e-3;
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  MomentumKind momentum_kind() const override { return MomentumKind::kBeta1; }
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API AdamaxParamState : public OptimizerCloneableParamState<AdamaxParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, exp_avg);
  EMBER_OPTIM_ARG(Tensor, exp_inf);

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API Adamax : public Optimizer {
 public:
  explicit Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults = {});
  explicit Adamax(std::vector<Tensor> params, AdamaxOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
