// The elementwise structured families' metadata step and their meta functions (the Meta kernels
// RegisterMeta.cpp registers). See ember/native/ElementwiseMeta.h.
#include "ember/native/ElementwiseMeta.h"

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
  }
  it.add_output(&out, result, kind == OutKind::Out).add_input(self).build();
  return result;
}

void binary_meta(TensorIter& it, const char* name, ScalarType result, const Tensor& a, const Tensor* b_operand,
                 Tensor& out, OutKind kind) {
  check_out(name, kind, out, result);
  it.add_output(&out, result, kind == OutKind::Out).add_input(a);
  if (b_operand) it.add_input(*b_operand);
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
EMBER_META_UNARY(angle, angle)
EMBER_META_UNARY(conj_physical, conj_physical)
#undef EMBER_META_UNARY

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
  TensorIter it = meta_iter(op);
  binary_meta(it, op, pow_result(op, self, nullptr, &exponent), self, nullptr, out, kind);
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

}  // namespace ember::native
