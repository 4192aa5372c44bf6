// Binary math kernels: atan2, maximum/minimum, fmod/remainder, div's rounding modes and
// floor_divide, bitwise_and/or/xor, pow with a Scalar base, clamp with tensor bounds and
// clamp_min/clamp_max, and the activations with Scalar parameters (hardtanh, leaky_relu, elu,
// softplus, hardswish, hardsigmoid, mish). Structured families: each metadata step is the one its
// meta function runs (plugins/common/ElementwiseMeta.cpp). See Note [CPU elementwise loops] in
// Loops.h.
#include <cmath>
#include <cstring>

#include "Pointwise.h"
#include "ember/native/ElementwiseMeta.h"
#include "ember/native/PointwiseMath.h"

namespace ember::cpu {
namespace {

using native::BinaryMathRule;
using native::DivMode;

using B = native::BinaryMathKind;
using native::clamp_hi;
using native::clamp_lo;
using native::divides;

template <B K, class C>
struct BinOp {
  // float32 atan2, fmod, remainder and floor division through SLEEF (Note [CPU vector math]).
  static constexpr int kVec2 = !std::is_same_v<C, float> ? -1
                               : K == B::Atan2           ? static_cast<int>(VecOp2::Atan2)
                               : K == B::Fmod            ? static_cast<int>(VecOp2::Fmod)
                               : K == B::Remainder       ? static_cast<int>(VecOp2::Remainder)
                               : K == B::DivFloor        ? static_cast<int>(VecOp2::DivFloor)
                                                         : -1;
  EMBER_ALWAYS_INLINE C operator()(C a, C b) const { return native::binary_math_value<K, C>(a, b); }
};

// A 0-dim CPU tensor of type C holding s (a Scalar operand of the iterator).
template <class C>
Tensor scalar_operand(const Scalar& s) {
  Tensor t = empty_cpu({}, scalar_type_of<C>);
  *static_cast<C*>(t.data_ptr()) = scalar_to<C>(s);
  return t;
}

// True when an integer divisor (a tensor or a Scalar) holds a zero.
bool has_zero(const Tensor* bt, const Scalar* bs) {
  if (bs) return bs->toDouble() == 0;
  if (bt->numel() == 0) return false;
  const Tensor c = bt->contiguous();
  return visit_dtype(c.dtype(), "has_zero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(c.data_ptr());
    for (int64_t i = 0; i < c.numel(); ++i)
      if (static_cast<float>(p[i]) == 0.0f) return true;
    return false;
  });
}

// out = K(a, b), each operand a tensor (`at`, `bt`) or a Scalar (`as`, `bs`), for the `result`
// dtype the family's rule gave: the family's metadata step, then the loops.
template <B K>
void binary_math(const char* name, ScalarType result, Tensor& out, OutKind ok, const Tensor* at, const Scalar* as,
                 const Tensor* bt, const Scalar* bs) {
  const ScalarType cdt = compute_dtype(result);
  if constexpr (divides(K)) {
    // Before anything is written (an in-place call leaves self unchanged).
    const bool empty = (at && at->numel() == 0) || (bt && bt->numel() == 0);
    EMBER_CHECK(!is_integral_type(cdt, false) || empty || !has_zero(bt, bs), "[{}] ZeroDivisionError", name);
  }
  visit_compute(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const Tensor a = as ? scalar_operand<C>(*as) : Tensor();
    const Tensor b = bs ? scalar_operand<C>(*bs) : Tensor();
    const Tensor& first = as ? a : *at;
    TensorIter it(name);
    native::binary_meta(it, name, result, first, bs ? &b : bt, out, ok);
    if constexpr (native::binary_math_runs_on<K, C>())
      run_binary<C, C>(it, BinOp<K, C>{});
    else
      EMBER_INTERNAL_ASSERT(false, "[{}] the dtype rule rejects this compute type", name);
  });
}

