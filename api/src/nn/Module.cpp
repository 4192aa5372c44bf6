// ember::nn::Module: registration, listings, modes, conversion, state dicts, printing, hooks and
// the clone memo.
#include "ember/nn/Module.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "ember/api/Autograd.h"
#include "ember/core/LocalState.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/modules/AnyModule.h"
#include "ember/nn/modules/ParameterList.h"

namespace ember::nn {

namespace detail {

std::string demangle(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && d ? d : mangled;
  std::free(d);
  return name;
}

void throw_empty_holder(const char* mangled_contained) {
  EMBER_THROW(ValueError,
              "[ModuleHolder] Accessing empty ModuleHolder of {}: it was made from nullptr and never assigned a module",
              demangle(mangled_contained));
}

void throw_any_argument_count(const Module& m, size_t expected, size_t got) {
  if (got < expected)
    EMBER_THROW(ValueError,
                "[AnyModule] {}'s forward() method expects {} argument(s), but received {}. If {}'s forward() method "
                "has default arguments, please make sure the forward() method is declared with a corresponding "
                "`EMBER_FORWARD_HAS_DEFAULT_ARGS` macro.",
                m.name(), expected, got, m.name());
  EMBER_THROW(ValueError, "[AnyModule] {}'s forward() method expects {} argument(s), but received {}.", m.name(),
              expected, got);
}

void throw_any_argument_range(const Module& m, size_t required, size_t all, size_t got) {
  EMBER_THROW(ValueError,
              "[AnyModule] {}'s forward() method expects at least {} argument(s) and at most {} argument(s), but "
              "received {}.",
              m.name(), required, all, got);
}

void throw_any_argument_type(size_t index, const char* expected, const char* got) {
  EMBER_THROW(TypeError, "[AnyModule] Expected argument #{} to be of type {}, but received value of type {}", index,
              demangle(expected), demangle(got));
}

void print_parameter_entries(std::ostream& stream, const char* container,
                             const OrderedDict<std::string, Tensor>& parameters) {
  stream << container << "(" << std::endl;
  for (const auto& p : parameters) {
    stream << "(" << p.key() << "): Parameter containing: [" << scalar_type_name(p.value().scalar_type()) << " of size "
           << p.value().sizes() << "]" << std::endl;
  }
  stream << ")";
}

void throw_unhookable_result(const Module& m, const char* mangled_type) {
  EMBER_THROW(NotImplementedError,
              "[{}] forward hooks and backward hooks see a forward that returns a Tensor, a std::tuple or a "
              "std::vector<Tensor>; this forward returns {}",
              m.name(), demangle(mangled_type));
}

}  // namespace detail

namespace {

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

const char* kind_name(int kind) {
  static const char* const names[] = {"parameter", "buffer", "submodule"};
  return names[kind];
}

// Visits each module of the tree once (the first time it is met), pre-order, with its dotted
// prefix: PyTorch's named_modules(remove_duplicate=True).
void visit_unique(const Module& m, const std::string& prefix, std::unordered_set<const Module*>& seen,
                  const std::function<void(const std::string&, const Module&)>& fn) {
  if (!seen.insert(&m).second) return;
  fn(prefix, m);
  for (const auto& child : m.named_children()) visit_unique(*child.value(), join_name(prefix, child.key()), seen, fn);
}

}  // namespace

// ---- Construction, names ---------------------------------------------------------------------

Module::Module(std::string name)
    : parameters_("Parameter"), buffers_("Buffer"), children_("Submodule"), name_(std::move(name)) {}

Module::Module() : parameters_("Parameter"), buffers_("Buffer"), children_("Submodule") {}

const std::string& Module::name() const noexcept {
  // Not in the constructor: there typeid(*this) is the class being constructed, not the most
  // derived one.
  if (!name_) name_ = detail::demangle(typeid(*this).name());
  return *name_;
}

unsigned int Module::_forward_num_required_args() {
  EMBER_THROW(ValueError,
              "[{}] a Module whose forward has default arguments must override _forward_num_required_args: use the "
              "EMBER_FORWARD_HAS_DEFAULT_ARGS macro",
              name());
}

std::vector<AnyValue> Module::_forward_populate_default_args(std::vector<AnyValue>&&) {
  EMBER_THROW(ValueError,
              "[{}] a Module whose forward has default arguments must override _forward_populate_default_args: use "
              "the EMBER_FORWARD_HAS_DEFAULT_ARGS macro",
              name());
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_THROW(ValueError,
              "[clone] clone() has not been implemented for {}. Subclass ember::nn::Cloneable<{}> instead of "
              "ember::nn::Module to inherit the ability to clone.",
              name(), name());
}

void Module::clone_(Module& other, const std::optional<Device>&) {
  EMBER_THROW(ValueError,
              "[clone] cannot clone the submodule {} into a {}: it is not a Cloneable module, and reset() rebuilt it "
              "in another form",
              other.name(), name());
}

// ---- apply -----------------------------------------------------------------------------------

void Module::apply(const ModuleApplyFunction& function) {
  function(*this);
  apply_to_submodules([&](const std::string&, const std::shared_ptr<Module>& m) { function(*m); });
}

void Module::apply(const ConstModuleApplyFunction& function) const {
  function(*this);
  apply_to_submodules([&](const std::string&, const std::shared_ptr<Module>& m) { function(*m); });
}

void Module::apply(const NamedModuleApplyFunction& function, const std::string& name_prefix) {
  function(name_prefix, *this);
  apply_to_submodules([&](const std::string& name, const std::shared_ptr<Module>& m) { function(name, *m); },
                      name_prefix);
}

void Module::apply(const ConstNamedModuleApplyFunction& function, const std::string& name_prefix) const {
  function(name_prefix, *this);
  apply_to_submodules([&](const std::string& name, const std::shared_ptr<Module>& m) { function(name, *m); },
                      name_prefix);
}

void Module::apply(const ModulePointerApplyFunction& function) const {
  function(shared_from_this_checked());
  apply_to_submodules([&](const std::string&, const std::shared_ptr<Module>& m) { function(m); });
}

void Module::apply(const NamedModulePointerApplyFunction& function, const std::string& name_prefix) const {
  function(name_prefix, shared_from_this_checked());
  apply_to_submodules(function, name_prefix);
}

void Module::apply_to_submodules(const NamedModulePointerApplyFunction& function,
                                 const std::string& name_prefix) const {
  for (const auto& child : children_) {
    const std::string qualified = join_name(name_prefix, child.key());
    function(qualified, child.value());
    child.value()->apply_to_submodules(function, qualified);
  }
}

std::shared_ptr<Module> Module::shared_from_this_checked() const {
  std::shared_ptr<const Module> ptr;
  try {
    ptr = shared_from_this();
  } catch (const std::bad_weak_ptr&) {
    EMBER_THROW(ValueError,
                "[{}] it looks like you attempted to retrieve your top-level module as a shared_ptr, but it is not "
                "stored in a shared_ptr. Use std::make_shared<YourModule>() instead of creating your module on the "
                "stack, or alternatively do not try to access your top-level module as a shared_ptr",
                name());
  }
  return std::const_pointer_cast<Module>(ptr);
}

// ---- Listings (Note [Module names follow PyTorch]) -------------------------------------------

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Parameter");
  std::unordered_set<const TensorImpl*> seen;
  auto add_own = [&](const std::string& prefix, const Module& m) {
    for (const auto& p : m.parameters_)
      if (p.value().defined() && seen.insert(p.value().unsafeGetTensorImpl()).second)
        result.insert(join_name(prefix, p.key()), p.value());
  };
  if (!recurse) {
    add_own("", *this);
  } else {
    std::unordered_set<const Module*> modules;
    visit_unique(*this, "", modules, add_own);
  }
  return result;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Buffer");
  std::unordered_set<const TensorImpl*> seen;
  auto add_own = [&](const std::string& prefix, const Module& m) {
    for (const auto& b : m.buffers_)
      if (b.value().defined() && seen.insert(b.value().unsafeGetTensorImpl()).second)
        result.insert(join_name(prefix, b.key()), b.value());
  };
  if (!recurse) {
    add_own("", *this);
  } else {
    std::unordered_set<const Module*> modules;
    visit_unique(*this, "", modules, add_own);
  }
  return result;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  std::unordered_set<const Module*> seen{this};
  if (include_self) result.insert(name_prefix, shared_from_this_checked());
  std::function<void(const Module&, const std::string&)> rec = [&](const Module& m, const std::string& prefix) {
    for (const auto& child : m.children_) {
      if (!seen.insert(child.value().get()).second) continue;
      const std::string qualified = join_name(prefix, child.key());
      result.insert(qualified, child.value());
      rec(*child.value(), qualified);
    }
  };
  rec(*this, name_prefix);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return named_children().values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  std::unordered_set<const Module*> seen;
  for (const auto& child : children_)
    if (seen.insert(child.value().get()).second) result.insert(child.key(), child.value());
  return result;
}

