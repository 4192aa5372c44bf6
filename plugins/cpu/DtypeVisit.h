#pragma once
// Dtype dispatch of the CPU kernels: a switch from ScalarType to its C++ type. Header-only, so
// the plugins whose loops run on the CPU with their own layouts (sparse) share it by relative
// include without linking the CPU plugin.
#include <complex>
#include <cstdint>
#include <utility>

#include "ember/core/Exception.h"
#include "ember/core/Half.h"
#include "ember/core/Macros.h"
#include "ember/core/ScalarType.h"

namespace ember::cpu {

// ---- dtype dispatch ------------------------------------------------------------------------

template <class T>
struct Tag {
  using type = T;
};

[[noreturn]] inline void throw_unsupported_dtype(const char* op, ScalarType t) {
  EMBER_THROW(NotImplementedError, "[{}] not implemented for dtype {} on the CPU", op, t);
}

namespace detail {
// The one dtype switch: the ten real dtypes, or without float16/bfloat16 (kReduced false).
template <bool kReduced, class F>
EMBER_ALWAYS_INLINE decltype(auto) visit_real(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::Bool:
      return f(Tag<bool>{});
    case ScalarType::UInt8:
      return f(Tag<uint8_t>{});
    case ScalarType::Int8:
      return f(Tag<int8_t>{});
    case ScalarType::Int16:
      return f(Tag<int16_t>{});
    case ScalarType::Int32:
      return f(Tag<int32_t>{});
    case ScalarType::Int64:
      return f(Tag<int64_t>{});
    case ScalarType::Float16:
      if constexpr (kReduced) return f(Tag<Half>{});
      break;
    case ScalarType::BFloat16:
      if constexpr (kReduced) return f(Tag<BFloat16>{});
      break;
    case ScalarType::Float32:
      return f(Tag<float>{});
    case ScalarType::Float64:
      return f(Tag<double>{});
    default:
      break;
  }
  throw_unsupported_dtype(op, t);
}
}  // namespace detail

// Calls f(Tag<T>{}) with T the C++ type of t, for the ten real dtypes.
template <class F>
EMBER_ALWAYS_INLINE decltype(auto) visit_dtype(ScalarType t, const char* op, F&& f) {
  return detail::visit_real<true>(t, op, std::forward<F>(f));
}

// Like visit_dtype over the compute types only (bool, integers, float, double).
template <class F>
EMBER_ALWAYS_INLINE decltype(auto) visit_compute(ScalarType t, const char* op, F&& f) {
  return detail::visit_real<false>(t, op, std::forward<F>(f));
}

// visit_dtype and visit_compute that also take complex64 and complex128 (std::complex<float>,
// std::complex<double>): for the kernels that support complex (Note [Complex tensors] in
// ember/native/Rules.h); the others keep rejecting them through the two above.
template <class F>
EMBER_ALWAYS_INLINE decltype(auto) visit_dtype_c(ScalarType t, const char* op, F&& f) {
  if (t == ScalarType::Complex64) return f(Tag<std::complex<float>>{});
  if (t == ScalarType::Complex128) return f(Tag<std::complex<double>>{});
  return detail::visit_real<true>(t, op, std::forward<F>(f));
}
template <class F>
EMBER_ALWAYS_INLINE decltype(auto) visit_compute_c(ScalarType t, const char* op, F&& f) {
  if (t == ScalarType::Complex64) return f(Tag<std::complex<float>>{});
  if (t == ScalarType::Complex128) return f(Tag<std::complex<double>>{});
  return detail::visit_real<false>(t, op, std::forward<F>(f));
}

template <class T>
struct is_complex_t : std::false_type {};
template <class T>
struct is_complex_t<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool is_complex_v = is_complex_t<T>::value;

// The real type of T: float for std::complex<float>, T itself otherwise.
template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
using real_of_t = typename real_of<T>::type;

}  // namespace ember::cpu
