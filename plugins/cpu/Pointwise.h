#pragma once
// Internal to the CPU plugin: the pointwise kernels (unary.cpp, pointwise.cpp) and the
// n-ary run loop they share.
// See Note [CPU elementwise loops] in Loops.h: run_nary is layer 3 for one to three inputs.
#include <optional>
#include <string_view>

#include "Loops.h"
#include "VecMath.h"
#include "ember/native/PointwiseMath.h"

namespace ember::cpu {

// ---- contiguous n-ary loops, compiled per ISA -------------------------------------------------

// out[i] = op(in0[i], ...) over contiguous arrays of the compute type C.
template <class R, class C, int N, class Op>
EMBER_ALWAYS_INLINE void nary_body(R* __restrict out, const C* const* in, int64_t n, const Op& op) {
  const C* __restrict a = in[0];
  if constexpr (N == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i]);
  } else if constexpr (N == 2) {
    const C* __restrict b = in[1];
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else {
    static_assert(N == 3, "run_nary takes one to three inputs");
    const C* __restrict b = in[1];
    const C* __restrict c = in[2];
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i], c[i]);
  }
}

template <class R, class C, int N, class Op>
EMBER_NOINLINE void nary_loop_baseline(R* out, const C* const* in, int64_t n, const Op& op) {
  nary_body<R, C, N>(out, in, n, op);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <class R, class C, int N, class Op>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void nary_loop_avx2(R* out, const C* const* in, int64_t n, const Op& op) {
  nary_body<R, C, N>(out, in, n, op);
}
template <class R, class C, int N, class Op>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void nary_loop_avx512(R* out, const C* const* in, int64_t n, const Op& op) {
  nary_body<R, C, N>(out, in, n, op);
}
#endif

// An op with a float32 vector form (Note [CPU vector math]) says so with a `kVec` member: the
// VecOp, or -1 for none.
template <class Op, class = void>
struct VecOpOf {
  static constexpr int value = -1;
};
template <class Op>
struct VecOpOf<Op, std::void_t<decltype(Op::kVec)>> {
  static constexpr int value = Op::kVec;
};

template <class R, class C, int N, class Op>
EMBER_ALWAYS_INLINE void nary_loop_serial(R* out, const C* const* in, int64_t n, const Op& op) {
  if constexpr (N == 1 && std::is_same_v<R, float> && std::is_same_v<C, float> && VecOpOf<Op>::value >= 0) {
    if (vec_unary_f32(static_cast<VecOp>(VecOpOf<Op>::value), in[0], out, n)) return;
  }
#if defined(EMBER_CPU_MULTI_ISA)
  if (cpu_isa() == Isa::Avx512) return nary_loop_avx512<R, C, N>(out, in, n, op);
  if (cpu_isa() == Isa::Avx2) return nary_loop_avx2<R, C, N>(out, in, n, op);
#endif
  nary_loop_baseline<R, C, N>(out, in, n, op);
}

template <class R, class C, int N, class Op>
EMBER_NOINLINE void nary_loop_parallel(R* out, const C* const* in, int64_t n, const Op& op) {
  parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
    const C* part[N];
    for (int k = 0; k < N; ++k) part[k] = in[k] + s;
    nary_loop_serial<R, C, N>(out + s, part, e - s, op);
  });
}

// The contiguous loop, split over the intra-op threads when it is long enough.
template <class R, class C, int N, class Op>
EMBER_ALWAYS_INLINE void nary_loop(R* out, const C* const* in, int64_t n, const Op& op) {
  if (n >= 2 * kGrainSize && !in_parallel_region()) return nary_loop_parallel<R, C, N>(out, in, n, op);
  nary_loop_serial<R, C, N>(out, in, n, op);
}

