// TensorIter, type promotion and the geometry helpers of Loops.h.
#include "Loops.h"

#include <cstdlib>
#include <string_view>

#include "CPUKernels.h"

namespace ember::cpu {

namespace detail {
Isa g_isa = Isa::Baseline;
}

void init_cpu_isa() {
  Isa isa = Isa::Baseline;
#if defined(EMBER_CPU_MULTI_ISA)
  __builtin_cpu_init();
  // Feature by feature: clang 14 knows no "x86-64-v3/v4" names here.
  bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (v4) isa = Isa::Avx512;
  else if (v3) isa = Isa::Avx2;
#endif
  if (const char* cap = std::getenv("EMBER_CPU_ISA")) {
    std::string_view c(cap);
    Isa want = c == "baseline" ? Isa::Baseline : c == "avx2" ? Isa::Avx2 : Isa::Avx512;
    if (want < isa) isa = want;
  }
  detail::g_isa = isa;
}

void check_cpu(const char* op, const Tensor& a) {
  EMBER_CHECK(a.device().type() == kCPU, "[{}] expected a CPU tensor, got one on {}", op, a.device());
}

void check_cpu(const char* op, const Tensor& a, const Tensor& b) { native::check_same_device(op, kCPU, a, b); }

Tensor materialize(const Tensor& t) {
  Tensor r = empty_cpu(t.sizes(), t.dtype());
  copy_(r, t, false);
  return r;
}

Tensor real_view(const Tensor& t) {
  EMBER_INTERNAL_ASSERT(is_complex_type(t.dtype()), "real_view of a {} tensor", t.dtype());
  DimVector sizes(t.sizes()), strides;
  for (int64_t s : t.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), native::complex_to_real(t.dtype()), sizes, strides,
                                           2 * t.storage_offset(), kStrided));
}

Tensor complex_view(const Tensor& t) {
  EMBER_INTERNAL_ASSERT((t.dtype() == kFloat32 || t.dtype() == kFloat64) && t.dim() > 0 && t.size(-1) == 2 &&
                            t.stride(-1) == 1 && t.storage_offset() % 2 == 0,
                        "complex_view of an unsuitable tensor");
  DimVector sizes(t.sizes()), strides(t.strides());
  sizes.pop_back();
  strides.pop_back();
  for (auto& s : strides) s /= 2;
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), t.dtype() == kFloat32 ? kComplex64 : kComplex128, sizes,
                                           strides, t.storage_offset() / 2, kStrided));
}

}  // namespace ember::cpu
