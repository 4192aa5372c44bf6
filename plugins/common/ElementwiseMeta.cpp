// The elementwise structured families' metadata step and their meta functions (the Meta kernels
// RegisterMeta.cpp registers). See ember/native/ElementwiseMeta.h.
#include "ember/native/ElementwiseMeta.h"

#include <cmath>
#include <limits>

#include "ember/generated/StructuredMeta.h"

namespace ember::native {

namespace {
void check_out(const char* name, OutKind kind, const Tensor& out, ScalarType result) {
  if (kind != OutKind::Functional) check_out_dtype(name, kind == OutKind::Out, out, result);
}
}  // namespace

ScalarType unary_meta(TensorIter& it, const char* name, const UnaryRule& rule, const Tensor& self, Tensor& out,
                      OutKind kind) {
  const ScalarType result = unary_result(name, rule, self);
  if (kind == OutKind::InPlace && rule.complex == UnaryRule::ToReal && is_complex_type(self.dtype())) {
    std::string_view op(name);
    if (!op.empty() && op.back() == '_') op.remove_suffix(1);
    EMBER_THROW(TypeError, "[{}] In-place {} is not supported for complex tensors.", name, op);
  }
  if (kind != OutKind::Functional) {
    // logical_not writes 0/1 in any output dtype.
    if (rule.result != UnaryRule::Bool)
      check_out(name, kind, out, result);
    else
      check_defined(name, out, kind == OutKind::Out ? "out" : "self");
    if (kind == OutKind::Out && rule.out_contiguous) resize_output(out, self.sizes(), name);
    // The dtype-keeping and floating-only families are LibTorch's build_borrowing_unary_op (the
    // promoting family, build_borrowing_unary_float_op, casts).
    if (rule.result == UnaryRule::Same || rule.floating_only) check_same_dtype_out(name, kind, out, result);
  }
  it.add_output(&out, result, kind == OutKind::Out).add_input(self).build();
  return result;
}

ScalarType nan_to_num_meta(TensorIter& it, const char* name, const Tensor& self, Tensor& out, OutKind kind) {
  const ScalarType result = unary_result(name, unary_rules::same, self);
  if (kind == OutKind::Out) {
    check_defined(name, out, "out");
    EMBER_CHECK_TYPE(out.dtype() == result, "[{}] dtype of out: {} should be same as input: {}", name, out.dtype(),
                     result);
  }
  it.add_output(&out, result, kind == OutKind::Out).add_input(self).build();
  return result;
}

std::array<double, 3> nan_to_num_values(ScalarType result, std::optional<double> nan, std::optional<double> posinf,
                                        std::optional<double> neginf) {
  auto in_result = [&](double v) -> double {
    // Beyond float's max plus half an ulp a double rounds to infinity (a plain cast is undefined).
    if (result != kFloat64 && std::abs(v) >= 3.4028235677973366e38) return std::copysign(HUGE_VAL, v);
    switch (result) {
      case kFloat32:
        return static_cast<float>(v);
      case kFloat16:
        return static_cast<float>(Half(static_cast<float>(v)));
      case kBFloat16:
        return static_cast<float>(BFloat16(static_cast<float>(v)));
      default:
        return v;
    }
  };
  const double max = result == kFloat16    ? 65504.0
                     : result == kBFloat16 ? 3.3895313892515355e38
                     : result == kFloat32  ? static_cast<double>(std::numeric_limits<float>::max())
                                           : std::numeric_limits<double>::max();
  return {nan ? in_result(*nan) : 0.0, posinf ? in_result(*posinf) : max, neginf ? in_result(*neginf) : -max};
}

void binary_meta(TensorIter& it, const char* name, ScalarType result, const Tensor& a, const Tensor* b_operand,
                 Tensor& out, OutKind kind) {
  check_out(name, kind, out, result);
  it.add_output(&out, result, kind == OutKind::Out).add_input(a);
  if (b_operand) it.add_input(*b_operand);
  it.build();
}

void check_same_dtype_out(const char* name, OutKind kind, const Tensor& out, ScalarType result) {
  if (kind == OutKind::Out)
    EMBER_CHECK_TYPE(out.dtype() == result, "[{}] Found dtype {} but expected {}", name, out.dtype(), result);
}

void resize_out_contiguous(const char* name, Tensor& out, ScalarType result, const Tensor& like) {
  check_out(name, OutKind::Out, out, result);
  check_defined(name, like, "self");
  resize_output(out, like.sizes(), name);
}

void pow_scalar_meta(TensorIter& it, ScalarType result, const Tensor& base_operand, const Tensor& exponent,
                     Tensor& out, OutKind kind) {
  if (kind == OutKind::Functional && exponent.defined()) {
    out = empty_on(exponent.device().type(), exponent.sizes(), result);
    kind = OutKind::Out;
  } else if (kind == OutKind::Out) {
    resize_out_contiguous("pow", out, result, exponent);
  }
  binary_meta(it, "pow", result, base_operand, &exponent, out, kind);
}

void clamp_tensor_meta(TensorIter& it, const char* name, ScalarType result, const Tensor& self, const Tensor* min,
                       const Tensor* max, Tensor& out, OutKind kind) {
  check_out(name, kind, out, result);
  it.add_output(&out, result, kind == OutKind::Out).add_input(self);
  if (min) it.add_input(*min);
  if (max) it.add_input(*max);
  it.build();
}

void logical_meta(TensorIter& it, const char* name, const Tensor& self, const Tensor& other, Tensor& out,
                  OutKind kind) {
  check_defined(name, self, "self");
  check_defined(name, other, "other");
  if (kind != OutKind::Functional) check_defined(name, out, kind == OutKind::Out ? "out" : "self");
  (void)result_type(self, other);  // rejects what the backends reject
  it.add_output(&out, kBool, kind == OutKind::Out).add_input(self).add_input(other).build();
}

ScalarType compare_result(const char* name, const Tensor& a, const Tensor* bt, const Scalar* bs) {
  check_defined(name, a, "self");
  if (bt) check_defined(name, *bt, "other");
  return bs ? result_type(a, *bs) : result_type(a, *bt);
}

void compare_meta(TensorIter& it, const char* name, const Tensor& a, const Tensor* b_operand, Tensor& out,
                  OutKind kind) {
  if (kind != OutKind::Functional) check_defined(name, out, kind == OutKind::Out ? "out" : "self");
  it.add_output(&out, kBool, kind == OutKind::Out).add_input(a);
  if (b_operand) it.add_input(*b_operand);
  it.build();
}

ScalarType lerp_meta(TensorIter& it, const char* name, const Tensor& self, const Tensor& end, Tensor& out,
                     OutKind kind) {
  const ScalarType result = lerp_result(name, self, end);
  check_out(name, kind, out, result);
  it.add_output(&out, result, kind == OutKind::Out).add_input(self).add_input(end).build();
  return result;
}

ScalarType addcmul_meta(TensorIter& it, const char* name, const Tensor& self, const Tensor& tensor1,
                        const Tensor& tensor2, Tensor& out, OutKind kind) {
  const ScalarType result = addcmul_result(name, self, tensor1, tensor2);
  check_out(name, kind, out, result);
  it.add_output(&out, result, kind == OutKind::Out).add_input(self).add_input(tensor1).add_input(tensor2).build();
  return result;
}

ScalarType where_meta(TensorIter& it, const char* name, const Tensor& condition, const Tensor& self,
                      const Tensor& other, Tensor& out, OutKind kind) {
  const ScalarType result = where_result(name, condition, self, other);
  check_out(name, kind, out, result);
  it.add_output(&out, result, kind == OutKind::Out).add_input(condition).add_input(self).add_input(other).build();
  return result;
}

// ---- the meta functions: the metadata step on kMeta ---------------------------------------

namespace {
TensorIter meta_iter(const char* name) { return TensorIter(name, kMeta, nullptr); }
}  // namespace

#define EMBER_META_UNARY(name, rule)                                \
  void meta_##name(const Tensor& self, Tensor& out, OutKind kind) { \
    const char* op = EMBER_VARIANT_NAME(#name, kind);               \
    TensorIter it = meta_iter(op);                                  \
    unary_meta(it, op, unary_rules::rule, self, out, kind);         \
  }
EMBER_META_UNARY(neg, neg_c)
EMBER_META_UNARY(abs, abs_c)
EMBER_META_UNARY(sign, same)
EMBER_META_UNARY(exp, to_floating_c)
EMBER_META_UNARY(log, to_floating_c)
EMBER_META_UNARY(log1p, to_floating)
EMBER_META_UNARY(sqrt, to_floating_c)
EMBER_META_UNARY(rsqrt, to_floating)
EMBER_META_UNARY(sin, to_floating_c)
EMBER_META_UNARY(cos, to_floating_c)
EMBER_META_UNARY(tanh, to_floating_c)
EMBER_META_UNARY(sigmoid, to_floating)
EMBER_META_UNARY(erf, to_floating)
EMBER_META_UNARY(silu, floating_only)
EMBER_META_UNARY(logical_not, to_bool)
EMBER_META_UNARY(acos, to_floating)
EMBER_META_UNARY(acosh, to_floating)
EMBER_META_UNARY(asin, to_floating)
EMBER_META_UNARY(asinh, to_floating)
EMBER_META_UNARY(atan, to_floating)
EMBER_META_UNARY(atanh, to_floating)
EMBER_META_UNARY(tan, to_floating)
EMBER_META_UNARY(sinh, to_floating)
EMBER_META_UNARY(cosh, to_floating)
EMBER_META_UNARY(expm1, to_floating)
EMBER_META_UNARY(log2, to_floating)
EMBER_META_UNARY(log10, to_floating)
EMBER_META_UNARY(reciprocal, to_floating)
EMBER_META_UNARY(erfinv, to_floating)
EMBER_META_UNARY(lgamma, to_floating)
EMBER_META_UNARY(digamma, to_floating)
EMBER_META_UNARY(ceil, no_bool)
EMBER_META_UNARY(floor, no_bool)
EMBER_META_UNARY(trunc, no_bool)
EMBER_META_UNARY(round, no_bool)
EMBER_META_UNARY(frac, floating_only)
EMBER_META_UNARY(bitwise_not, integral_only)
EMBER_META_UNARY(isnan, to_bool_autogen_out)
EMBER_META_UNARY(isinf, to_bool_autogen_out)
EMBER_META_UNARY(angle, angle)
EMBER_META_UNARY(conj_physical, conj_physical)
#undef EMBER_META_UNARY

void meta_round_decimals(const Tensor& self, int64_t /*decimals*/, Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("round", kind);
  TensorIter it = meta_iter(op);
  unary_meta(it, op, unary_rules::floating_only, self, out, kind);
}

void meta_nan_to_num(const Tensor& self, std::optional<double> /*nan*/, std::optional<double> /*posinf*/,
                     std::optional<double> /*neginf*/, Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("nan_to_num", kind);
  TensorIter it = meta_iter(op);
  nan_to_num_meta(it, op, self, out, kind);
}

void meta_gelu(const Tensor& self, std::string_view approximate, Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("gelu", kind);
  (void)gelu_tanh(op, approximate);
  TensorIter it = meta_iter(op);
  unary_meta(it, op, unary_rules::floating_only, self, out, kind);
}

#define EMBER_META_ARITH(name, Op)                                                                            \
  void meta_##name(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) { \
    const char* op = EMBER_VARIANT_NAME(#name, kind);                                                         \
    TensorIter it = meta_iter(op);                                                                            \
    binary_meta(it, op, arith_result(op, Arith::Op, self, &other, nullptr, alpha), self, &other, out, kind);  \
  }
EMBER_META_ARITH(add, Add)
EMBER_META_ARITH(sub, Sub)
#undef EMBER_META_ARITH

#define EMBER_META_MULDIV(name, Op)                                                                      \
  void meta_##name(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                 \
    const char* op = EMBER_VARIANT_NAME(#name, kind);                                                    \
    TensorIter it = meta_iter(op);                                                                       \
    binary_meta(it, op, arith_result(op, Arith::Op, self, &other, nullptr, 1), self, &other, out, kind); \
  }
EMBER_META_MULDIV(mul, Mul)
EMBER_META_MULDIV(div, Div)
#undef EMBER_META_MULDIV

#define EMBER_META_LOGICAL(name)                                                         \
  void meta_##name(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) { \
    const char* op = EMBER_VARIANT_NAME(#name, kind);                                    \
    TensorIter it = meta_iter(op);                                                       \
    logical_meta(it, op, self, other, out, kind);                                        \
  }
EMBER_META_LOGICAL(logical_and)
EMBER_META_LOGICAL(logical_or)
EMBER_META_LOGICAL(logical_xor)
#undef EMBER_META_LOGICAL

#define EMBER_META_COMPARE(name)                                                                  \
  void meta_##name##_Tensor(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) { \
    const char* op = EMBER_VARIANT_NAME(#name, kind);                                             \
    TensorIter it = meta_iter(op);                                                                \
    compare_result(op, self, &other, nullptr);                                                    \
    compare_meta(it, op, self, &other, out, kind);                                                \
  }                                                                                               \
  void meta_##name##_Scalar(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) { \
    const char* op = EMBER_VARIANT_NAME(#name, kind);                                             \
    TensorIter it = meta_iter(op);                                                                \
    compare_result(op, self, nullptr, &other);                                                    \
    compare_meta(it, op, self, nullptr, out, kind);                                               \
  }
EMBER_META_COMPARE(eq)
EMBER_META_COMPARE(ne)
EMBER_META_COMPARE(lt)
EMBER_META_COMPARE(le)
EMBER_META_COMPARE(gt)
EMBER_META_COMPARE(ge)
#undef EMBER_META_COMPARE

void meta_pow_Tensor_Tensor(const Tensor& self, const Tensor& exponent, Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("pow", kind);
  TensorIter it = meta_iter(op);
  binary_meta(it, op, pow_result(op, self, &exponent, nullptr), self, &exponent, out, kind);
}
void meta_pow_Tensor_Scalar(const Tensor& self, const Scalar& exponent, Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("pow", kind);
  const ScalarType result = pow_result(op, self, nullptr, &exponent);
  if (kind == OutKind::Out) check_defined(op, out, "out");
  check_same_dtype_out(op, kind, out, result);  // LibTorch's pow.Tensor_Scalar is a unary op on self
  TensorIter it = meta_iter(op);
  binary_meta(it, op, result, self, nullptr, out, kind);
}

void meta_clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, Tensor& out,
                OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("clamp", kind);
  TensorIter it = meta_iter(op);
  binary_meta(it, op, clamp_result(op, self, min, max), self, nullptr, out, kind);
}

