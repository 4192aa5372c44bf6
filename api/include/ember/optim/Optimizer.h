#pragma once
// The optimizer base (LibTorch's torch::optim::Optimizer): parameter groups with per-group
// options, per-parameter state, zero_grad, step with an optional closure, and state_dict /
// load_state_dict as tensors.
//
// Note [Optimizer state_dict]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// state_dict() returns OrderedDict<std::string, Tensor> so a training checkpoint can store it in a
// safetensors file next to the model. The keys flatten PyTorch's nested dict:
//   "state.<i>.<field>"         per-parameter state (i = the parameter's index counted across all
//                               groups in order, as PyTorch numbers them), e.g. "state.3.exp_avg"
//   "param_groups.<g>.<option>" each group's hyper-parameters, e.g. "param_groups.0.lr"
//   "param_groups.<g>.params"   1-D int64: the indices of the group's parameters
// Scalars are 0-dim tensors: float64 for reals, int64 for counts (steps), bool for flags; a pair
// (betas, etas) is a 1-D float64 tensor of 2; a string (LBFGS's line_search_fn) is 1-D uint8 bytes;
// an unset optional is an absent key. Options and states describe their fields once, in
// serialize(StateArchive&), which both writes and reads them (LibTorch's serialize pattern).
// load_state_dict checks the structure first (number of groups, parameters per group, each state
// tensor's shape against its parameter, no missing or unknown keys), builds the new options and
// states aside, and only then swaps them in: a bad dict changes nothing. State tensors are copied
// to their parameter's dtype and device (PyTorch's cast), never aliased to the dict's tensors.
// Schedulers (ember/optim/LRScheduler.h) use the same archive for their own state.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/OrderedDict.h"
#include "ember/dispatcher/Tensor.h"

// A chainable option: `Options(lr).momentum(0.9)` sets, `opts.momentum()` reads (LibTorch's
// TORCH_ARG). Writes `T name_` as a private member, so defaults follow: EMBER_OPTIM_ARG(double, x) = 0;
#define EMBER_OPTIM_ARG(T, name)                           \
 public:                                                   \
  auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                            \
    return *this;                                          \
  }                                                        \
  const T& name() const noexcept { return this->name##_; } \
  T& name() noexcept { return this->name##_; }             \
                                                           \
 private:                                                  \
  T name##_

namespace ember::optim {

using TensorDict = OrderedDict<std::string, Tensor>;
using betas_t = std::tuple<double, double>;

// Writes or reads one object's fields under a key prefix. See Note [Optimizer state_dict].
class EMBER_API StateArchive {
 public:
  // Saving into `out`.
  StateArchive(TensorDict& out, std::string prefix);
  // Loading from `in`; `who` leads errors ("[Adam] load_state_dict"), `used` collects the keys
  // read, `param` (when defined) is the parameter a per-parameter state belongs to.
  StateArchive(const TensorDict& in, std::string prefix, std::string who, std::unordered_set<std::string>* used,
               Tensor param = {});

  bool saving() const { return out_ != nullptr; }
  const std::string& prefix() const { return prefix_; }
  const std::string& who() const { return who_; }
  // The archive of a nested object under "<prefix><name>.".
  StateArchive sub(const std::string& name) const;
  // Whether the dict holds `name` (loading) or the object has it set (saving: always true).
  bool contains(const std::string& name) const;

  void value(const char* name, double& v);
  void value(const char* name, int64_t& v);
  void value(const char* name, bool& v);
  void value(const char* name, betas_t& v);
  void value(const char* name, std::string& v);
  void value(const char* name, std::vector<double>& v);
  void value(const char* name, std::vector<int64_t>& v);
  void value(const char* name, std::optional<double>& v);
  void value(const char* name, std::optional<int64_t>& v);
  void value(const char* name, std::optional<std::string>& v);

  enum class Shape { kLikeParam, kAny };
  // A state tensor. kLikeParam: it must have the parameter's shape. On load it becomes a copy in
  // the parameter's dtype and device; `optional` lets the key be absent (then `t` is undefined).
  void tensor(const char* name, Tensor& t, Shape shape = Shape::kLikeParam, bool optional = false);

  // The error every failed check throws: "<who>: <message>".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  const Tensor* find(const char* name, bool optional) const;
  double read_real(const char* name, const Tensor& t) const;

  TensorDict* out_ = nullptr;
  const TensorDict* in_ = nullptr;
  std::string prefix_, who_;
  std::unordered_set<std::string>* used_ = nullptr;
  Tensor param_;
};

// Which of a group's options a momentum-cycling scheduler (OneCycleLR) drives.
enum class MomentumKind { kNone, kMomentum, kBeta1 };

// A group's hyper-parameters (LibTorch's OptimizerOptions). Each optimizer has its own subclass.
class EMBER_API OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(const double lr) = 0;
  // SGD's and RMSprop's momentum, or beta1 of the Adam family; kNone for the others.
  virtual MomentumKind momentum_kind() const { return MomentumKind::kNone; }
  virtual double get_momentum() const;
  virtual void set_momentum(double momentum);
  // The learning rate a scheduler started from (PyTorch's group["initial_lr"]); schedulers set
  // it once so that several schedulers on one optimizer share their base.
  std::optional<double> initial_lr() const { return initial_lr_; }
  void set_initial_lr(std::optional<double> lr) { initial_lr_ = lr; }
  // Writes or reads every hyper-parameter (Note [Optimizer state_dict]); subclasses call this
  // base version too, for initial_lr.
  virtual void serialize(StateArchive& archive);

 private:
  std::optional<double> initial_lr_;
};

// Clone and type plumbing for an options subclass (LibTorch's OptimizerCloneableOptions).
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// One parameter's state (LibTorch's OptimizerParamState).
class EMBER_API OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  virtual void serialize(StateArchive& archive) = 0;
};

template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Parameters that share options. Without options, add_param_group gives the group a copy of the
// optimizer's defaults; either way the group owns its copy, which the user (or a scheduler) may
// change: group.options().set_lr(0.1).
class EMBER_API OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) noexcept = default;
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) noexcept = default;
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT: implicit as LibTorch's
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(std::vector<Tensor> params, const OptimizerOptions& options)
      : params_(std::move(params)), options_(options.clone()) {}

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

