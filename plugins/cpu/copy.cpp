// Conversions and copies: the dtype cast table (cast_fn) and copy_. The device-generic _to_copy,
// clone, to, cpu and contiguous are composites in libember (api/src/native/copy.cpp).
#include "Loops.h"
#include "CPUKernels.h"
#include "ember/generated/Functions.h"

namespace ember::cpu {
namespace {

template <class S, class D>
EMBER_ALWAYS_INLINE void convert_body(const S* __restrict s, D* __restrict d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
}
template <class S, class D>
EMBER_NOINLINE void convert_baseline(const S* s, D* d, int64_t n) {
  convert_body(s, d, n);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <class S, class D>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void convert_avx2(const S* s, D* d, int64_t n) {
  convert_body(s, d, n);
}
template <class S, class D>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void convert_avx512(const S* s, D* d, int64_t n) {
  convert_body(s, d, n);
}
#endif

template <class S, class D>
void cast_loop(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  if (ss == int64_t{sizeof(S)} && ds == int64_t{sizeof(D)}) {
    if constexpr (std::is_same_v<S, D>) {
      if (src != dst) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(S));
    } else {
      const auto* s = reinterpret_cast<const S*>(src);
      auto* d = reinterpret_cast<D*>(dst);
#if defined(EMBER_CPU_MULTI_ISA)
      if (cpu_isa() == Isa::Avx512) return convert_avx512(s, d, n);
      if (cpu_isa() == Isa::Avx2) return convert_avx2(s, d, n);
#endif
      convert_baseline(s, d, n);
    }
    return;
  }
  if (ss == 0) {
    const D v = convert<D>(*reinterpret_cast<const S*>(src));
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<D*>(dst + i * ds) = v;
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<D*>(dst + i * ds) = convert<D>(*reinterpret_cast<const S*>(src + i * ss));
}

}  // namespace

CastFn cast_fn(ScalarType from, ScalarType to) {
  return visit_dtype_c(from, "copy_", [&](auto s) -> CastFn {
    using S = typename decltype(s)::type;
    return visit_dtype_c(to, "copy_", [&](auto d) -> CastFn {
      using D = typename decltype(d)::type;
      return &cast_loop<S, D>;
    });
  });
}

Scalar load_scalar(const void* p, ScalarType t) {
  if (t == kComplex64) return Scalar(*static_cast<const std::complex<float>*>(p));
  if (t == kComplex128) return Scalar(*static_cast<const std::complex<double>*>(p));
  return visit_dtype(t, "item", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return Scalar(*static_cast<const T*>(p));
  });
}

Tensor& copy_(Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  check_defined("copy_", self, "self");
  check_defined("copy_", src, "src");
  if (self.is_same(src)) return self;
  check_cpu("copy_", self, src);
  if (self.is_contiguous() && src.is_contiguous() && self.sizes() == src.sizes() &&
      !partially_overlaps(self, src)) {
    if (self.data_ptr() != src.data_ptr() || self.dtype() != src.dtype()) {
      const CastFn fn = cast_fn(src.dtype(), self.dtype());
      const auto ss = static_cast<int64_t>(src.itemsize()), ds = static_cast<int64_t>(self.itemsize());
      const char* sp = static_cast<const char*>(src.data_ptr());
      char* dp = static_cast<char*>(self.data_ptr());
      parallel_for(0, self.numel(), kGrainSize,
                   [&](int64_t b, int64_t e) { fn(sp + b * ss, ss, dp + b * ds, ds, e - b); });
    }
  } else {
    // Broadcasts src to self's shape; a src that partially overlaps self is read from a copy.
    TensorIter it("copy_");
    it.add_output(&self, self.dtype()).add_input(src).build();
    const CastFn fn = cast_fn(it.dtype(1), it.dtype(0));
    it.for_each([&](char** d, const int64_t* s, int64_t n) { fn(d[1], s[1], d[0], s[0], n); });
  }
  return self;
}






}  // namespace ember::cpu