// ---- Modes, conversion, gradients ------------------------------------------------------------

void Module::train(bool on) {
  for (auto& child : children_) child.value()->train(on);
  is_training_ = on;
}

void Module::eval() { train(false); }

bool Module::is_training() const noexcept { return is_training_; }

void Module::convert_own_tensors(const std::function<Tensor(const Tensor&)>& fn) {
  NoGradGuard no_grad;
  auto convert = [&](const Tensor& t) {
    if (!t.defined()) return;
    Tensor moved = fn(t);
    if (!moved.is_same(t)) t.set_data(moved);
    const Tensor& g = t.grad();
    if (g.defined()) {
      Tensor gm = fn(g);
      if (!gm.is_same(g)) t.mutable_grad() = gm;
    }
  };
  for (auto& p : parameters_) convert(p.value());
  for (auto& b : buffers_) convert(b.value());
}

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  for (auto& child : children_) child.value()->to(device, dtype, non_blocking);
  convert_own_tensors([&](const Tensor& t) {
    return t.is_floating_point() ? t.to(device, dtype, non_blocking) : t.to(device, non_blocking);
  });
}

void Module::to(ScalarType dtype, bool non_blocking) {
  for (auto& child : children_) child.value()->to(dtype, non_blocking);
  convert_own_tensors([&](const Tensor& t) { return t.is_floating_point() ? t.to(dtype, non_blocking) : t; });
}

