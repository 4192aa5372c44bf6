#pragma once
// ember::OrderedDict<Key, Value>: LibTorch's torch::OrderedDict. A dictionary that iterates in
// insertion order, with lookup by key. state_dict(), named_parameters(), ember::load() and the
// optimizers' and schedulers' state_dict() return OrderedDict<std::string, Tensor>.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/Exception.h"

namespace ember {

template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    Value& operator*() noexcept { return value(); }
    const Value& operator*() const noexcept { return value(); }
    Value* operator->() noexcept { return &value(); }
    const Value* operator->() const noexcept { return &value(); }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  // What errors call a key ("Key", "Parameter", "Module", ...), as LibTorch's key_description.
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict("Key") {
    for (const auto& i : items) insert(i.key(), i.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }

  Item& front() { return at_index(0); }
  const Item& front() const { return at_index(0); }
  Item& back() { return at_index(items_.empty() ? 0 : items_.size() - 1); }
  const Item& back() const { return at_index(items_.empty() ? 0 : items_.size() - 1); }
  Item& operator[](size_t index) { return at_index(index); }
  const Item& operator[](size_t index) const { return at_index(index); }

  Value& operator[](const Key& key) {
    if (auto* v = find(key)) return *v;
    EMBER_CHECK_T(IndexError, false, "{} '{}' is not defined", key_description_, key);
    __builtin_unreachable();
  }
  const Value& operator[](const Key& key) const { return const_cast<OrderedDict&>(*this)[key]; }

  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept { return const_cast<OrderedDict&>(*this).find(key); }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  // Adds a new key; an existing key is an error (use insert_or_assign to replace).
  template <typename V>
  Value& insert(Key key, V&& value) {
    EMBER_CHECK(!contains(key), "{} '{}' already defined", key_description_, key);
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  template <typename V>
  Value& insert_or_assign(Key key, V&& value) {
    if (auto* v = find(key)) return *v = Value(std::forward<V>(value));
    return insert(std::move(key), std::forward<V>(value));
  }
  // Inserts every item of `other` (an existing key is an error, and nothing is inserted then).
  void update(const OrderedDict& other) {
    for (const auto& i : other) EMBER_CHECK(!contains(i.key()), "{} '{}' already defined", key_description_, i.key());
    for (const auto& i : other) insert(i.key(), i.value());
  }
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK_T(IndexError, it != index_.end(), "{} '{}' is not defined", key_description_, key);
    const size_t at = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(at));
    for (auto& [k, i] : index_)
      if (i > at) --i;
  }

  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const auto& i : items_) out.push_back(i.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const auto& i : items_) out.push_back(i.value());
    return out;
  }
  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const auto& i : items_) out.push_back(i.pair());
    return out;
  }

  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }
  void reserve(size_t n) {
    items_.reserve(n);
    index_.reserve(n);
  }

 private:
  Item& at_index(size_t index) {
    EMBER_CHECK_T(IndexError, index < items_.size(), "OrderedDict: index {} is out of range for size {}", index,
                  items_.size());
    return items_[index];
  }
  const Item& at_index(size_t index) const { return const_cast<OrderedDict&>(*this).at_index(index); }

  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
