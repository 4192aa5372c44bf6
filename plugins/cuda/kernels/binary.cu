// Binary, ternary and nullary elementwise kernels: arithmetic, comparisons, logical and bitwise
// operations, where, fill and dtype conversion (Note [GPU elementwise loops]).
#include <cmath>

#include "Loops.cuh"
#include "ember/native/PointwiseMath.h"

namespace ember::gpu {
namespace {

template <class C>
__host__ __device__ __forceinline__ C scalar_of(Value v) {
  if constexpr (std::is_floating_point_v<C>)
    return static_cast<C>(v.f);
  else if constexpr (std::is_same_v<C, bool>)
    return v.i != 0;
  else
    return static_cast<C>(v.i);
}

// The kinds whose value is ember/native/PointwiseMath.h's binary_math_value.
template <Binary K>
constexpr int math_kind() {
  using M = native::BinaryMathKind;
  switch (K) {
    case Binary::DivTrunc:
      return static_cast<int>(M::DivTrunc);
    case Binary::DivFloor:
      return static_cast<int>(M::DivFloor);
    case Binary::Maximum:
      return static_cast<int>(M::Maximum);
    case Binary::Minimum:
      return static_cast<int>(M::Minimum);
    case Binary::BitwiseAnd:
      return static_cast<int>(M::BitAnd);
    case Binary::BitwiseOr:
      return static_cast<int>(M::BitOr);
    case Binary::BitwiseXor:
      return static_cast<int>(M::BitXor);
    case Binary::Atan2:
      return static_cast<int>(M::Atan2);
    case Binary::Fmod:
      return static_cast<int>(M::Fmod);
    case Binary::Remainder:
      return static_cast<int>(M::Remainder);
    case Binary::Pow:
      return static_cast<int>(M::Pow);
    default:
      return -1;
  }
}

template <Binary K, class C>
constexpr bool binary_runs_on() {
  if constexpr (math_kind<K>() >= 0)
    return native::binary_math_runs_on<static_cast<native::BinaryMathKind>(math_kind<K>()), C>();
  else if constexpr (K == Binary::Div || K == Binary::Lerp || K == Binary::MaskedScale)
    return std::is_floating_point_v<C>;
  else if constexpr (K == Binary::ThresholdBackward || K == Binary::ClampMin || K == Binary::ClampMax)
    return !std::is_same_v<C, bool>;
  else
    return true;
}

template <Binary K>
constexpr bool to_bool() {
  return K >= Binary::Eq && K <= Binary::LogicalXor;
}

template <Binary K, class C>
struct BinaryOp {
  using R = std::conditional_t<to_bool<K>(), bool, C>;
  C alpha;
  __device__ __forceinline__ R operator()(C a, C b) const {
    if constexpr (math_kind<K>() >= 0) {
      return native::binary_math_value<static_cast<native::BinaryMathKind>(math_kind<K>()), C>(a, b);
    } else if constexpr (K == Binary::Add) {
      if constexpr (std::is_same_v<C, bool>)
        return a || (alpha && b);
      else
        return static_cast<C>(a + alpha * b);
    } else if constexpr (K == Binary::Mul) {
      if constexpr (std::is_same_v<C, bool>)
        return a && b;
      else
        return static_cast<C>(a * b);
    } else if constexpr (K == Binary::Div) {
      return a / b;
    } else if constexpr (K == Binary::Eq) {
      return a == b;
    } else if constexpr (K == Binary::Ne) {
      return a != b;
    } else if constexpr (K == Binary::Lt) {
      return a < b;
    } else if constexpr (K == Binary::Le) {
      return a <= b;
    } else if constexpr (K == Binary::Gt) {
      return a > b;
    } else if constexpr (K == Binary::Ge) {
      return a >= b;
    } else if constexpr (K == Binary::LogicalAnd) {
      return a != C(0) && b != C(0);
    } else if constexpr (K == Binary::LogicalOr) {
      return a != C(0) || b != C(0);
    } else if constexpr (K == Binary::LogicalXor) {
      return (a != C(0)) != (b != C(0));
    } else if constexpr (K == Binary::ClampMin) {
      return native::clamp_lo(a, b);
    } else if constexpr (K == Binary::ClampMax) {
      return native::clamp_hi(a, b);
    } else if constexpr (K == Binary::Lerp) {
      return native::lerp_value(a, b, alpha);
    } else if constexpr (K == Binary::MaskedScale) {
      return b != C(0) ? a * alpha : C(0);
    } else {
      static_assert(K == Binary::ThresholdBackward);
      return b <= alpha ? C(0) : a;
    }
  }
};

template <Binary K>
bool launch_kind(Dt compute, const Iter& it, Value alpha, gpuStream_t stream) {
  return visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    if constexpr (binary_runs_on<K, C>()) {
      using Op = BinaryOp<K, C>;
      return run<typename Op::R, C, 2>(it, stream, Op{scalar_of<C>(alpha)});
    } else {
      return false;
    }
  });
}

