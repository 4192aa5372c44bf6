#pragma once
// ModuleDict (LibTorch's): submodules by name, in insertion order; no forward.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/Cloneable.h"
#include "ember/nn/modules/AnyModule.h"

namespace ember::nn {

class ModuleDict;

class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, std::shared_ptr<Module>>::Iterator;
  using ConstIterator = OrderedDict<std::string, std::shared_ptr<Module>>::ConstIterator;

  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    update(modules);
  }
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) { update(modules); }

  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const { return modules_.pairs(); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }
  size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return modules_.contains(key); }

  void clear() {
    for (const auto& key : modules_.keys()) unregister_module(key);
    modules_.clear();
  }

  // Clones each entry (an entry that appears twice is cloned once).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::CloneScope scope(device);
    if (auto done = scope.find(this)) return done;
    auto clone = std::make_shared<ModuleDictImpl>();
    scope.remember(this, clone);
    for (const auto& item : modules_) clone->insert(item.key(), item.value()->clone(device));
    clone->copy_module_state_from(*this);
    return clone;
  }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override { stream << "ember::nn::ModuleDict"; }

  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  template <typename T>
  T& at(const std::string& key) {
    static_assert(detail::is_module_v<T>, "Can only call ModuleDict::at with an nn::Module type");
    return *checked_as<T>(key);
  }
  template <typename T>
  const T& at(const std::string& key) const {
    static_assert(detail::is_module_v<T>, "Can only call ModuleDict::at with an nn::Module type");
    return *checked_as<T>(key);
  }

  // Removes `key` and returns its module.
  std::shared_ptr<Module> pop(const std::string& key) {
    auto module = modules_[key];
    modules_.erase(key);
    unregister_module(key);
    return module;
  }

  // Inserts or replaces each (key, module) of `container` (pairs, OrderedDict items, a ModuleDict).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) {
      if constexpr (requires { item.key(); })
        insert(item.key(), item.value());
      else
        insert(item.first, item.second);
    }
  }
  void update(const ModuleDict& other);

  // Inserts or replaces `key`.
  template <typename M>
  void insert(const std::string& key, const ModuleHolder<M>& module_holder) {
    insert(key, module_holder.ptr());
  }
  void insert(const std::string& key, std::shared_ptr<Module> module) {
    EMBER_CHECK(module != nullptr, "[ModuleDict] insert: module '{}': expected a module, got a null pointer", key);
    if (contains(key)) {
      modules_[key] = module;
      replace_module(key, std::move(module));
    } else {
      register_module(key, module);
      modules_.insert(key, std::move(module));
    }
  }

 private:
  template <typename T>
  T* checked_as(const std::string& key) const {
    T* m = modules_[key]->template as<T>();
    EMBER_CHECK_TYPE(m != nullptr, "[ModuleDict] entry '{}' is a {}, not a {}", key, modules_[key]->name(),
                     detail::demangle(typeid(T).name()));
    return m;
  }

  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Module"};
};

EMBER_MODULE(ModuleDict);

inline void ModuleDictImpl::update(const ModuleDict& other) { update(*other); }

}  // namespace ember::nn
