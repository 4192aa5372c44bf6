// Binary, ternary and nullary elementwise kernels: arithmetic, comparisons, logical and bitwise
// operations, where, fill and dtype conversion (Note [GPU elementwise loops]).
#include <cmath>

#include "Loops.cuh"

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

// Python's floor division for floating types (ATen's div_floor_floating).
template <class C>
__device__ __forceinline__ C div_floor(C a, C b) {
  if (b == C(0)) return a / b;
  C mod = fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
  if (div == C(0)) return copysign(C(0), a / b);
  C floordiv = floor(div);
  if (div - floordiv > C(0.5)) floordiv += C(1);
  return floordiv;
}

template <Binary K, class C>
constexpr bool binary_runs_on() {
  constexpr bool integral = std::is_integral_v<C>;  // bool included
  switch (K) {
    case Binary::Div:
      return std::is_floating_point_v<C>;
    case Binary::DivTrunc:
    case Binary::DivFloor:
      return !std::is_same_v<C, bool>;
    case Binary::BitwiseAnd:
    case Binary::BitwiseOr:
    case Binary::BitwiseXor:
      return integral;
    case Binary::ThresholdBackward:
      return !std::is_same_v<C, bool>;
    default:
      return true;
  }
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
    constexpr bool fp = std::is_floating_point_v<C>;
    if constexpr (K == Binary::Add) {
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
    } else if constexpr (K == Binary::DivTrunc) {
      if constexpr (fp)
        return trunc(a / b);
      else
        return b == C(0) ? C(0) : static_cast<C>(a / b);  // the host checks for zero divisors
    } else if constexpr (K == Binary::DivFloor) {
      if constexpr (fp) {
        return div_floor(a, b);
      } else {
        if (b == C(0)) return C(0);
        const C q = static_cast<C>(a / b);
        if constexpr (std::is_unsigned_v<C>)
          return q;
        else
          return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<C>(q - 1) : q;
      }
    } else if constexpr (K == Binary::Maximum || K == Binary::Minimum) {
      if constexpr (fp) {
        if (isnan(a)) return a;
        if (isnan(b)) return b;
      }
      return K == Binary::Maximum ? (a > b ? a : b) : (a < b ? a : b);
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
    } else if constexpr (K == Binary::BitwiseAnd) {
      return static_cast<C>(a & b);
    } else if constexpr (K == Binary::BitwiseOr) {
      return static_cast<C>(a | b);
    } else if constexpr (K == Binary::BitwiseXor) {
      return static_cast<C>(a ^ b);
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
#undef EMBER_GPU_BINARY_CASE
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
