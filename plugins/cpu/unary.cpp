// Unary elementwise kernels: neg abs sign relu ceil floor trunc round bitwise_not (dtype kept),
// exp log ... acos ... digamma (integers give the default floating dtype), frac gelu silu
// round.decimals (floating only), logical_not isnan isinf isfinite (kBool), nan_to_num (dtype
// kept). See Note [CPU elementwise loops] in Loops.h; the loops are run_nary's (Pointwise.h).
#include <cmath>

#include "Pointwise.h"
#include "ember/native/ElementwiseMeta.h"
#include "ember/native/UnaryMath.h"

namespace ember::cpu {
namespace {

using U = native::UnaryKind;

template <U K>
constexpr bool to_bool_v = native::to_bool(K);

// The vector form of kind K for float32 (Note [CPU vector math]), or -1.
constexpr int vec_op_of(U k) {
  switch (k) {
#define EMBER_VEC_CASE(Kind) \
  case U::Kind:              \
    return static_cast<int>(VecOp::Kind);
    EMBER_VEC_CASE(Exp)
    EMBER_VEC_CASE(Log)
    EMBER_VEC_CASE(Log1p)
    EMBER_VEC_CASE(Sin)
    EMBER_VEC_CASE(Cos)
    EMBER_VEC_CASE(Tanh)
    EMBER_VEC_CASE(Erf)
    EMBER_VEC_CASE(Sigmoid)
    EMBER_VEC_CASE(Silu)
    EMBER_VEC_CASE(GeluErf)
    EMBER_VEC_CASE(GeluTanh)
    EMBER_VEC_CASE(Acos)
    EMBER_VEC_CASE(Acosh)
    EMBER_VEC_CASE(Asin)
    EMBER_VEC_CASE(Asinh)
    EMBER_VEC_CASE(Atan)
    EMBER_VEC_CASE(Atanh)
    EMBER_VEC_CASE(Tan)
    EMBER_VEC_CASE(Sinh)
    EMBER_VEC_CASE(Cosh)
    EMBER_VEC_CASE(Expm1)
    EMBER_VEC_CASE(Log2)
    EMBER_VEC_CASE(Log10)
    EMBER_VEC_CASE(Lgamma)
    EMBER_VEC_CASE(Ceil)
    EMBER_VEC_CASE(Floor)
    EMBER_VEC_CASE(Trunc)
    EMBER_VEC_CASE(Round)
#undef EMBER_VEC_CASE
    default:
      return -1;
  }
}

template <U K>
constexpr bool complex_ok_v = native::complex_ok(K);

// The functor of kind K computing in C (bool only reaches Sign, BitwiseNot and the kBool kinds).
template <U K, class C>
struct UnaryOp {
  static constexpr int kVec = std::is_same_v<C, float> ? vec_op_of(K) : -1;
  EMBER_ALWAYS_INLINE auto operator()(C a) const {
    if constexpr (is_complex_v<C>) {
      static_assert(complex_ok_v<K>);
      if constexpr (K == U::Neg)
        return -a;
      else if constexpr (K == U::Abs)
        return std::abs(a);
      else if constexpr (K == U::Exp)
        return std::exp(a);
      else if constexpr (K == U::Log)
        return std::log(a);
      else if constexpr (K == U::Sqrt)
        return std::sqrt(a);
      else if constexpr (K == U::Sin)
        return std::sin(a);
      else if constexpr (K == U::Cos)
        return std::cos(a);
      else
        return std::tanh(a);
    } else {
      return native::unary_value<K>(a);  // the real kinds: shared with the GPU kernels
    }
  }
};

template <U K>
constexpr const native::UnaryRule& unary_rule() {
  return native::unary_rule_of(K);
}

// Whether kind K runs on compute type C (the dtype rule rejects the other inputs first).
template <U K, class C>
constexpr bool runs_on_v = [] {
  if constexpr (is_complex_v<C>)
    return complex_ok_v<K>;
  else
    return native::unary_runs_on<K, C>();
}();

// The result type of kind K computing in C: bool for the kBool kinds, real for abs of a complex.
template <U K, class C>
using result_of_t = std::conditional_t<to_bool_v<K>, bool, std::conditional_t<K == U::Abs, real_of_t<C>, C>>;

// The kBool kinds and complex inputs compute in the input's type, the others in the result's.
template <U K>
ScalarType compute_of(ScalarType input, ScalarType result) {
  return compute_dtype(to_bool_v<K> || is_complex_type(input) ? input : result);
}

template <U K, class R, class C, class Op>
void run_typed(const TensorIter& it, const Op& op, const char* name) {
  if constexpr (runs_on_v<K, C>)
    run_nary<R, C, 1>(it, op);
  else
    EMBER_INTERNAL_ASSERT(false, "[{}] the dtype rule rejects this compute type", name);
}

template <U K>
void run_kind(const TensorIter& it, ScalarType cdt, const char* name) {
  visit_compute_c(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    run_typed<K, result_of_t<K, C>, C>(it, UnaryOp<K, C>{}, name);
  });
}

template <U K>
void unary(const char* name, Tensor& out, OutKind ok, const Tensor& self) {
  // Layer 1: a contiguous functional call whose input and result are of the compute dtype (it
  // can raise no error the metadata step would: the dtype rule runs first).
  if (ok == OutKind::Functional && self.defined() && self.is_cpu() && self.is_contiguous()) {
    const ScalarType result = native::unary_result(name, unary_rule<K>(), self);
    const ScalarType dt = self.dtype();
    const ScalarType cdt = compute_of<K>(dt, result);
    if (dt == cdt && (to_bool_v<K> || result == cdt)) {
      out = empty_cpu(self.sizes(), result);
      visit_compute_c(cdt, name, [&](auto tag) {
        using C = typename decltype(tag)::type;
        using R = result_of_t<K, C>;
        const C* in[1] = {static_cast<const C*>(self.data_ptr())};
        if constexpr (runs_on_v<K, C>)
          nary_loop<R, C, 1>(static_cast<R*>(out.data_ptr()), in, self.numel(), UnaryOp<K, C>{});
      });
      return;
    }
  }
  // The family's metadata step (shared with its meta function), then the loops.
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, unary_rule<K>(), self, out, ok);
  run_kind<K>(it, compute_of<K>(self.dtype(), result), name);
}

