#pragma once
// ParameterList and ParameterDict (LibTorch's): parameters held as a list ("0", "1", ...) or by
// name. Each keeps the requires_grad its tensor had.
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

namespace detail {
EMBER_API void print_parameter_entries(std::ostream& stream, const char* container,
                                       const OrderedDict<std::string, Tensor>& parameters);
}  // namespace detail

class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = std::vector<OrderedDict<std::string, Tensor>::Item>::iterator;
  using ConstIterator = std::vector<OrderedDict<std::string, Tensor>::Item>::const_iterator;

  ParameterListImpl() = default;
  template <typename... Tensors>
  explicit ParameterListImpl(Tensors&&... params) {
    parameters_.reserve(sizeof...(Tensors));
    (append(std::forward<Tensors>(params)), ...);
  }

  // Clones each parameter (one that appears twice is cloned once).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::CloneScope scope(device);
    if (auto done = scope.find(this)) return done;
    auto clone = std::make_shared<ParameterListImpl>();
    scope.remember(this, clone);
    for (const auto& item : parameters_) clone->append(scope.clone_tensor(item.value()));
    clone->copy_module_state_from(*this);
    return clone;
  }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    detail::print_parameter_entries(stream, "ember::nn::ParameterList", parameters_);
  }

  void append(const Tensor& param) {
    register_parameter(std::to_string(parameters_.size()), param, param.defined() && param.requires_grad());
  }
  void append(const OrderedDict<std::string, Tensor>::Item& pair) { append(pair.value()); }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& param : container) append(param);
  }
  template <typename Container>
  ParameterListImpl& operator+=(const Container& other) {
    extend(other);
    return *this;
  }

  Iterator begin() { return parameters_.begin(); }
  ConstIterator begin() const { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator end() const { return parameters_.end(); }

  Tensor& at(size_t idx) {
    check_index(idx);
    return parameters_[idx].value();
  }
  const Tensor& at(size_t idx) const {
    check_index(idx);
    return parameters_[idx].value();
  }
  Tensor& operator[](size_t idx) { return at(idx); }
  const Tensor& operator[](size_t idx) const { return at(idx); }
  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }

 private:
  void check_index(size_t idx) const {
    EMBER_CHECK_INDEX(idx < size(), "[ParameterList] Index out of range: {} for a ParameterList of {} parameters", idx,
                      size());
  }
};

EMBER_MODULE(ParameterList);

class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, Tensor>::ConstIterator;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) { update(params); }

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::CloneScope scope(device);
    if (auto done = scope.find(this)) return done;
    auto clone = std::make_shared<ParameterDictImpl>();
    scope.remember(this, clone);
    for (const auto& item : parameters_) clone->insert(item.key(), scope.clone_tensor(item.value()));
    clone->copy_module_state_from(*this);
    return clone;
  }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    detail::print_parameter_entries(stream, "ember::nn::ParameterDict", parameters_);
  }

  // Inserts or replaces `key`.
  Tensor& insert(std::string key, Tensor param) {
    const bool requires_grad = param.defined() && param.requires_grad();
    return register_parameter(std::move(key), std::move(param), requires_grad);
  }
  // Removes `key` and returns its parameter.
  Tensor pop(const std::string& key) {
    Tensor v = parameters_[key];
    parameters_.erase(key);
    return v;
  }
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  Iterator begin() { return parameters_.begin(); }
  ConstIterator begin() const { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  void clear() { parameters_.clear(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return get(key); }
  const Tensor& operator[](const std::string& key) const { return get(key); }

  // Inserts or replaces each (key, tensor) of `container` (OrderedDict items or pairs).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) {
      if constexpr (requires { item.key(); })
        insert(item.key(), item.value());
      else
        insert(item.first, item.second);
    }
  }
};

EMBER_MODULE(ParameterDict);

}  // namespace ember::nn
