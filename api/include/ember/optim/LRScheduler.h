#pragma once
// Learning-rate schedulers (PyTorch's torch.optim.lr_scheduler; LibTorch's names where LibTorch
// has them: LRScheduler, StepLR, ReduceLROnPlateauScheduler).
//
// Note [LR scheduler semantics]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// These follow PyTorch, not LibTorch 1.13. Constructing a scheduler performs its initial step:
// last_epoch goes from -1 to 0 and the groups' lr becomes the schedule's first value; each
// step() then advances one epoch. (LibTorch 1.13's StepLR makes no initial step and decays one
// step later than PyTorch.) Each scheduler computes the new lr from the groups' current lr (the
// chainable form, get_lrs(): PyTorch's get_lr()), so several schedulers on one optimizer compose
// as in PyTorch. On construction with last_epoch == -1 a scheduler records each group's lr as
// the group's initial_lr unless one is already set, and uses initial_lr as its base_lrs; resuming
// with last_epoch >= 0 requires initial_lr. SequentialLR switches to the next scheduler at a
// milestone by restarting it at epoch 0 through its closed form. state_dict() holds the counters,
// base and last lrs and the hyper-parameters as tensors (see Note [Optimizer state_dict]); a
// function (LambdaLR) is not saved. load_state_dict checks the dict and changes nothing when it
// throws.
#include <functional>

#include "ember/optim/Optimizer.h"

namespace ember::optim {

class SequentialLR;
class ChainedScheduler;

class EMBER_API LRScheduler {
 public:
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler() = default;

  // Advances one epoch and sets each group's lr.
  virtual void step();
  // The lrs the last step set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return optimizer_; }
  // "StepLR", ...: what errors name.
  const std::string& name() const { return name_; }

  TensorDict state_dict() const;
  void load_state_dict(const TensorDict& state_dict);

 protected:
  LRScheduler(std::string name, Optimizer& optimizer, int64_t last_epoch);
  // The concrete constructors call this last, once their fields are checked and set: it records
  // initial_lr and base_lrs and performs the initial step (PyTorch's LRScheduler.__init__).
  void initialize();
  // The chainable form: the new lrs from the groups' current ones (PyTorch's get_lr()).
  virtual std::vector<double> get_lrs() = 0;
  // The closed form at last_epoch from base_lrs, where the scheduler has one.
  virtual std::optional<std::vector<double>> closed_form_lrs() { return std::nullopt; }
  // One update: to the next epoch, or (epoch given) to that epoch through the closed form.
  virtual void update_lr(std::optional<int64_t> epoch);
  // Fields of the concrete scheduler beyond the base's (Note [Optimizer state_dict]).
  virtual void serialize(StateArchive& archive);
  // Checks after loading (base_lrs per group, ...); throws through the archive.
  virtual void check_loaded(StateArchive& archive) const;

  std::vector<double> current_lrs() const;
  void set_lrs(const std::vector<double>& lrs);
  // An option given once or per group, as PyTorch's _format_param.
  std::vector<double> per_group(const char* what, const std::vector<double>& values) const;

  Optimizer& optimizer_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  bool is_initial_ = false;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;

 private:
  friend class SequentialLR;
  friend class ChainedScheduler;
  void initial_step();
  std::string name_;
};

// lr = initial lr * lr_lambda(epoch), one function for all groups or one per group.
class EMBER_API LambdaLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1);
  LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

// lr *= lr_lambda(epoch) every epoch after the first.
class EMBER_API MultiplicativeLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t)>;
  MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1);
  MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

// lr *= gamma every step_size epochs.
class EMBER_API StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  int64_t step_size_;
  double gamma_;
};

// lr *= gamma at each milestone (a milestone listed k times multiplies by gamma^k).
class EMBER_API MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  std::vector<int64_t> milestones_;  // sorted
  double gamma_;
};

// lr * factor until total_iters epochs, then lr.
class EMBER_API ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  double factor_;
  int64_t total_iters_;
};

// The factor goes linearly from start_factor to end_factor over total_iters epochs.
class EMBER_API LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5,
           int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

// lr *= gamma every epoch.
class EMBER_API ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  double gamma_;
};

// lr = initial lr * (1 - epoch / total_iters)^power, then 0.
class EMBER_API PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  int64_t total_iters_;
  double power_;
};

// Cosine annealing from the initial lr to eta_min over T_max epochs (and back, periodically).
class EMBER_API CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lrs() override;
  std::optional<std::vector<double>> closed_form_lrs() override;
  void serialize(StateArchive& archive) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

// SGDR: cosine annealing restarted every T_i epochs, T_i = T_0 * T_mult^restarts.
class EMBER_API CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0.0,
                              int64_t last_epoch = -1);
  void step() override;
  // Jumps to a (possibly fractional) epoch: step(epoch + batch / batches_per_epoch).
  void step(double epoch);

 protected:
  std::vector<double> get_lrs() override;
  void update_lr(std::optional<int64_t> epoch) override;
  void serialize(StateArchive& archive) override;

 private:
  void step_to(std::optional<double> epoch);
  int64_t T_0_, T_i_, T_mult_;
  double eta_min_;
  double T_cur_;
};