// div(a, b, rounding_mode): true division is div's own kernel.
void div_mode_impl(const char* name, const std::optional<std::string_view>& mode, Tensor& out, OutKind ok,
                   const Tensor& self, const Tensor* bt, const Scalar* bs) {
  const DivMode m = native::div_mode(name, mode);
  const ScalarType result = native::div_mode_result(name, m, self, bt, bs);
  // div.Scalar_mode.out is a generated out= in LibTorch: the result is resized contiguous.
  if (bs && ok == OutKind::Out) native::resize_out_contiguous(name, out, result, self);
  if (m == DivMode::True) {
    const Scalar* s = bs;
    Tensor b;
    if (s) {
      b = empty_cpu({}, compute_dtype(result));
      visit_compute(compute_dtype(result), name, [&](auto tag) {
        using C = typename decltype(tag)::type;
        *static_cast<C*>(b.data_ptr()) = scalar_to<C>(*s);
      });
    }
    visit_compute(compute_dtype(result), name, [&](auto tag) {
      using C = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<C>) {
        TensorIter it(name);
        native::binary_meta(it, name, result, self, bs ? &b : bt, out, ok);
        run_binary<C, C>(it, [](C x, C y) { return x / y; });
      } else {
        EMBER_INTERNAL_ASSERT(false, "[{}] true division computes in a floating dtype", name);
      }
    });
    return;
  }
  if (m == DivMode::Trunc)
    binary_math<B::DivTrunc>(name, result, out, ok, &self, nullptr, bt, bs);
  else
    binary_math<B::DivFloor>(name, result, out, ok, &self, nullptr, bt, bs);
}

// ---- clamp with tensor bounds, clamp_min, clamp_max ----------------------------------------------

template <class C>
struct ClampMinOp {
  EMBER_ALWAYS_INLINE C operator()(C a, C lo) const { return clamp_lo(a, lo); }
};
template <class C>
struct ClampMaxOp {
  EMBER_ALWAYS_INLINE C operator()(C a, C hi) const { return clamp_hi(a, hi); }
};
template <class C>
struct ClampBothOp {
  EMBER_ALWAYS_INLINE C operator()(C a, C lo, C hi) const { return native::clamp_both(a, lo, hi); }
};

// clamp(self, min, max) with optional tensor bounds (clamp.Tensor), or one tensor bound
// (clamp_min.Tensor / clamp_max.Tensor).
void clamp_tensor_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Tensor* min,
                       const Tensor* max) {
  const ScalarType result = native::clamp_tensor_result(name, self, min, max);
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  TensorIter it(name);
  native::clamp_tensor_meta(it, name, result, self, has_min ? min : nullptr, has_max ? max : nullptr, out, ok);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      if (has_min && has_max)
        run_nary<C, C, 3>(it, ClampBothOp<C>{});
      else if (has_min)
        run_binary<C, C>(it, ClampMinOp<C>{});
      else
        run_binary<C, C>(it, ClampMaxOp<C>{});
    }
  });
}

// clamp_min/clamp_max with a Scalar bound: clamp's dtype rule (the bound takes part in promotion).
template <bool kMin>
void clamp_scalar_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Scalar& bound) {
  const ScalarType result = kMin ? native::clamp_result(name, self, bound, std::nullopt)
                                 : native::clamp_result(name, self, std::nullopt, bound);
  TensorIter it(name);
  native::binary_meta(it, name, result, self, nullptr, out, ok);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      const C v = scalar_to<C>(bound);
      if constexpr (kMin)
        run_nary<C, C, 1>(it, [v](C a) { return clamp_lo(a, v); });
      else
        run_nary<C, C, 1>(it, [v](C a) { return clamp_hi(a, v); });
    }
  });
}

// ---- activations with Scalar parameters ---------------------------------------------------------

