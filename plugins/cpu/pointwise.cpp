// Pointwise kernels with more than one operand or a Scalar parameter: pow, clamp, where,
// masked_fill, lerp, addcmul and the logical ops. See Note [CPU elementwise loops] in Loops.h.
#include <cmath>

#include "Pointwise.h"
#include "ember/native/ElementwiseMeta.h"
#include "ember/native/PointwiseMath.h"

namespace ember::cpu {
namespace {

// A 0-dim CPU tensor of dtype C holding s (a Scalar operand of a TensorIter).
template <class C>
Tensor scalar_tensor(const Scalar& s) {
  Tensor t = empty_cpu({}, scalar_type_of<C>);
  *static_cast<C*>(t.data_ptr()) = scalar_to<C>(s);
  return t;
}

// ---- pow ----------------------------------------------------------------------------------

// A floating self to the Scalar exponent 2, 3, 0.5, -0.5, -1 or -2 by multiplication, sqrt and
// division, as LibTorch's pow_tensor_scalar_optimized_kernel (a unary loop that vectorises, not a
// libm pow per element; exact where pow rounds). False for any other exponent.
bool pow_fast_scalar(const char* name, Tensor& out, OutKind ok, const Tensor& self, ScalarType result, ScalarType cdt,
                     const Scalar& exponent) {
  const double e = exponent.to<double>();
  if (e != 2 && e != 3 && e != 0.5 && e != -0.5 && e != -1 && e != -2) return false;
  TensorIter it(name);
  native::binary_meta(it, name, result, self, nullptr, out, ok);
  visit_compute(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      if (e == 2) run_nary<C, C, 1>(it, [](C a) { return a * a; });
      if (e == 3) run_nary<C, C, 1>(it, [](C a) { return a * a * a; });
      if (e == 0.5) run_nary<C, C, 1>(it, [](C a) { return std::sqrt(a); });
      if (e == -0.5) run_nary<C, C, 1>(it, [](C a) { return C(1) / std::sqrt(a); });
      if (e == -1) run_nary<C, C, 1>(it, [](C a) { return C(1) / a; });
      if (e == -2) run_nary<C, C, 1>(it, [](C a) { return C(1) / (a * a); });
    }
  });
  return true;
}

// The family's metadata step (shared with its meta function), then the loop; a Scalar exponent
// becomes a 0-dim tensor of the compute dtype.
void pow_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Tensor* et, const Scalar* es) {
  const ScalarType result = native::pow_result(name, self, et, es);
  if (es && ok == OutKind::Out) {
    native::check_defined(name, out, "out");
    native::check_same_dtype_out(name, ok, out, result);  // LibTorch's pow.Tensor_Scalar is a unary op on self
  }
  if (es && self.numel() == 0) {
    // Nothing to compute; LibTorch iterates self alone here (a unary op), so an empty result takes
    // self's order without the 0-dim exponent's vote, as the meta function gives it.
    TensorIter it(name);
    native::binary_meta(it, name, result, self, nullptr, out, ok);
    return;
  }
  const ScalarType cdt = compute_dtype(result);
  if (es && !es->isComplex() && is_floating_type(result) && pow_fast_scalar(name, out, ok, self, result, cdt, *es))
    return;
  visit_compute_c(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, bool>) {
      EMBER_INTERNAL_ASSERT(false, "[{}] bool was rejected", name);
    } else {
      const Tensor e = es ? scalar_tensor<C>(*es) : Tensor();
      TensorIter it(name);
      native::binary_meta(it, name, result, self, es ? &e : et, out, ok);
      run_binary<C, C>(it, PowOp<C>{});
    }
  });
}

// ---- clamp --------------------------------------------------------------------------------

template <class C>
struct ClampOp {
  C lo, hi;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::clamp_value(a, lo, hi); }
};

void clamp_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const std::optional<Scalar>& min,
                const std::optional<Scalar>& max) {
  const ScalarType result = native::clamp_result(name, self, min, max);
  const ScalarType cdt = compute_dtype(result);
  visit_compute(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, bool>) {
      EMBER_INTERNAL_ASSERT(false, "[{}] bool was rejected", name);
    } else {
      C lo, hi;
      if constexpr (std::is_floating_point_v<C>) {
        lo = -std::numeric_limits<C>::infinity();
        hi = std::numeric_limits<C>::infinity();
      } else {
        lo = std::numeric_limits<C>::lowest();
        hi = std::numeric_limits<C>::max();
      }
      if (min) lo = scalar_to<C>(*min);
      if (max) hi = scalar_to<C>(*max);
      TensorIter it(name);
      native::binary_meta(it, name, result, self, nullptr, out, ok);  // the family's metadata step
      run_nary<C, C, 1>(it, ClampOp<C>{lo, hi});
    }
  });
}

// ---- where, masked_fill -------------------------------------------------------------------

template <class C>
struct WhereOp {
  EMBER_ALWAYS_INLINE C operator()(C c, C a, C b) const { return c != C(0) ? a : b; }
};

template <class C>
struct ThresholdBackwardOp {
  C threshold;
  EMBER_ALWAYS_INLINE C operator()(C g, C x) const { return x <= threshold ? C(0) : g; }
};

template <class C>
struct MaskedFillOp {
  C value;
  EMBER_ALWAYS_INLINE C operator()(C m, C a) const { return m != C(0) ? value : a; }
};

