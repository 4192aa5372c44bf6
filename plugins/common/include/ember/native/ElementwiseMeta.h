#pragma once
// The metadata step of the elementwise structured families (Note [Structured kernels]): the
// family's dtype rule, the in-place/out= checks and the TensorIter build, on the device of the
// TensorIter passed in. A cpu kernel runs it on its own TensorIter and then its loops; the
// family's meta function (ember/generated/StructuredMeta.h, StructuredMeta.cpp) runs it on kMeta
// and stops. So both give the same sizes, strides, dtypes and errors by construction.
#include <array>
#include <optional>

#include "ember/native/Geometry.h"
#include "ember/native/Rules.h"
#include "ember/native/UnaryKind.h"
#include "ember/plugin/Structured.h"

namespace ember::native {

// The name an error of the family's variant `kind` leads with: "neg_" in place, else "neg"
// (`base` a string literal; no string is built on the call path).
#define EMBER_VARIANT_NAME(base, kind) ((kind) == ::ember::OutKind::InPlace ? base "_" : base)

// The dtype rule of a unary kind (the cpu and GPU kernels and the meta functions share it).
constexpr const UnaryRule& unary_rule_of(UnaryKind k) {
  namespace r = unary_rules;
  if (k == UnaryKind::IsNan || k == UnaryKind::IsInf) return r::to_bool_autogen_out;
  if (to_bool(k)) return r::to_bool;
  if (k == UnaryKind::Neg) return r::neg_c;
  if (k == UnaryKind::Abs) return r::abs_c;
  if (k == UnaryKind::Relu || rounding(k)) return r::no_bool;
  if (k == UnaryKind::Sign) return r::same;
  if (k == UnaryKind::BitwiseNot) return r::integral_only;
  if (floating_only(k)) return r::floating_only;
  if (complex_ok(k)) return r::to_floating_c;
  return r::to_floating;
}

// out = op(self): result dtype from `rule`. Returns the result dtype.
ScalarType unary_meta(TensorIter& it, const char* name, const UnaryRule& rule, const Tensor& self, Tensor& out,
                      OutKind kind);
// out = nan_to_num(self): self's dtype, and out= of exactly that dtype (LibTorch's rule).
ScalarType nan_to_num_meta(TensorIter& it, const char* name, const Tensor& self, Tensor& out, OutKind kind);
// nan_to_num's replacements for NaN, +inf and -inf, each rounded to the result dtype first
// (LibTorch's static_cast<scalar_t>: a float16 result gets 65504 for +inf and inf for 1e10); the
// defaults are 0 and the dtype's largest finite values.
std::array<double, 3> nan_to_num_values(ScalarType result, std::optional<double> nan, std::optional<double> posinf,
                                        std::optional<double> neginf);
// LibTorch's unary_op configuration (check_all_same_dtype): an out= must have the result's dtype
// exactly, where the promoting families cast into it.
void check_same_dtype_out(const char* name, OutKind kind, const Tensor& out, ScalarType result);

// LibTorch's layout for an out= it resizes without the inputs' strides (a generated out=, or a
// meta function that gives no strides): out checked for `result`, then resized contiguous to
// like's sizes (kept as it is when they match).
void resize_out_contiguous(const char* name, Tensor& out, ScalarType result, const Tensor& like);

// pow(Scalar base, exponent): binary_meta over the base's operand and the exponent, except that
// the result is contiguous, functional or out= (LibTorch's pow.Scalar meta gives no strides).
void pow_scalar_meta(TensorIter& it, ScalarType result, const Tensor& base_operand, const Tensor& exponent,
                     Tensor& out, OutKind kind);

// out = f(a, b) for add/sub/mul/div, pow and clamp: the out checks and `it` over a and
// `b_operand` (a backend's 0-dim tensor for a Scalar; null: a only), for the `result` dtype the
// family's rule (arith_result, pow_result, clamp_result in ember/native/Rules.h) gave. The caller
// runs the rule first, once: a backend needs its dtype to make the Scalar's operand.
void binary_meta(TensorIter& it, const char* name, ScalarType result, const Tensor& a, const Tensor* b_operand,
                 Tensor& out, OutKind kind);
// clamp(self, min, max) with tensor bounds (either may be null), for the `result` dtype of
// clamp_tensor_result.
void clamp_tensor_meta(TensorIter& it, const char* name, ScalarType result, const Tensor& self, const Tensor* min,
                       const Tensor* max, Tensor& out, OutKind kind);
// logical_and/or/xor: kBool, or 0/1 in the out/self dtype in place and out=.
void logical_meta(TensorIter& it, const char* name, const Tensor& self, const Tensor& other, Tensor& out, OutKind kind);
// eq/ne/lt/le/gt/ge of a and b, b a tensor (`bt`) or a Scalar (`bs`): checks the operands and
// returns the dtype they compare in.
ScalarType compare_result(const char* name, const Tensor& a, const Tensor* bt, const Scalar* bs);
// Their metadata step, after compare_result: kBool, or 0/1 in the out/self dtype in place and
// out=; `b_operand` as binary_meta's.
void compare_meta(TensorIter& it, const char* name, const Tensor& a, const Tensor* b_operand, Tensor& out,
                  OutKind kind);
// out = lerp(self, end, weight) (floating, one dtype); the weight needs no check.
ScalarType lerp_meta(TensorIter& it, const char* name, const Tensor& self, const Tensor& end, Tensor& out,
                     OutKind kind);
// out = self + value * tensor1 * tensor2; the value needs no check.
ScalarType addcmul_meta(TensorIter& it, const char* name, const Tensor& self, const Tensor& tensor1,
                        const Tensor& tensor2, Tensor& out, OutKind kind);
// out = condition ? self : other (condition a bool tensor; self and other promoted).
ScalarType where_meta(TensorIter& it, const char* name, const Tensor& condition, const Tensor& self,
                      const Tensor& other, Tensor& out, OutKind kind);

}  // namespace ember::native
