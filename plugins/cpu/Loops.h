#pragma once
// Internal to the CPU plugin: dtype dispatch, conversions, and TensorIter, the strided
// broadcasting iterator every elementwise and reduction kernel runs on. Type promotion and
// TensorIter's geometry are shared with the meta plugin (Note [Kernel metadata helpers] in
// ember/native/Geometry.h).
//
// Note [CPU elementwise loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A kernel has three layers:
//  1. Fast path, in the op's file: operands that are contiguous, of one shape and one dtype (or
//     a tensor and a Scalar) run the contiguous loop over the whole buffer. No iterator, no heap
//     allocation beyond the output: this is what keeps a 1-element add near the dispatch cost.
//  2. TensorIter (ember/native/Geometry.h, shared with the meta plugin): broadcasts the operands
//     to one shape, computes byte strides, orders the dimensions by the inputs' strides (so the
//     output of a transposed input is laid out like it, as PyTorch's TensorIterator does),
//     coalesces dimensions, allocates outputs, and calls a loop on 1-d runs:
//     loop(char** data, const int64_t* strides, int64_t n).
//  3. Run loops (run_binary, ...): a run whose operands are all contiguous (or stride 0) and of
//     the compute dtype goes straight to the contiguous loop; otherwise it is processed in chunks
//     of kChunk elements, each input gathered and converted to the compute dtype into a stack
//     buffer (cast_fn), the contiguous loop run on the buffers, and the result converted back.
//     So each op is instantiated only for its compute types (float16 and bfloat16 compute in
//     float), and any dtype or stride mix works without a combinatorial set of kernels.
// Contiguous loops are compiled three times (x86-64 baseline, AVX2, AVX-512) with target
// attributes and picked from the CPU's features detected at load time (cpu_isa()): one plugin
// binary runs on any x86-64 and uses AVX-512 where present.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "DtypeVisit.h"
#include "VecMath.h"
#include "ember/core/Parallel.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/native/Geometry.h"
#include "ember/native/Rules.h"

namespace ember::cpu {

// ---- conversions (PyTorch's c10::convert semantics) ----------------------------------------

template <class T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class To, class From>
EMBER_ALWAYS_INLINE To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    // complex -> complex keeps both parts; -> bool tests both; -> real drops the imaginary part
    // (LibTorch 1.13 warns, then does the same).
    if constexpr (is_complex_v<To>)
      return To(static_cast<typename To::value_type>(v.real()), static_cast<typename To::value_type>(v.imag()));
    else if constexpr (std::is_same_v<To, bool>)
      return v.real() != 0 || v.imag() != 0;
    else
      return convert<To>(v.real());
  } else if constexpr (is_complex_v<To>) {
    return To(convert<typename To::value_type>(v), typename To::value_type(0));
  } else if constexpr (is_reduced_float_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(v));  // -1.0 -> 255, as c10 does
  } else {
    return static_cast<To>(v);
  }
}

template <class T>
EMBER_ALWAYS_INLINE T scalar_to(const Scalar& s) {
  if constexpr (is_complex_v<T>)
    return T(s.toComplexDouble());
  else if constexpr (std::is_same_v<T, bool>)
    return s.toBool();
  else if constexpr (std::is_integral_v<T>) {
    // Through int64 (wrapping), or from the double for a floating Scalar.
    return s.isFloatingPoint() ? convert<T>(s.toDouble()) : static_cast<T>(s.toLong());
  } else if constexpr (is_reduced_float_v<T>)
    return T(static_cast<float>(s.toDouble()));
  else
    return static_cast<T>(s.toDouble());
}

// A Scalar converted to dtype T, throwing when the value does not fit (c10's checked_convert,
// as LibTorch's fill_ and full do; native::check_scalar_fits). Negative integers may wrap into
// uint8, as in c10.
template <class T>
T checked_scalar_to(const Scalar& s, const char* op) {
  native::check_scalar_fits(s, scalar_type_of<T>, op);
  return scalar_to<T>(s);
}

// Reads element 0 of `p` (dtype t) as a Scalar.
Scalar load_scalar(const void* p, ScalarType t);

// A strided conversion of n elements: dst[i * dstride] = convert(src[i * sstride]); byte strides.
using CastFn = void (*)(const char* src, int64_t sstride, char* dst, int64_t dstride, int64_t n);
CastFn cast_fn(ScalarType from, ScalarType to);

// ---- type promotion (PyTorch's rules): ember/native/Geometry.h ----------------------------

using native::can_cast;
using native::promote_types;
using native::result_type;
using native::ResultType;

// ---- CPU feature level ------------------------------------------------------------------------

