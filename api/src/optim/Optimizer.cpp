// The optimizer base and the state_dict archive. See Note [Optimizer state_dict].
#include "ember/optim/Optimizer.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "ember/api/Autograd.h"
#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"

namespace ember::optim {

namespace {

Tensor cpu_f64(const std::vector<double>& v) {
  auto t = empty({static_cast<int64_t>(v.size())}, kFloat64);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// StateArchive

StateArchive::StateArchive(TensorDict& out, std::string prefix) : out_(&out), prefix_(std::move(prefix)) {}

StateArchive::StateArchive(const TensorDict& in, std::string prefix, std::string who,
                           std::unordered_set<std::string>* used, Tensor param)
    : in_(&in), prefix_(std::move(prefix)), who_(std::move(who)), used_(used), param_(std::move(param)) {}

StateArchive StateArchive::sub(const std::string& name) const {
  StateArchive a = *this;
  a.prefix_ = prefix_ + name + ".";
  return a;
}

bool StateArchive::contains(const std::string& name) const { return saving() || in_->contains(prefix_ + name); }

void StateArchive::fail(const std::string& message) const { EMBER_THROW(ValueError, "{}: {}", who_, message); }

const Tensor* StateArchive::find(const char* name, bool optional) const {
  const std::string key = prefix_ + name;
  const Tensor* t = in_->find(key);
  if (t == nullptr) {
    if (!optional) fail(fmt::format("missing key '{}'", key));
    return nullptr;
  }
  if (!t->defined()) fail(fmt::format("'{}' is an undefined tensor", key));
  if (used_ != nullptr) used_->insert(key);
  return t;
}

double StateArchive::read_real(const char* name, const Tensor& t) const {
  if (t.dim() != 0) fail(fmt::format("'{}{}' expected a 0-dim tensor, got shape {}", prefix_, name, t.sizes()));
  if (is_complex_type(t.scalar_type()))
    fail(fmt::format("'{}{}' expected a real tensor, got {}", prefix_, name, t.scalar_type()));
  return t.item<double>();
}

void StateArchive::value(const char* name, double& v) {
  if (saving()) {
    out_->insert(prefix_ + name, scalar_tensor(v, kFloat64));
    return;
  }
  v = read_real(name, *find(name, false));
}

void StateArchive::value(const char* name, int64_t& v) {
  if (saving()) {
    out_->insert(prefix_ + name, scalar_tensor(v, kInt64));
    return;
  }
  const Tensor& t = *find(name, false);
  const double d = read_real(name, t);
  if (is_integral_type(t.scalar_type(), /*include_bool=*/false)) {
    v = t.item<int64_t>();
    return;
  }
  if (std::floor(d) != d || std::abs(d) > 9.007199254740992e15)
    fail(fmt::format("'{}{}' expected an integer, got {}", prefix_, name, d));
  v = static_cast<int64_t>(d);
}

void StateArchive::value(const char* name, bool& v) {
  if (saving()) {
    out_->insert(prefix_ + name, scalar_tensor(v, kBool));
    return;
  }
  v = read_real(name, *find(name, false)) != 0;
}

void StateArchive::value(const char* name, betas_t& v) {
  std::vector<double> pair{std::get<0>(v), std::get<1>(v)};
  value(name, pair);
  if (!saving()) {
    if (pair.size() != 2) fail(fmt::format("'{}{}' expected 2 values, got {}", prefix_, name, pair.size()));
    v = {pair[0], pair[1]};
  }
}

void StateArchive::value(const char* name, std::vector<double>& v) {
  if (saving()) {
    out_->insert(prefix_ + name, cpu_f64(v));
    return;
  }
  const Tensor& t = *find(name, false);
  if (t.dim() != 1) fail(fmt::format("'{}{}' expected a 1-dim tensor, got shape {}", prefix_, name, t.sizes()));
  if (is_complex_type(t.scalar_type()) || t.scalar_type() == kBool)
    fail(fmt::format("'{}{}' expected a real tensor, got {}", prefix_, name, t.scalar_type()));
  Tensor c = t.to(kCPU, kFloat64).contiguous();
  v.assign(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void StateArchive::value(const char* name, std::vector<int64_t>& v) {
  if (saving()) {
    auto t = empty({static_cast<int64_t>(v.size())}, kInt64);
    std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
    out_->insert(prefix_ + name, t);
    return;
  }
  const Tensor& t = *find(name, false);
  if (t.dim() != 1 || !is_integral_type(t.scalar_type(), /*include_bool=*/false))
    fail(fmt::format("'{}{}' expected a 1-dim integer tensor, got a {}-dim {} tensor", prefix_, name, t.dim(),
                     t.scalar_type()));
  Tensor c = t.to(kCPU, kInt64).contiguous();
  v.assign(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

void StateArchive::value(const char* name, std::string& v) {
  if (saving()) {
    auto t = empty({static_cast<int64_t>(v.size())}, kUInt8);
    std::copy(v.begin(), v.end(), reinterpret_cast<char*>(t.data_ptr<uint8_t>()));
    out_->insert(prefix_ + name, t);
    return;
  }
  const Tensor& t = *find(name, false);
  if (t.dim() != 1 || t.scalar_type() != kUInt8)
    fail(fmt::format("'{}{}' expected a 1-dim uint8 tensor (a string's bytes), got a {}-dim {} tensor", prefix_, name,
                     t.dim(), t.scalar_type()));
  Tensor c = t.to(kCPU).contiguous();
  v.assign(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()), static_cast<size_t>(c.numel()));
}

void StateArchive::value(const char* name, std::optional<double>& v) {
  if (saving()) {
    if (v) value(name, *v);
    return;
  }
  if (!contains(name)) {
    v.reset();
    return;
  }
  double d = 0;
  value(name, d);
  v = d;
}

void StateArchive::value(const char* name, std::optional<int64_t>& v) {
  if (saving()) {
    if (v) value(name, *v);
    return;
  }
  if (!contains(name)) {
    v.reset();
    return;
  }
  int64_t i = 0;
  value(name, i);
  v = i;
}

void StateArchive::value(const char* name, std::optional<std::string>& v) {
  if (saving()) {
    if (v) value(name, *v);
    return;
  }
  if (!contains(name)) {
    v.reset();
    return;
  }
  std::string s;
  value(name, s);
  v = std::move(s);
}

void StateArchive::tensor(const char* name, Tensor& t, Shape shape, bool optional) {
  if (saving()) {
    if (t.defined()) out_->insert(prefix_ + name, t);
    return;
  }
  const Tensor* src = find(name, optional);
  if (src == nullptr) {
    t = Tensor();
    return;
  }
  if (param_.defined()) {
    if (shape == Shape::kLikeParam && src->sizes() != param_.sizes())
      fail(fmt::format("'{}{}' has shape {}, but its parameter has shape {}", prefix_, name, src->sizes(),
                       param_.sizes()));
    t = src->to(param_.device(), param_.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
  } else {
    t = src->clone();
  }
}

// ---------------------------------------------------------------------------------------------
// Options and groups

double OptimizerOptions::get_momentum() const {
  EMBER_THROW(NotImplementedError, "[OptimizerOptions] get_momentum: this optimizer has no momentum or beta1");
}
void OptimizerOptions::set_momentum(double /*momentum*/) {
  EMBER_THROW(NotImplementedError, "[OptimizerOptions] set_momentum: this optimizer has no momentum or beta1");
}
void OptimizerOptions::serialize(StateArchive& archive) { archive.value("initial_lr", initial_lr_); }

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options().clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options().clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_ != nullptr,
              "[OptimizerParamGroup] options: this group has none yet (add_param_group gives it "
              "a copy of the optimizer's defaults)");
  return *options_;
}
const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup&>(*this).options();
}

std::string param_key(const Tensor& param) {
  return fmt::format("{}", fmt::ptr(static_cast<const void*>(param.unsafeGetTensorImpl())));
}

// ---------------------------------------------------------------------------------------------
// Optimizer

Optimizer::Optimizer(std::string name, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)), name_(std::move(name)) {}

void Optimizer::add_param_groups(const std::vector<OptimizerParamGroup>& groups) {
  size_t n = 0;
  for (const auto& g : groups) n += g.params().size();
  EMBER_CHECK(!groups.empty() && n > 0, "[{}] optimizer got an empty parameter list", name_);
  for (const auto& g : groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  EMBER_CHECK(supports_param_groups() || param_groups_.empty(),
              "[{}] {} doesn't support per-parameter options (parameter groups)", name_, name_);
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_)
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  std::unordered_set<const TensorImpl*> mine;
  const auto& params = param_group.params();
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK(p.defined(), "[{}] add_param_group: parameter {} is an undefined tensor", name_, i);
    EMBER_CHECK_NOT_IMPLEMENTED(
        !is_complex_type(p.scalar_type()),
        "[{}] add_param_group: parameter {} is complex; complex parameters are not supported yet", name_, i);
    EMBER_CHECK(p.is_floating_point(),
                "[{}] add_param_group: parameter {} has dtype {}; only floating-point tensors can be optimized", name_,
                i, p.scalar_type());
    EMBER_CHECK(p.is_leaf(), "[{}] can't optimize a non-leaf Tensor (parameter {} of the group)", name_, i);
    EMBER_CHECK(seen.count(p.unsafeGetTensorImpl()) == 0,
                "[{}] some parameters appear in more than one parameter group (parameter {} of the new group)", name_,
                i);
    EMBER_CHECK(mine.insert(p.unsafeGetTensorImpl()).second,
                "[{}] add_param_group: parameter {} appears twice in the group", name_, i);
  }
  std::unique_ptr<OptimizerOptions> options =
      param_group.has_options() ? param_group.options().clone() : defaults_->clone();
  check_options(*options);
  param_groups_.emplace_back(params, std::move(options));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  if (param_groups_.empty()) {
    add_param_group(OptimizerParamGroup(parameters));
    return;
  }
  // Checked as a group of its own, then appended to the first group.
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_)
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Tensor& p = parameters[i];
    EMBER_CHECK(p.defined(), "[{}] add_parameters: parameter {} is an undefined tensor", name_, i);
    EMBER_CHECK(p.is_leaf(), "[{}] can't optimize a non-leaf Tensor (parameter {})", name_, i);
    EMBER_CHECK(seen.insert(p.unsafeGetTensorImpl()).second, "[{}] add_parameters: parameter {} is already optimized",
                name_, i);
  }
  auto& first = param_groups_.front().params();
  first.insert(first.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& g : param_groups_) {
    for (auto& p : g.params()) {
      if (!p.grad().defined()) continue;
      Tensor& grad = p.mutable_grad();
      if (set_to_none) {
        grad.reset();
        continue;
      }
      if (grad.grad_fn())
        grad.detach_();
      else if (grad.requires_grad())
        grad.requires_grad_(false);
      grad.zero_();
    }
  }
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept { return param_groups_.at(0).params(); }
std::vector<Tensor>& Optimizer::parameters() noexcept { return param_groups_.at(0).params(); }

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& g : param_groups_) n += g.params().size();
  return n;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable(true);
  return closure();
}