// round(x, decimals) as LibTorch: nearbyint of x scaled by 10^|decimals|, scaled back.
template <class C>
struct RoundDecimalsOp {
  C ten_pow;
  bool neg;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::round_decimals_value(a, ten_pow, neg); }
};

// nan_to_num: the replacements are values of the result dtype T (float16's max is 65504).
template <class C>
struct NanToNumOp {
  C nan, posinf, neginf;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::nan_to_num_value(a, nan, posinf, neginf); }
};

}  // namespace

#define EMBER_CPU_DEFINE_UNARY(name, Kind)                            \
  void name##_out(const Tensor& self, Tensor& out, OutKind kind) {    \
    unary<U::Kind>(EMBER_VARIANT_NAME(#name, kind), out, kind, self); \
  }
EMBER_FORALL_UNARY_OUT_OPS(EMBER_CPU_DEFINE_UNARY)
#undef EMBER_CPU_DEFINE_UNARY

Tensor isfinite(const Tensor& self) {
  Tensor out;
  unary<U::IsFinite>("isfinite", out, OutKind::Functional, self);
  return out;
}

void round_decimals_out(const Tensor& self, int64_t decimals, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("round", kind);
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, native::unary_rules::floating_only, self, out, kind);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      const bool neg = decimals < 0;
      const C ten_pow = static_cast<C>(std::pow(10.0, static_cast<double>(neg ? -decimals : decimals)));
      run_nary<C, C, 1>(it, RoundDecimalsOp<C>{ten_pow, neg});
    }
  });
}

void nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("nan_to_num", kind);
  TensorIter it(name);
  const ScalarType result = native::nan_to_num_meta(it, name, self, out, kind);
  const std::array<double, 3> v = native::nan_to_num_values(result, nan, posinf, neginf);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      run_nary<C, C, 1>(it, NanToNumOp<C>{static_cast<C>(v[0]), static_cast<C>(v[1]), static_cast<C>(v[2])});
    } else {
      run_nary<C, C, 1>(it, NanToNumOp<C>{});
    }
  });
}

Tensor relu(const Tensor& self) {
  Tensor out;
  unary<U::Relu>("relu", out, OutKind::Functional, self);
  return out;
}
Tensor& relu_(Tensor& self) {
  unary<U::Relu>("relu_", self, OutKind::InPlace, self);
  return self;
}

using native::gelu_tanh;

void gelu_out(const Tensor& self, std::string_view approximate, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("gelu", kind);
  if (gelu_tanh(name, approximate))
    unary<U::GeluTanh>(name, out, kind, self);
  else
    unary<U::GeluErf>(name, out, kind, self);
}

}  // namespace ember::cpu