template <class C>
struct LeakyReluOp {
  C slope;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::leaky_relu_value(a, slope); }
};
template <class C>
struct EluOp {
  C alpha, scale, input_scale;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::elu_value(a, alpha, scale, input_scale); }
};
template <class C>
struct SoftplusOp {
  C beta, threshold;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::softplus_value(a, beta, threshold); }
};
template <class C>
struct HardswishOp {
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::hardswish_value(a); }
};
template <class C>
struct HardsigmoidOp {
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::hardsigmoid_value(a); }
};
template <class C>
struct MishOp {
  EMBER_ALWAYS_INLINE C operator()(C a) const { return native::mish_value(a); }
};
template <class C>
struct HardtanhOp {
  C lo, hi;
  EMBER_ALWAYS_INLINE C operator()(C a) const { return clamp_hi(clamp_lo(a, lo), hi); }
};

// The transcendental activations (elu, softplus, mish) on float32 whose iteration is one dense
// run: chunk by chunk with SLEEF's vector functions (Note [CPU vector math]) and a branch-free
// select, instead of a scalar libm call per element. `chunk(x, y, buf, n)` writes y from x (y may
// be x) using buf; false (nothing written) when the iteration or the CPU does not fit.
constexpr int64_t kActChunk = 1024;
// c ? a : b through the bits: GCC keeps `?:` on floats a (mispredicted) branch here, and vectorises this.
EMBER_ALWAYS_INLINE float select_bits(bool c, float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  const uint32_t r = (m & ua) | (~m & ub);
  float f;
  std::memcpy(&f, &r, 4);
  return f;
}
template <class Chunk>
bool activation_f32_dense(const TensorIter& it, const Chunk& chunk) {
  if (!has_vec_math() || it.ntensors() != 2 || it.tensor(0).dtype() != kFloat32 || it.tensor(1).dtype() != kFloat32 ||
      it.ndim() > 1 || (it.ndim() == 1 && (it.strides(0)[0] != 4 || it.strides(1)[0] != 4)))
    return false;
  float* y0 = reinterpret_cast<float*>(it.data(0));
  const float* x0 = reinterpret_cast<const float*>(it.data(1));
  parallel_for(0, it.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    float buf[kActChunk];
    for (int64_t c = b; c < e; c += kActChunk) chunk(x0 + c, y0 + c, buf, std::min(kActChunk, e - c));
  });
  return true;
}

// out = op(self) for a floating self (the family's metadata step, then the loop); `make` builds
// the functor for the compute type. A `chunk` (activation_f32_dense's) is the float32 dense path.
template <class Make, class Chunk = std::nullptr_t>
void activation(const char* name, Tensor& out, OutKind ok, const Tensor& self, Make&& make,
                const Chunk& chunk = nullptr) {
  const ScalarType result = native::activation_result(name, self);
  TensorIter it(name);
  native::binary_meta(it, name, result, self, nullptr, out, ok);
  if constexpr (!std::is_null_pointer_v<Chunk>)
    if (activation_f32_dense(it, chunk)) return;
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) run_nary<C, C, 1>(it, make(tag));
  });
}

}  // namespace

// ---- the kernels ------------------------------------------------------------------------------------

void atan2_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("atan2", kind);
  const ScalarType r = native::binary_math_result(name, BinaryMathRule::ToFloating, &self, nullptr, &other, nullptr);
  binary_math<B::Atan2>(name, r, out, kind, &self, nullptr, &other, nullptr);
}

#define EMBER_CPU_DEFINE_TT(fn, op, Kind, Rule)                                                                   \
  void fn(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                                   \
    const char* name = EMBER_VARIANT_NAME(op, kind);                                                              \
    const ScalarType r = native::binary_math_result(name, BinaryMathRule::Rule, &self, nullptr, &other, nullptr); \
    binary_math<B::Kind>(name, r, out, kind, &self, nullptr, &other, nullptr);                                    \
  }
#define EMBER_CPU_DEFINE_TS(fn, op, Kind, Rule)                                                                   \
  void fn(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) {                                   \
    const char* name = EMBER_VARIANT_NAME(op, kind);                                                              \
    const ScalarType r = native::binary_math_result(name, BinaryMathRule::Rule, &self, nullptr, nullptr, &other); \
    binary_math<B::Kind>(name, r, out, kind, &self, nullptr, nullptr, &other);                                    \
  }
