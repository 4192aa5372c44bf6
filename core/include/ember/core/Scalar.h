#pragma once
// A number of any dtype class: bool, integer, floating or complex, held in the widest type.
#include <complex>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

#include "ember/core/ScalarType.h"

namespace ember {

class EMBER_API Scalar {
 public:
  enum class Tag : uint8_t { Double, Int, Bool, Complex };

  Scalar() : Scalar(int64_t{0}) {}
  template <class T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Bool) {  // NOLINT
    v_.i = v;
  }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Int) {  // NOLINT
    v_.i = static_cast<int64_t>(v);
  }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : tag_(Tag::Double) {  // NOLINT
    v_.d = static_cast<double>(v);
  }
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}      // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}  // NOLINT
  template <class T>
  Scalar(std::complex<T> v) : tag_(Tag::Complex) {  // NOLINT
    v_.d = v.real();
    imag_ = v.imag();
  }

  Tag tag() const { return tag_; }
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isIntegral(bool include_bool) const {
    return tag_ == Tag::Int || (include_bool && tag_ == Tag::Bool);
  }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isComplex() const { return tag_ == Tag::Complex; }
  // The dtype a 0-dim tensor of this value would have: Float64, Int64, Bool or Complex128.
  ScalarType type() const {
    switch (tag_) {
      case Tag::Double: return kFloat64;
      case Tag::Int: return kInt64;
      case Tag::Bool: return kBool;
      default: return kComplex128;
    }
  }

  double toDouble() const { return tag_ == Tag::Double || tag_ == Tag::Complex ? v_.d : static_cast<double>(v_.i); }
  int64_t toLong() const { return tag_ == Tag::Double || tag_ == Tag::Complex ? static_cast<int64_t>(v_.d) : v_.i; }
  bool toBool() const { return tag_ == Tag::Double || tag_ == Tag::Complex ? (v_.d != 0 || imag_ != 0) : v_.i != 0; }
  std::complex<double> toComplexDouble() const {
    return tag_ == Tag::Complex ? std::complex<double>(v_.d, imag_) : std::complex<double>(toDouble(), 0);
  }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return toBool();
    else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      return T(toComplexDouble());
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(toLong());
    else return static_cast<T>(toDouble());
  }
  Scalar operator-() const;
  bool equal(const Scalar& o) const;
  std::string str() const;

 private:
  Tag tag_;
  union {
    double d;
    int64_t i;
  } v_;
  double imag_ = 0;
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
