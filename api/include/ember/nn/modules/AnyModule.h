#pragma once
// AnyValue, AnyModule and NamedAnyModule (LibTorch's): a module of any type behind one type,
// called with type-erased arguments. Sequential holds its entries as AnyModules.
//
// AnyModule reads the argument types off ModuleType::forward (which must be one non-template
// member function, returning a value, taking no non-const lvalue reference) and checks each
// call's arguments against them: the count, and each argument's exact type after decay (an `int`
// does not convert to an `int64_t`, as in LibTorch). Forward runs through detail::call_forward,
// so the module's hooks run (Note [Module hooks]).
#include <any>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ember/nn/Pimpl.h"

namespace ember::nn {

namespace detail {
template <typename M>
inline constexpr bool is_module_v = std::is_base_of_v<Module, std::decay_t<M>> && !is_module_holder_v<M>;
template <typename M>
using enable_if_module_t = std::enable_if_t<is_module_v<M>>;
}  // namespace detail

// A value of any copyable type (LibTorch's AnyValue).
class AnyValue {
 public:
  template <typename T, typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, AnyValue>>>
  explicit AnyValue(T&& value) : value_(std::decay_t<T>(std::forward<T>(value))) {}
  AnyValue(const AnyValue&) = default;
  AnyValue(AnyValue&&) noexcept = default;
  AnyValue& operator=(const AnyValue&) = default;
  AnyValue& operator=(AnyValue&&) noexcept = default;

  // The value when it is a T, else null.
  template <typename T>
  T* try_get() {
    return std::any_cast<T>(&value_);
  }
  template <typename T>
  const T* try_get() const {
    return std::any_cast<T>(&value_);
  }
  template <typename T>
  T get() const {
    if (const T* v = try_get<T>()) return *v;
    EMBER_THROW(TypeError, "[AnyValue] Attempted to cast AnyValue to {}, but its actual type is {}",
                detail::demangle(typeid(T).name()), detail::demangle(type_info().name()));
  }
  const std::type_info& type_info() const noexcept { return value_.type(); }

 private:
  std::any value_;
};

namespace detail {

struct AnyModulePlaceholder {
  explicit AnyModulePlaceholder(const std::type_info& t) : type_info(t) {}
  virtual ~AnyModulePlaceholder() = default;
  virtual AnyValue forward(std::vector<AnyValue>&& arguments) = 0;
  virtual std::shared_ptr<Module> ptr() const = 0;
  virtual std::unique_ptr<AnyModulePlaceholder> copy() const = 0;
  virtual std::unique_ptr<AnyModulePlaceholder> clone_module(const std::optional<Device>& device) const = 0;
  const std::type_info& type_info;
};

EMBER_API [[noreturn]] void throw_any_argument_count(const Module& m, size_t expected, size_t got);
EMBER_API [[noreturn]] void throw_any_argument_range(const Module& m, size_t required, size_t all, size_t got);
EMBER_API [[noreturn]] void throw_any_argument_type(size_t index, const char* expected, const char* got);

template <typename T>
std::decay_t<T>&& any_argument(AnyValue& v, size_t index) {
  using D = std::decay_t<T>;
  D* p = v.try_get<D>();
  if (!p) throw_any_argument_type(index, typeid(D).name(), v.type_info().name());
  return std::move(*p);
}

template <typename ModuleType, typename... ArgumentTypes>
struct AnyModuleHolder final : AnyModulePlaceholder {
  explicit AnyModuleHolder(std::shared_ptr<ModuleType> m)
      : AnyModulePlaceholder(typeid(ModuleType)), module(std::move(m)) {}