void Module::to(Device device, bool non_blocking) {
  for (auto& child : children_) child.value()->to(device, non_blocking);
  convert_own_tensors([&](const Tensor& t) { return t.to(device, non_blocking); });
}

void Module::zero_grad(bool set_to_none) {
  for (auto& child : children_) child.value()->zero_grad(set_to_none);
  for (auto& p : parameters_) {
    const Tensor& t = p.value();
    if (!t.defined() || !t.grad().defined()) continue;
    Tensor& grad = t.mutable_grad();
    if (set_to_none) {
      grad = Tensor();
    } else {
      grad = grad.detach();
      grad.zero_();
    }
  }
}

// ---- State dicts -----------------------------------------------------------------------------

void Module::collect_state(const std::string& prefix, OrderedDict<std::string, Tensor>& out) const {
  for (const auto& p : parameters_)
    if (p.value().defined()) out.insert(prefix + p.key(), p.value().detach());
  for (const auto& b : buffers_)
    if (b.value().defined() && !non_persistent_buffers_.count(b.key()))
      out.insert(prefix + b.key(), b.value().detach());
  for (const auto& child : children_) child.value()->collect_state(prefix + child.key() + ".", out);
}

OrderedDict<std::string, Tensor> Module::state_dict() const {
  OrderedDict<std::string, Tensor> out("Key");
  collect_state("", out);
  return out;
}

