#pragma once
// The value of one element for the binary math kinds (atan2, maximum/minimum, fmod/remainder,
// div's rounding modes, the bitwise ops, pow), clamp, the activations with Scalar parameters,
// lerp, addcmul, nan_to_num and round(decimals): written once for the cpu loops and the GPU
// kernels, as UnaryMath.h, so both give the same NaN, signed-zero, wrap-around and rounding
// results. Plain C++ with host/device annotations.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/native/SpecialMath.h"  // EMBER_HOST_DEVICE_INLINE

namespace ember::native {

enum class BinaryMathKind : uint8_t {
  Atan2,
  Maximum,
  Minimum,
  Fmod,
  Remainder,
  DivTrunc,
  DivFloor,
  BitAnd,
  BitOr,
  BitXor,
  Pow
};

// The kinds that divide: an integer divisor of zero raises (LibTorch's ZeroDivisionError), checked
// before a kernel runs, so the integer paths below never see one.
constexpr bool divides(BinaryMathKind k) {
  using B = BinaryMathKind;
  return k == B::Fmod || k == B::Remainder || k == B::DivTrunc || k == B::DivFloor;
}

// Whether kind K runs on the real compute type C (the dtype rules reject the rest first).
template <BinaryMathKind K, class C>
constexpr bool binary_math_runs_on() {
  using B = BinaryMathKind;
  if constexpr (K == B::Atan2)
    return std::is_floating_point_v<C>;
  else if constexpr (K == B::BitAnd || K == B::BitOr || K == B::BitXor)
    return !std::is_floating_point_v<C>;
  else if constexpr (divides(K) || K == B::Pow)
    return !std::is_same_v<C, bool>;
  else
    return true;
}

template <class T>
EMBER_HOST_DEVICE_INLINE bool is_neg(T v) {
  if constexpr (std::is_unsigned_v<T>)
    return false;
  else
    return v < T(0);
}

// Python's floor division of floats (LibTorch's div_floor_floating): exact for the quotients of
// integers, the sign of zero from a / b.
template <class C>
EMBER_HOST_DEVICE_INLINE C div_floor_floating(C a, C b) {
  if (b == C(0)) return a / b;
  const C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
  if (div == C(0)) return std::copysign(C(0), a / b);
  C floordiv = std::floor(div);
  if (div - floordiv > C(0.5)) floordiv += C(1);
  return floordiv;
}

// pow(a, b) of a real type: libm for floating types, PyTorch's powi for integers (negative
// exponents give 0 except for the bases 1 and -1; wraps around).
template <class C>
EMBER_HOST_DEVICE_INLINE C pow_value(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::pow(a, b);
  } else {
    if constexpr (std::is_signed_v<C>) {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b & 1) ? C(-1) : C(1);
        return 0;
      }
    }
    using W = std::make_unsigned_t<C>;
    W base = static_cast<W>(a), r = 1;
    for (C e = b; e != 0; e = static_cast<C>(e >> 1)) {
      if (e & 1) r = static_cast<W>(r * base);
      base = static_cast<W>(base * base);
    }
    return static_cast<C>(r);
  }
}

// pow(a, e) for a Scalar exponent e: the exponents 2, 3, 0.5, -0.5, -1 and -2 of a floating type
// by multiplication, sqrt and division, as LibTorch's pow_tensor_scalar_optimized_kernel (exact
// where libm's pow rounds, and sqrt's -0 and NaN for -inf); any other by pow_value.
template <class C>
EMBER_HOST_DEVICE_INLINE C pow_scalar_value(C a, C e) {
  if constexpr (std::is_floating_point_v<C>) {
    if (e == C(2)) return a * a;
    if (e == C(3)) return a * a * a;
    if (e == C(0.5)) return std::sqrt(a);
    if (e == C(-0.5)) return C(1) / std::sqrt(a);
    if (e == C(-1)) return C(1) / a;
    if (e == C(-2)) return C(1) / (a * a);
  }
  return pow_value(a, e);
}

// K(a, b) of the real type C, binary_math_runs_on<K, C>() holding.
template <BinaryMathKind K, class C>
EMBER_HOST_DEVICE_INLINE C binary_math_value(C a, C b) {
  using B = BinaryMathKind;
  static_assert(binary_math_runs_on<K, C>());
  if constexpr (K == B::Maximum) {
    if constexpr (std::is_floating_point_v<C>)
      return (a != a || a > b) ? a : b;  // NaN in either propagates
    else
      return a > b ? a : b;
  } else if constexpr (K == B::Minimum) {
    if constexpr (std::is_floating_point_v<C>)
      return (a != a || a < b) ? a : b;
    else
      return a < b ? a : b;
  } else if constexpr (K == B::BitAnd) {
    return static_cast<C>(a & b);
  } else if constexpr (K == B::BitOr) {
    return static_cast<C>(a | b);
  } else if constexpr (K == B::BitXor) {
    return static_cast<C>(a ^ b);
  } else if constexpr (K == B::Pow) {
    return pow_value(a, b);
  } else if constexpr (std::is_floating_point_v<C>) {
    if constexpr (K == B::Atan2) {
      return std::atan2(a, b);
    } else if constexpr (K == B::Fmod) {
      return std::fmod(a, b);
    } else if constexpr (K == B::Remainder) {
      C mod = std::fmod(a, b);
      if (mod != C(0) && (b < C(0)) != (mod < C(0))) mod += b;
      return mod;
    } else if constexpr (K == B::DivTrunc) {
      return std::trunc(a / b);
    } else {
      static_assert(K == B::DivFloor);
      return div_floor_floating(a, b);
    }
  } else {
    // Integers (the divisor was checked for zero; INT_MIN / -1 wraps as in LibTorch's kernels).
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) {
        using W = std::make_unsigned_t<C>;
        return K == B::Fmod || K == B::Remainder ? C(0) : static_cast<C>(W(0) - static_cast<W>(a));
      }
    }
    if constexpr (K == B::Fmod) {
      return static_cast<C>(a % b);
    } else if constexpr (K == B::Remainder) {
      C r = static_cast<C>(a % b);
      if (r != 0 && is_neg(r) != is_neg(b)) r = static_cast<C>(r + b);
      return r;
    } else if constexpr (K == B::DivTrunc) {
      return static_cast<C>(a / b);
    } else {
      static_assert(K == B::DivFloor);
      const C q = static_cast<C>(a / b);
      if (is_neg(a) != is_neg(b) && static_cast<C>(a % b) != 0) return static_cast<C>(q - 1);
      return q;
    }
  }
}

