// The LR schedulers: PyTorch's torch/optim/lr_scheduler.py, chainable forms and closed forms.
// See Note [LR scheduler semantics].
#include "ember/optim/LRScheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ember::optim {

namespace {

constexpr double kPi = std::numbers::pi;

// Python's a % b (the sign of b).
int64_t py_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Loads with `load` into `self`, restoring `snapshot` if it throws, so a bad dict changes nothing.
template <class Self, class Load>
void load_atomically(Self& self, const TensorDict& snapshot, Load&& load) {
  try {
    load();
  } catch (...) {
    self.load_state_dict(snapshot);
    throw;
  }
}

// Every key of `dict` must have been read.
void check_all_used(const std::string& who, const TensorDict& dict, const std::unordered_set<std::string>& used) {
  for (const auto& item : dict) EMBER_CHECK(used.count(item.key()) != 0, "{}: unexpected key '{}'", who, item.key());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// LRScheduler

LRScheduler::LRScheduler(std::string name, Optimizer& optimizer, int64_t last_epoch)
    : optimizer_(optimizer), last_epoch_(last_epoch), name_(std::move(name)) {}

void LRScheduler::initialize() {
  auto& groups = optimizer_.param_groups();
  if (last_epoch_ == -1) {
    for (auto& g : groups)
      if (!g.options().initial_lr()) g.options().set_initial_lr(g.options().get_lr());
  } else {
    for (size_t i = 0; i < groups.size(); ++i)
      EMBER_CHECK(groups[i].options().initial_lr().has_value(),
                  "[{}] param 'initial_lr' is not specified in param_groups[{}] when resuming an optimizer", name_, i);
  }
  base_lrs_.clear();
  for (auto& g : groups) base_lrs_.push_back(*g.options().initial_lr());
  initial_step();
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  is_initial_ = true;
  try {
    step();
  } catch (...) {
    is_initial_ = false;
    throw;
  }
  is_initial_ = false;
}

void LRScheduler::step() {
  step_count_ += 1;
  update_lr(std::nullopt);
}

void LRScheduler::update_lr(std::optional<int64_t> epoch) {
  std::vector<double> values;
  if (!epoch) {
    last_epoch_ += 1;
    values = get_lrs();
  } else {
    last_epoch_ = *epoch;
    auto closed = closed_form_lrs();
    values = closed ? *closed : get_lrs();
  }
  set_lrs(values);
  last_lr_ = current_lrs();
}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].options().set_lr(lrs[i]);
}

std::vector<double> LRScheduler::per_group(const char* what, const std::vector<double>& values) const {
  const size_t n = optimizer_.param_groups().size();
  if (values.size() == 1) return std::vector<double>(n, values[0]);
  EMBER_CHECK(values.size() == n,
              "[{}] {} must have the same length as optimizer.param_groups. {} has {} values, param_groups has {}.",
              name_, what, what, values.size(), n);
  return values;
}

void LRScheduler::serialize(StateArchive& a) {
  a.value("base_lrs", base_lrs_);
  a.value("last_epoch", last_epoch_);
  a.value("_step_count", step_count_);
  a.value("_last_lr", last_lr_);
}

void LRScheduler::check_loaded(StateArchive& a) const {
  const size_t n = optimizer_.param_groups().size();
  if (base_lrs_.size() != n || last_lr_.size() != n)
    a.fail(fmt::format("the state has {} base lrs and {} last lrs, the optimizer has {} parameter groups",
                       base_lrs_.size(), last_lr_.size(), n));
}

TensorDict LRScheduler::state_dict() const {
  TensorDict out;
  StateArchive a(out, "");
  const_cast<LRScheduler&>(*this).serialize(a);
  return out;
}

void LRScheduler::load_state_dict(const TensorDict& dict) {
  const TensorDict snapshot = state_dict();
  const std::string who = fmt::format("[{}] load_state_dict", name_);
  load_atomically(*this, snapshot, [&] {
    std::unordered_set<std::string> used;
    StateArchive a(dict, "", who, &used);
    serialize(a);
    check_all_used(who, dict, used);
    check_loaded(a);
  });
}

// ---------------------------------------------------------------------------------------------
// LambdaLR, MultiplicativeLR