// PyTorch's Module._load_from_state_dict, one module at a time: its own keys, then the keys
// under its prefix that name neither its state nor a submodule (unexpected), then submodules.
void Module::load_state_rec(const std::string& prefix, const OrderedDict<std::string, Tensor>& state_dict,
                            std::vector<std::pair<Tensor, Tensor>>& copies, IncompatibleKeys& keys,
                            std::vector<std::string>& errors) {
  std::vector<std::pair<std::string, Tensor>> local;
  for (const auto& p : parameters_)
    if (p.value().defined()) local.emplace_back(p.key(), p.value());
  for (const auto& b : buffers_)
    if (b.value().defined() && !non_persistent_buffers_.count(b.key())) local.emplace_back(b.key(), b.value());
  for (const auto& [name, param] : local) {
    const std::string key = prefix + name;
    const Tensor* input = state_dict.find(key);
    if (!input) {
      keys.missing_keys.push_back(key);
      continue;
    }
    if (!input->defined()) {
      errors.push_back(
          fmt::format("While copying the parameter named \"{}\", expected a defined tensor from "
                      "checkpoint but received an undefined one.",
                      key));
      continue;
    }
    Tensor source = *input;
    // A 0-dim parameter accepts a one-element 1-D tensor (PyTorch's backward compatibility).
    if (param.dim() == 0 && source.dim() == 1 && source.numel() == 1) source = source.select(0, 0);
    if (source.sizes() != param.sizes()) {
      errors.push_back(
          fmt::format("size mismatch for {}: copying a param with shape {} from checkpoint, the shape in "
                      "current model is {}.",
                      key, source.sizes(), param.sizes()));
      continue;
    }
    copies.emplace_back(param, source);
  }
  for (const auto& item : state_dict) {
    const std::string& key = item.key();
    if (key.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = key.substr(prefix.size());
    const std::string first = rest.substr(0, rest.find('.'));
    const bool known = children_.contains(first) ||
                       std::any_of(local.begin(), local.end(), [&](const auto& l) { return l.first == first; });
    if (!known) keys.unexpected_keys.push_back(key);
  }
  for (const auto& child : children_)
    child.value()->load_state_rec(prefix + child.key() + ".", state_dict, copies, keys, errors);
}

IncompatibleKeys Module::load_state_dict(const OrderedDict<std::string, Tensor>& state_dict, bool strict) {
  IncompatibleKeys keys;
  std::vector<std::pair<Tensor, Tensor>> copies;
  std::vector<std::string> errors;
  load_state_rec("", state_dict, copies, keys, errors);
  auto quoted = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
    return s;
  };
  if (strict) {
    if (!keys.unexpected_keys.empty())
      errors.insert(errors.begin(), fmt::format("Unexpected key(s) in state_dict: {}. ", quoted(keys.unexpected_keys)));
    if (!keys.missing_keys.empty())
      errors.insert(errors.begin(), fmt::format("Missing key(s) in state_dict: {}. ", quoted(keys.missing_keys)));
  }
  if (!errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += "\n\t" + e;
    EMBER_THROW(ValueError, "[load_state_dict] Error(s) in loading state_dict for {}:{}", name(), all);
  }
  NoGradGuard no_grad;
  for (auto& [target, source] : copies) target.copy_(source);
  return keys;
}

// ---- Printing --------------------------------------------------------------------------------

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

// ---- Registration ----------------------------------------------------------------------------

void Module::check_new_name(const char* fn, const std::string& name, Kind kind) const {
  static const char* const capitalized[] = {"Parameter", "Buffer", "Submodule"};
  const int k = static_cast<int>(kind);
  EMBER_CHECK(!name.empty(), "[{}] {} name must not be empty", fn, capitalized[k]);
  EMBER_CHECK(name.find('.') == std::string::npos, "[{}] {} name must not contain a dot (got '{}')", fn, capitalized[k],
              name);
  const Kind kinds[] = {Kind::Parameter, Kind::Buffer, Kind::Module};
  for (Kind other : kinds) {
    const bool taken = other == Kind::Parameter ? parameters_.contains(name)
                       : other == Kind::Buffer  ? buffers_.contains(name)
                                                : children_.contains(name);
    if (!taken) continue;
    EMBER_CHECK(other == kind, "[{}] cannot register {} '{}': the name is already registered as a {}", fn, kind_name(k),
                name, kind_name(static_cast<int>(other)));
    EMBER_CHECK(kind != Kind::Module, "[{}] Submodule '{}' already defined (replace_module replaces a submodule)", fn,
                name);
  }
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name("register_parameter", name, Kind::Parameter);
  if (tensor.defined() && tensor.requires_grad() != requires_grad) tensor.requires_grad_(requires_grad);
  return parameters_.insert_or_assign(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
  check_new_name("register_buffer", name, Kind::Buffer);
  if (persistent)
    non_persistent_buffers_.erase(name);
  else
    non_persistent_buffers_.insert(name);
  return buffers_.insert_or_assign(std::move(name), std::move(tensor));
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), "[unregister_module] No Module with name `{}` is registered", name);
  children_.erase(name);
}

// ---- Hooks -----------------------------------------------------------------------------------

void RemovableHandle::remove() {
  auto store = store_.lock();
  if (!store) return;
  auto drop = [&](auto& v) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& e) { return e.first == id_; }), v.end());
  };
  drop(store->forward_pre);
  drop(store->forward);
  drop(store->backward);
}

RemovableHandle Module::add_forward_pre_hook(ForwardPreHook hook) {
  EMBER_CHECK(static_cast<bool>(hook), "[register_forward_pre_hook] hook: expected a callable, got an empty one");
  const auto& store = hooks_.store();
  const uint64_t id = store->next_id++;
  store->forward_pre.emplace_back(id, std::move(hook));
  return RemovableHandle(store, id);
}

