// The body of Note [CPU vector math], included once per ISA translation unit, which defines:
//   EMBER_VM_NS       the namespace of this copy (avx2, avx512)
//   EMBER_VM_W        float lanes per vector (8, 16)
//   EMBER_VM_NATIVE   the intrinsic vector type (__m256, __m512)
//   EMBER_VM_SLEEF(f) the SLEEF 1-ULP function for f (Sleef_expf8_u10avx2, ...)
//   EMBER_VM_SLEEF_EXACT(f) the SLEEF exact function f (Sleef_floorf8_avx2, ...)
// Everything here has internal linkage except the four entry points (see the Note).
#include <sleef.h>

#include <cmath>

#include "VecMath.h"

namespace ember::cpu::EMBER_VM_NS {
namespace {

constexpr int W = EMBER_VM_W;
typedef float V __attribute__((vector_size(W * 4)));
typedef int32_t I __attribute__((vector_size(W * 4)));

inline V load(const float* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, V v) { __builtin_memcpy(p, &v, sizeof v); }
inline V splat(float f) { return V{} + f; }
inline V select(I mask, V a, V b) { return (V)((mask & (I)a) | (~mask & (I)b)); }

#define EMBER_VM_FN(name)                                                                        \
  inline V v##name(V x) { return (V)EMBER_VM_SLEEF(name)((EMBER_VM_NATIVE)x); }
EMBER_VM_FN(exp)
EMBER_VM_FN(log)
EMBER_VM_FN(log1p)
EMBER_VM_FN(sin)
EMBER_VM_FN(cos)
EMBER_VM_FN(tanh)
EMBER_VM_FN(erf)
EMBER_VM_FN(acos)
EMBER_VM_FN(asin)
EMBER_VM_FN(atan)
EMBER_VM_FN(atanh)
EMBER_VM_FN(tan)
EMBER_VM_FN(sinh)
EMBER_VM_FN(cosh)
EMBER_VM_FN(expm1)
EMBER_VM_FN(log2)
EMBER_VM_FN(log10)
EMBER_VM_FN(lgamma)
#undef EMBER_VM_FN
// SLEEF's single-precision acosh and asinh hold only for |x| < 1.84e19 (they overflow to inf
// above); there log(2|x|) = log|x| + ln 2 is the value to float precision.
inline V vacosh(V x) {
  const V big = vlog(x) + splat(0.693147180559945309f);
  return select((I)(x > splat(1e18f)), big, (V)EMBER_VM_SLEEF(acosh)((EMBER_VM_NATIVE)x));
}
inline V vasinh(V x) {
  const V ax = select((I)(x < splat(0.0f)), -x, x);
  const V big = vlog(ax) + splat(0.693147180559945309f);
  const V sbig = select((I)(x < splat(0.0f)), -big, big);
  return select((I)(ax > splat(1e18f)), sbig, (V)EMBER_VM_SLEEF(asinh)((EMBER_VM_NATIVE)x));
}
inline V vatan2(V y, V x) { return (V)EMBER_VM_SLEEF(atan2)((EMBER_VM_NATIVE)y, (EMBER_VM_NATIVE)x); }
// SLEEF's fmodf gives NaN once |x / y| leaves float's range (1e30 mod 1e-30); those lanes take
// libm's exact fmod.
inline V vfmod(V x, V y) {
  V r = (V)EMBER_VM_SLEEF_EXACT(fmod)((EMBER_VM_NATIVE)x, (EMBER_VM_NATIVE)y);
  const I abs_mask = I{} + INT32_MAX;
  const V ratio = (V)((I)x & abs_mask) / (V)((I)y & abs_mask);
  const I far = (I)(ratio > splat(1e30f));
  bool any = false;
  for (int k = 0; k < W; ++k) any |= far[k] != 0;
  if (__builtin_expect(any, 0))
    for (int k = 0; k < W; ++k)
      if (far[k]) r[k] = std::fmod(x[k], y[k]);
  return r;
}
// The exact ones (no ULP suffix).
#define EMBER_VM_EXACT(name) \
  inline V v##name(V x) { return (V)EMBER_VM_SLEEF_EXACT(name)((EMBER_VM_NATIVE)x); }
EMBER_VM_EXACT(ceil)
EMBER_VM_EXACT(floor)
EMBER_VM_EXACT(trunc)
EMBER_VM_EXACT(rint)
#undef EMBER_VM_EXACT

// Python's remainder and floor division (binary_math.cpp's scalar forms, lane by lane): the
// remainder takes the divisor's sign; the quotient is exact for quotients of integers, its zero
// signed as a / b, and a / b itself for a zero divisor.
// The lanes where fmod's m moves by one divisor for Python's sign: m nonzero, its sign not b's.
inline I python_adjust(V m, V b) { return (I)(m != splat(0.0f)) & ((I)(b < splat(0.0f)) ^ (I)(m < splat(0.0f))); }
inline V vremainder(V a, V b) {
  const V m = vfmod(a, b);
  return select(python_adjust(m, b), m + b, m);
}
inline V vdiv_floor(V a, V b) {
  const V q = a / b, m = vfmod(a, b);
  V div = (a - m) / b;
  div = select(python_adjust(m, b), div - splat(1.0f), div);
  V fl = vfloor(div);
  fl = select((I)(div - fl > splat(0.5f)), fl + splat(1.0f), fl);
  const V signed_zero = (V)((I)q & (I{} + INT32_MIN));  // q's sign bit (splat(-0.0f) is +0: 0 + -0)
  fl = select((I)(div == splat(0.0f)), signed_zero, fl);
  return select((I)(b == splat(0.0f)), q, fl);
}

inline V apply(VecOp op, V x) {
  const V one = splat(1.0f), half = splat(0.5f);
  switch (op) {
    case VecOp::Exp: return vexp(x);
    case VecOp::Log: return vlog(x);
    case VecOp::Log1p: return vlog1p(x);
    case VecOp::Sin: return vsin(x);
    case VecOp::Cos: return vcos(x);
    case VecOp::Tanh: return vtanh(x);
    case VecOp::Erf: return verf(x);
    case VecOp::Sigmoid: return one / (one + vexp(-x));
    case VecOp::Silu: return x / (one + vexp(-x));
    case VecOp::GeluErf: return half * x * (one + verf(x * splat(0.70710678118654752f)));
    case VecOp::Acos: return vacos(x);
    case VecOp::Acosh: return vacosh(x);
    case VecOp::Asin: return vasin(x);
    case VecOp::Asinh: return vasinh(x);
    case VecOp::Atan: return vatan(x);
    case VecOp::Atanh: return vatanh(x);
    case VecOp::Tan: return vtan(x);
    case VecOp::Sinh: return vsinh(x);
    case VecOp::Cosh: return vcosh(x);
    case VecOp::Expm1: return vexpm1(x);
    case VecOp::Log2: return vlog2(x);
    case VecOp::Log10: return vlog10(x);
    case VecOp::Lgamma: return vlgamma(x);
    case VecOp::Ceil: return vceil(x);
    case VecOp::Floor: return vfloor(x);
    case VecOp::Trunc: return vtrunc(x);
    case VecOp::Round: return vrint(x);  // the default rounding mode: half to even
    case VecOp::GeluTanh: {
      const V inner = splat(0.79788456080286536f) * (x + splat(0.044715f) * x * x * x);
      return half * x * (one + vtanh(inner));
    }
  }
  return x;
}

// The last n < W elements through a padded buffer (pad: a value whose result is harmless).
template <class F>
inline V tail(const float* x, int64_t n, float pad, F f) {
  float buf[W];
  for (int k = 0; k < W; ++k) buf[k] = k < n ? x[k] : pad;
  return f(load(buf));
}

}  // namespace

void unary(VecOp op, const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) store(y + i, apply(op, load(x + i)));
  if (i < n) {
    const V r = tail(x + i, n - i, 1.0f, [&](V v) { return apply(op, v); });
    for (int64_t k = 0; k < n - i; ++k) y[i + k] = r[k];
  }
}

