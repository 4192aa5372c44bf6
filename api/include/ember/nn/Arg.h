#pragma once
// EMBER_ARG(T, name): an options field with a chaining setter and a getter (LibTorch's TORCH_ARG):
//   struct LinearOptions { EMBER_ARG(bool, bias) = true; };
//   LinearOptions(3, 4).bias(false).bias();  // false
#include <utility>

#define EMBER_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_