void Optimizer::check_dense_grads() const {
  for (const auto& g : param_groups_) {
    for (const auto& p : g.params()) {
      const Tensor& grad = p.grad();
      EMBER_CHECK_NOT_IMPLEMENTED(!grad.defined() || grad.layout() == kStrided,
                                  "[{}] sparse gradients are not supported (got a {} gradient)", name_, grad.layout());
    }
  }
}

TensorDict Optimizer::state_dict() const {
  TensorDict out;
  int64_t index = 0;
  for (const auto& g : param_groups_) {
    for (const auto& p : g.params()) {
      auto it = state_.find(param_key(p));
      if (it != state_.end() && it->second) {
        StateArchive a(out, fmt::format("state.{}.", index));
        it->second->serialize(a);
      }
      ++index;
    }
  }
  index = 0;
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    const auto& g = param_groups_[gi];
    StateArchive a(out, fmt::format("param_groups.{}.", gi));
    g.options().clone()->serialize(a);
    std::vector<int64_t> ids(g.params().size());
    for (auto& id : ids) id = index++;
    a.value("params", ids);
  }
  return out;
}

void Optimizer::load_state_dict(const TensorDict& dict) {
  const std::string who = fmt::format("[{}] load_state_dict", name_);
  std::unordered_set<std::string> used;
  // Groups: the same count, the same number of parameters in each.
  int64_t saved_groups = 0;
  while (dict.contains(fmt::format("param_groups.{}.params", saved_groups))) ++saved_groups;
  EMBER_CHECK(saved_groups == static_cast<int64_t>(param_groups_.size()),
              "{}: loaded state dict has a different number of parameter groups ({}, the optimizer has {})", who,
              saved_groups, param_groups_.size());
  std::vector<OptimizerParamGroup> groups;
  std::map<int64_t, Tensor> id_map;  // saved index -> current parameter
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    const auto& g = param_groups_[gi];
    StateArchive a(dict, fmt::format("param_groups.{}.", gi), who, &used);
    std::vector<int64_t> ids;
    a.value("params", ids);
    EMBER_CHECK(ids.size() == g.params().size(),
                "{}: loaded state dict contains a parameter group that doesn't match the size of optimizer's group "
                "(group {}: {} parameters saved, {} in the optimizer)",
                who, gi, ids.size(), g.params().size());
    for (size_t k = 0; k < ids.size(); ++k) {
      EMBER_CHECK(id_map.emplace(ids[k], g.params()[k]).second, "{}: parameter index {} appears in two groups", who,
                  ids[k]);
    }
    std::unique_ptr<OptimizerOptions> options = g.options().clone();
    options->serialize(a);
    check_options(*options);
    groups.emplace_back(g.params(), std::move(options));
  }
  // States: "state.<i>.<field>" for saved indices i.
  std::map<int64_t, bool> state_ids;
  for (const auto& item : dict) {
    const std::string& key = item.key();
    if (key.rfind("state.", 0) != 0) continue;
    const size_t dot = key.find('.', 6);
    int64_t id = -1;
    try {
      size_t used_chars = 0;
      id = std::stoll(key.substr(6, dot - 6), &used_chars);
      if (used_chars != dot - 6) id = -1;
    } catch (const std::exception&) {
    }
    EMBER_CHECK(id >= 0 && dot != std::string::npos, "{}: unexpected key '{}' (expected state.<index>.<field>)", who,
                key);
    state_ids[id] = true;
  }
  StateMap state;
  for (const auto& [id, unused] : state_ids) {
    (void)unused;
    auto it = id_map.find(id);
    EMBER_CHECK(it != id_map.end(), "{}: state for parameter index {}, which no parameter group holds", who, id);
    StateArchive a(dict, fmt::format("state.{}.", id), who, &used, it->second);
    auto s = make_state();
    s->serialize(a);
    state[param_key(it->second)] = std::move(s);
  }
  for (const auto& item : dict) EMBER_CHECK(used.count(item.key()) != 0, "{}: unexpected key '{}'", who, item.key());
  check_loaded_state(groups, state);
  param_groups_ = std::move(groups);
  state_ = std::move(state);
}

// ---------------------------------------------------------------------------------------------
// Checks

namespace detail {
void check_lr(const char* name, double lr) { EMBER_CHECK(lr >= 0, "[{}] Invalid learning rate: {}", name, lr); }
void check_eps(const char* name, double eps) { EMBER_CHECK(eps >= 0, "[{}] Invalid epsilon value: {}", name, eps); }
void check_weight_decay(const char* name, double weight_decay) {
  EMBER_CHECK(weight_decay >= 0, "[{}] Invalid weight_decay value: {}", name, weight_decay);
}
void check_betas(const char* name, const betas_t& betas) {
  const auto [b0, b1] = betas;
  EMBER_CHECK(0 <= b0 && b0 < 1, "[{}] Invalid beta parameter at index 0: {}", name, b0);
  EMBER_CHECK(0 <= b1 && b1 < 1, "[{}] Invalid beta parameter at index 1: {}", name, b1);
}
}  // namespace detail

}  // namespace ember::optim
