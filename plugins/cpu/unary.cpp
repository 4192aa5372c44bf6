// Unary elementwise kernels: neg abs sign relu (dtype kept), exp log ... erf (integers give the
// default floating dtype), gelu silu (floating only), logical_not (kBool). See Note [CPU
// elementwise loops] in Loops.h; the loops are run_nary's (Pointwise.h).
#include <cmath>

#include "Pointwise.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::cpu {
namespace {

enum class U : uint8_t {
  Neg,
  Abs,
  Sign,
  Relu,  // dtype kept
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Erf,  // to floating
  GeluErf,
  GeluTanh,
  Silu,        // floating only
  LogicalNot,  // to kBool
};

template <U K>
constexpr bool keeps_dtype_v = K <= U::Relu;
template <U K>
constexpr bool floating_only_v = K >= U::GeluErf&& K <= U::Silu;

template <class T>
EMBER_ALWAYS_INLINE T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<W>(W(0) - static_cast<W>(a)));
  } else {
    return -a;
  }
}

// The vector form of kind K for float32 (Note [CPU vector math]), or -1.
constexpr int vec_op_of(U k) {
  switch (k) {
    case U::Exp: return static_cast<int>(VecOp::Exp);
    case U::Log: return static_cast<int>(VecOp::Log);
    case U::Log1p: return static_cast<int>(VecOp::Log1p);
    case U::Sin: return static_cast<int>(VecOp::Sin);
    case U::Cos: return static_cast<int>(VecOp::Cos);
    case U::Tanh: return static_cast<int>(VecOp::Tanh);
    case U::Erf: return static_cast<int>(VecOp::Erf);
    case U::Sigmoid: return static_cast<int>(VecOp::Sigmoid);
    case U::Silu: return static_cast<int>(VecOp::Silu);
    case U::GeluErf: return static_cast<int>(VecOp::GeluErf);
    case U::GeluTanh: return static_cast<int>(VecOp::GeluTanh);
    default: return -1;
  }
}

// The kinds a complex input may take (Note [Complex tensors] in ember/native/Rules.h).
template <U K>
constexpr bool complex_ok_v = K == U::Neg || K == U::Abs || K == U::Exp || K == U::Log || K == U::Sqrt || K == U::Sin ||
                              K == U::Cos || K == U::Tanh;

// The functor of kind K computing in C (bool only reaches Sign and LogicalNot).

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
    } else if constexpr (K == U::LogicalNot) {
      return !(a != C(0));
    } else if constexpr (std::is_same_v<C, bool>) {
      return a;  // sign(bool) is the identity
    } else if constexpr (K == U::Neg) {
      return wrap_neg(a);
    } else if constexpr (K == U::Abs) {
      if constexpr (std::is_unsigned_v<C>)
        return a;
      else if constexpr (std::is_integral_v<C>)
        return a < 0 ? wrap_neg(a) : a;
      else
        return std::abs(a);
    } else if constexpr (K == U::Sign) {
      if constexpr (std::is_unsigned_v<C>)
        return static_cast<C>(a > 0);
      else
        return static_cast<C>((C(0) < a) - (a < C(0)));
    } else if constexpr (K == U::Relu) {
      if constexpr (std::is_unsigned_v<C>)
        return a;
      else
        return a < C(0) ? C(0) : a;  // NaN stays NaN
    } else if constexpr (!std::is_floating_point_v<C>) {
      EMBER_INTERNAL_ASSERT(false, "floating unary op on an integral compute type");
      return a;
    } else if constexpr (K == U::Exp) {
      return std::exp(a);
    } else if constexpr (K == U::Log) {
      return std::log(a);
    } else if constexpr (K == U::Log1p) {
      return std::log1p(a);
    } else if constexpr (K == U::Sqrt) {
      return std::sqrt(a);
    } else if constexpr (K == U::Rsqrt) {
      return C(1) / std::sqrt(a);
    } else if constexpr (K == U::Sin) {
      return std::sin(a);
    } else if constexpr (K == U::Cos) {
      return std::cos(a);
    } else if constexpr (K == U::Tanh) {
      return std::tanh(a);
    } else if constexpr (K == U::Sigmoid) {
      return C(1) / (C(1) + std::exp(-a));
    } else if constexpr (K == U::Erf) {
      return std::erf(a);
    } else if constexpr (K == U::GeluErf) {
      return C(0.5) * a * (C(1) + std::erf(a * C(M_SQRT1_2)));
    } else if constexpr (K == U::GeluTanh) {
      const C k = C(M_2_SQRTPI * M_SQRT1_2);  // sqrt(2 / pi)
      return C(0.5) * a * (C(1) + std::tanh(k * (a + C(0.044715) * a * a * a)));
    } else {
      static_assert(K == U::Silu);
      return a / (C(1) + std::exp(-a));
    }
  }
};

// The dtype rule of K (shared with the meta plugin, ember/native/Rules.h).
template <U K>
constexpr const native::UnaryRule& unary_rule() {
  namespace r = native::unary_rules;
  if constexpr (K == U::LogicalNot) return r::to_bool;
  else if constexpr (K == U::Neg) return r::neg_c;
  else if constexpr (K == U::Abs) return r::abs_c;
  else if constexpr (K == U::Relu) return r::no_bool;
  else if constexpr (K == U::Sign) return r::same;
  else if constexpr (floating_only_v<K>) return r::floating_only;
  else if constexpr (complex_ok_v<K>) return r::to_floating_c;
  else return r::to_floating;
}