namespace {
std::vector<std::function<double(int64_t)>> lambdas_for(const char* name, Optimizer& optimizer,
                                                        std::vector<std::function<double(int64_t)>> fns) {
  const size_t n = optimizer.param_groups().size();
  EMBER_CHECK(fns.size() == n, "[{}] Expected {} lr_lambdas, but got {}", name, n, fns.size());
  for (size_t i = 0; i < fns.size(); ++i)
    EMBER_CHECK(static_cast<bool>(fns[i]), "[{}] lr_lambda {} is an empty function", name, i);
  return fns;
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer, std::vector<LrLambda>(optimizer.param_groups().size(), std::move(lr_lambda)), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler("LambdaLR", optimizer, last_epoch),
      lr_lambdas_(lambdas_for("LambdaLR", optimizer, std::move(lr_lambdas))) {
  initialize();
}

std::vector<double> LambdaLR::get_lrs() {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) lrs.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch)
    : MultiplicativeLR(optimizer, std::vector<LrLambda>(optimizer.param_groups().size(), std::move(lr_lambda)),
                       last_epoch) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler("MultiplicativeLR", optimizer, last_epoch),
      lr_lambdas_(lambdas_for("MultiplicativeLR", optimizer, std::move(lr_lambdas))) {
  initialize();
}

std::vector<double> MultiplicativeLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  if (!is_initial_)
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  return lrs;
}

// ---------------------------------------------------------------------------------------------
// StepLR, MultiStepLR

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch)
    : LRScheduler("StepLR", optimizer, last_epoch), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "[StepLR] step_size: expected a positive integer, got {}", step_size);
  initialize();
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0 || py_mod(last_epoch_, step_size_) != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double k = std::floor(static_cast<double>(last_epoch_) / static_cast<double>(step_size_));
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, k));
  return lrs;
}

void StepLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("step_size", step_size_);
  a.value("gamma", gamma_);
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma, int64_t last_epoch)
    : LRScheduler("MultiStepLR", optimizer, last_epoch), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initialize();
}

std::vector<double> MultiStepLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (hits == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(hits));
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lrs() {
  // gamma ** bisect_right(milestones, last_epoch)
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

void MultiStepLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("milestones", milestones_);
  a.value("gamma", gamma_);
  if (!a.saving()) std::sort(milestones_.begin(), milestones_.end());
}

// ---------------------------------------------------------------------------------------------
// ConstantLR, LinearLR, ExponentialLR, PolynomialLR

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler("ConstantLR", optimizer, last_epoch), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK(0 <= factor && factor <= 1.0,
              "[ConstantLR] Constant multiplicative factor expected to be between 0 and 1.");
  initialize();
}

std::vector<double> ConstantLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    for (double& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double done = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  for (double base : base_lrs_) lrs.push_back(base * (factor_ + done * (1 - factor_)));
  return lrs;
}

void ConstantLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("factor", factor_);
  a.value("total_iters", total_iters_);
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters,
                   int64_t last_epoch)
    : LRScheduler("LinearLR", optimizer, last_epoch),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK(0 < start_factor && start_factor <= 1.0,
              "[LinearLR] Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  EMBER_CHECK(0 <= end_factor && end_factor <= 1.0,
              "[LinearLR] Ending multiplicative factor expected to be between 0 and 1.");
  EMBER_CHECK(total_iters > 0, "[LinearLR] total_iters: expected a positive integer, got {}", total_iters);
  initialize();
}

std::vector<double> LinearLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (is_initial_ || last_epoch_ > total_iters_) return lrs;
  const double diff = end_factor_ - start_factor_;
  const double f =
      1.0 + diff / (static_cast<double>(total_iters_) * start_factor_ + static_cast<double>(last_epoch_ - 1) * diff);
  for (double& lr : lrs) lr *= f;
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_)
    lrs.push_back(base * (start_factor_ + (end_factor_ - start_factor_) * done / static_cast<double>(total_iters_)));
  return lrs;
}

void LinearLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("start_factor", start_factor_);
  a.value("end_factor", end_factor_);
  a.value("total_iters", total_iters_);
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch)
    : LRScheduler("ExponentialLR", optimizer, last_epoch), gamma_(gamma) {
  initialize();
}