  AnyValue forward(std::vector<AnyValue>&& arguments) override {
    Module& base = *module;  // the default-argument hooks through Module, where they are public
    if (base._forward_has_default_args()) {
      const size_t required = base._forward_num_required_args();
      if (arguments.size() < required || arguments.size() > sizeof...(ArgumentTypes))
        throw_any_argument_range(*module, required, sizeof...(ArgumentTypes), arguments.size());
      arguments = base._forward_populate_default_args(std::move(arguments));
    } else if (arguments.size() != sizeof...(ArgumentTypes)) {
      throw_any_argument_count(*module, sizeof...(ArgumentTypes), arguments.size());
    }
    return call(arguments, std::index_sequence_for<ArgumentTypes...>{});
  }
  template <size_t... I>
  AnyValue call(std::vector<AnyValue>& args, std::index_sequence<I...>) {
    return AnyValue(call_forward(*module, any_argument<ArgumentTypes>(args[I], I)...));
  }
  std::shared_ptr<Module> ptr() const override { return module; }
  std::unique_ptr<AnyModulePlaceholder> copy() const override { return std::make_unique<AnyModuleHolder>(*this); }
  std::unique_ptr<AnyModulePlaceholder> clone_module(const std::optional<Device>& device) const override {
    auto clone = std::dynamic_pointer_cast<ModuleType>(module->clone(device));
    EMBER_CHECK(clone != nullptr, "[AnyModule] clone() of {} returned a module of another type", module->name());
    return std::make_unique<AnyModuleHolder>(std::move(clone));
  }

  std::shared_ptr<ModuleType> module;
};

template <typename ModuleType, typename Class, typename ReturnType, typename... ArgumentTypes>
std::unique_ptr<AnyModulePlaceholder> make_any_holder(std::shared_ptr<ModuleType>&& module,
                                                      ReturnType (Class::*)(ArgumentTypes...)) {
  static_assert(
      ((!std::is_lvalue_reference_v<ArgumentTypes> || std::is_const_v<std::remove_reference_t<ArgumentTypes>>)&&...),
      "Modules stored inside AnyModule must not take non-const references. Use pointers instead.");
  static_assert(!std::is_void_v<ReturnType>,
                "AnyModule cannot store modules that return void (you can return a dummy value).");
  return std::make_unique<AnyModuleHolder<ModuleType, ArgumentTypes...>>(std::move(module));
}
template <typename ModuleType, typename Class, typename ReturnType, typename... ArgumentTypes>
std::unique_ptr<AnyModulePlaceholder> make_any_holder(std::shared_ptr<ModuleType>&& module,
                                                      ReturnType (Class::*)(ArgumentTypes...) const) {
  return make_any_holder(std::move(module), static_cast<ReturnType (Class::*)(ArgumentTypes...)>(nullptr));
}

}  // namespace detail

// The trailing default arguments a module's forward fills in when called through AnyModule or
// Sequential with fewer arguments (LibTorch's FORWARD_HAS_DEFAULT_ARGS): pairs of the argument's
// index and its default value, in order.
//   struct ScaleImpl : Module {
//     Tensor forward(const Tensor& x, double factor = 2.0) { return x * factor; }
//    protected:
//     EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(2.0)})
//   };
#define EMBER_FORWARD_HAS_DEFAULT_ARGS(...)                                                                         \
  bool _forward_has_default_args() override { return true; }                                                        \
  unsigned int _forward_num_required_args() override {                                                              \
    const std::vector<std::pair<unsigned int, ::ember::nn::AnyValue>> args_info = {__VA_ARGS__};                    \
    return args_info[0].first;                                                                                      \
  }                                                                                                                 \
  std::vector<::ember::nn::AnyValue> _forward_populate_default_args(std::vector<::ember::nn::AnyValue>&& arguments) \
      override {                                                                                                    \
    return ::ember::nn::detail::populate_default_args(std::move(arguments), {__VA_ARGS__});                         \
  }

namespace detail {
// `arguments` followed by the defaults of the positions it does not reach.
inline std::vector<AnyValue> populate_default_args(std::vector<AnyValue>&& arguments,
                                                   std::vector<std::pair<unsigned int, AnyValue>> defaults) {
  for (auto& d : defaults)
    if (d.first >= arguments.size()) arguments.push_back(std::move(d.second));
  return std::move(arguments);
}
}  // namespace detail

class AnyModule {
 public:
  AnyModule() = default;
  template <typename ModuleType>
  explicit AnyModule(std::shared_ptr<ModuleType> module)
      : content_(detail::make_any_holder(std::move(module), &ModuleType::forward)) {
    EMBER_CHECK(ptr() != nullptr, "[AnyModule] expected a module, got a null pointer");
  }
  template <typename ModuleType, typename = detail::enable_if_module_t<ModuleType>>
  explicit AnyModule(ModuleType&& module)
      : AnyModule(std::make_shared<std::decay_t<ModuleType>>(std::forward<ModuleType>(module))) {}
  template <typename ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType>& module_holder) : AnyModule(module_holder.ptr()) {}

