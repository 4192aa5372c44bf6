// Unary elementwise kernels: every ember::native::UnaryKind, with the CPU kernels' semantics
// (plugins/cpu/unary.cpp) and the loops of Note [GPU elementwise loops].
#include <cmath>

#include "Loops.cuh"
#include "ember/native/SpecialMath.h"
#include "ember/native/UnaryKind.h"

namespace ember::gpu {
namespace {

using U = native::UnaryKind;

// Whether kind K has a kernel for compute type C (the dtype rule rejects the rest on the host).
template <U K, class C>
constexpr bool runs_on() {
  if constexpr (native::to_bool(K))
    return true;
  else if constexpr (std::is_same_v<C, bool>)
    return K == U::Sign || K == U::BitwiseNot;
  else if constexpr (K == U::BitwiseNot)
    return std::is_integral_v<C>;
  else
    return native::keeps_dtype(K) || std::is_floating_point_v<C>;
}

template <class T>
__device__ __forceinline__ T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<W>(W(0) - static_cast<W>(a)));
  } else {
    return -a;
  }
}

template <U K, class C>
struct UnaryOp {
  using R = std::conditional_t<native::to_bool(K), bool, C>;
  __device__ __forceinline__ R operator()(C a) const {
    constexpr bool fp = std::is_floating_point_v<C>;
    if constexpr (K == U::LogicalNot) {
      return !static_cast<bool>(a);
    } else if constexpr (K == U::IsNan) {
      if constexpr (fp)
        return isnan(a);
      else
        return false;
    } else if constexpr (K == U::IsInf) {
      if constexpr (fp)
        return isinf(a);
      else
        return false;
    } else if constexpr (K == U::IsFinite) {
      if constexpr (fp)
        return isfinite(a);
      else
        return true;
    } else if constexpr (K == U::Neg) {
      return wrap_neg(a);
    } else if constexpr (K == U::Abs) {
      if constexpr (std::is_unsigned_v<C>)
        return a;
      else if constexpr (fp)
        return fabs(a);
      else
        return a < 0 ? wrap_neg(a) : a;
    } else if constexpr (K == U::Sign) {
      if constexpr (std::is_same_v<C, bool>)
        return a;
      else if constexpr (std::is_unsigned_v<C>)
        return static_cast<C>(a > 0);
      else
        return static_cast<C>((C(0) < a) - (a < C(0)));
    } else if constexpr (K == U::Relu) {
      if constexpr (std::is_unsigned_v<C>)
        return a;
      else if constexpr (fp)
        return isnan(a) ? a : (a > C(0) ? a : C(0));
      else
        return a > C(0) ? a : C(0);
    } else if constexpr (K == U::BitwiseNot) {
      if constexpr (std::is_same_v<C, bool>)
        return !a;
      else
        return static_cast<C>(~a);
    } else if constexpr (native::rounding(K) && !fp) {
      return a;
    } else if constexpr (K == U::Ceil) {
      return ceil(a);
    } else if constexpr (K == U::Floor) {
      return floor(a);
    } else if constexpr (K == U::Trunc) {
      return trunc(a);
    } else if constexpr (K == U::Round) {
      return rint(a);  // half to even
    } else if constexpr (K == U::Frac) {
      return a - trunc(a);
    } else if constexpr (K == U::Exp) {
      return exp(a);
    } else if constexpr (K == U::Log) {
      return log(a);
    } else if constexpr (K == U::Log1p) {
      return log1p(a);
    } else if constexpr (K == U::Sqrt) {
      return sqrt(a);
    } else if constexpr (K == U::Rsqrt) {
      return C(1) / sqrt(a);
    } else if constexpr (K == U::Sin) {
      return sin(a);
    } else if constexpr (K == U::Cos) {
      return cos(a);
    } else if constexpr (K == U::Tanh) {
      return tanh(a);
    } else if constexpr (K == U::Sigmoid) {
      return C(1) / (C(1) + exp(-a));
    } else if constexpr (K == U::Erf) {
      return erf(a);
    } else if constexpr (K == U::Acos) {
      return acos(a);
    } else if constexpr (K == U::Acosh) {
      return acosh(a);
    } else if constexpr (K == U::Asin) {
      return asin(a);
    } else if constexpr (K == U::Asinh) {
      return asinh(a);
    } else if constexpr (K == U::Atan) {
      return atan(a);
    } else if constexpr (K == U::Atanh) {
      return atanh(a);
    } else if constexpr (K == U::Tan) {
      return tan(a);
    } else if constexpr (K == U::Sinh) {
      return sinh(a);
    } else if constexpr (K == U::Cosh) {
      return cosh(a);
    } else if constexpr (K == U::Expm1) {
      return expm1(a);
    } else if constexpr (K == U::Log2) {
      return log2(a);
    } else if constexpr (K == U::Log10) {
      return log10(a);
    } else if constexpr (K == U::Reciprocal) {
      return C(1) / a;
    } else if constexpr (K == U::Erfinv) {
      return special::erfinv(a);
    } else if constexpr (K == U::Lgamma) {
      return lgamma(a);
    } else if constexpr (K == U::Digamma) {
      return special::digamma(a);
    } else if constexpr (K == U::GeluErf) {
      return C(0.5) * a * (C(1) + erf(a * C(M_SQRT1_2)));
    } else if constexpr (K == U::GeluTanh) {
      const C k = C(M_2_SQRTPI * M_SQRT1_2);  // sqrt(2 / pi)
      return C(0.5) * a * (C(1) + tanh(k * (a + C(0.044715) * a * a * a)));
    } else {
      static_assert(K == U::Silu);
      return a / (C(1) + exp(-a));
    }
  }
};

template <U K>
bool launch_kind(Dt compute, const Iter& it, gpuStream_t stream) {
  return visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    if constexpr (runs_on<K, C>()) {
      using Op = UnaryOp<K, C>;
      return run<typename Op::R, C, 1>(it, stream, Op{});
    } else {
      return false;
    }
  });
}

}  // namespace

bool launch_unary(int kind, Dt compute, const Iter& it, gpuStream_t stream) {
  switch (static_cast<U>(kind)) {
#define EMBER_GPU_UNARY_CASE(K) \
  case U::K:                    \
    return launch_kind<U::K>(compute, it, stream);
    EMBER_FORALL_UNARY_KINDS(EMBER_GPU_UNARY_CASE)
#undef EMBER_GPU_UNARY_CASE
  }
  return false;
}

}  // namespace ember::gpu