std::vector<double> ExponentialLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  if (!is_initial_)
    for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lrs() {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

void ExponentialLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("gamma", gamma_);
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power, int64_t last_epoch)
    : LRScheduler("PolynomialLR", optimizer, last_epoch), total_iters_(total_iters), power_(power) {
  EMBER_CHECK(total_iters > 0, "[PolynomialLR] total_iters: expected a positive integer, got {}", total_iters);
  initialize();
}

std::vector<double> PolynomialLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  if (is_initial_ || last_epoch_ > total_iters_) return lrs;
  const double T = static_cast<double>(total_iters_), e = static_cast<double>(last_epoch_);
  const double decay = std::pow((1.0 - e / T) / (1.0 - (e - 1) / T), power_);
  for (double& lr : lrs) lr *= decay;
  return lrs;
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_) lrs.push_back(base * std::pow(1.0 - done / static_cast<double>(total_iters_), power_));
  return lrs;
}

void PolynomialLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("total_iters", total_iters_);
  a.value("power", power_);
}

// ---------------------------------------------------------------------------------------------
// CosineAnnealingLR, CosineAnnealingWarmRestarts

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min, int64_t last_epoch)
    : LRScheduler("CosineAnnealingLR", optimizer, last_epoch), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, "[CosineAnnealingLR] T_max: expected a positive integer, got {}", T_max);
  initialize();
}

std::vector<double> CosineAnnealingLR::get_lrs() {
  std::vector<double> lrs = current_lrs();
  const double T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  if (is_initial_) return lrs;
  if (step_count_ == 1 && last_epoch_ > 0) {
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(e * kPi / T)) / 2;
  } else if (py_mod(last_epoch_ - 1 - T_max_, 2 * T_max_) == 0) {
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] += (base_lrs_[i] - eta_min_) * (1 - std::cos(kPi / T)) / 2;
  } else {
    const double ratio = (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T));
    for (double& lr : lrs) lr = ratio * (lr - eta_min_) + eta_min_;
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(kPi * e / T)) / 2);
  return lrs;
}

void CosineAnnealingLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("T_max", T_max_);
  a.value("eta_min", eta_min_);
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min, int64_t last_epoch)
    : LRScheduler("CosineAnnealingWarmRestarts", optimizer, last_epoch),
      T_0_(T_0),
      T_i_(T_0),
      T_mult_(T_mult),
      eta_min_(eta_min),
      T_cur_(static_cast<double>(last_epoch)) {
  EMBER_CHECK(T_0 > 0, "[CosineAnnealingWarmRestarts] Expected positive integer T_0, but got {}", T_0);
  EMBER_CHECK(T_mult >= 1, "[CosineAnnealingWarmRestarts] Expected integer T_mult >= 1, but got {}", T_mult);
  initialize();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lrs() {
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(kPi * T_cur_ / static_cast<double>(T_i_))) / 2);
  return lrs;
}

void CosineAnnealingWarmRestarts::step() { step_to(std::nullopt); }

void CosineAnnealingWarmRestarts::step(double epoch) { step_to(epoch); }

void CosineAnnealingWarmRestarts::update_lr(std::optional<int64_t> epoch) {
  step_to(epoch ? std::optional<double>(static_cast<double>(*epoch)) : std::nullopt);
}

void CosineAnnealingWarmRestarts::step_to(std::optional<double> epoch) {
  if (!epoch && last_epoch_ < 0) epoch = 0.0;
  double e = 0;
  if (!epoch) {
    e = static_cast<double>(last_epoch_ + 1);
    T_cur_ = T_cur_ + 1;
    if (T_cur_ >= static_cast<double>(T_i_)) {
      T_cur_ = std::fmod(T_cur_, static_cast<double>(T_i_));
      T_i_ = T_i_ * T_mult_;
    }
  } else {
    e = *epoch;
    EMBER_CHECK(e >= 0, "[CosineAnnealingWarmRestarts] Expected non-negative epoch, but got {}", e);
    const double T0 = static_cast<double>(T_0_);
    if (e >= T0) {
      if (T_mult_ == 1) {
        T_cur_ = std::fmod(e, T0);
      } else {
        const double m = static_cast<double>(T_mult_);
        const auto n = static_cast<int64_t>(std::log(e / T0 * (m - 1) + 1) / std::log(m));
        T_cur_ = e - T0 * (std::pow(m, static_cast<double>(n)) - 1) / (m - 1);
        T_i_ = T_0_ * static_cast<int64_t>(std::llround(std::pow(m, static_cast<double>(n))));
      }
    } else {
      T_i_ = T_0_;
      T_cur_ = e;
    }
  }
  last_epoch_ = static_cast<int64_t>(std::floor(e));
  set_lrs(get_lrs());
  last_lr_ = current_lrs();
}

