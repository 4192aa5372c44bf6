#pragma once
// The unary elementwise kinds of the backends' kernels and the traits their dtype rules and
// loops share (the cpu loops, the GPU kernels). Plain C++: device compilers include it too.
#include <cstdint>

namespace ember::native {

enum class UnaryKind : uint8_t {
  // dtype kept
  Neg,
  Abs,
  Sign,
  Relu,
  Ceil,
  Floor,
  Trunc,
  Round,
  BitwiseNot,
  // integers give the default floating dtype
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Erf,
  Acos,
  Acosh,
  Asin,
  Asinh,
  Atan,
  Atanh,
  Tan,
  Sinh,
  Cosh,
  Expm1,
  Log2,
  Log10,
  Reciprocal,
  Erfinv,
  Lgamma,
  Digamma,
  // floating only
  Frac,
  GeluErf,
  GeluTanh,
  Silu,
  // to kBool
  LogicalNot,
  IsNan,
  IsInf,
  IsFinite,
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
