#pragma once
// ModuleHolder<Impl> and EMBER_MODULE(Name): the shared handle users hold (LibTorch's
// torch::nn::ModuleHolder and TORCH_MODULE). EMBER_MODULE(Linear) defines `Linear`, holding a
// std::shared_ptr<LinearImpl>:
//   ember::nn::Linear fc{nullptr};                // empty
//   fc = ember::nn::Linear(784, 64);              // constructs a LinearImpl(784, 64)
//   fc->forward(x);  fc(x);                       // fc(x) also runs hooks (Note [Module hooks])
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "ember/nn/Module.h"

namespace ember::nn {

namespace detail {
struct ModuleHolderIndicator {};
template <typename T>
inline constexpr bool is_module_holder_v = std::is_base_of_v<ModuleHolderIndicator, std::decay_t<T>>;
template <typename T, typename C, typename = void>
struct is_module_holder_of : std::false_type {};
template <typename T, typename C>
struct is_module_holder_of<T, C, std::enable_if_t<is_module_holder_v<T>>>
    : std::is_same<typename std::decay_t<T>::ContainedType, C> {};

EMBER_API std::string demangle(const char* mangled);
[[noreturn]] EMBER_API void throw_empty_holder(const char* mangled_contained);
}  // namespace detail

template <typename Contained>
class ModuleHolder : detail::ModuleHolderIndicator {
 protected:
  std::shared_ptr<Contained> impl_;

 public:
  using ContainedType = Contained;

  // A default-constructed Contained (only for modules that have a default constructor; an
  // empty holder is `Foo foo{nullptr}`).
  ModuleHolder() : impl_(std::make_shared<Contained>()) {
    static_assert(std::is_default_constructible_v<Contained>,
                  "this module has no default constructor: give it its arguments, or make the holder empty with "
                  "nullptr (`Linear linear{nullptr};` instead of `Linear linear;`)");
  }
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}  // NOLINT
  // Constructs Contained from the arguments (not a copy of another holder).
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!(detail::is_module_holder_of<Head, Contained>::value && sizeof...(Tail) == 0)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return !is_empty(); }
  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const { return impl_; }
  Contained* get() {
    if (!impl_) detail::throw_empty_holder(typeid(Contained).name());
    return impl_.get();
  }
  const Contained* get() const {
    if (!impl_) detail::throw_empty_holder(typeid(Contained).name());
    return impl_.get();
  }
  // forward(args...) with the module's hooks.
  template <typename... Args>
  auto operator()(Args&&... args) {
    return detail::call_forward(*get(), std::forward<Args>(args)...);
  }
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }
  bool is_empty() const noexcept { return impl_ == nullptr; }
};

template <typename ModuleType>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<ModuleType>& module) {
  return stream << *module;
}

}  // namespace ember::nn

#define EMBER_MODULE_IMPL(Name, ImplType)                    \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using ::ember::nn::ModuleHolder<ImplType>::get;          \
  }

// Defines the holder `Name` of `NameImpl` (LibTorch's TORCH_MODULE).
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