// The key state() uses for a parameter: its TensorImpl's address, as LibTorch's
// c10::guts::to_string(p.unsafeGetTensorImpl()).
EMBER_API std::string param_key(const Tensor& param);

class EMBER_API Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;
  using StateMap = std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>;

  // Copy through state_dict / load_state_dict instead (as LibTorch).
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  virtual ~Optimizer() = default;

  // One update. `closure` (required by LBFGS) re-evaluates the model with grad enabled and
  // returns the loss, which step returns; without one step returns an undefined tensor.
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  // Checks the group (defined leaf parameters, none already optimized, options of this
  // optimizer's type and valid) before adding anything.
  void add_param_group(const OptimizerParamGroup& param_group);
  // Adds parameters to the first group (LibTorch).
  void add_parameters(const std::vector<Tensor>& parameters);
  // Gradients become undefined (set_to_none, PyTorch 2's default) or zero, detached.
  void zero_grad(bool set_to_none = true);

  // The parameters of the first group (LibTorch).
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  // The number of parameters across all groups.
  size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  // Per-parameter state keyed by param_key(p); empty until the first step.
  StateMap& state() noexcept { return state_; }
  const StateMap& state() const noexcept { return state_; }

  // See Note [Optimizer state_dict].
  TensorDict state_dict() const;
  void load_state_dict(const TensorDict& state_dict);

  // "SGD", "Adam", ...: what errors name.
  const std::string& name() const noexcept { return name_; }

 protected:
  Optimizer(std::string name, std::unique_ptr<OptimizerOptions> defaults);
  // The constructors of subclasses: check the defaults, then add the groups.
  void add_param_groups(const std::vector<OptimizerParamGroup>& groups);

  // Throws TypeError unless `options` is this optimizer's options type, and ValueError for a bad
  // value (PyTorch's messages: "Invalid learning rate: -1").
  virtual void check_options(const OptimizerOptions& options) const = 0;
  // A fresh, empty state of this optimizer's type (load_state_dict fills it).
  virtual std::unique_ptr<OptimizerParamState> make_state() const = 0;
  // False: one group only, added by the constructor (LBFGS).
  virtual bool supports_param_groups() const { return true; }
  // Last checks on a loaded state before load_state_dict commits it (LBFGS: history sizes).
  virtual void check_loaded_state(const std::vector<OptimizerParamGroup>& /*groups*/, const StateMap& /*state*/) const {
  }

  // Runs the closure with grad enabled; an undefined tensor when there is none.
  static Tensor run_closure(const LossClosure& closure);
  // NotImplementedError for a sparse gradient, naming this optimizer; step checks every gradient
  // before it changes any parameter.
  void check_dense_grads() const;
  // The state of `param`, made by `init` the first time.
  template <class State, class Init>
  State& state_of(const Tensor& param, Init&& init) {
    auto& slot = state_[param_key(param)];
    if (!slot) slot = init();
    return static_cast<State&>(*slot);
  }

  std::vector<OptimizerParamGroup> param_groups_;
  StateMap state_;
  std::unique_ptr<OptimizerOptions> defaults_;

 private:
  std::string name_;
};

// Checks shared by the optimizers' check_options (PyTorch's messages, led by "[name]").
namespace detail {
EMBER_API void check_lr(const char* name, double lr);
EMBER_API void check_eps(const char* name, double eps);
EMBER_API void check_weight_decay(const char* name, double weight_decay);
EMBER_API void check_betas(const char* name, const betas_t& betas);
// The options' dynamic type must be `Options`; returns it.
template <class Options>
const Options& options_as(const char* name, const char* options_name, const OptimizerOptions& options) {
  auto* o = dynamic_cast<const Options*>(&options);
  EMBER_CHECK_TYPE(o != nullptr, "[{}] expected {} for a parameter group, got options of another optimizer", name,
                   options_name);
  return *o;
}
}  // namespace detail

}  // namespace ember::optim
