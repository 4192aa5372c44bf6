// Kernels of the complex family that the unary file does not hold: angle (a real result) and
// conj_physical. See Note [Complex tensors] in ember/native/Rules.h.
#include <cmath>

#include "Pointwise.h"
#include "ember/generated/CPUFunctions.h"
#include "ember/native/ElementwiseMeta.h"
#include "ember/native/PointwiseMath.h"

namespace ember::cpu {
namespace {

template <class C>
struct AngleOp {
  EMBER_ALWAYS_INLINE auto operator()(C a) const {
    if constexpr (is_complex_v<C>) {
      return std::arg(a);
    } else {
      return native::angle_value(a);
    }
  }
};

template <class C>
struct ConjOp {
  EMBER_ALWAYS_INLINE C operator()(C a) const {
    if constexpr (is_complex_v<C>)
      return std::conj(a);
    else
      return a;
  }
};

}  // namespace

void angle_out(const Tensor& self, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("angle", kind);
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, native::unary_rules::angle, self, out, kind);
  // Integers read as the (floating) result dtype; complex inputs give their real dtype.
  const ScalarType cdt = is_complex_type(self.dtype()) ? self.dtype() : compute_dtype(result);
  visit_compute_c(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (is_complex_v<C> || std::is_floating_point_v<C>)
      run_nary<real_of_t<C>, C, 1>(it, AngleOp<C>{});
    else
      EMBER_INTERNAL_ASSERT(false, "[{}] computes in a floating or complex dtype", name);
  });
}

void conj_physical_out(const Tensor& self, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("conj_physical", kind);
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, native::unary_rules::conj_physical, self, out, kind);
  visit_compute_c(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    run_nary<C, C, 1>(it, ConjOp<C>{});
  });
}

}  // namespace ember::cpu
