#pragma once
// ember::nn::Module: LibTorch's torch::nn::Module (parameters, buffers and submodules under
// dotted names, train/eval, to, clone, printing) plus PyTorch's state_dict/load_state_dict and
// forward/backward hooks.
//
// Note [Module names follow PyTorch]
// parameters(), named_parameters(), buffers(), named_buffers(), children(), modules() and
// named_modules() list a tensor or module once even when it is registered in several places
// (PyTorch's remove_duplicate), under the first name met in registration order, so an optimizer
// never gets a shared parameter twice. state_dict() lists every name, shared or not, as PyTorch
// does, so a checkpoint saved by PyTorch for the same architecture loads strictly. apply() visits
// every registration, as LibTorch's does.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ember/OrderedDict.h"
#include "ember/core/Device.h"
#include "ember/core/Exception.h"
#include "ember/core/ScalarType.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::nn {

class Module;
template <typename Contained>
class ModuleHolder;
template <typename Derived>
class Cloneable;

// ---- Hooks -----------------------------------------------------------------------------------
//
// Note [Module hooks]
// PyTorch's module hooks, which LibTorch lacks (pytorch#25888), with Python's semantics:
//   - a forward pre-hook runs before forward with the module's tensor arguments and may return
//     replacements for them;
//   - a forward hook runs after forward with the (possibly replaced) inputs and the outputs and
//     may return replacements for the outputs;
//   - a full backward hook runs when the gradients with respect to the module's tensor inputs
//     have been computed, with (grad_input, grad_output), and may return replacements for
//     grad_input. grad_input has one entry per tensor argument (undefined for an input that
//     needs no gradient), grad_output one per output. When no input requires grad, the hook
//     runs once the output gradients are known, with undefined grad_input, and must not
//     return replacements.
// Hooks run in registration order when the module is called as a whole: through its holder's
// operator() (`fc(x)`), as an entry of a Sequential, or through AnyModule. Calling
// `fc->forward(x)` runs forward alone, as Python's `m.forward(x)` does. The tensors hooks see
// are forward's Tensor arguments in order (other arguments pass through untouched) and its
// outputs: a Tensor, the Tensors of a std::tuple, or a std::vector<Tensor>. Full backward hooks
// wrap the inputs and the outputs in identity autograd nodes (PyTorch's BackwardHookFunction)
// while grad mode is on; they hold the module until that graph is freed.
// A hook returns void (it only observes), or std::optional<std::vector<Tensor>> / a
// std::vector<Tensor> / a Tensor (replacements; nullopt or an undefined Tensor keeps the
// values). Each register_* returns a RemovableHandle.
using HookResult = std::optional<std::vector<Tensor>>;
using ForwardPreHook = std::function<HookResult(Module& module, const std::vector<Tensor>& inputs)>;
using ForwardHook =
    std::function<HookResult(Module& module, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs)>;
using BackwardHook = std::function<HookResult(Module& module, const std::vector<Tensor>& grad_input,
                                              const std::vector<Tensor>& grad_output)>;

namespace detail {
struct HookStore {
  uint64_t next_id = 0;
  std::vector<std::pair<uint64_t, ForwardPreHook>> forward_pre;
  std::vector<std::pair<uint64_t, ForwardHook>> forward;
  std::vector<std::pair<uint64_t, BackwardHook>> backward;
  bool empty() const { return forward_pre.empty() && forward.empty() && backward.empty(); }
};

// A module's hooks, copied deeply with the module (a clone keeps its own hooks, and removing a
// hook from the original leaves the clone's).
class ModuleHooks {
 public:
  ModuleHooks() = default;
  ModuleHooks(const ModuleHooks& o) : store_(o.store_ ? std::make_shared<HookStore>(*o.store_) : nullptr) {}
  ModuleHooks& operator=(const ModuleHooks& o) {
    if (this != &o) store_ = o.store_ ? std::make_shared<HookStore>(*o.store_) : nullptr;
    return *this;
  }
  ModuleHooks(ModuleHooks&&) noexcept = default;
  ModuleHooks& operator=(ModuleHooks&&) noexcept = default;

  bool empty() const { return !store_ || store_->empty(); }
  const std::shared_ptr<HookStore>& store() {
    if (!store_) store_ = std::make_shared<HookStore>();
    return store_;
  }
  const HookStore* get() const { return store_.get(); }

