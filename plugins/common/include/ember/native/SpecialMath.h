#pragma once
// Special functions without a libm form (erfinv, digamma) and lgamma without glibc's global
// signgam, for float and double, on the host and in GPU kernels (the cpu and GPU plugins share them). erfinv and
// digamma follow ATen's native/Math.h, which derives digamma from the Cephes Math Library (3-clause BSD; Copyright (c)
// 2018, Steven Moshier).
#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define EMBER_HOST_DEVICE __host__ __device__
#define EMBER_HOST_DEVICE_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_HOST_DEVICE
#define EMBER_HOST_DEVICE_INLINE inline __attribute__((always_inline))
#endif

namespace ember::special {

// Rational approximation refined by two Newton steps (Giles/Pavlis, as ATen's calc_erfinv).
template <class T>
EMBER_HOST_DEVICE inline T erfinv(T y) {
  static_assert(std::is_floating_point_v<T>);
  constexpr T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  constexpr T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  constexpr T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  constexpr T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = std::abs(y);
  if (y_abs > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y_abs == T(1)) return std::copysign(std::numeric_limits<T>::infinity(), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const T dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1);
    x = y * num / dem;
  } else {
    const T z = std::sqrt(-std::log((T(1) - y_abs) / T(2)));
    const T num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const T dem = (d[1] * z + d[0]) * z + T(1);
    x = std::copysign(num, y) / dem;
  }
  const T two_over_sqrt_pi = static_cast<T>(1.1283791670955126);
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

// On the host, the reentrant forms: glibc's lgamma writes the global signgam (a data race between
// threads). The device libraries' lgamma writes nothing.
template <class T>
EMBER_HOST_DEVICE inline T lgamma(T x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return std::lgamma(x);
#else
  int sign;
  if constexpr (std::is_same_v<T, float>)
    return ::lgammaf_r(x, &sign);
  else
    return ::lgamma_r(x, &sign);
#endif
}

// psi(x): +-inf at +-0 (the sign of -x), NaN at negative integers, the reflection formula below 0,
// the recurrence up to 10, then the asymptotic series (ATen's calc_digamma).
template <class T>
EMBER_HOST_DEVICE inline T digamma(T x) {
  static_assert(std::is_floating_point_v<T>);
  constexpr T kPsi10 = T(2.25175258906672110764);
  if (x == T(0)) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  if (x < T(0)) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    // tan(pi * frac(x)) is more accurate than tan(pi * x) for |x| > 1.
    double q;
    const double r = std::modf(static_cast<double>(x), &q);
    return digamma(T(1) - x) - static_cast<T>(M_PI / std::tan(M_PI * r));
  }
  T result = 0;
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + kPsi10;
  constexpr T A[] = {T(8.33333333333333333333E-2),  T(-2.10927960927960927961E-2), T(7.57575757575757575758E-3),
                     T(-4.16666666666666666667E-3), T(3.96825396825396825397E-3),  T(-8.33333333333333333333E-3),
                     T(8.33333333333333333333E-2)};
  T y = 0;
  if (x < T(1.0e17)) {
    const T z = T(1) / (x * x);
    T p = A[0];
    for (int i = 1; i < 7; ++i) p = p * z + A[i];
    y = z * p;
  }
  return result + std::log(x) - (T(0.5) / x) - y;
}

}  // namespace ember::special
