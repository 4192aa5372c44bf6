#pragma once
// The value of each real unary kind for one element, and which compute types a kind runs on:
// written once for the cpu loops and the GPU kernels, so both give the same results (NaN, signed
// zeros, integer wrap-around, the integer identities of the rounding kinds). Plain C++ with
// host/device annotations: device compilers include it too.
#include <cmath>
#include <type_traits>

#include "ember/native/SpecialMath.h"
#include "ember/native/UnaryKind.h"

namespace ember::native {

// Whether kind K has a kernel computing in the real type C (bool reaches sign, bitwise_not and
// the kBool kinds only; the dtype rule sends the rest elsewhere before a kernel runs).
template <UnaryKind K, class C>
constexpr bool unary_runs_on() {
  if constexpr (to_bool(K))
    return true;
  else if constexpr (std::is_same_v<C, bool>)
    return K == UnaryKind::Sign || K == UnaryKind::BitwiseNot;
  else if constexpr (K == UnaryKind::BitwiseNot)
    return std::is_integral_v<C>;
  else
    return keeps_dtype(K) || std::is_floating_point_v<C>;
}

// -a with two's-complement wrap-around for integers (no signed overflow).
template <class T>
EMBER_HOST_DEVICE_INLINE T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<W>(W(0) - static_cast<W>(a)));
  } else {
    return -a;
  }
}

// K of one element of the real type C (unary_runs_on<K, C>() holds): bool for the kBool kinds,
// else C.
template <UnaryKind K, class C>
EMBER_HOST_DEVICE_INLINE auto unary_value(C a) {
  using U = UnaryKind;
  if constexpr (K == U::LogicalNot) {
    return !(a != C(0));
  } else if constexpr (to_bool(K)) {
    if constexpr (!std::is_floating_point_v<C>)
      return K == U::IsFinite;  // integers are finite numbers
    else if constexpr (K == U::IsNan)
      return a != a;
    else if constexpr (K == U::IsInf)
      return static_cast<bool>(std::isinf(a));
    else
      return static_cast<bool>(std::isfinite(a));
  } else if constexpr (K == U::BitwiseNot) {
    if constexpr (std::is_same_v<C, bool>)
      return !a;
    else
      return static_cast<C>(~a);
  } else if constexpr (std::is_same_v<C, bool>) {
    return a;  // sign(bool) is the identity
  } else if constexpr (K == U::Neg) {
    return wrap_neg(a);
  } else if constexpr (K == U::Abs) {
    if constexpr (std::is_unsigned_v<C>)
      return a;
    else if constexpr (std::is_integral_v<C>)
      return a < 0 ? wrap_neg(a) : a;
    else
      return std::abs(a);
  } else if constexpr (K == U::Sign) {
    if constexpr (std::is_unsigned_v<C>)
      return static_cast<C>(a > 0);
    else
      return static_cast<C>((C(0) < a) - (a < C(0)));
  } else if constexpr (K == U::Relu) {
    if constexpr (std::is_unsigned_v<C>)
      return a;
    else
      return a < C(0) ? C(0) : a;  // NaN stays NaN, -0 stays -0
  } else if constexpr (rounding(K) && std::is_integral_v<C>) {
    return a;
  } else if constexpr (K == U::Ceil) {
    return std::ceil(a);
  } else if constexpr (K == U::Floor) {
    return std::floor(a);
  } else if constexpr (K == U::Trunc) {
    return std::trunc(a);
  } else if constexpr (K == U::Round) {
    return std::nearbyint(a);  // half to even
  } else if constexpr (K == U::Frac) {
    return a - std::trunc(a);
  } else if constexpr (K == U::Exp) {
    return std::exp(a);
  } else if constexpr (K == U::Log) {
    return std::log(a);
  } else if constexpr (K == U::Log1p) {
    return std::log1p(a);
  } else if constexpr (K == U::Sqrt) {
    return std::sqrt(a);
  } else if constexpr (K == U::Rsqrt) {
    return C(1) / std::sqrt(a);
  } else if constexpr (K == U::Sin) {
    return std::sin(a);
  } else if constexpr (K == U::Cos) {
    return std::cos(a);
  } else if constexpr (K == U::Tanh) {
    return std::tanh(a);
  } else if constexpr (K == U::Sigmoid) {
    return C(1) / (C(1) + std::exp(-a));
  } else if constexpr (K == U::Erf) {
    return std::erf(a);
  } else if constexpr (K == U::Acos) {
    return std::acos(a);
  } else if constexpr (K == U::Acosh) {
    return std::acosh(a);
  } else if constexpr (K == U::Asin) {
    return std::asin(a);
  } else if constexpr (K == U::Asinh) {
    return std::asinh(a);
  } else if constexpr (K == U::Atan) {
    return std::atan(a);
  } else if constexpr (K == U::Atanh) {
    return std::atanh(a);
  } else if constexpr (K == U::Tan) {
    return std::tan(a);
  } else if constexpr (K == U::Sinh) {
    return std::sinh(a);
  } else if constexpr (K == U::Cosh) {
    return std::cosh(a);
  } else if constexpr (K == U::Expm1) {
    return std::expm1(a);
  } else if constexpr (K == U::Log2) {
    return std::log2(a);
  } else if constexpr (K == U::Log10) {
    return std::log10(a);
  } else if constexpr (K == U::Reciprocal) {
    return C(1) / a;
  } else if constexpr (K == U::Erfinv) {
    return special::erfinv(a);
  } else if constexpr (K == U::Lgamma) {
    return special::lgamma(a);
  } else if constexpr (K == U::Digamma) {
    return special::digamma(a);
  } else if constexpr (K == U::GeluErf) {
    return C(0.5) * a * (C(1) + std::erf(a * C(M_SQRT1_2)));
  } else if constexpr (K == U::GeluTanh) {
    const C k = C(M_2_SQRTPI * M_SQRT1_2);  // sqrt(2 / pi)
    return C(0.5) * a * (C(1) + std::tanh(k * (a + C(0.044715) * a * a * a)));
  } else {
    static_assert(K == U::Silu);
    return a / (C(1) + std::exp(-a));
  }
}

}  // namespace ember::native
