#pragma once
// ExpandingArray<D>: D values given as one value (repeated) or as D values, for kernel sizes,
// strides and paddings (LibTorch's torch::ExpandingArray). Prints one value when D is 1, else
// "[a, b]"; ExpandingArrayWithOptionalElem prints a missing element as None.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/ArrayRef.h"
#include "ember/core/Exception.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(ArrayRef<T>(list)) {}  // NOLINT
  ExpandingArray(std::vector<T> vec) : ExpandingArray(ArrayRef<T>(vec)) {}              // NOLINT
  ExpandingArray(ArrayRef<T> values) {                                                  // NOLINT
    EMBER_CHECK(values.size() == D, "[ExpandingArray] expected {} values, but got {}", D, values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  ExpandingArray(T single_size) { values_.fill(single_size); }         // NOLINT
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }  // NOLINT
  size_t size() const noexcept { return D; }

 protected:
  std::array<T, D> values_;
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& a) {
  if (D == 1) return os << a->at(0);
  return os << static_cast<ArrayRef<T>>(a);
}

// An ExpandingArray whose elements may be missing (AdaptiveAvgPool2d's output_size {3, None}).
template <size_t D, typename T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
 public:
  using ExpandingArray<D, std::optional<T>>::ExpandingArray;
  ExpandingArrayWithOptionalElem(std::initializer_list<T> list)  // NOLINT
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(list)) {}
  ExpandingArrayWithOptionalElem(std::vector<T> vec) : ExpandingArrayWithOptionalElem(ArrayRef<T>(vec)) {}  // NOLINT
  ExpandingArrayWithOptionalElem(ArrayRef<T> values)                                                        // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>()) {
    EMBER_CHECK(values.size() == D, "[ExpandingArray] expected {} values, but got {}", D, values.size());
    for (size_t i = 0; i < D; ++i) this->values_[i] = values[i];
  }
  ExpandingArrayWithOptionalElem(T single_size)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>(single_size)) {}
  ExpandingArrayWithOptionalElem(const std::array<T, D>& values)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>()) {
    for (size_t i = 0; i < D; ++i) this->values_[i] = values[i];
  }
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArrayWithOptionalElem<D, T>& a) {
  auto str = [](const std::optional<T>& e) {
    if (!e) return std::string("None");
    std::ostringstream s;
    s << *e;
    return s.str();
  };
  if (D == 1) return os << str(a->at(0));
  os << '[';
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << str(a->at(i));
  return os << ']';
}

}  // namespace ember