RemovableHandle Module::add_forward_hook(ForwardHook hook) {
  EMBER_CHECK(static_cast<bool>(hook), "[register_forward_hook] hook: expected a callable, got an empty one");
  const auto& store = hooks_.store();
  const uint64_t id = store->next_id++;
  store->forward.emplace_back(id, std::move(hook));
  return RemovableHandle(store, id);
}

RemovableHandle Module::add_backward_hook(BackwardHook hook) {
  EMBER_CHECK(static_cast<bool>(hook), "[register_full_backward_hook] hook: expected a callable, got an empty one");
  const auto& store = hooks_.store();
  const uint64_t id = store->next_id++;
  store->backward.emplace_back(id, std::move(hook));
  return RemovableHandle(store, id);
}

std::vector<Tensor> Module::_run_forward_pre_hooks(std::vector<Tensor> inputs) {
  const detail::HookStore* store = hooks_.get();
  if (!store || store->forward_pre.empty()) return inputs;
  const auto hooks = store->forward_pre;  // a hook may remove itself
  for (const auto& [id, hook] : hooks) {
    HookResult r = hook(*this, inputs);
    if (!r) continue;
    EMBER_CHECK(r->size() == inputs.size(),
                "[register_forward_pre_hook] a forward pre-hook of {} returned {} tensors, expected {} (one per tensor "
                "argument of forward)",
                name(), r->size(), inputs.size());
    inputs = std::move(*r);
  }
  return inputs;
}

std::vector<Tensor> Module::_run_forward_hooks(const std::vector<Tensor>& inputs, std::vector<Tensor> outputs) {
  const detail::HookStore* store = hooks_.get();
  if (!store || store->forward.empty()) return outputs;
  const auto hooks = store->forward;
  for (const auto& [id, hook] : hooks) {
    HookResult r = hook(*this, inputs, outputs);
    if (!r) continue;
    EMBER_CHECK(r->size() == outputs.size(),
                "[register_forward_hook] a forward hook of {} returned {} tensors, expected {} (one per output of "
                "forward)",
                name(), r->size(), outputs.size());
    outputs = std::move(*r);
  }
  return outputs;
}

// One call's full backward hooks: an identity node over the inputs that need grad and one over
// the outputs (PyTorch's BackwardHookFunction). The output node's backward keeps grad_output;
// the input node's backward runs the hooks, which may replace grad_input.
struct Module::BackwardHookCall {
  std::shared_ptr<Module> keep;  // the module, when a shared_ptr owns it
  Module* module = nullptr;
  std::vector<BackwardHook> hooks;
  std::vector<size_t> input_slots;   // positions of the wrapped inputs
  std::vector<size_t> output_slots;  // positions of the wrapped outputs
  size_t num_inputs = 0, num_outputs = 0;
  std::vector<Tensor> grad_outputs;
};