void meta_threshold_backward_grad_input(const Tensor& grad_output, const Tensor& self, const Scalar& /*threshold*/,
                                        Tensor& grad_input, OutKind kind) {
  TensorIter it = meta_iter("threshold_backward");
  binary_meta(it, "threshold_backward", threshold_backward_result("threshold_backward", grad_output, self), grad_output,
              &self, grad_input, kind);
}

void meta_lerp_Scalar(const Tensor& self, const Tensor& end, const Scalar& /*weight*/, Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("lerp", kind);
  TensorIter it = meta_iter(op);
  lerp_meta(it, op, self, end, out, kind);
}

void meta_addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& /*value*/,
                  Tensor& out, OutKind kind) {
  const char* op = EMBER_VARIANT_NAME("addcmul", kind);
  TensorIter it = meta_iter(op);
  addcmul_meta(it, op, self, tensor1, tensor2, out, kind);
}

void meta_where_self(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  TensorIter it = meta_iter("where");
  where_meta(it, "where", condition, self, other, out, kind);
}

// ---- binary math (plugins/cpu/binary_math.cpp) ----------------------------------------------

#define EMBER_META_TT(fn, op, Rule)                                                                              \
  void fn(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                                  \
    const char* name = EMBER_VARIANT_NAME(op, kind);                                                             \
    TensorIter it = meta_iter(name);                                                                             \
    binary_meta(it, name, binary_math_result(name, BinaryMathRule::Rule, &self, nullptr, &other, nullptr), self, \
                &other, out, kind);                                                                              \
  }