enum class Isa : uint8_t { Baseline = 0, Avx2 = 1, Avx512 = 2 };
namespace detail {
extern Isa g_isa;
}
// Detects the CPU's features; the registration block calls it before any kernel can run.
// EMBER_CPU_ISA=baseline|avx2|avx512 caps the choice (to test the other paths).
void init_cpu_isa();
inline Isa cpu_isa() { return detail::g_isa; }

#if defined(__x86_64__) && defined(__GNUC__)
#define EMBER_CPU_MULTI_ISA 1
#define EMBER_CPU_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#define EMBER_CPU_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#endif

// ---- contiguous loops ---------------------------------------------------------------------------

// out[i] = op(a[i], b[i]) over contiguous arrays; an input whose `vec` flag is false is one value
// broadcast over the run (stride 0). Each body is inlined into one function per ISA below, so
// the compiler vectorizes it for that ISA.
template <class R, class C, class Op>
EMBER_ALWAYS_INLINE void binary_body(R* __restrict out, const C* __restrict a, const C* __restrict b, int64_t n,
                                     bool a_vec, bool b_vec, const Op& op) {
  if (a_vec && b_vec) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else if (a_vec) {
    const C bv = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], bv);
  } else if (b_vec) {
    const C av = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = op(av, b[i]);
  } else {
    const R v = op(*a, *b);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

template <class R, class C, class Op>
EMBER_NOINLINE void binary_loop_baseline(R* out, const C* a, const C* b, int64_t n, bool av, bool bv, const Op& op) {
  binary_body(out, a, b, n, av, bv, op);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <class R, class C, class Op>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void binary_loop_avx2(R* out, const C* a, const C* b, int64_t n, bool av, bool bv,
                                                           const Op& op) {
  binary_body(out, a, b, n, av, bv, op);
}
template <class R, class C, class Op>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void binary_loop_avx512(R* out, const C* a, const C* b, int64_t n, bool av,
                                                               bool bv, const Op& op) {
  binary_body(out, a, b, n, av, bv, op);
}
#endif

// A binary op with a float32 vector form (Note [CPU vector math]) says so with a `kVec2` member:
// the VecOp2, or -1 for none.
template <class Op, class = void>
struct VecOp2Of {
  static constexpr int value = -1;
};
template <class Op>
struct VecOp2Of<Op, std::void_t<decltype(Op::kVec2)>> {
  static constexpr int value = Op::kVec2;
};

template <class R, class C, class Op>
EMBER_ALWAYS_INLINE void binary_loop_serial(R* out, const C* a, const C* b, int64_t n, bool av, bool bv, const Op& op) {
  if constexpr (std::is_same_v<R, float> && std::is_same_v<C, float> && VecOp2Of<Op>::value >= 0) {
    if (vec_binary_f32(static_cast<VecOp2>(VecOp2Of<Op>::value), a, b, out, n, av, bv)) return;
  }
#if defined(EMBER_CPU_MULTI_ISA)
  if (cpu_isa() == Isa::Avx512) return binary_loop_avx512(out, a, b, n, av, bv, op);
  if (cpu_isa() == Isa::Avx2) return binary_loop_avx2(out, a, b, n, av, bv, op);
#endif
  binary_loop_baseline(out, a, b, n, av, bv, op);
}

template <class R, class C, class Op>
EMBER_NOINLINE void binary_loop_parallel(R* out, const C* a, const C* b, int64_t n, bool av, bool bv, const Op& op) {
  parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
    binary_loop_serial(out + s, av ? a + s : a, bv ? b + s : b, e - s, av, bv, op);
  });
}

// The contiguous loop, split over the intra-op threads when it is long enough.
template <class R, class C, class Op>
EMBER_ALWAYS_INLINE void binary_loop(R* out, const C* a, const C* b, int64_t n, bool av, bool bv, const Op& op) {
  if (n >= 2 * kGrainSize && !in_parallel_region()) return binary_loop_parallel(out, a, b, n, av, bv, op);
  binary_loop_serial(out, a, b, n, av, bv, op);
}

// ---- geometry helpers (ember/native/Geometry.h) and the CPU's own -------------------------

using native::broadcast_shapes;
using native::check_defined;
using native::DimVector;
using native::has_internal_overlap;
using native::is_non_overlapping_and_dense;
using native::kMaxOperands;
using native::partially_overlaps;
using native::resize_output;
using native::same_storage;

// Throws unless every tensor is on the CPU (the message names both devices).
void check_cpu(const char* op, const Tensor& a);
void check_cpu(const char* op, const Tensor& a, const Tensor& b);