void CosineAnnealingWarmRestarts::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("T_0", T_0_);
  a.value("T_i", T_i_);
  a.value("T_mult", T_mult_);
  a.value("eta_min", eta_min_);
  a.value("T_cur", T_cur_);
}

// ---------------------------------------------------------------------------------------------
// OneCycleLR

OneCycleLR::OneCycleLR(Optimizer& optimizer, OneCycleLROptions o)
    : LRScheduler("OneCycleLR", optimizer, o.last_epoch()) {
  if (o.total_steps()) {
    EMBER_CHECK(*o.total_steps() > 0, "[OneCycleLR] Expected positive integer total_steps, but got {}",
                *o.total_steps());
    total_steps_ = *o.total_steps();
  } else if (o.epochs() && o.steps_per_epoch()) {
    EMBER_CHECK(*o.epochs() > 0, "[OneCycleLR] Expected positive integer epochs, but got {}", *o.epochs());
    EMBER_CHECK(*o.steps_per_epoch() > 0, "[OneCycleLR] Expected positive integer steps_per_epoch, but got {}",
                *o.steps_per_epoch());
    total_steps_ = *o.epochs() * *o.steps_per_epoch();
  } else {
    EMBER_THROW(ValueError, "[OneCycleLR] You must define either total_steps OR (epochs AND steps_per_epoch)");
  }
  const double total = static_cast<double>(total_steps_), pct = o.pct_start();
  if (o.three_phase()) {
    end_steps_ = {pct * total - 1, 2 * pct * total - 2, total - 1};
    start_lr_ = {0, 1, 0};
    end_lr_ = {1, 0, 2};
    start_momentum_ = {0, 1, 0};
    end_momentum_ = {1, 0, 0};
  } else {
    end_steps_ = {pct * total - 1, total - 1};
    start_lr_ = {0, 1};
    end_lr_ = {1, 2};
    start_momentum_ = {0, 1};
    end_momentum_ = {1, 0};
  }
  EMBER_CHECK(0 <= pct && pct <= 1, "[OneCycleLR] Expected float between 0 and 1 pct_start, but got {}", pct);
  EMBER_CHECK(o.anneal_strategy() == "cos" || o.anneal_strategy() == "linear",
              "[OneCycleLR] anneal_strategy must be one of 'cos' or 'linear', instead got {}", o.anneal_strategy());
  anneal_strategy_ = o.anneal_strategy();

  max_lrs_ = per_group("max_lr", o.max_lr());
  cycle_momentum_ = o.cycle_momentum();
  if (cycle_momentum_) {
    const MomentumKind kind = optimizer.defaults().momentum_kind();
    EMBER_CHECK(kind != MomentumKind::kNone,
                "[OneCycleLR] optimizer must support momentum or beta1 with `cycle_momentum` option enabled ({} has "
                "neither)",
                optimizer.name());
    use_beta1_ = kind == MomentumKind::kBeta1;
    max_momentums_ = per_group("max_momentum", o.max_momentum());
    base_momentums_ = per_group("base_momentum", o.base_momentum());
  }
  // All checks done: now the groups change.
  auto& groups = optimizer.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double initial = max_lrs_[i] / o.div_factor();
    min_lrs_.push_back(initial / o.final_div_factor());
    if (last_epoch_ == -1) groups[i].options().set_initial_lr(initial);
    if (cycle_momentum_ && last_epoch_ == -1) groups[i].options().set_momentum(max_momentums_[i]);
  }
  initialize();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (anneal_strategy_ == "cos") return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lrs() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK(step_num <= total_steps_,
              "[OneCycleLR] Tried to step {} times. The specified number of total steps is {}", step_num, total_steps_);
  auto& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < groups.size(); ++g) {
    const double lr_points[3] = {base_lrs_[g], max_lrs_[g], min_lrs_[g]};
    double start_step = 0;
    for (size_t i = 0; i < end_steps_.size(); ++i) {
      const double end_step = end_steps_[i];
      if (static_cast<double>(step_num) <= end_step || i + 1 == end_steps_.size()) {
        const double pct = (static_cast<double>(step_num) - start_step) / (end_step - start_step);
        lrs.push_back(anneal(lr_points[start_lr_[i]], lr_points[end_lr_[i]], pct));
        if (cycle_momentum_) {
          const double m_points[2] = {max_momentums_[g], base_momentums_[g]};
          groups[g].options().set_momentum(anneal(m_points[start_momentum_[i]], m_points[end_momentum_[i]], pct));
        }
        break;
      }
      start_step = end_step;
    }
  }
  return lrs;
}

