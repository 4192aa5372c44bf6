#pragma once
// Adam and AdamW (decoupled weight decay), with amsgrad and maximize (PyTorch's torch.optim.Adam
// and AdamW; LibTorch's spellings).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3);  // NOLINT: implicit as LibTorch's
  using betas_t = optim::betas_t;
  EMBER_OPTIM_ARG(double, lr) = 1e-3;
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, amsgrad) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  MomentumKind momentum_kind() const override { return MomentumKind::kBeta1; }
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, exp_avg);
  EMBER_OPTIM_ARG(Tensor, exp_avg_sq);
  EMBER_OPTIM_ARG(Tensor, max_exp_avg_sq);  // amsgrad only

 public:
  void serialize(StateArchive& archive) override;
};

class EMBER_API Adam : public Optimizer {
 public:
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

struct EMBER_API AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);  // NOLINT: implicit as LibTorch's
  using betas_t = optim::betas_t;
  EMBER_OPTIM_ARG(double, lr) = 1e-3;
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 1e-2;
  EMBER_OPTIM_ARG(bool, amsgrad) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  MomentumKind momentum_kind() const override { return MomentumKind::kBeta1; }
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  void serialize(StateArchive& archive) override;
};

// AdamW keeps Adam's state.
using AdamWParamState = AdamParamState;

class EMBER_API AdamW : public Optimizer {
 public:
  explicit AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