// A fresh contiguous CPU tensor (registered CPU allocator).
inline Tensor empty_cpu(IntArrayRef sizes, ScalarType dtype) { return native::empty_on(kCPU, sizes, dtype); }
// A fresh CPU tensor with the given strides (the storage covers exactly the elements reached).
inline Tensor empty_strided_cpu(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype) {
  return native::empty_strided_on(kCPU, sizes, strides, dtype);
}
// A contiguous copy of t (any dtype kept), used to break aliasing.
Tensor materialize(const Tensor& t);
// Kernel-internal views (no view record) of a complex tensor as its real parts with a trailing
// dimension of 2, and of such a real tensor (last stride 1, others even) as complex.
Tensor real_view(const Tensor& t);
Tensor complex_view(const Tensor& t);

// ---- TensorIter -----------------------------------------------------------------------------

constexpr int64_t kChunk = 256;

// The shared TensorIter (Note [Kernel metadata helpers]) on the CPU, copying inputs that
// partially overlap an output.
class TensorIter : public native::TensorIter {
 public:
  explicit TensorIter(const char* op) : native::TensorIter(op, kCPU, &materialize) {}
};

// ---- the chunked binary run (layer 3 of Note [CPU elementwise loops]) ---------------------------

// Runs out = op(a, b) on a built iterator with operands (out, a, b): inputs are converted to C,
// the result of type R is converted to the output's dtype.
template <class R, class C, class Op>
void run_binary(const TensorIter& it, const Op& op) {
  constexpr ScalarType rdt = scalar_type_of<R>, cdt = scalar_type_of<C>;
  const ScalarType odt = it.dtype(0), adt = it.dtype(1), bdt = it.dtype(2);
  const CastFn load_a = adt == cdt ? nullptr : cast_fn(adt, cdt);
  const CastFn load_b = bdt == cdt ? nullptr : cast_fn(bdt, cdt);
  const CastFn store = odt == rdt ? nullptr : cast_fn(rdt, odt);
  // Strided runs of the compute dtype are gathered with the identity conversion.
  const CastFn gather_a = load_a ? load_a : cast_fn(cdt, cdt);
  const CastFn gather_b = load_b ? load_b : cast_fn(cdt, cdt);
  const CastFn put = store ? store : cast_fn(rdt, rdt);
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    const bool a_vec = s[1] != 0, b_vec = s[2] != 0;
    if (!store && s[0] == int64_t{sizeof(R)} && !load_a && !load_b && (!a_vec || s[1] == int64_t{sizeof(C)}) &&
        (!b_vec || s[2] == int64_t{sizeof(C)})) {
      binary_loop<R, C, Op>(reinterpret_cast<R*>(d[0]), reinterpret_cast<const C*>(d[1]),
                            reinterpret_cast<const C*>(d[2]), n, a_vec, b_vec, op);
      return;
    }
    alignas(64) C abuf[kChunk];
    alignas(64) C bbuf[kChunk];
    alignas(64) R obuf[kChunk];
    // A broadcast input is converted once.
    if (!a_vec) {
      if (load_a)
        load_a(d[1], 0, reinterpret_cast<char*>(abuf), sizeof(C), 1);
      else
        abuf[0] = *reinterpret_cast<const C*>(d[1]);
    }
    if (!b_vec) {
      if (load_b)
        load_b(d[2], 0, reinterpret_cast<char*>(bbuf), sizeof(C), 1);
      else
        bbuf[0] = *reinterpret_cast<const C*>(d[2]);
    }
    for (int64_t i = 0; i < n; i += kChunk) {
      const int64_t m = std::min(kChunk, n - i);
      const C* pa = abuf;
      const C* pb = bbuf;
      if (a_vec) {
        const char* src = d[1] + i * s[1];
        if (!load_a && s[1] == int64_t{sizeof(C)})
          pa = reinterpret_cast<const C*>(src);
        else
          gather_a(src, s[1], reinterpret_cast<char*>(abuf), sizeof(C), m);
      }
      if (b_vec) {
        const char* src = d[2] + i * s[2];
        if (!load_b && s[2] == int64_t{sizeof(C)})
          pb = reinterpret_cast<const C*>(src);
        else
          gather_b(src, s[2], reinterpret_cast<char*>(bbuf), sizeof(C), m);
      }
      char* dst = d[0] + i * s[0];
      if (!store && s[0] == int64_t{sizeof(R)}) {
        binary_loop<R, C, Op>(reinterpret_cast<R*>(dst), pa, pb, m, a_vec, b_vec, op);
      } else {
        binary_loop<R, C, Op>(obuf, pa, pb, m, a_vec, b_vec, op);
        put(reinterpret_cast<const char*>(obuf), sizeof(R), dst, s[0], m);
      }
    }
  });
}

}  // namespace ember::cpu