void binary(VecOp2 op, const float* a, const float* b, float* y, int64_t n, bool a_vec, bool b_vec) {
  auto f = [op](V u, V v) {
    switch (op) {
      case VecOp2::Atan2: return vatan2(u, v);
      case VecOp2::Fmod: return vfmod(u, v);
      case VecOp2::Remainder: return vremainder(u, v);
      case VecOp2::DivFloor: return vdiv_floor(u, v);
    }
    return vfmod(u, v);
  };
  const V as = splat(*a), bs = splat(*b);
  int64_t i = 0;
  for (; i + W <= n; i += W) store(y + i, f(a_vec ? load(a + i) : as, b_vec ? load(b + i) : bs));
  if (i < n) {
    float ab[W], bb[W];
    for (int k = 0; k < W; ++k) {
      ab[k] = k < n - i ? (a_vec ? a[i + k] : *a) : 1.0f;
      bb[k] = k < n - i ? (b_vec ? b[i + k] : *b) : 1.0f;
    }
    const V r = f(load(ab), load(bb));
    for (int64_t k = 0; k < n - i; ++k) y[i + k] = r[k];
  }
}

float max(const float* x, int64_t n) {
  V m = splat(-__builtin_inff());
  I nan = I{};
  auto step = [&](V v) {
    nan |= (I)(v != v);
    m = select((I)(v > m), v, m);
  };
  int64_t i = 0;
  for (; i + W <= n; i += W) step(load(x + i));
  if (i < n) tail(x + i, n - i, -__builtin_inff(), [&](V v) { step(v); return v; });
  float r = m[0];
  int any_nan = 0;
  for (int k = 0; k < W; ++k) {
    r = m[k] > r ? m[k] : r;
    any_nan |= nan[k];
  }
  return any_nan ? __builtin_nanf("") : r;
}

float exp_sum(const float* x, float mx, float* y, int64_t n) {
  const V vm = splat(mx);
  V s = V{};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const V e = vexp(load(x + i) - vm);
    if (y) store(y + i, e);
    s += e;
  }
  if (i < n) {
    // -inf pads contribute exp(-inf) = 0.
    const V e = tail(x + i, n - i, -__builtin_inff(), [&](V v) { return vexp(v - vm); });
    if (y)
      for (int64_t k = 0; k < n - i; ++k) y[i + k] = e[k];
    s += e;
  }
  float r = 0;
  for (int k = 0; k < W; ++k) r += s[k];
  return r;
}

}  // namespace ember::cpu::EMBER_VM_NS