// OneCycleLR's options (PyTorch's keyword arguments). A list option holds one value for all
// groups or one per group.
struct EMBER_API OneCycleLROptions {
  OneCycleLROptions(double max_lr) : max_lr_({max_lr}) {}                        // NOLINT: implicit
  OneCycleLROptions(std::vector<double> max_lr) : max_lr_(std::move(max_lr)) {}  // NOLINT: implicit
  EMBER_OPTIM_ARG(std::vector<double>, max_lr);
  // total_steps, or epochs * steps_per_epoch.
  EMBER_OPTIM_ARG(std::optional<int64_t>, total_steps) = std::nullopt;
  EMBER_OPTIM_ARG(std::optional<int64_t>, epochs) = std::nullopt;
  EMBER_OPTIM_ARG(std::optional<int64_t>, steps_per_epoch) = std::nullopt;
  EMBER_OPTIM_ARG(double, pct_start) = 0.3;
  // "cos" or "linear".
  EMBER_OPTIM_ARG(std::string, anneal_strategy) = "cos";
  // Cycles SGD's/RMSprop's momentum or the Adam family's beta1 inversely to the lr.
  EMBER_OPTIM_ARG(bool, cycle_momentum) = true;
  EMBER_OPTIM_ARG(std::vector<double>, base_momentum) = {0.85};
  EMBER_OPTIM_ARG(std::vector<double>, max_momentum) = {0.95};
  EMBER_OPTIM_ARG(double, div_factor) = 25.0;
  EMBER_OPTIM_ARG(double, final_div_factor) = 1e4;
  EMBER_OPTIM_ARG(bool, three_phase) = false;
  EMBER_OPTIM_ARG(int64_t, last_epoch) = -1;
};

// The 1cycle policy: lr from max_lr / div_factor up to max_lr, then down to
// initial_lr / final_div_factor (three_phase: back to the initial lr first), in total_steps steps.
class EMBER_API OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);

  int64_t total_steps() const { return total_steps_; }

 protected:
  std::vector<double> get_lrs() override;
  void serialize(StateArchive& archive) override;
  void check_loaded(StateArchive& archive) const override;

 private:
  double anneal(double start, double end, double pct) const;
  int64_t total_steps_ = 0;
  std::string anneal_strategy_;
  bool cycle_momentum_ = true;
  bool use_beta1_ = false;
  // Per phase: its last step and which values it goes between (0 initial, 1 max, 2 min lr;
  // 0 max, 1 base momentum).
  std::vector<double> end_steps_;
  std::vector<int64_t> start_lr_, end_lr_, start_momentum_, end_momentum_;
  std::vector<double> max_lrs_, min_lrs_, max_momentums_, base_momentums_;
};

// Runs schedulers one after another: schedulers[i] from milestones[i-1] on.
class EMBER_API SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1);
  void step() override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> get_lrs() override;
  void serialize(StateArchive& archive) override;
  void check_loaded(StateArchive& archive) const override;

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Steps every scheduler on each step (their effects multiply through the groups' lr).
class EMBER_API ChainedScheduler : public LRScheduler {
 public:
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  void step() override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> get_lrs() override;
  void serialize(StateArchive& archive) override;
  void check_loaded(StateArchive& archive) const override;

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

// Reduces the lr by `factor` when a metric stops improving for `patience` epochs. Not an
// LRScheduler: its step takes the metric (so SequentialLR and ChainedScheduler cannot take it).
class EMBER_API ReduceLROnPlateau {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };
  // min_lr: empty (0 for every group), one value for all groups, or one per group.
  explicit ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode = min, double factor = 0.1, int64_t patience = 10,
                             double threshold = 1e-4, ThresholdMode threshold_mode = rel, int64_t cooldown = 0,
                             std::vector<double> min_lr = {}, double eps = 1e-8);
  ReduceLROnPlateau(const ReduceLROnPlateau&) = delete;
  ReduceLROnPlateau& operator=(const ReduceLROnPlateau&) = delete;

  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  bool in_cooldown() const { return cooldown_counter_ > 0; }

  TensorDict state_dict() const;
  void load_state_dict(const TensorDict& state_dict);

 private:
  bool is_better(double a, double best) const;
  void reduce_lr();
  void serialize(StateArchive& archive);

  Optimizer& optimizer_;
  SchedulerMode mode_;
  double factor_;
  int64_t patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int64_t cooldown_;
  int64_t cooldown_counter_ = 0;
  std::vector<double> min_lrs_;
  std::optional<double> default_min_lr_;
  double eps_;
  double best_;
  double mode_worse_;
  int64_t num_bad_epochs_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

// LibTorch 2's name.
using ReduceLROnPlateauScheduler = ReduceLROnPlateau;

}  // namespace ember::optim
