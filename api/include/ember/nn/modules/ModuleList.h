#pragma once
// ModuleList (LibTorch's): a list of submodules, registered as "0", "1", ...; no forward.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/Cloneable.h"
#include "ember/nn/modules/AnyModule.h"

namespace ember::nn {

class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <typename... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }

  // Clones each entry (an entry that appears twice is cloned once).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::CloneScope scope(device);
    if (auto done = scope.find(this)) return done;
    auto clone = std::make_shared<ModuleListImpl>();
    scope.remember(this, clone);
    for (const auto& module : modules_) clone->push_back(module->clone(device));
    clone->copy_module_state_from(*this);
    return clone;
  }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override { stream << "ember::nn::ModuleList"; }

  void push_back(std::shared_ptr<Module> module) {
    EMBER_CHECK(module != nullptr, "[ModuleList] push_back: expected a module, got a null pointer");
    register_module(std::to_string(modules_.size()), module);
    modules_.push_back(std::move(module));
  }
  template <typename M, typename = detail::enable_if_module_t<M>>
  void push_back(M&& module) {
    push_back(std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& module_holder) {
    push_back(module_holder.ptr());
  }
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
    static_assert(detail::is_module_v<T>, "Can only call ModuleList::at with an nn::Module type");
    return *checked_as<T>(index);
  }
  template <typename T>
  const T& at(size_t index) const {
    static_assert(detail::is_module_v<T>, "Can only call ModuleList::at with an nn::Module type");
    return *checked_as<T>(index);
  }
  std::shared_ptr<Module> ptr(size_t index) const {
    check_index(index);
    return modules_[index];
  }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    static_assert(detail::is_module_v<T>, "Can only call ModuleList::ptr with an nn::Module type");
    check_index(index);
    return std::dynamic_pointer_cast<T>(modules_[index]);
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }

  // Inserts before `index` (index == size() appends); later entries are renumbered.
  void insert(size_t index, std::shared_ptr<Module> module) {
    EMBER_CHECK_INDEX(index <= size(), "[ModuleList] insert: Index out of range: {} for a ModuleList of {} modules",
                      index, size());
    EMBER_CHECK(module != nullptr, "[ModuleList] insert: expected a module, got a null pointer");
    if (index == size()) return push_back(std::move(module));
    modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
    for (size_t i = index; i + 1 < size(); ++i) replace_module(std::to_string(i), modules_[i]);
    register_module(std::to_string(size() - 1), modules_.back());
  }
  template <typename M>
  void insert(size_t index, const ModuleHolder<M>& module_holder) {
    insert(index, module_holder.ptr());
  }
  template <typename M, typename = detail::enable_if_module_t<M>>
  void insert(size_t index, M&& module) {
    insert(index, std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }

 private:
  void check_index(size_t index) const {
    EMBER_CHECK_INDEX(index < size(), "[ModuleList] Index out of range: {} for a ModuleList of {} modules", index,
                      size());
  }
  template <typename T>
  T* checked_as(size_t index) const {
    check_index(index);
    T* m = modules_[index]->template as<T>();
    EMBER_CHECK_TYPE(m != nullptr, "[ModuleList] entry {} is a {}, not a {}", index, modules_[index]->name(),
                     detail::demangle(typeid(T).name()));
    return m;
  }

  std::vector<std::shared_ptr<Module>> modules_;
};

EMBER_MODULE(ModuleList);

}  // namespace ember::nn
