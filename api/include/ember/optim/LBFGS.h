#pragma once
// L-BFGS with an optional strong-Wolfe line search (PyTorch's torch.optim.LBFGS, which follows
// minFunc; LibTorch's spellings). One parameter group only; step needs a closure. Its state is
// global and, as PyTorch's, kept as the state of the first parameter.
#include <deque>

#include "ember/optim/Optimizer.h"

namespace ember::optim {

struct EMBER_API LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1);  // NOLINT: implicit as LibTorch's
  EMBER_OPTIM_ARG(double, lr) = 1;
  EMBER_OPTIM_ARG(int64_t, max_iter) = 20;
  // Unset: max_iter * 5 / 4.
  EMBER_OPTIM_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_OPTIM_ARG(double, tolerance_grad) = 1e-7;
  EMBER_OPTIM_ARG(double, tolerance_change) = 1e-9;
  EMBER_OPTIM_ARG(int64_t, history_size) = 100;
  // "strong_wolfe" or unset (a fixed step of lr).
  EMBER_OPTIM_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }
  void serialize(StateArchive& archive) override;
};

struct EMBER_API LBFGSParamState : public OptimizerCloneableParamState<LBFGSParamState> {
  EMBER_OPTIM_ARG(int64_t, func_evals) = 0;
  EMBER_OPTIM_ARG(int64_t, n_iter) = 0;
  EMBER_OPTIM_ARG(double, t) = 0;
  EMBER_OPTIM_ARG(double, prev_loss) = 0;
  EMBER_OPTIM_ARG(double, H_diag) = 1;
  EMBER_OPTIM_ARG(Tensor, d);
  EMBER_OPTIM_ARG(Tensor, prev_flat_grad);
  EMBER_OPTIM_ARG(std::deque<Tensor>, old_dirs);
  EMBER_OPTIM_ARG(std::deque<Tensor>, old_stps);
  EMBER_OPTIM_ARG(std::deque<double>, ro);

 public:
  // The history is stored stacked: "old_dirs" and "old_stps" [k, n], "ro" [k].
  void serialize(StateArchive& archive) override;
};

class EMBER_API LBFGS : public Optimizer {
 public:
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});
  // `closure` is required: it re-evaluates the model (zero_grad, forward, backward) and returns
  // the loss. Returns the loss of the first evaluation.
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  bool supports_param_groups() const override { return false; }
  void check_loaded_state(const std::vector<OptimizerParamGroup>& groups, const StateMap& state) const override;

 private:
  int64_t numel() const;
  Tensor gather_flat_grad() const;
  void add_grad(double step_size, const Tensor& update);
  std::pair<double, Tensor> directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x, double t,
                                                 const Tensor& d);
};

}  // namespace ember::optim