#define EMBER_META_TS(fn, op, Rule)                                                                              \
  void fn(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) {                                  \
    const char* name = EMBER_VARIANT_NAME(op, kind);                                                             \
    TensorIter it = meta_iter(name);                                                                             \
    binary_meta(it, name, binary_math_result(name, BinaryMathRule::Rule, &self, nullptr, nullptr, &other), self, \
                nullptr, out, kind);                                                                             \
  }
EMBER_META_TT(meta_atan2, "atan2", ToFloating)
EMBER_META_TT(meta_maximum, "maximum", Any)
EMBER_META_TT(meta_minimum, "minimum", Any)
EMBER_META_TT(meta_fmod_Tensor, "fmod", NoBool)
EMBER_META_TS(meta_fmod_Scalar, "fmod", NoBool)
EMBER_META_TT(meta_remainder_Tensor, "remainder", NoBool)
EMBER_META_TS(meta_remainder_Scalar, "remainder", NoBool)
EMBER_META_TT(meta_floor_divide, "floor_divide", NoBool)
EMBER_META_TT(meta_bitwise_and_Tensor, "bitwise_and", Integral)
EMBER_META_TS(meta_bitwise_and_Scalar, "bitwise_and", Integral)
EMBER_META_TT(meta_bitwise_or_Tensor, "bitwise_or", Integral)
EMBER_META_TS(meta_bitwise_or_Scalar, "bitwise_or", Integral)
EMBER_META_TT(meta_bitwise_xor_Tensor, "bitwise_xor", Integral)
EMBER_META_TS(meta_bitwise_xor_Scalar, "bitwise_xor", Integral)
#undef EMBER_META_TT
#undef EMBER_META_TS

