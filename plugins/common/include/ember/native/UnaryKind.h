#pragma once
// The unary elementwise kinds of the backends' kernels and the traits their dtype rules and
// loops share (the cpu loops, the GPU kernels). Plain C++: device compilers include it too.
#include <cstdint>

namespace ember::native {

// Every kind, in the enum's order (the traits below compare positions): neg .. bitwise_not keep
// the dtype; exp .. digamma give integers the default floating dtype; frac .. silu take floating
// inputs only; logical_not .. isfinite give kBool.
// clang-format off
#define EMBER_FORALL_UNARY_KINDS(_)                                                               \
  _(Neg) _(Abs) _(Sign) _(Relu) _(Ceil) _(Floor) _(Trunc) _(Round) _(BitwiseNot)                  \
  _(Exp) _(Log) _(Log1p) _(Sqrt) _(Rsqrt) _(Sin) _(Cos) _(Tanh) _(Sigmoid) _(Erf) _(Acos)         \
  _(Acosh) _(Asin) _(Asinh) _(Atan) _(Atanh) _(Tan) _(Sinh) _(Cosh) _(Expm1) _(Log2) _(Log10)     \
  _(Reciprocal) _(Erfinv) _(Lgamma) _(Digamma)                                                    \
  _(Frac) _(GeluErf) _(GeluTanh) _(Silu)                                                          \
  _(LogicalNot) _(IsNan) _(IsInf) _(IsFinite)

// The structured out= kernels each backend defines for a kind: (operator name, kind).
#define EMBER_FORALL_UNARY_OUT_OPS(_)                                                             \
  _(neg, Neg) _(abs, Abs) _(sign, Sign) _(exp, Exp) _(log, Log) _(log1p, Log1p) _(sqrt, Sqrt)      \
  _(rsqrt, Rsqrt) _(sin, Sin) _(cos, Cos) _(tanh, Tanh) _(sigmoid, Sigmoid) _(erf, Erf)            \
  _(silu, Silu) _(logical_not, LogicalNot) _(acos, Acos) _(acosh, Acosh) _(asin, Asin)             \
  _(asinh, Asinh) _(atan, Atan) _(atanh, Atanh) _(tan, Tan) _(sinh, Sinh) _(cosh, Cosh)            \
  _(expm1, Expm1) _(log2, Log2) _(log10, Log10) _(reciprocal, Reciprocal) _(ceil, Ceil)            \
  _(floor, Floor) _(trunc, Trunc) _(frac, Frac) _(round, Round) _(bitwise_not, BitwiseNot)         \
  _(erfinv, Erfinv) _(lgamma, Lgamma) _(digamma, Digamma) _(isnan, IsNan) _(isinf, IsInf)
// clang-format on

enum class UnaryKind : uint8_t {
#define EMBER_UNARY_ENUM_(K) K,
  EMBER_FORALL_UNARY_KINDS(EMBER_UNARY_ENUM_)
#undef EMBER_UNARY_ENUM_
};

// neg .. bitwise_not keep the input's dtype.
constexpr bool keeps_dtype(UnaryKind k) { return k <= UnaryKind::BitwiseNot; }
// frac, gelu, silu take floating inputs only.
constexpr bool floating_only(UnaryKind k) { return k >= UnaryKind::Frac && k <= UnaryKind::Silu; }
// logical_not, isnan, isinf, isfinite give kBool.
constexpr bool to_bool(UnaryKind k) { return k >= UnaryKind::LogicalNot; }
// Identity on integers (LibTorch's ceil/floor/trunc/round of an integer tensor).
constexpr bool rounding(UnaryKind k) { return k >= UnaryKind::Ceil && k <= UnaryKind::Round; }
// The kinds a complex input may take (Note [Complex tensors] in ember/native/Rules.h).
constexpr bool complex_ok(UnaryKind k) {
  return k == UnaryKind::Neg || k == UnaryKind::Abs || k == UnaryKind::Exp || k == UnaryKind::Log ||
         k == UnaryKind::Sqrt || k == UnaryKind::Sin || k == UnaryKind::Cos || k == UnaryKind::Tanh;
}

}  // namespace ember::native