template <U K>
void run_kind(const TensorIter& it, ScalarType cdt, const char* name) {
  visit_compute_c(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (is_complex_v<C>) {
      if constexpr (!complex_ok_v<K>) EMBER_INTERNAL_ASSERT(false, "[{}] rejects complex before running", name);
      else if constexpr (K == U::Abs) run_nary<real_of_t<C>, C, 1>(it, UnaryOp<K, C>{});
      else run_nary<C, C, 1>(it, UnaryOp<K, C>{});
    } else if constexpr (K == U::LogicalNot) {
      run_nary<bool, C, 1>(it, UnaryOp<K, C>{});
    } else if constexpr (!keeps_dtype_v<K> && !std::is_floating_point_v<C>) {
      EMBER_INTERNAL_ASSERT(false, "[{}] computes in a floating dtype", name);
    } else if constexpr (std::is_same_v<C, bool> && K != U::Sign) {
      EMBER_INTERNAL_ASSERT(false, "[{}] rejects bool before running", name);
    } else {
      run_nary<C, C, 1>(it, UnaryOp<K, C>{});
    }
  });
}

template <U K>
void unary(const char* name, Tensor& out, OutKind ok, const Tensor& self) {
  // Layer 1: a contiguous functional call whose input and result are of the compute dtype (it
  // can raise no error the metadata step would: the dtype rule runs first).
  if (ok == OutKind::Functional && self.defined() && self.is_cpu() && self.is_contiguous()) {
    const ScalarType result = native::unary_result(name, unary_rule<K>(), self);
    const ScalarType dt = self.dtype();
    const ScalarType cdt = compute_dtype(K == U::LogicalNot ? dt : result);
    if (dt == cdt && (K == U::LogicalNot || result == cdt)) {
      out = empty_cpu(self.sizes(), result);
      visit_compute_c(cdt, name, [&](auto tag) {
        using C = typename decltype(tag)::type;
        const C* in[1] = {static_cast<const C*>(self.data_ptr())};
        if constexpr (is_complex_v<C>) {
          if constexpr (complex_ok_v<K> && K != U::Abs)
            nary_loop<C, C, 1>(static_cast<C*>(out.data_ptr()), in, self.numel(), UnaryOp<K, C>{});
        } else if constexpr (K == U::LogicalNot) {
          nary_loop<bool, C, 1>(static_cast<bool*>(out.data_ptr()), in, self.numel(), UnaryOp<K, C>{});
        } else if constexpr ((keeps_dtype_v<K> || std::is_floating_point_v<C>)&&(!std::is_same_v<C, bool> ||
                                                                                 K == U::Sign)) {
          nary_loop<C, C, 1>(static_cast<C*>(out.data_ptr()), in, self.numel(), UnaryOp<K, C>{});
        }
      });
      return;
    }
  }
  // The family's metadata step (shared with its meta function), then the loops.
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, unary_rule<K>(), self, out, ok);
  // A complex input computes in its own dtype, also where the result is real (abs).
  const ScalarType cdt = is_complex_type(self.dtype()) ? self.dtype() : result;
  run_kind<K>(it, compute_dtype(K == U::LogicalNot ? self.dtype() : cdt), name);
}

}  // namespace

#define EMBER_CPU_DEFINE_UNARY(name, Kind) \
  void name##_out(const Tensor& self, Tensor& out, OutKind kind) { unary<U::Kind>(EMBER_VARIANT_NAME(#name, kind), out, kind, self); }
EMBER_CPU_DEFINE_UNARY(neg, Neg)
EMBER_CPU_DEFINE_UNARY(abs, Abs)
EMBER_CPU_DEFINE_UNARY(sign, Sign)
EMBER_CPU_DEFINE_UNARY(exp, Exp)
EMBER_CPU_DEFINE_UNARY(log, Log)
EMBER_CPU_DEFINE_UNARY(log1p, Log1p)
EMBER_CPU_DEFINE_UNARY(sqrt, Sqrt)
EMBER_CPU_DEFINE_UNARY(rsqrt, Rsqrt)
EMBER_CPU_DEFINE_UNARY(sin, Sin)
EMBER_CPU_DEFINE_UNARY(cos, Cos)
EMBER_CPU_DEFINE_UNARY(tanh, Tanh)
EMBER_CPU_DEFINE_UNARY(sigmoid, Sigmoid)
EMBER_CPU_DEFINE_UNARY(erf, Erf)
EMBER_CPU_DEFINE_UNARY(silu, Silu)
EMBER_CPU_DEFINE_UNARY(logical_not, LogicalNot)
#undef EMBER_CPU_DEFINE_UNARY

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
  if (gelu_tanh(name, approximate)) unary<U::GeluTanh>(name, out, kind, self);
  else unary<U::GeluErf>(name, out, kind, self);
}

}  // namespace ember::cpu