namespace {

struct BackwardHookNode final : autograd::detail::NodeState {
  std::shared_ptr<Module::BackwardHookCall> call;
};

void run_backward_hooks(Module::BackwardHookCall& c, std::vector<Tensor>& grad_input, bool inputs_need_grad) {
  for (const auto& hook : c.hooks) {
    HookResult r = hook(*c.module, grad_input, c.grad_outputs);
    if (!r) continue;
    if (!inputs_need_grad) {
      EMBER_CHECK(std::none_of(r->begin(), r->end(), [](const Tensor& t) { return t.defined(); }),
                  "[register_full_backward_hook] a backward hook of {} returned gradients, but no input of the module "
                  "requires grad: it must return nothing (or undefined tensors)",
                  c.module->name());
      continue;
    }
    EMBER_CHECK(r->size() == c.num_inputs,
                "[register_full_backward_hook] a backward hook of {} returned {} gradients, expected {} (one per "
                "tensor input of forward)",
                c.module->name(), r->size(), c.num_inputs);
    grad_input = std::move(*r);
  }
}

void output_node_backward(void* s, const Tensor*, size_t, const Tensor* grads, size_t num_grads, Tensor* out,
                          size_t num_out) {
  auto& c = *static_cast<BackwardHookNode*>(static_cast<autograd::detail::NodeState*>(s))->call;
  c.grad_outputs.assign(c.num_outputs, Tensor());
  for (size_t i = 0; i < num_grads && i < num_out; ++i) {
    c.grad_outputs[c.output_slots[i]] = grads[i];
    out[i] = grads[i];
  }
  if (c.input_slots.empty()) {
    std::vector<Tensor> grad_input(c.num_inputs);
    run_backward_hooks(c, grad_input, /*inputs_need_grad=*/false);
    c.grad_outputs.clear();
  }
}

void input_node_backward(void* s, const Tensor*, size_t, const Tensor* grads, size_t num_grads, Tensor* out,
                         size_t num_out) {
  auto& c = *static_cast<BackwardHookNode*>(static_cast<autograd::detail::NodeState*>(s))->call;
  std::vector<Tensor> grad_input(c.num_inputs);
  for (size_t i = 0; i < num_grads; ++i) grad_input[c.input_slots[i]] = grads[i];
  if (c.grad_outputs.empty()) c.grad_outputs.assign(c.num_outputs, Tensor());
  run_backward_hooks(c, grad_input, /*inputs_need_grad=*/true);
  c.grad_outputs.clear();
  for (size_t i = 0; i < num_out; ++i) out[i] = grad_input[c.input_slots[i]];
}

// Routes `tensors[slots]` through an identity node whose backward is `backward`.
void wrap_identity(const std::shared_ptr<Module::BackwardHookCall>& call, std::vector<Tensor>& tensors,
                   const std::vector<size_t>& slots, autograd::detail::BackwardFn backward) {
  auto st = std::make_unique<BackwardHookNode>();
  st->name = "BackwardHookFunctionBackward";
  st->call = call;
  autograd::variable_list in;
  for (size_t i : slots) in.push_back(tensors[i]);
  st->begin_forward(in);
  autograd::variable_list out = in;
  autograd::detail::NodeState::record(std::move(st), in, out, backward);
  for (size_t k = 0; k < slots.size(); ++k) tensors[slots[k]] = out[k];
}

std::vector<size_t> needing_grad(const std::vector<Tensor>& tensors) {
  std::vector<size_t> slots;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].defined() && tensors[i].requires_grad()) slots.push_back(i);
  return slots;
}

}  // namespace

std::shared_ptr<Module::BackwardHookCall> Module::_backward_hooks_begin(std::vector<Tensor>& inputs) {
  const detail::HookStore* store = hooks_.get();
  if (!store || store->backward.empty() || !GradMode::is_enabled()) return nullptr;
  auto call = std::make_shared<BackwardHookCall>();
  call->keep = weak_from_this().lock();
  call->module = this;
  for (const auto& h : store->backward) call->hooks.push_back(h.second);
  call->num_inputs = inputs.size();
  call->input_slots = needing_grad(inputs);
  if (!call->input_slots.empty()) wrap_identity(call, inputs, call->input_slots, &input_node_backward);
  return call;
}

void Module::_backward_hooks_end(const std::shared_ptr<BackwardHookCall>& call, std::vector<Tensor>& outputs) {
  if (!call) return;
  call->num_outputs = outputs.size();
  call->output_slots = needing_grad(outputs);
  if (!call->output_slots.empty()) wrap_identity(call, outputs, call->output_slots, &output_node_backward);
}

// ---- Cloning (Note [Cloning modules]) --------------------------------------------------------

namespace detail {

struct CloneScope::Memo {
  std::optional<Device> device;
  std::unordered_map<const Module*, std::shared_ptr<Module>> modules;
  std::unordered_map<const TensorImpl*, Tensor> tensors;
};

namespace {
thread_local CloneScope::Memo* current_memo = nullptr;
}  // namespace

CloneScope::CloneScope(const std::optional<Device>& device) : memo_(current_memo), owner_(current_memo == nullptr) {
  if (owner_) {
    memo_ = new Memo();
    memo_->device = device;
    current_memo = memo_;
  }
}

CloneScope::~CloneScope() {
  if (owner_) {
    current_memo = nullptr;
    delete memo_;
  }
}

std::shared_ptr<Module> CloneScope::find(const Module* original) const {
  auto it = memo_->modules.find(original);
  return it == memo_->modules.end() ? nullptr : it->second;
}

void CloneScope::remember(const Module* original, std::shared_ptr<Module> copy) {
  memo_->modules[original] = std::move(copy);
}

const Tensor* CloneScope::find(const Tensor& original) const {
  auto it = memo_->tensors.find(original.unsafeGetTensorImpl());
  return it == memo_->tensors.end() ? nullptr : &it->second;
}

void CloneScope::remember(const Tensor& original, const Tensor& copy) {
  memo_->tensors[original.unsafeGetTensorImpl()] = copy;
}

const std::optional<Device>& CloneScope::device() const { return memo_->device; }

Tensor CloneScope::clone_tensor(const Tensor& original) {
  if (!original.defined()) return original;
  if (const Tensor* done = find(original)) return *done;
  NoGradGuard no_grad;
  Tensor copy = device() && original.device() != *device() ? original.to(*device()) : original.clone();
  if (original.requires_grad()) copy.requires_grad_(true);
  remember(original, copy);
  return copy;
}

}  // namespace detail