using P = Pointwise;

constexpr int arity(P k) { return k == P::ClampBoth || k == P::Addcmul ? 3 : 1; }

template <P K, class C>
constexpr bool pointwise_runs_on() {
  switch (K) {
    case P::Clamp:
    case P::Hardtanh:
    case P::ClampBoth:
    case P::Addcmul:
      return !std::is_same_v<C, bool>;
    case P::NanToNum:
      return true;
    case P::PowScalar:
      return !std::is_same_v<C, bool>;
    default:
      return std::is_floating_point_v<C>;
  }
}

template <P K, class C>
struct PointwiseOp {
  C p0, p1, p2;
  __device__ __forceinline__ C operator()(C a) const {
    if constexpr (K == P::Clamp)
      return native::clamp_value(a, p0, p1);
    else if constexpr (K == P::Hardtanh)
      return native::clamp_hi(native::clamp_lo(a, p0), p1);
    else if constexpr (K == P::LeakyRelu)
      return native::leaky_relu_value(a, p0);
    else if constexpr (K == P::Elu)
      return native::elu_value(a, p0, p1, p2);
    else if constexpr (K == P::Softplus)
      return native::softplus_value(a, p0, p1);
    else if constexpr (K == P::Hardswish)
      return native::hardswish_value(a);
    else if constexpr (K == P::Hardsigmoid)
      return native::hardsigmoid_value(a);
    else if constexpr (K == P::Mish)
      return native::mish_value(a);
    else if constexpr (K == P::NanToNum)
      return native::nan_to_num_value(a, p0, p1, p2);
    else if constexpr (K == P::RoundDecimals)
      return native::round_decimals_value(a, p0, p1 != C(0));
    else if constexpr (K == P::Angle)
      return native::angle_value(a);
    else
      return native::pow_scalar_value(a, p0);
  }
  __device__ __forceinline__ C operator()(C a, C b, C c) const {
    if constexpr (K == P::ClampBoth)
      return native::clamp_both(a, b, c);
    else
      return native::wrap_muladd(a, p0, b, c);
  }
};

template <P K>
bool launch_pointwise_kind(Dt compute, const Iter& it, const Value* p, gpuStream_t stream) {
  return visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    if constexpr (pointwise_runs_on<K, C>()) {
      const PointwiseOp<K, C> op{scalar_of<C>(p[0]), scalar_of<C>(p[1]), scalar_of<C>(p[2])};
      return run<C, C, arity(K)>(it, stream, op);
    } else {
      return false;
    }
  });
}

template <class C>
struct WhereOp {
  __device__ __forceinline__ C operator()(C cond, C a, C b) const { return cond != C(0) ? a : b; }
};

template <class C>
struct FillOp {
  C value;
  __device__ __forceinline__ C operator()() const { return value; }
};

template <class C>
struct CopyOp {
  __device__ __forceinline__ C operator()(C a) const { return a; }
};

}  // namespace