void meta_remainder_Scalar_Tensor(const Scalar& self, const Tensor& other, Tensor& out, OutKind kind) {
  TensorIter it = meta_iter("remainder");
  binary_meta(it, "remainder", binary_math_result("remainder", BinaryMathRule::NoBool, nullptr, &self, &other, nullptr),
              other, nullptr, out, kind);
}

void meta_div_out_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                       Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("div", kind);
  TensorIter it = meta_iter(name);
  binary_meta(it, name, div_mode_result(name, div_mode(name, rounding_mode), self, &other, nullptr), self, &other, out,
              kind);
}
void meta_div_Scalar_mode(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode,
                          Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("div", kind);
  const ScalarType result = div_mode_result(name, div_mode(name, rounding_mode), self, nullptr, &other);
  if (kind == OutKind::Out) resize_out_contiguous(name, out, result, self);  // as the cpu kernel
  TensorIter it = meta_iter(name);
  binary_meta(it, name, result, self, nullptr, out, kind);
}

void meta_pow_Scalar(const Scalar& self, const Tensor& exponent, Tensor& out, OutKind kind) {
  TensorIter it = meta_iter("pow");
  const ScalarType result = pow_scalar_base_result("pow", self, exponent);
  pow_scalar_meta(it, result, empty_on(kMeta, {}, result), exponent, out, kind);
}

