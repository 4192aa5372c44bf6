#pragma once
// Sequential (LibTorch's): modules called in order, each one's output the next one's input.
//   ember::nn::Sequential seq(ember::nn::Linear(4, 5), ember::nn::ReLU(), ember::nn::Linear(5, 2));
//   ember::nn::Sequential named({{"fc", ember::nn::Linear(4, 5)}, {"act", ember::nn::ReLU()}});
//   Tensor y = seq->forward(x);  seq->forward<std::tuple<Tensor, Tensor>>(x);  seq[0]
// Entries are named "0", "1", ... unless named; each entry's hooks run (Note [Module hooks]).
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/Cloneable.h"
#include "ember/nn/modules/AnyModule.h"

namespace ember::nn {

class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    push_back(std::forward<Modules>(modules)...);
  }
  explicit SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict) {
    modules_.reserve(ordered_dict.size());
    for (auto& item : ordered_dict) push_back(item.key(), std::move(item.value()));
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    modules_.reserve(named_modules.size());
    for (const auto& named_module : named_modules) push_back(named_module.name(), named_module.module());
  }

  // Clones each entry (keeping the names; an entry that appears twice is cloned once).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::CloneScope scope(device);
    if (auto done = scope.find(this)) return done;
    auto clone = std::make_shared<SequentialImpl>();
    scope.remember(this, clone);
    for (size_t i = 0; i < modules_.size(); ++i) clone->push_back(names_[i], modules_[i].clone(device));
    clone->copy_module_state_from(*this);
    return clone;
  }

  void reset() override {}

  void pretty_print(std::ostream& stream) const override { stream << "ember::nn::Sequential"; }

  // Calls the entries in order; the last one's result must be a ReturnType.
  template <typename ReturnType = Tensor, typename... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    EMBER_CHECK(!is_empty(), "[Sequential] Cannot call forward() on an empty Sequential");
    auto iterator = modules_.begin();
    AnyValue value = iterator->any_forward(std::forward<InputTypes>(inputs)...);
    for (++iterator; iterator != modules_.end(); ++iterator) value = iterator->any_forward(std::move(value));
    if (auto* result = value.template try_get<ReturnType>()) return std::move(*result);
    EMBER_THROW(TypeError, "[Sequential] The type of the return value is {}, but you asked for type {}",
                detail::demangle(value.type_info().name()), detail::demangle(typeid(ReturnType).name()));
  }

  template <typename ModuleType>
  void push_back(std::shared_ptr<ModuleType> module_ptr) {
    push_back(std::to_string(modules_.size()), std::move(module_ptr));
  }
  template <typename ModuleType>
  void push_back(std::string name, std::shared_ptr<ModuleType> module_ptr) {
    push_back(std::move(name), AnyModule(std::move(module_ptr)));
  }
  template <typename M, typename = detail::enable_if_module_t<M>>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <typename M, typename = detail::enable_if_module_t<M>>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& module_holder) {
    push_back(std::to_string(modules_.size()), module_holder);
  }
  template <typename M>
  void push_back(std::string name, const ModuleHolder<M>& module_holder) {
    push_back(std::move(name), module_holder.ptr());
  }
  void push_back(AnyModule any_module) { push_back(std::to_string(modules_.size()), std::move(any_module)); }
  void push_back(std::string name, AnyModule any_module) {
    EMBER_CHECK(!any_module.is_empty(), "[Sequential] push_back: entry '{}' is an empty AnyModule", name);
    register_module(name, any_module.ptr());
    names_.push_back(std::move(name));
    modules_.push_back(std::move(any_module));
  }
  // push_back of each module of a container (a Sequential or a std::vector of modules).
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

  template <typename T>
  T& at(size_t index) {
    static_assert(detail::is_module_v<T>, "Can only call Sequential::at with an nn::Module type");
    check_index(index);
    return modules_[index].template get<T>();
  }
  template <typename T>
  const T& at(size_t index) const {
    static_assert(detail::is_module_v<T>, "Can only call Sequential::at with an nn::Module type");
    check_index(index);
    return modules_[index].template get<T>();
  }
  std::shared_ptr<Module> ptr(size_t index) const {
    check_index(index);
    return modules_[index].ptr();
  }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    static_assert(detail::is_module_v<T>, "Can only call Sequential::ptr with an nn::Module type");
    check_index(index);
    return modules_[index].template ptr<T>();
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }

 private:
  template <typename First, typename Second, typename... Rest,
            typename = std::enable_if_t<!std::is_convertible_v<First, std::string>>>
  void push_back(First&& first, Second&& second, Rest&&... rest) {
    push_back(std::forward<First>(first));
    push_back(std::forward<Second>(second), std::forward<Rest>(rest)...);
  }
  void push_back() {}

  void check_index(size_t index) const {
    EMBER_CHECK_INDEX(index < size(), "[Sequential] Index out of range: {} for a Sequential of {} modules", index,
                      size());
  }
  std::vector<AnyModule> modules_;
  std::vector<std::string> names_;
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)  // NOLINT
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace ember::nn