bool launch_binary(Binary kind, Dt compute, const Iter& it, Value alpha, gpuStream_t stream) {
  switch (kind) {
#define EMBER_GPU_BINARY_CASE(K) \
  case Binary::K:                \
    return launch_kind<Binary::K>(compute, it, alpha, stream);
    EMBER_GPU_BINARY_CASE(Add)
    EMBER_GPU_BINARY_CASE(Mul)
    EMBER_GPU_BINARY_CASE(Div)
    EMBER_GPU_BINARY_CASE(DivTrunc)
    EMBER_GPU_BINARY_CASE(DivFloor)
    EMBER_GPU_BINARY_CASE(ThresholdBackward)
    EMBER_GPU_BINARY_CASE(Maximum)
    EMBER_GPU_BINARY_CASE(Minimum)
    EMBER_GPU_BINARY_CASE(Eq)
    EMBER_GPU_BINARY_CASE(Ne)
    EMBER_GPU_BINARY_CASE(Lt)
    EMBER_GPU_BINARY_CASE(Le)
    EMBER_GPU_BINARY_CASE(Gt)
    EMBER_GPU_BINARY_CASE(Ge)
    EMBER_GPU_BINARY_CASE(LogicalAnd)
    EMBER_GPU_BINARY_CASE(LogicalOr)
    EMBER_GPU_BINARY_CASE(LogicalXor)
    EMBER_GPU_BINARY_CASE(BitwiseAnd)
    EMBER_GPU_BINARY_CASE(BitwiseOr)
    EMBER_GPU_BINARY_CASE(BitwiseXor)
    EMBER_GPU_BINARY_CASE(Atan2)
    EMBER_GPU_BINARY_CASE(Fmod)
    EMBER_GPU_BINARY_CASE(Remainder)
    EMBER_GPU_BINARY_CASE(Pow)
    EMBER_GPU_BINARY_CASE(ClampMin)
    EMBER_GPU_BINARY_CASE(ClampMax)
    EMBER_GPU_BINARY_CASE(Lerp)
    EMBER_GPU_BINARY_CASE(MaskedScale)
#undef EMBER_GPU_BINARY_CASE
  }
  return false;
}

bool launch_pointwise(Pointwise kind, Dt compute, const Iter& it, const Value* p, gpuStream_t stream) {
  switch (kind) {
#define EMBER_GPU_POINTWISE_CASE(K) \
  case P::K:                        \
    return launch_pointwise_kind<P::K>(compute, it, p, stream);
    EMBER_GPU_POINTWISE_CASE(Clamp)
    EMBER_GPU_POINTWISE_CASE(Hardtanh)
    EMBER_GPU_POINTWISE_CASE(LeakyRelu)
    EMBER_GPU_POINTWISE_CASE(Elu)
    EMBER_GPU_POINTWISE_CASE(Softplus)
    EMBER_GPU_POINTWISE_CASE(Hardswish)
    EMBER_GPU_POINTWISE_CASE(Hardsigmoid)
    EMBER_GPU_POINTWISE_CASE(Mish)
    EMBER_GPU_POINTWISE_CASE(NanToNum)
    EMBER_GPU_POINTWISE_CASE(RoundDecimals)
    EMBER_GPU_POINTWISE_CASE(PowScalar)
    EMBER_GPU_POINTWISE_CASE(Angle)
    EMBER_GPU_POINTWISE_CASE(ClampBoth)
    EMBER_GPU_POINTWISE_CASE(Addcmul)
#undef EMBER_GPU_POINTWISE_CASE
  }
  return false;
}

bool launch_where(Dt compute, const Iter& it, gpuStream_t stream) {
  return visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    return run<C, C, 3>(it, stream, WhereOp<C>{});
  });
}

bool launch_fill(Dt compute, const Iter& it, Value value, gpuStream_t stream) {
  return visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    return run<C, C, 0>(it, stream, FillOp<C>{scalar_of<C>(value)});
  });
}

bool launch_copy(const Iter& it, gpuStream_t stream) {
  const Dt out = static_cast<Dt>(it.dtype[0]);
  return visit_compute(out, [&](auto tag) {
    using C = decltype(tag);
    return run<C, C, 1>(it, stream, CopyOp<C>{});
  });
}

}  // namespace ember::gpu