 private:
  std::shared_ptr<HookStore> store_;
};

// A hook callable of any of the accepted return types, as the stored std::function.
template <typename R>
HookResult to_hook_result(R&& r) {
  using D = std::decay_t<R>;
  if constexpr (std::is_same_v<D, HookResult>) {
    return std::forward<R>(r);
  } else if constexpr (std::is_same_v<D, std::vector<Tensor>>) {
    return HookResult(std::forward<R>(r));
  } else {
    static_assert(std::is_same_v<D, Tensor>,
                  "a module hook returns void, std::optional<std::vector<Tensor>>, std::vector<Tensor> or Tensor");
    if (!r.defined()) return std::nullopt;
    return HookResult(std::vector<Tensor>{std::forward<R>(r)});
  }
}
template <typename F, typename... A>
auto wrap_hook(F&& f) {
  return [f = std::forward<F>(f)](A... a) mutable -> HookResult {
    using R = std::invoke_result_t<std::decay_t<F>&, A...>;
    if constexpr (std::is_void_v<R>) {
      f(a...);
      return std::nullopt;
    } else {
      return to_hook_result(f(a...));
    }
  };
}
}  // namespace detail

// Removes the hook it was returned for (PyTorch's RemovableHandle). Copyable; remove() is a
// no-op once the hook or its module is gone.
class EMBER_API RemovableHandle {
 public:
  RemovableHandle() = default;
  void remove();
  uint64_t id() const noexcept { return id_; }

 private:
  friend class Module;
  RemovableHandle(std::weak_ptr<detail::HookStore> store, uint64_t id) : store_(std::move(store)), id_(id) {}
  std::weak_ptr<detail::HookStore> store_;
  uint64_t id_ = 0;
};

// What load_state_dict did not match (PyTorch's _IncompatibleKeys).
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

namespace detail {
class CloneScope;
// Whether T is a holder (it names its module type ContainedType).
template <typename T, typename = void>
inline constexpr bool has_contained_type_v = false;
template <typename T>
inline constexpr bool has_contained_type_v<T, std::void_t<typename T::ContainedType>> = true;
}  // namespace detail
class AnyValue;  // ember/nn/modules/AnyModule.h