void Module::clear_for_clone() {
  parameters_.clear();
  buffers_.clear();
  children_.clear();
  non_persistent_buffers_.clear();
}

void Module::copy_module_state_from(const Module& other) {
  hooks_ = other.hooks_;
  is_training_ = other.is_training_;
}

namespace {

template <typename V>
bool same_keys(const OrderedDict<std::string, V>& a, const OrderedDict<std::string, V>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].key() != b[i].key()) return false;
  return true;
}

Tensor cloned_data(const Tensor& t, const std::optional<Device>& device) {
  return device && t.device() != *device ? t.to(*device) : t.clone();
}

}  // namespace

void Module::copy_state_for_clone(const Module& original, detail::CloneScope& scope) {
  EMBER_CHECK(parameters_.size() == original.parameters_.size(),
              "[clone] The cloned module does not have the same number of parameters as the original module after "
              "calling reset(). Are you sure you called register_parameter() inside reset() and not the constructor?");
  EMBER_CHECK(buffers_.size() == original.buffers_.size(),
              "[clone] The cloned module does not have the same number of buffers as the original module after "
              "calling reset(). Are you sure you called register_buffer() inside reset() and not the constructor?");
  EMBER_CHECK(children_.size() == original.children_.size(),
              "[clone] The cloned module does not have the same number of child modules as the original module after "
              "calling reset(). Are you sure you called register_module() inside reset() and not the constructor?");
  auto copy_tensors = [&](OrderedDict<std::string, Tensor>& mine, const OrderedDict<std::string, Tensor>& theirs,
                          const char* what, bool is_param) {
    for (const auto& item : theirs) {
      const Tensor& o = item.value();
      Tensor* slot = mine.find(item.key());
      EMBER_CHECK(slot != nullptr, "[clone] {}: reset() of the copy did not register the {} '{}'", name(), what,
                  item.key());
      if (!o.defined()) continue;
      EMBER_CHECK(!slot->is_same(o),
                  "[clone] {}: reset() registered the original's own tensor as the {} '{}'; register a new tensor (or "
                  "a detach() of it) so that the copy does not alias the original",
                  name(), what, item.key());
      const Tensor* done = scope.find(o);
      if (done && slot->is_same(*done)) continue;  // shared, and reset() rebuilt the sharing
      Tensor data = cloned_data(o, scope.device());
      if (slot->defined())
        slot->set_data(data);
      else
        *slot = data;
      if (is_param && slot->requires_grad() != o.requires_grad()) slot->requires_grad_(o.requires_grad());
      if (!done) scope.remember(o, *slot);
    }
  };
  copy_tensors(parameters_, original.parameters_, "parameter", true);
  copy_tensors(buffers_, original.buffers_, "buffer", false);
  non_persistent_buffers_ = original.non_persistent_buffers_;
  copy_module_state_from(original);
  for (const auto& item : original.children_) {
    const std::shared_ptr<Module>& theirs = item.value();
    std::shared_ptr<Module>* slot = children_.find(item.key());
    EMBER_CHECK(slot != nullptr, "[clone] {}: reset() of the copy did not register the submodule '{}'", name(),
                item.key());
    const std::shared_ptr<Module> done = scope.find(theirs.get());
    if (done && *slot == done) continue;  // shared, and reset() rebuilt the sharing
    Module& mine = **slot;
    if (typeid(mine) == typeid(*theirs) && same_keys(mine.parameters_, theirs->parameters_) &&
        same_keys(mine.buffers_, theirs->buffers_) && same_keys(mine.children_, theirs->children_))
      mine.copy_state_for_clone(*theirs, scope);
    else
      mine.clone_(*theirs, scope.device());
    if (!done) scope.remember(theirs.get(), *slot);
  }
}

}  // namespace ember::nn