void meta_clamp_Tensor(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                       Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("clamp", kind);
  const Tensor* lo = min && min->defined() ? &*min : nullptr;
  const Tensor* hi = max && max->defined() ? &*max : nullptr;
  TensorIter it = meta_iter(name);
  clamp_tensor_meta(it, name, clamp_tensor_result(name, self, lo, hi), self, lo, hi, out, kind);
}
void meta_clamp_min_Tensor(const Tensor& self, const Tensor& min, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("clamp_min", kind);
  TensorIter it = meta_iter(name);
  clamp_tensor_meta(it, name, clamp_tensor_result(name, self, &min, nullptr), self, &min, nullptr, out, kind);
}
void meta_clamp_max_Tensor(const Tensor& self, const Tensor& max, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("clamp_max", kind);
  TensorIter it = meta_iter(name);
  clamp_tensor_meta(it, name, clamp_tensor_result(name, self, nullptr, &max), self, nullptr, &max, out, kind);
}
void meta_clamp_min(const Tensor& self, const Scalar& min, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("clamp_min", kind);
  TensorIter it = meta_iter(name);
  binary_meta(it, name, clamp_result(name, self, min, std::nullopt), self, nullptr, out, kind);
}
void meta_clamp_max(const Tensor& self, const Scalar& max, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("clamp_max", kind);
  TensorIter it = meta_iter(name);
  binary_meta(it, name, clamp_result(name, self, std::nullopt, max), self, nullptr, out, kind);
}

void meta_hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("hardtanh", kind);
  TensorIter it = meta_iter(name);
  binary_meta(it, name, hardtanh_result(name, self, min_val, max_val), self, nullptr, out, kind);
}

namespace {
void activation_meta(const char* name, const Tensor& self, Tensor& out, OutKind kind) {
  TensorIter it = meta_iter(name);
  binary_meta(it, name, activation_result(name, self), self, nullptr, out, kind);
}
}  // namespace

void meta_leaky_relu(const Tensor& self, const Scalar& /*negative_slope*/, Tensor& out, OutKind kind) {
  activation_meta(EMBER_VARIANT_NAME("leaky_relu", kind), self, out, kind);
}
void meta_elu(const Tensor& self, const Scalar& /*alpha*/, const Scalar& /*scale*/, const Scalar& /*input_scale*/,
              Tensor& out, OutKind kind) {
  activation_meta(EMBER_VARIANT_NAME("elu", kind), self, out, kind);
}
void meta_softplus(const Tensor& self, const Scalar& /*beta*/, const Scalar& /*threshold*/, Tensor& out, OutKind kind) {
  activation_meta("softplus", self, out, kind);
}
void meta_hardswish(const Tensor& self, Tensor& out, OutKind kind) {
  activation_meta(EMBER_VARIANT_NAME("hardswish", kind), self, out, kind);
}
void meta_hardsigmoid(const Tensor& self, Tensor& out, OutKind kind) {
  activation_meta(EMBER_VARIANT_NAME("hardsigmoid", kind), self, out, kind);
}
void meta_mish(const Tensor& self, Tensor& out, OutKind kind) {
  activation_meta(EMBER_VARIANT_NAME("mish", kind), self, out, kind);
}

}  // namespace ember::native