// ---- Module ----------------------------------------------------------------------------------
class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction = std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;
  virtual ~Module() = default;

  // The module's name: the one given to the constructor, else its demangled dynamic type
  // ("ember::nn::LinearImpl").
  const std::string& name() const noexcept;

  // A deep copy: see Note [Cloning modules] in ember/nn/Cloneable.h. A module that does not
  // derive from Cloneable<Self> cannot be cloned (an error says so).
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  // `function` on this module and then on every submodule, depth first (LibTorch's order).
  void apply(const ModuleApplyFunction& function);
  void apply(const ConstModuleApplyFunction& function) const;
  void apply(const NamedModuleApplyFunction& function, const std::string& name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction& function, const std::string& name_prefix = std::string()) const;
  void apply(const ModulePointerApplyFunction& function) const;
  void apply(const NamedModulePointerApplyFunction& function, const std::string& name_prefix = std::string()) const;

  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = std::string(),
                                                                  bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  // Training mode for this module and every submodule.
  virtual void train(bool on = true);
  void eval();
  virtual bool is_training() const noexcept;

  // Moves and/or casts every parameter and buffer in place (each keeps its identity, as
  // LibTorch's set_data does; gradients follow). A dtype applies to floating-point tensors only,
  // as PyTorch's Module.to: an integer buffer such as num_batches_tracked keeps its type.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  // Drops (set_to_none, PyTorch 2's default) or zeroes every parameter's gradient.
  virtual void zero_grad(bool set_to_none = true);

  // This module as ModuleType (a holder such as Linear or an Impl), or null.
  template <typename ModuleType>
  typename ModuleType::ContainedType* as() noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType>
  const typename ModuleType::ContainedType* as() const noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType, typename = std::enable_if_t<!detail::has_contained_type_v<ModuleType>>>
  ModuleType* as() noexcept {
    return dynamic_cast<ModuleType*>(this);
  }
  template <typename ModuleType, typename = std::enable_if_t<!detail::has_contained_type_v<ModuleType>>>
  const ModuleType* as() const noexcept {
    return dynamic_cast<const ModuleType*>(this);
  }

  // Parameters and persistent buffers under their dotted names (PyTorch's state_dict): detached
  // tensors sharing the module's storage.
  OrderedDict<std::string, Tensor> state_dict() const;
  // Copies `state_dict`'s tensors into the parameters and persistent buffers in place under
  // no-grad. Strict: missing or unexpected keys are an error; a shape mismatch is always an
  // error (as PyTorch). The error lists every problem in PyTorch's format and nothing is changed.
  IncompatibleKeys load_state_dict(const OrderedDict<std::string, Tensor>& state_dict, bool strict = true);

  // One line describing this module alone (its options); operator<< adds the submodules.
  virtual void pretty_print(std::ostream& stream) const;

  // Registers a parameter (it requires grad unless requires_grad is false) and returns it. An
  // undefined tensor registers an absent parameter (a bias turned off), which no listing shows.
  // Registering an existing parameter's name replaces it (PyTorch's register_parameter; how a
  // weight is tied to another module's).
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  // Registers a buffer: state that is not trained (running statistics). A non-persistent buffer
  // is left out of state_dict.
  Tensor& register_buffer(std::string name, Tensor tensor, bool persistent = true);

  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    check_new_name("register_module", name, Kind::Module);
    EMBER_CHECK(module != nullptr, "[register_module] module '{}': expected a module, got a null pointer", name);
    auto& base = children_.insert(std::move(name), std::move(module));
    return std::dynamic_pointer_cast<ModuleType>(base);
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> module_holder) {
    return register_module(std::move(name), module_holder.ptr());
  }
  // Replaces a registered submodule (the caller also reassigns its own member).
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    EMBER_CHECK(module != nullptr, "[replace_module] module '{}': expected a module, got a null pointer", name);
    auto& base = (children_[name] = std::move(module));
    return std::dynamic_pointer_cast<ModuleType>(base);
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }
  void unregister_module(const std::string& name);

  // Hooks: Note [Module hooks].
  template <typename F>
  RemovableHandle register_forward_pre_hook(F&& hook) {
    return add_forward_pre_hook(detail::wrap_hook<F, Module&, const std::vector<Tensor>&>(std::forward<F>(hook)));
  }
  template <typename F>
  RemovableHandle register_forward_hook(F&& hook) {
    return add_forward_hook(
        detail::wrap_hook<F, Module&, const std::vector<Tensor>&, const std::vector<Tensor>&>(std::forward<F>(hook)));
  }
  template <typename F>
  RemovableHandle register_full_backward_hook(F&& hook) {
    return add_backward_hook(
        detail::wrap_hook<F, Module&, const std::vector<Tensor>&, const std::vector<Tensor>&>(std::forward<F>(hook)));
  }
  RemovableHandle add_forward_pre_hook(ForwardPreHook hook);
  RemovableHandle add_forward_hook(ForwardHook hook);
  RemovableHandle add_backward_hook(BackwardHook hook);
  bool has_hooks() const noexcept { return !hooks_.empty(); }
  bool _has_output_hooks() const noexcept {
    return hooks_.get() && !(hooks_.get()->forward.empty() && hooks_.get()->backward.empty());
  }

  // forward's default arguments, for AnyModule and Sequential: EMBER_FORWARD_HAS_DEFAULT_ARGS
  // (ember/nn/modules/AnyModule.h) overrides these three (not for users).
  virtual bool _forward_has_default_args() { return false; }
  virtual unsigned int _forward_num_required_args();
  virtual std::vector<AnyValue> _forward_populate_default_args(std::vector<AnyValue>&& arguments);

  // The hook steps of one call (detail::call_forward runs them around forward; not for users).
  // Each takes and returns the call's tensors.
  struct BackwardHookCall;
  std::vector<Tensor> _run_forward_pre_hooks(std::vector<Tensor> inputs);
  std::vector<Tensor> _run_forward_hooks(const std::vector<Tensor>& inputs, std::vector<Tensor> outputs);
  std::shared_ptr<BackwardHookCall> _backward_hooks_begin(std::vector<Tensor>& inputs);
  void _backward_hooks_end(const std::shared_ptr<BackwardHookCall>& call, std::vector<Tensor>& outputs);

 protected:
  OrderedDict<std::string, Tensor> parameters_;

  // Restores a clone's hooks and training flag from `other` (containers that clone by hand).
  void copy_module_state_from(const Module& other);

 private:
  template <typename Derived>
  friend class Cloneable;
  friend EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

  enum class Kind { Parameter, Buffer, Module };
  void check_new_name(const char* fn, const std::string& name, Kind kind) const;

  // Cloneable's steps: Note [Cloning modules].
  void clear_for_clone();
  void copy_state_for_clone(const Module& original, detail::CloneScope& scope);
  virtual void clone_(Module& other, const std::optional<Device>& device);

  // fn(t) for each own parameter, its gradient and each own buffer; a result that is not t
  // becomes t's data (set_data: t keeps its identity).
  void convert_own_tensors(const std::function<Tensor(const Tensor&)>& fn);
  void load_state_rec(const std::string& prefix, const OrderedDict<std::string, Tensor>& state_dict,
                      std::vector<std::pair<Tensor, Tensor>>& copies, IncompatibleKeys& keys,
                      std::vector<std::string>& errors);
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  void apply_to_submodules(const NamedModulePointerApplyFunction& function,
                           const std::string& name_prefix = std::string()) const;
  std::shared_ptr<Module> shared_from_this_checked() const;
  void collect_state(const std::string& prefix, OrderedDict<std::string, Tensor>& out) const;

  OrderedDict<std::string, Tensor> buffers_;
  OrderedDict<std::string, std::shared_ptr<Module>> children_;
  std::set<std::string> non_persistent_buffers_;
  detail::ModuleHooks hooks_;
  mutable std::optional<std::string> name_;
  bool is_training_ = true;
};

