#pragma once
// Internal to the CPU plugin: float32 transcendentals over contiguous arrays, vectorised with
// SLEEF (1-ULP functions, as LibTorch uses) for AVX2 and AVX-512.
//
// Note [CPU vector math]
// ~~~~~~~~~~~~~~~~~~~~~~
// glibc's expf/tanhf/... are scalar unless built with -ffast-math, which would also change NaN
// and rounding semantics everywhere. So float32 exp-like ops call these functions instead: each
// ISA has its own translation unit (vecmath_avx2.cpp, vecmath_avx512.cpp) compiled with that
// ISA's flags, both built from the one body in VecMathImpl.h. Those TUs use no inline function
// or template shared with other TUs, so the linker can never pick an AVX-512 copy of a common
// function for code that runs on an older CPU. On a CPU without AVX2 (has_vec_math() false),
// vec_unary_f32 returns false and callers keep their scalar loop.
#include <cstdint>

namespace ember::cpu {

enum class VecOp : uint8_t {
  Exp,
  Log,
  Log1p,
  Sin,
  Cos,
  Tanh,
  Erf,
  Sigmoid,
  Silu,
  GeluErf,
  GeluTanh,
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
  Lgamma,
  Ceil,  // exact: SLEEF's rounding functions
  Floor,
  Trunc,
  Round,  // half to even
};

// y[i] = op(x[i]) for i < n (x == y allowed). False when this CPU has no vector version.
bool vec_unary_f32(VecOp op, const float* x, float* y, int64_t n);

enum class VecOp2 : uint8_t { Atan2, Fmod, Remainder, DivFloor };  // remainder, div floor: Python's
// y[i] = op(a[i], b[i]) for i < n; an operand whose flag is false is its first value repeated.
bool vec_binary_f32(VecOp2 op, const float* a, const float* b, float* y, int64_t n, bool a_vec, bool b_vec);

// True when this CPU has the vector versions (AVX2 or better); the two below need them.
bool has_vec_math();
// Softmax row pieces. max_f32: the row's maximum (NaN if any element is NaN; n > 0).
// exp_sum_f32: sum of exp(x[i] - m), also storing each term in y when y is not null.
float vec_max_f32(const float* x, int64_t n);
float vec_exp_sum_f32(const float* x, float m, float* y, int64_t n);

}  // namespace ember::cpu