// ---- clamp ----------------------------------------------------------------------------------

// clamp with Scalar bounds (absent ones at the type's limits): a NaN self stays NaN.
template <class C>
EMBER_HOST_DEVICE_INLINE C clamp_value(C a, C lo, C hi) {
  const C m = a < lo ? lo : a;  // std::max(a, lo)
  return hi < m ? hi : m;       // std::min(m, hi)
}

// One tensor (or hardtanh) bound: NaN in the bound gives NaN (LibTorch 1.13); a NaN self stays NaN.
template <class C>
EMBER_HOST_DEVICE_INLINE C clamp_lo(C a, C lo) {
  if constexpr (std::is_floating_point_v<C>) {
    if (lo != lo) return lo;
    return (a != a || a > lo) ? a : lo;
  } else {
    return a < lo ? lo : a;
  }
}
template <class C>
EMBER_HOST_DEVICE_INLINE C clamp_hi(C a, C hi) {
  if constexpr (std::is_floating_point_v<C>) {
    if (hi != hi) return hi;
    return (a != a || a < hi) ? a : hi;
  } else {
    return a > hi ? hi : a;
  }
}
template <class C>
EMBER_HOST_DEVICE_INLINE C clamp_both(C a, C lo, C hi) {
  if constexpr (std::is_floating_point_v<C>)
    if (lo != lo || hi != hi) return std::numeric_limits<C>::quiet_NaN();
  return clamp_hi(clamp_lo(a, lo), hi);
}

// ---- activations with Scalar parameters (floating C) ------------------------------------------

template <class C>
EMBER_HOST_DEVICE_INLINE C leaky_relu_value(C a, C slope) {
  // The product is formed unconditionally: a select of two computed values vectorises, where a
  // multiply under the condition stays a (mispredicted) branch.
  const C scaled = a * slope;
  return a > C(0) ? a : scaled;
}
template <class C>
EMBER_HOST_DEVICE_INLINE C elu_value(C a, C alpha, C scale, C input_scale) {
  return a > C(0) ? a * scale : std::expm1(a * input_scale) * alpha * scale;
}
template <class C>
EMBER_HOST_DEVICE_INLINE C softplus_value(C a, C beta, C threshold) {
  return a * beta > threshold ? a : std::log1p(std::exp(a * beta)) / beta;
}
template <class C>
EMBER_HOST_DEVICE_INLINE C hardsigmoid_value(C a) {
  const C s = a + C(3);
  return (s < C(0) ? C(0) : s > C(6) ? C(6) : s) / C(6);
}
template <class C>
EMBER_HOST_DEVICE_INLINE C hardswish_value(C a) {
  const C s = a + C(3);
  return a * (s < C(0) ? C(0) : s > C(6) ? C(6) : s) / C(6);
}
template <class C>
EMBER_HOST_DEVICE_INLINE C mish_value(C a) {
  return a * std::tanh(std::log1p(std::exp(a)));
}

// The argument of a real number (LibTorch's angle): pi for negatives, 0 otherwise, NaN kept.
template <class C>
EMBER_HOST_DEVICE_INLINE C angle_value(C a) {
  if (a != a) return a;
  return a < C(0) ? static_cast<C>(3.14159265358979323846) : C(0);
}

// ---- lerp, addcmul, nan_to_num, round(decimals) ------------------------------------------------

// PyTorch's form: exact at weight 0 and 1.
template <class C>
EMBER_HOST_DEVICE_INLINE C lerp_value(C a, C b, C w) {
  return std::abs(w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);
}

// a + v * b * c, wrapping around for integers.
template <class T>
EMBER_HOST_DEVICE_INLINE T wrap_muladd(T a, T v, T b, T c) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || (v && b && c);
  } else if constexpr (std::is_integral_v<T>) {
    using W = std::make_unsigned_t<T>;
    return static_cast<T>(
        static_cast<W>(static_cast<W>(a) + static_cast<W>(static_cast<W>(v) * static_cast<W>(b) * static_cast<W>(c))));
  } else {
    return a + v * b * c;
  }
}

// The replacements are values of the result dtype (float16's max is 65504); integers and bool have
// no NaN or infinity.
template <class C>
EMBER_HOST_DEVICE_INLINE C nan_to_num_value(C a, C nan, C posinf, C neginf) {
  if constexpr (std::is_floating_point_v<C>) {
    return a != a                                     ? nan
           : a == std::numeric_limits<C>::infinity()  ? posinf
           : a == -std::numeric_limits<C>::infinity() ? neginf
                                                      : a;
  } else {
    return a;
  }
}

// round(a, decimals): ten_pow = 10^|decimals|, neg when decimals < 0; half to even.
template <class C>
EMBER_HOST_DEVICE_INLINE C round_decimals_value(C a, C ten_pow, bool neg) {
  return neg ? std::nearbyint(a / ten_pow) * ten_pow : std::nearbyint(a * ten_pow) / ten_pow;
}

}  // namespace ember::native