void where_impl(const char* name, Tensor& out, OutKind ok, const Tensor& cond, const Tensor& self,
                const Tensor& other) {
  TensorIter it(name);
  const ScalarType result = native::where_meta(it, name, cond, self, other, out, ok);  // the family's metadata step
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    run_nary<C, C, 3>(it, WhereOp<C>{});
  });
}

void masked_fill_impl(const char* name, Tensor& out, const Tensor& self, const Tensor& mask, const Scalar& value) {
  native::check_masked_fill(name, self, mask);
  const ScalarType dt = self.dtype();
  const ScalarType cdt = compute_dtype(dt);
  visit_dtype(dt, name, [&](auto stag) {
    using T = typename decltype(stag)::type;
    const T v = checked_scalar_to<T>(value, name);  // as LibTorch: a value that does not fit throws
    visit_compute(cdt, name, [&](auto tag) {
      using C = typename decltype(tag)::type;
      TensorIter it(name);
      it.add_output(&out, dt).add_input(mask).add_input(self).build();
      run_binary<C, C>(it, MaskedFillOp<C>{convert<C>(v)});
    });
  });
}

// ---- lerp, addcmul ------------------------------------------------------------------------

template <class C>
struct LerpOp {
  C w;
  EMBER_ALWAYS_INLINE C operator()(C a, C b) const { return native::lerp_value(a, b, w); }
};

void lerp_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Tensor& end, const Scalar& weight) {
  TensorIter it(name);
  const ScalarType result = native::lerp_meta(it, name, self, end, out, ok);  // the family's metadata step
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      run_binary<C, C>(it, LerpOp<C>{scalar_to<C>(weight)});
    }
  });
}

template <class C>
struct AddcmulOp {
  C value;
  EMBER_ALWAYS_INLINE C operator()(C a, C b, C c) const { return native::wrap_muladd(a, value, b, c); }
};

void addcmul_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Tensor& t1, const Tensor& t2,
                  const Scalar& value) {
  TensorIter it(name);
  const ScalarType result = native::addcmul_meta(it, name, self, t1, t2, out, ok);  // the family's metadata step
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      run_nary<C, C, 3>(it, AddcmulOp<C>{scalar_to<C>(value)});
    }
  });
}

// ---- logical_and/or/xor -------------------------------------------------------------------

enum class Logic : uint8_t { And, Or, Xor };

template <Logic L, class C>
struct LogicOp {
  EMBER_ALWAYS_INLINE bool operator()(C a, C b) const {
    const bool x = a != C(0), y = b != C(0);
    if constexpr (L == Logic::And)
      return x && y;
    else if constexpr (L == Logic::Or)
      return x || y;
    else
      return x != y;
  }
};

// The result is kBool; in place and out= write 0/1 in the output's own dtype (as PyTorch).
template <Logic L>
void logical_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Tensor& other) {
  TensorIter it(name);
  native::logical_meta(it, name, self, other, out, ok);  // the family's metadata step
  const ScalarType cdt = compute_dtype(result_type(self, other));
  visit_compute(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    run_binary<bool, C>(it, LogicOp<L, C>{});
  });
}

}  // namespace

void pow_tensor_tensor_out(const Tensor& self, const Tensor& exponent, Tensor& out, OutKind kind) {
  pow_impl(EMBER_VARIANT_NAME("pow", kind), out, kind, self, &exponent, nullptr);
}
void pow_tensor_scalar_out(const Tensor& self, const Scalar& exponent, Tensor& out, OutKind kind) {
  pow_impl(EMBER_VARIANT_NAME("pow", kind), out, kind, self, nullptr, &exponent);
}

void clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, Tensor& out,
               OutKind kind) {
  clamp_impl(EMBER_VARIANT_NAME("clamp", kind), out, kind, self, min, max);
}

void where_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  where_impl("where", out, kind, condition, self, other);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor out = empty_cpu(native::masked_fill_shape("masked_fill", self, mask), self.dtype());
  masked_fill_impl("masked_fill", out, self, mask, value);
  return out;
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  masked_fill_impl("masked_fill_", self, self, mask, value);
  return self;
}

void threshold_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& threshold, Tensor& grad_input,
                            OutKind kind) {
  const char* name = "threshold_backward";
  TensorIter it(name);
  const ScalarType result = native::threshold_backward_result(name, grad_output, self);
  native::binary_meta(it, name, result, grad_output, &self, grad_input, kind);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) run_binary<C, C>(it, ThresholdBackwardOp<C>{scalar_to<C>(threshold)});
  });
}

void lerp_out(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out, OutKind kind) {
  lerp_impl(EMBER_VARIANT_NAME("lerp", kind), out, kind, self, end, weight);
}

void addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value, Tensor& out,
                 OutKind kind) {
  addcmul_impl(EMBER_VARIANT_NAME("addcmul", kind), out, kind, self, tensor1, tensor2, value);
}

#define EMBER_CPU_DEFINE_LOGICAL(name, Kind)                                            \
  void name##_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) { \
    logical_impl<Logic::Kind>(EMBER_VARIANT_NAME(#name, kind), out, kind, self, other); \
  }
EMBER_CPU_DEFINE_LOGICAL(logical_and, And)
EMBER_CPU_DEFINE_LOGICAL(logical_or, Or)
EMBER_CPU_DEFINE_LOGICAL(logical_xor, Xor)
#undef EMBER_CPU_DEFINE_LOGICAL

}  // namespace ember::cpu