// Runs out = op(in...) on a built iterator with operands (out, in0, ..., in{N-1}): a run whose
// operands are contiguous and of the compute types goes straight to the loop; otherwise it is
// processed in chunks, each input gathered and converted to C (a stride-0 input is repeated),
// the result of type R converted to the output's dtype.
template <class R, class C, int N, class Op>
void run_nary(const TensorIter& it, const Op& op) {
  constexpr ScalarType rdt = scalar_type_of<R>, cdt = scalar_type_of<C>;
  const ScalarType odt = it.dtype(0);
  CastFn load[N];
  for (int k = 0; k < N; ++k) load[k] = cast_fn(it.dtype(k + 1), cdt);
  const CastFn store = cast_fn(rdt, odt);
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    bool direct = odt == rdt && s[0] == int64_t{sizeof(R)};
    for (int k = 0; k < N; ++k) direct = direct && it.dtype(k + 1) == cdt && s[k + 1] == int64_t{sizeof(C)};
    const C* in[N];
    if (direct) {
      for (int k = 0; k < N; ++k) in[k] = reinterpret_cast<const C*>(d[k + 1]);
      nary_loop<R, C, N>(reinterpret_cast<R*>(d[0]), in, n, op);
      return;
    }
    alignas(64) C buf[N][kChunk];
    alignas(64) R obuf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      const int64_t m = std::min(kChunk, n - i);
      for (int k = 0; k < N; ++k) {
        const char* src = d[k + 1] + i * s[k + 1];
        if (it.dtype(k + 1) == cdt && s[k + 1] == int64_t{sizeof(C)}) {
          in[k] = reinterpret_cast<const C*>(src);
        } else {
          load[k](src, s[k + 1], reinterpret_cast<char*>(buf[k]), sizeof(C), m);
          in[k] = buf[k];
        }
      }
      char* dst = d[0] + i * s[0];
      if (odt == rdt && s[0] == int64_t{sizeof(R)}) {
        nary_loop<R, C, N>(reinterpret_cast<R*>(dst), in, m, op);
      } else {
        nary_loop<R, C, N>(obuf, in, m, op);
        store(reinterpret_cast<const char*>(obuf), sizeof(R), dst, s[0], m);
      }
    }
  });
}

// ---- shared functors ----------------------------------------------------------------------------

// pow(a, b) (pointwise.cpp's pow and binary_math.cpp's pow with a Scalar base).
template <class C>
struct PowOp {
  EMBER_ALWAYS_INLINE C operator()(C a, C b) const {
    if constexpr (is_complex_v<C>) {
      // Small exponents by multiplication, as LibTorch's pow with a Scalar exponent (exact
      // where exp(b log a) is not).
      using R = real_of_t<C>;
      if (b.imag() == R(0)) {
        if (b.real() == R(2)) return a * a;
        if (b.real() == R(3)) return a * a * a;
        if (b.real() == R(0.5)) return std::sqrt(a);
        if (b.real() == R(-1)) return C(1) / a;
      }
      return std::pow(a, b);
    } else {
      return native::pow_value(a, b);
    }
  }
};

// ---- kernels (declared and registered by generated code) ------------------------------------

// unary.cpp: each op has a functional, an in-place and an out= kernel.
#define EMBER_CPU_DECLARE_UNARY(name) \
  Tensor name(const Tensor& self);    \
  Tensor& name##_(Tensor& self);      \
  Tensor& name##_out(const Tensor& self, Tensor& out);
EMBER_CPU_DECLARE_UNARY(neg)
EMBER_CPU_DECLARE_UNARY(abs)
EMBER_CPU_DECLARE_UNARY(sign)
EMBER_CPU_DECLARE_UNARY(exp)
EMBER_CPU_DECLARE_UNARY(log)
EMBER_CPU_DECLARE_UNARY(log1p)
EMBER_CPU_DECLARE_UNARY(sqrt)
EMBER_CPU_DECLARE_UNARY(rsqrt)
EMBER_CPU_DECLARE_UNARY(sin)
EMBER_CPU_DECLARE_UNARY(cos)
EMBER_CPU_DECLARE_UNARY(tanh)
EMBER_CPU_DECLARE_UNARY(sigmoid)
EMBER_CPU_DECLARE_UNARY(erf)
EMBER_CPU_DECLARE_UNARY(silu)
EMBER_CPU_DECLARE_UNARY(logical_not)
#undef EMBER_CPU_DECLARE_UNARY
Tensor gelu(const Tensor& self, std::string_view approximate);
Tensor& gelu_(Tensor& self, std::string_view approximate);

// pointwise.cpp
#define EMBER_CPU_DECLARE_LOGICAL(name)                 \
  Tensor name(const Tensor& self, const Tensor& other); \
  Tensor& name##_(Tensor& self, const Tensor& other);   \
  Tensor& name##_out(const Tensor& self, const Tensor& other, Tensor& out);
EMBER_CPU_DECLARE_LOGICAL(logical_and)
EMBER_CPU_DECLARE_LOGICAL(logical_or)
EMBER_CPU_DECLARE_LOGICAL(logical_xor)
#undef EMBER_CPU_DECLARE_LOGICAL

}  // namespace ember::cpu