  AnyModule(AnyModule&&) = default;
  AnyModule& operator=(AnyModule&&) = default;
  AnyModule(const AnyModule& other) : content_(other.content_ ? other.content_->copy() : nullptr) {}
  AnyModule& operator=(const AnyModule& other) {
    if (this != &other) content_ = other.content_ ? other.content_->copy() : nullptr;
    return *this;
  }
  template <typename ModuleType>
  AnyModule& operator=(std::shared_ptr<ModuleType> module) {
    return *this = AnyModule(std::move(module));
  }

  // A deep copy of the module (Module::clone).
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const {
    AnyModule copy;
    if (content_) copy.content_ = content_->clone_module(device);
    return copy;
  }

  template <typename... ArgumentTypes>
  AnyValue any_forward(ArgumentTypes&&... arguments) {
    EMBER_CHECK(!is_empty(), "[AnyModule] Cannot call forward() on an empty AnyModule");
    std::vector<AnyValue> values;
    values.reserve(sizeof...(ArgumentTypes));
    (values.emplace_back(std::forward<ArgumentTypes>(arguments)), ...);
    return content_->forward(std::move(values));
  }
  template <typename ReturnType = Tensor, typename... ArgumentTypes>
  ReturnType forward(ArgumentTypes&&... arguments) {
    return any_forward(std::forward<ArgumentTypes>(arguments)...).template get<ReturnType>();
  }

  template <typename T, typename = detail::enable_if_module_t<T>>
  T& get() {
    return *checked_ptr<T>();
  }
  template <typename T, typename = detail::enable_if_module_t<T>>
  const T& get() const {
    return *checked_ptr<T>();
  }
  // The module as its holder type (get<Linear>()).
  template <typename T, typename ContainedType = typename T::ContainedType>
  T get() const {
    return T(checked_ptr<ContainedType>());
  }
  std::shared_ptr<Module> ptr() const {
    EMBER_CHECK(!is_empty(), "[AnyModule] Cannot call ptr() on an empty AnyModule");
    return content_->ptr();
  }
  template <typename T, typename = detail::enable_if_module_t<T>>
  std::shared_ptr<T> ptr() const {
    return checked_ptr<T>();
  }
  const std::type_info& type_info() const {
    EMBER_CHECK(!is_empty(), "[AnyModule] Cannot call type_info() on an empty AnyModule");
    return content_->type_info;
  }
  bool is_empty() const noexcept { return content_ == nullptr; }

 private:
  template <typename T>
  std::shared_ptr<T> checked_ptr() const {
    EMBER_CHECK(!is_empty(), "[AnyModule] Cannot call get() on an empty AnyModule");
    EMBER_CHECK_TYPE(typeid(T) == type_info(), "[AnyModule] Attempted to cast module of type {} to type {}",
                     detail::demangle(type_info().name()), detail::demangle(typeid(T).name()));
    return std::dynamic_pointer_cast<T>(content_->ptr());  // Module is a virtual base
  }

  std::unique_ptr<detail::AnyModulePlaceholder> content_;
};

// A name and an AnyModule: an entry of Sequential({{"conv", Conv2d(...)}, {"relu", ReLU()}}).
class NamedAnyModule {
 public:
  template <typename ModuleType>
  NamedAnyModule(std::string name, std::shared_ptr<ModuleType> module_ptr)
      : NamedAnyModule(std::move(name), AnyModule(std::move(module_ptr))) {}
  template <typename M, typename = detail::enable_if_module_t<M>>
  NamedAnyModule(std::string name, M&& module)
      : NamedAnyModule(std::move(name), std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}
  template <typename M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& module_holder)
      : NamedAnyModule(std::move(name), module_holder.ptr()) {}
  NamedAnyModule(std::string name, AnyModule any_module) : name_(std::move(name)), module_(std::move(any_module)) {}

  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace ember::nn