// The module tree as LibTorch prints it: pretty_print() of each module, its submodules indented
// under "(name): ".
EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

// ---- Calling a module with its hooks ---------------------------------------------------------
namespace detail {

template <typename T>
inline constexpr bool is_tensor_v = std::is_same_v<std::decay_t<T>, Tensor>;

template <typename T>
struct is_std_tuple : std::false_type {};
template <typename... T>
struct is_std_tuple<std::tuple<T...>> : std::true_type {};

// Whether hooks can see a forward's result of type R (Note [Module hooks]).
template <typename R>
inline constexpr bool hookable_result_v =
    is_tensor_v<R> || std::is_same_v<R, std::vector<Tensor>> || is_std_tuple<R>::value;

template <typename T>
void push_if_tensor(std::vector<Tensor>& out, const T& v) {
  if constexpr (is_tensor_v<T>) out.push_back(v);
}
template <typename T>
void assign_if_tensor(T& slot, const std::vector<Tensor>& values, size_t& i) {
  if constexpr (is_tensor_v<T>) slot = values[i++];
}
template <typename R>
std::vector<Tensor> result_tensors(const R& r) {
  std::vector<Tensor> out;
  if constexpr (is_tensor_v<R>)
    out.push_back(r);
  else if constexpr (std::is_same_v<R, std::vector<Tensor>>)
    out = r;
  else
    std::apply([&](const auto&... e) { (push_if_tensor(out, e), ...); }, r);
  return out;
}
template <typename R>
void set_result_tensors(R& r, const std::vector<Tensor>& values) {
  if constexpr (is_tensor_v<R>) {
    r = values[0];
  } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
    r = values;
  } else {
    size_t i = 0;
    std::apply([&](auto&... e) { (assign_if_tensor(e, values, i), ...); }, r);
  }
}

[[noreturn]] EMBER_API void throw_unhookable_result(const Module& m, const char* mangled_type);

// module.forward(args...) with the module's hooks (Note [Module hooks]); forward alone when it
// has none.
template <typename M, typename... Args>
auto call_forward(M& module, Args&&... args) {
  using R = std::decay_t<decltype(module.forward(std::forward<Args>(args)...))>;
  if (!module.has_hooks()) return R(module.forward(std::forward<Args>(args)...));
  if constexpr (!hookable_result_v<R>) {
    if (module._has_output_hooks()) throw_unhookable_result(module, typeid(R).name());
  }
  std::tuple<std::decay_t<Args>...> a(std::forward<Args>(args)...);
  std::vector<Tensor> inputs;
  std::apply([&](const auto&... x) { (push_if_tensor(inputs, x), ...); }, a);
  inputs = module._run_forward_pre_hooks(std::move(inputs));
  std::shared_ptr<Module::BackwardHookCall> call;
  if constexpr (hookable_result_v<R>) call = module._backward_hooks_begin(inputs);
  size_t i = 0;
  std::apply([&](auto&... x) { (assign_if_tensor(x, inputs, i), ...); }, a);
  R out = std::apply([&](auto&... x) { return R(module.forward(x...)); }, a);
  if constexpr (hookable_result_v<R>) {
    std::vector<Tensor> outputs = module._run_forward_hooks(inputs, result_tensors(out));
    module._backward_hooks_end(call, outputs);
    set_result_tensors(out, outputs);
  }
  return out;
}

}  // namespace detail

}  // namespace ember::nn