void OneCycleLR::serialize(StateArchive& a) {
  LRScheduler::serialize(a);
  a.value("total_steps", total_steps_);
  a.value("_anneal_func_type", anneal_strategy_);
  a.value("cycle_momentum", cycle_momentum_);
  a.value("use_beta1", use_beta1_);
  a.value("_schedule_phases.end_step", end_steps_);
  a.value("_schedule_phases.start_lr", start_lr_);
  a.value("_schedule_phases.end_lr", end_lr_);
  a.value("_schedule_phases.start_momentum", start_momentum_);
  a.value("_schedule_phases.end_momentum", end_momentum_);
  a.value("max_lrs", max_lrs_);
  a.value("min_lrs", min_lrs_);
  a.value("max_momentums", max_momentums_);
  a.value("base_momentums", base_momentums_);
}

void OneCycleLR::check_loaded(StateArchive& a) const {
  LRScheduler::check_loaded(a);
  const size_t n = optimizer_.param_groups().size(), phases = end_steps_.size();
  if (max_lrs_.size() != n || min_lrs_.size() != n)
    a.fail(fmt::format("the state has lrs for {} groups, the optimizer has {}", max_lrs_.size(), n));
  if (cycle_momentum_ && (max_momentums_.size() != n || base_momentums_.size() != n))
    a.fail(fmt::format("the state has momentums for {} groups, the optimizer has {}", max_momentums_.size(), n));
  if (cycle_momentum_ && optimizer_.defaults().momentum_kind() == MomentumKind::kNone)
    a.fail("the state cycles momentum, but the optimizer has no momentum or beta1");
  if (anneal_strategy_ != "cos" && anneal_strategy_ != "linear")
    a.fail(fmt::format("_anneal_func_type must be 'cos' or 'linear', got '{}'", anneal_strategy_));
  auto valid = [&](const std::vector<int64_t>& v, int64_t hi) {
    return v.size() == phases && std::all_of(v.begin(), v.end(), [&](int64_t x) { return 0 <= x && x <= hi; });
  };
  if (phases < 1 || !valid(start_lr_, 2) || !valid(end_lr_, 2) || !valid(start_momentum_, 1) ||
      !valid(end_momentum_, 1))
    a.fail("the schedule's phases are inconsistent");
}

// ---------------------------------------------------------------------------------------------
// SequentialLR, ChainedScheduler

