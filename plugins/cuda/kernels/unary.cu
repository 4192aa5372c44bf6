// Unary elementwise kernels: every ember::native::UnaryKind, computed by the scalar code the cpu
// kernels use (ember/native/UnaryMath.h), in the loops of Note [GPU elementwise loops].
#include "Loops.cuh"
#include "ember/native/UnaryMath.h"

namespace ember::gpu {
namespace {

using U = native::UnaryKind;

// K of one element: native::unary_value, the cpu kernels' own scalar code.
template <U K, class C>
struct UnaryOp {
  using R = std::conditional_t<native::to_bool(K), bool, C>;
  __device__ __forceinline__ R operator()(C a) const { return native::unary_value<K>(a); }
};

template <U K>
bool launch_kind(Dt compute, const Iter& it, gpuStream_t stream) {
  return visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    if constexpr (native::unary_runs_on<K, C>()) {
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
