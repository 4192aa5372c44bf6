// The ISA choice of Note [CPU vector math].
#include "VecMath.h"

#include "Loops.h"

namespace ember::cpu {

#define EMBER_VM_DECLARE(ns)                                               \
  namespace ns {                                                           \
  void unary(VecOp op, const float* x, float* y, int64_t n);               \
  void binary(VecOp2 op, const float* a, const float* b, float* y, int64_t n, bool av, bool bv); \
  float max(const float* x, int64_t n);                                    \
  float exp_sum(const float* x, float m, float* y, int64_t n);             \
  }
EMBER_VM_DECLARE(avx2)
EMBER_VM_DECLARE(avx512)
#undef EMBER_VM_DECLARE

bool vec_unary_f32(VecOp op, const float* x, float* y, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512: avx512::unary(op, x, y, n); return true;
    case Isa::Avx2: avx2::unary(op, x, y, n); return true;
    default: return false;
  }
}

bool vec_binary_f32(VecOp2 op, const float* a, const float* b, float* y, int64_t n, bool a_vec, bool b_vec) {
  switch (cpu_isa()) {
    case Isa::Avx512: avx512::binary(op, a, b, y, n, a_vec, b_vec); return true;
    case Isa::Avx2: avx2::binary(op, a, b, y, n, a_vec, b_vec); return true;
    default: return false;
  }
}

bool has_vec_math() { return cpu_isa() != Isa::Baseline; }

float vec_max_f32(const float* x, int64_t n) {
  EMBER_INTERNAL_ASSERT(has_vec_math(), "vec_max_f32 needs AVX2");
  return cpu_isa() == Isa::Avx512 ? avx512::max(x, n) : avx2::max(x, n);
}

float vec_exp_sum_f32(const float* x, float m, float* y, int64_t n) {
  EMBER_INTERNAL_ASSERT(has_vec_math(), "vec_exp_sum_f32 needs AVX2");
  return cpu_isa() == Isa::Avx512 ? avx512::exp_sum(x, m, y, n) : avx2::exp_sum(x, m, y, n);
}

}  // namespace ember::cpu