namespace {
void check_schedulers(const char* name, const Optimizer& optimizer,
                      const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    EMBER_CHECK(schedulers[i] != nullptr, "[{}] scheduler at index {} is null", name, i);
    EMBER_CHECK(&schedulers[i]->optimizer() == &optimizer,
                "[{}] {} expects all schedulers to belong to the same optimizer, but got scheduler {} at index {} "
                "with a different optimizer",
                name, name, schedulers[i]->name(), i);
  }
}
}  // namespace

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler("SequentialLR", optimizer, last_epoch + 1),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  EMBER_CHECK(!schedulers_.empty(),
              "[SequentialLR] SequentialLR expects at least one scheduler, but got no scheduler.");
  check_schedulers("SequentialLR", optimizer, schedulers_);
  EMBER_CHECK(milestones_.size() == schedulers_.size() - 1,
              "[SequentialLR] Sequential Schedulers expects number of schedulers provided to be one more than the "
              "number of milestone points, but got number of schedulers {} and the number of milestones to be equal "
              "to {}",
              schedulers_.size(), milestones_.size());
  for (auto& g : optimizer.param_groups()) {
    EMBER_CHECK(g.options().initial_lr().has_value(),
                "[SequentialLR] a parameter group has no initial_lr (its schedulers set it)");
    g.options().set_lr(*g.options().initial_lr());
  }
  // Undo the initial steps of the schedulers (recursively), then step the first one.
  std::function<void(LRScheduler&)> undo = [&](LRScheduler& s) {
    if (auto* seq = dynamic_cast<SequentialLR*>(&s)) {
      for (const auto& c : seq->schedulers()) undo(*c);
    } else if (auto* chain = dynamic_cast<ChainedScheduler*>(&s)) {
      for (const auto& c : chain->schedulers()) undo(*c);
    } else {
      s.last_epoch_ -= 1;
    }
  };
  for (auto& s : schedulers_) undo(*s);
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
  base_lrs_ = schedulers_[0]->base_lrs();
}

void SequentialLR::step() {
  last_epoch_ += 1;
  const auto idx =
      static_cast<size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin());
  LRScheduler& s = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    s.update_lr(0);
  else
    s.step();
  last_lr_ = s.get_last_lr();
}

std::vector<double> SequentialLR::get_lrs() { return current_lrs(); }

void SequentialLR::serialize(StateArchive& a) {
  a.value("last_epoch", last_epoch_);
  a.value("_milestones", milestones_);
  a.value("_last_lr", last_lr_);
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    StateArchive sub = a.sub(fmt::format("_schedulers.{}", i));
    schedulers_[i]->serialize(sub);
  }
}

void SequentialLR::check_loaded(StateArchive& a) const {
  if (milestones_.size() + 1 != schedulers_.size())
    a.fail(fmt::format("the state has {} milestones for {} schedulers", milestones_.size(), schedulers_.size()));
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    StateArchive sub = a.sub(fmt::format("_schedulers.{}", i));
    schedulers_[i]->check_loaded(sub);
  }
}

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(
          "ChainedScheduler",
          [&]() -> Optimizer& {
            EMBER_CHECK(!schedulers.empty() && schedulers[0] != nullptr,
                        "[ChainedScheduler] ChainedScheduler expects at least one scheduler to be chained, but "
                        "got no scheduler.");
            return schedulers[0]->optimizer();
          }(),
          0),
      schedulers_(std::move(schedulers)) {
  check_schedulers("ChainedScheduler", optimizer_, schedulers_);
  last_lr_ = current_lrs();
}

void ChainedScheduler::step() {
  for (auto& s : schedulers_) s->step();
  last_lr_ = current_lrs();
}

std::vector<double> ChainedScheduler::get_lrs() { return current_lrs(); }

void ChainedScheduler::serialize(StateArchive& a) {
  a.value("_last_lr", last_lr_);
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    StateArchive sub = a.sub(fmt::format("_schedulers.{}", i));
    schedulers_[i]->serialize(sub);
  }
}

void ChainedScheduler::check_loaded(StateArchive& a) const {
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    StateArchive sub = a.sub(fmt::format("_schedulers.{}", i));
    schedulers_[i]->check_loaded(sub);
  }
}