EMBER_CPU_DEFINE_TT(maximum_out, "maximum", Maximum, Any)
EMBER_CPU_DEFINE_TT(minimum_out, "minimum", Minimum, Any)
EMBER_CPU_DEFINE_TT(fmod_tensor_out, "fmod", Fmod, NoBool)
EMBER_CPU_DEFINE_TS(fmod_scalar_out, "fmod", Fmod, NoBool)
EMBER_CPU_DEFINE_TT(remainder_tensor_out, "remainder", Remainder, NoBool)
EMBER_CPU_DEFINE_TS(remainder_scalar_out, "remainder", Remainder, NoBool)
EMBER_CPU_DEFINE_TT(floor_divide_out, "floor_divide", DivFloor, NoBool)
EMBER_CPU_DEFINE_TT(bitwise_and_tensor_out, "bitwise_and", BitAnd, Integral)
EMBER_CPU_DEFINE_TS(bitwise_and_scalar_out, "bitwise_and", BitAnd, Integral)
EMBER_CPU_DEFINE_TT(bitwise_or_tensor_out, "bitwise_or", BitOr, Integral)
EMBER_CPU_DEFINE_TS(bitwise_or_scalar_out, "bitwise_or", BitOr, Integral)
EMBER_CPU_DEFINE_TT(bitwise_xor_tensor_out, "bitwise_xor", BitXor, Integral)
EMBER_CPU_DEFINE_TS(bitwise_xor_scalar_out, "bitwise_xor", BitXor, Integral)
#undef EMBER_CPU_DEFINE_TT
#undef EMBER_CPU_DEFINE_TS

void remainder_scalar_tensor_out(const Scalar& self, const Tensor& other, Tensor& out, OutKind kind) {
  const char* name = "remainder";
  const ScalarType r = native::binary_math_result(name, BinaryMathRule::NoBool, nullptr, &self, &other, nullptr);
  binary_math<B::Remainder>(name, r, out, kind, nullptr, &self, &other, nullptr);
}

void div_out_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode, Tensor& out,
                  OutKind kind) {
  div_mode_impl(EMBER_VARIANT_NAME("div", kind), rounding_mode, out, kind, self, &other, nullptr);
}
void div_scalar_mode_out(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode,
                         Tensor& out, OutKind kind) {
  div_mode_impl(EMBER_VARIANT_NAME("div", kind), rounding_mode, out, kind, self, nullptr, &other);
}

void pow_scalar_out(const Scalar& self, const Tensor& exponent, Tensor& out, OutKind kind) {
  const char* name = "pow";
  const ScalarType result = native::pow_scalar_base_result(name, self, exponent);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      const Tensor base = scalar_operand<C>(self);
      TensorIter it(name);
      native::pow_scalar_meta(it, result, base, exponent, out, kind);
      run_binary<C, C>(it, PowOp<C>{});
    }
  });
}

void clamp_tensor_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                      Tensor& out, OutKind kind) {
  clamp_tensor_impl(EMBER_VARIANT_NAME("clamp", kind), out, kind, self, min ? &*min : nullptr, max ? &*max : nullptr);
}
void clamp_min_tensor_out(const Tensor& self, const Tensor& min, Tensor& out, OutKind kind) {
  clamp_tensor_impl(EMBER_VARIANT_NAME("clamp_min", kind), out, kind, self, &min, nullptr);
}
void clamp_max_tensor_out(const Tensor& self, const Tensor& max, Tensor& out, OutKind kind) {
  clamp_tensor_impl(EMBER_VARIANT_NAME("clamp_max", kind), out, kind, self, nullptr, &max);
}
void clamp_min_out(const Tensor& self, const Scalar& min, Tensor& out, OutKind kind) {
  clamp_scalar_impl<true>(EMBER_VARIANT_NAME("clamp_min", kind), out, kind, self, min);
}
void clamp_max_out(const Tensor& self, const Scalar& max, Tensor& out, OutKind kind) {
  clamp_scalar_impl<false>(EMBER_VARIANT_NAME("clamp_max", kind), out, kind, self, max);
}

void hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("hardtanh", kind);
  const ScalarType result = native::hardtanh_result(name, self, min_val, max_val);
  TensorIter it(name);
  native::binary_meta(it, name, result, self, nullptr, out, kind);
  visit_compute(compute_dtype(result), name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>)
      run_nary<C, C, 1>(it, HardtanhOp<C>{scalar_to<C>(min_val), scalar_to<C>(max_val)});
  });
}

void leaky_relu_out(const Tensor& self, const Scalar& negative_slope, Tensor& out, OutKind kind) {
  activation(EMBER_VARIANT_NAME("leaky_relu", kind), out, kind, self, [&](auto tag) {
    using C = typename decltype(tag)::type;
    return LeakyReluOp<C>{scalar_to<C>(negative_slope)};
  });
}

void elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale, Tensor& out,
             OutKind kind) {
  const float fa = scalar_to<float>(alpha), fs = scalar_to<float>(scale), fi = scalar_to<float>(input_scale);
  activation(
      EMBER_VARIANT_NAME("elu", kind), out, kind, self,
      [&](auto tag) {
        using C = typename decltype(tag)::type;
        return EluOp<C>{scalar_to<C>(alpha), scalar_to<C>(scale), scalar_to<C>(input_scale)};
      },
      // By value: a captured reference could alias y, and the loops would not vectorise.
      [fa, fs, fi](const float* x, float* y, float* buf, int64_t n) {
        for (int64_t k = 0; k < n; ++k) buf[k] = x[k] * fi;
        vec_unary_f32(VecOp::Expm1, buf, buf, n);
        const float as = fa * fs;
        for (int64_t k = 0; k < n; ++k) y[k] = select_bits(x[k] > 0.0f, x[k] * fs, buf[k] * as);
      });
}

void softplus_out(const Tensor& self, const Scalar& beta, const Scalar& threshold, Tensor& out, OutKind kind) {
  const float fb = scalar_to<float>(beta), ft = scalar_to<float>(threshold);
  activation(
      "softplus", out, kind, self,
      [&](auto tag) {
        using C = typename decltype(tag)::type;
        return SoftplusOp<C>{scalar_to<C>(beta), scalar_to<C>(threshold)};
      },
      [fb, ft](const float* x, float* y, float* buf, int64_t n) {
        for (int64_t k = 0; k < n; ++k) buf[k] = x[k] * fb;
        vec_unary_f32(VecOp::Exp, buf, buf, n);
        vec_unary_f32(VecOp::Log1p, buf, buf, n);
        for (int64_t k = 0; k < n; ++k) y[k] = select_bits(x[k] * fb > ft, x[k], buf[k] / fb);
      });
}

#define EMBER_CPU_DEFINE_ACT(op, Op)                                          \
  void op##_out(const Tensor& self, Tensor& out, OutKind kind) {              \
    activation(EMBER_VARIANT_NAME(#op, kind), out, kind, self, [](auto tag) { \
      using C = typename decltype(tag)::type;                                 \
      return Op<C>{};                                                         \
    });                                                                       \
  }
EMBER_CPU_DEFINE_ACT(hardswish, HardswishOp)
EMBER_CPU_DEFINE_ACT(hardsigmoid, HardsigmoidOp)
#undef EMBER_CPU_DEFINE_ACT

void mish_out(const Tensor& self, Tensor& out, OutKind kind) {
  activation(
      EMBER_VARIANT_NAME("mish", kind), out, kind, self,
      [](auto tag) {
        using C = typename decltype(tag)::type;
        return MishOp<C>{};
      },
      [](const float* x, float* y, float* buf, int64_t n) {
        vec_unary_f32(VecOp::Exp, x, buf, n);
        vec_unary_f32(VecOp::Log1p, buf, buf, n);
        vec_unary_f32(VecOp::Tanh, buf, buf, n);
        for (int64_t k = 0; k < n; ++k) y[k] = x[k] * buf[k];
      });
}

}  // namespace ember::cpu