// ---------------------------------------------------------------------------------------------
// ReduceLROnPlateau

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode, double factor, int64_t patience,
                                     double threshold, ThresholdMode threshold_mode, int64_t cooldown,
                                     std::vector<double> min_lr, double eps)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      eps_(eps) {
  EMBER_CHECK(factor < 1.0, "[ReduceLROnPlateau] Factor should be < 1.0.");
  EMBER_CHECK(mode == min || mode == max, "[ReduceLROnPlateau] mode {} is unknown!", static_cast<int>(mode));
  EMBER_CHECK(threshold_mode == rel || threshold_mode == abs, "[ReduceLROnPlateau] threshold mode {} is unknown!",
              static_cast<int>(threshold_mode));
  const size_t n = optimizer.param_groups().size();
  if (min_lr.size() <= 1) {
    default_min_lr_ = min_lr.empty() ? 0.0 : min_lr[0];
    min_lrs_.assign(n, *default_min_lr_);
  } else {
    EMBER_CHECK(min_lr.size() == n, "[ReduceLROnPlateau] expected {} min_lrs, got {}", n, min_lr.size());
    min_lrs_ = std::move(min_lr);
  }
  mode_worse_ = mode == min ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  best_ = mode_worse_;
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.options().get_lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  if (mode_ == min && threshold_mode_ == rel) return a < best * (1.0 - threshold_);
  if (mode_ == min && threshold_mode_ == abs) return a < best - threshold_;
  if (mode_ == max && threshold_mode_ == rel) return a > best * (threshold_ + 1.0);
  return a > best + threshold_;
}

void ReduceLROnPlateau::step(double metric) {
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (in_cooldown()) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > patience_) {
    reduce_lr();
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : optimizer_.param_groups()) last_lr_.push_back(g.options().get_lr());
}

void ReduceLROnPlateau::reduce_lr() {
  auto& groups = optimizer_.param_groups();
  if (groups.size() != min_lrs_.size()) {
    EMBER_CHECK(default_min_lr_.has_value(),
                "[ReduceLROnPlateau] The number of param groups in the `optimizer` ({}) differs from when "
                "`ReduceLROnPlateau` was initialized ({}), usually due to a new param group being added to the "
                "optimizer. Please modify the `min_lrs` field to match the length of the `optimizer` param groups.",
                groups.size(), min_lrs_.size());
    min_lrs_.assign(groups.size(), *default_min_lr_);
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr();
    const double new_lr = std::max(old_lr * factor_, min_lrs_[i]);
    if (old_lr - new_lr > eps_) groups[i].options().set_lr(new_lr);
  }
}

void ReduceLROnPlateau::serialize(StateArchive& a) {
  std::string mode = mode_ == min ? "min" : "max";
  std::string threshold_mode = threshold_mode_ == rel ? "rel" : "abs";
  a.value("factor", factor_);
  a.value("min_lrs", min_lrs_);
  a.value("default_min_lr", default_min_lr_);
  a.value("patience", patience_);
  a.value("cooldown", cooldown_);
  a.value("cooldown_counter", cooldown_counter_);
  a.value("mode", mode);
  a.value("threshold", threshold_);
  a.value("threshold_mode", threshold_mode);
  a.value("best", best_);
  a.value("num_bad_epochs", num_bad_epochs_);
  a.value("mode_worse", mode_worse_);
  a.value("eps", eps_);
  a.value("last_epoch", last_epoch_);
  a.value("_last_lr", last_lr_);
  if (a.saving()) return;
  if (mode != "min" && mode != "max") a.fail(fmt::format("mode {} is unknown!", mode));
  if (threshold_mode != "rel" && threshold_mode != "abs")
    a.fail(fmt::format("threshold mode {} is unknown!", threshold_mode));
  mode_ = mode == "min" ? min : max;
  threshold_mode_ = threshold_mode == "rel" ? rel : abs;
}

TensorDict ReduceLROnPlateau::state_dict() const {
  TensorDict out;
  StateArchive a(out, "");
  const_cast<ReduceLROnPlateau&>(*this).serialize(a);
  return out;
}

void ReduceLROnPlateau::load_state_dict(const TensorDict& dict) {
  const TensorDict snapshot = state_dict();
  const std::string who = "[ReduceLROnPlateau] load_state_dict";
  load_atomically(*this, snapshot, [&] {
    std::unordered_set<std::string> used;
    StateArchive a(dict, "", who, &used);
    serialize(a);
    check_all_used(who, dict, used);
    const size_t n = optimizer_.param_groups().size();
    if (!default_min_lr_ && min_lrs_.size() != n)
      a.fail(fmt::format("the state has {} min_lrs, the optimizer has {} parameter groups", min_lrs_.size(), n));
  });
}

}  // namespace ember::optim
